/* SPDX-License-Identifier: MIT */
/*
 * R43, the pure parts of the upstream proxy and of the sandbox's resolver files: the proxy URL
 * (credentials, ports, refused schemes), NO_PROXY as curl reads it, and resolv.conf, hosts and
 * nsswitch.conf made from the host's.
 */
#include <stdlib.h>
#include <string.h>

#include "net/resolvconf.h"
#include "rules/upstream.h"
#include "../tap.h"

static void test_url(void)
{
	struct cf_upstream u;
	TAP_OK(!cf_upstream_parse("http://proxy.corp:3128", &u) && !strcmp(u.host, "proxy.corp") &&
		   u.port == 3128 && !u.auth[0] && !strcmp(u.shown, "http://proxy.corp:3128"),
	       "http://proxy.corp:3128");
	cf_upstream_release(&u);
	TAP_OK(!cf_upstream_parse("HTTP://u%40x:p%3Ass@127.0.0.8:8080/", &u) &&
		   !strcmp(u.host, "127.0.0.8") && u.is_ip && u.port == 8080 &&
		   !strcmp(u.password, "p:ss") && !strcmp(u.shown, "http://127.0.0.8:8080"),
	       "credentials percent-decoded, never shown");
	/* base64("u@x:p:ss") */
	TAP_STREQ(u.auth, "Basic dUB4OnA6c3M=", "the Basic credentials");
	cf_upstream_release(&u);
	TAP_OK(!cf_upstream_parse("proxy:8080", &u) && u.port == 8080, "no scheme: http");
	cf_upstream_release(&u);
	TAP_OK(!cf_upstream_parse("http://[::1]", &u) && u.port == 80 && u.ip.family == 6 &&
		   !strcmp(u.shown, "http://[::1]:80"),
	       "an IPv6 address, port 80 by default");
	cf_upstream_release(&u);
	static const char *const bad[] = {
	    "https://proxy:443", "socks5://proxy:1080", "http://proxy:0", "http://proxy:99999",
	    "http://proxy/path", "http://a%zz@proxy:1", "http://",	  "http://a b:1",
	    "http://u:%00@p:1"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		TAP_OK(cf_upstream_parse(bad[i], &u) != NULL, "refused: %s", bad[i]);
		cf_upstream_release(&u);
	}
}

static void test_no_proxy(void)
{
	struct cf_upstream u;
	cf_upstream_parse("http://p:1", &u);
	cf_upstream_no_proxy(
	    &u, " .corp.example, intra.test:8443 10.0.0.0/8,192.0.2.7, [::1] ,,bad name");
	struct cf_ip ten = {.family = 4, .b = {10, 1, 2, 3}},
		     doc = {.family = 4, .b = {192, 0, 2, 7}};
	struct cf_ip pub = {.family = 4, .b = {93, 184, 216, 34}};
	TAP_OK(cf_upstream_direct(&u, "corp.example", NULL, 443), "the name itself");
	TAP_OK(cf_upstream_direct(&u, "git.corp.example", NULL, 443), "a name below it");
	TAP_OK(!cf_upstream_direct(&u, "xcorp.example", NULL, 443), "not a name that ends alike");
	TAP_OK(cf_upstream_direct(&u, "intra.test", NULL, 8443), "with its port");
	TAP_OK(!cf_upstream_direct(&u, "intra.test", NULL, 443), "not on another port");
	TAP_OK(cf_upstream_direct(&u, "10.1.2.3", &ten, 80), "an address in a range");
	TAP_OK(cf_upstream_direct(&u, "192.0.2.7", &doc, 80), "an address");
	TAP_OK(!cf_upstream_direct(&u, "93.184.216.34", &pub, 80), "another address: upstream");
	TAP_OK(!cf_upstream_direct(&u, "registry.npmjs.org", NULL, 443), "another name: upstream");
	cf_upstream_release(&u);
	cf_upstream_parse("http://p:1", &u);
	cf_upstream_no_proxy(&u, "*");
	TAP_OK(cf_upstream_direct(&u, "any.test", NULL, 1), "'*': everything directly");
	cf_upstream_release(&u);
}

static char *make(void (*fn)(const char *, struct cf_buf *), const char *in)
{
	struct cf_buf b;
	cf_buf_init(&b);
	fn(in, &b);
	return cf_buf_take(&b);
}

static void test_files(void)
{
	char *s = make(cf_resolv_conf, "nameserver 10.0.0.53\nsearch corp.example\noptions "
				       "ndots:2\nnameserver 8.8.8.8\ndomain x\x01y\n");
	TAP_STREQ(s,
		  "# confine: the resolver inside the sandbox (names are decided by confine's "
		  "rules)\nnameserver 127.0.0.1\nsearch corp.example\noptions ndots:2\n",
		  "resolv.conf: 127.0.0.1 only, the host's search and options, no control byte");
	free(s);
	s = make(cf_resolv_conf, NULL);
	TAP_OK(s && strstr(s, "nameserver 127.0.0.1\n"), "resolv.conf without the host's");
	free(s);
	s = make(cf_hosts_file, "127.0.0.1 localhost\n127.0.1.1 myhost\n10.1.2.3 git.corp\n::1 "
				"ip6-localhost\nfe80::1 link\n# 127.0.0.2 comment\n");
	TAP_STREQ(s,
		  "# confine: the host's loopback lines; every other name is decided by confine's "
		  "rules\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
		  "127.0.0.1 localhost\n127.0.1.1 myhost\n::1 ip6-localhost\n",
		  "hosts: loopback lines only");
	free(s);
	s = make(cf_nsswitch, "passwd: files systemd\nhosts: files mdns4_minimal [NOTFOUND=return] "
			      "resolve dns myhostname\nnetworks: files\n");
	TAP_STREQ(s, "passwd: files systemd\nhosts: files dns\nnetworks: files\n",
		  "nsswitch.conf: hosts from files and DNS only");
	free(s);
	s = make(cf_nsswitch, "passwd: files\n");
	TAP_STREQ(s, "passwd: files\nhosts: files dns\n", "a hosts line where the host has none");
	free(s);
}

int main(void)
{
	test_url();
	test_no_proxy();
	test_files();
	return tap_done();
}
