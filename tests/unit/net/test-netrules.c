/* SPDX-License-Identifier: MIT */
/*
 * Network by domain (SPEC 12, R31), the pure parts: IP literals and their classes, domain names,
 * rule patterns, the "network" section of a rule file (positions and pointers of every error,
 * the workspace may only deny), and the decision across layers.
 */
#include <stdlib.h>
#include <string.h>

#include "util/addr.h"
#include "net/decide.h"
#include "policy/policy.h"
#include "rules/netrules.h"
#include "util/util.h"
#include "../tap.h"

static void test_ip(void)
{
	static const struct {
		const char *in, *out; /* out NULL: refused */
		const char *class;    /* NULL: public */
	} cases[] = {
	    {"127.0.0.1", "127.0.0.1", "loopback"},
	    {"127.255.0.9", "127.255.0.9", "loopback"},
	    {"10.1.2.3", "10.1.2.3", "private"},
	    {"172.16.0.1", "172.16.0.1", "private"},
	    {"172.31.255.255", "172.31.255.255", "private"},
	    {"172.32.0.1", "172.32.0.1", NULL},
	    {"192.168.1.1", "192.168.1.1", "private"},
	    {"169.254.169.254", "169.254.169.254", "link-local"},
	    {"100.64.0.1", "100.64.0.1", "shared"},
	    {"100.127.255.255", "100.127.255.255", "shared"},
	    {"100.128.0.1", "100.128.0.1", NULL},
	    {"224.0.0.1", "224.0.0.1", "multicast"},
	    {"239.255.255.250", "239.255.255.250", "multicast"},
	    {"0.0.0.0", "0.0.0.0", "unspecified"},
	    {"0.1.2.3", "0.1.2.3", "reserved"},
	    {"255.255.255.255", "255.255.255.255", "broadcast"},
	    {"240.0.0.1", "240.0.0.1", "reserved"},
	    {"198.18.0.1", "198.18.0.1", "reserved"},
	    {"8.8.8.8", "8.8.8.8", NULL},
	    {"140.82.112.3", "140.82.112.3", NULL},
	    {"::1", "::1", "loopback"},
	    {"::", "::", "unspecified"},
	    {"fe80::1", "fe80::1", "link-local"},
	    {"fd00::5", "fd00::5", "unique-local"},
	    {"fc12:3456::1", "fc12:3456::1", "unique-local"},
	    {"ff02::1", "ff02::1", "multicast"},
	    {"fec0::1", "fec0::1", "reserved"},
	    {"2001:db8::1", "2001:db8::1", "reserved"},
	    {"2606:4700::6810:84e5", "2606:4700::6810:84e5", NULL},
	    /* IPv4-mapped: the IPv4 host itself. */
	    {"::ffff:127.0.0.1", "127.0.0.1", "loopback"},
	    {"::FFFF:7f00:1", "127.0.0.1", "loopback"},
	    {"::ffff:169.254.169.254", "169.254.169.254", "link-local"},
	    {"::ffff:8.8.8.8", "8.8.8.8", NULL},
	    /* IPv4 inside NAT64 and the deprecated compatible form. */
	    {"64:ff9b::7f00:1", "64:ff9b::7f00:1", "ipv4-embedded"},
	    {"64:ff9b::808:808", "64:ff9b::808:808", NULL},
	    {"::127.0.0.1", "::7f00:1", "ipv4-embedded"},
	    {"2001:DB8:0:0:1:0:0:1", "2001:db8::1:0:0:1", "reserved"},
	    {"1:0:0:2:0:0:0:3", "1:0:0:2::3", NULL},
	    {"1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8", NULL},
	    {"1::", "1::", NULL},
	    /* Refused forms: what inet_aton would read as an address is not a literal here. */
	    {"127.1", NULL, NULL},
	    {"0177.0.0.1", NULL, NULL},
	    {"127.0.0.01", NULL, NULL},
	    {"0x7f.0.0.1", NULL, NULL},
	    {"256.0.0.1", NULL, NULL},
	    {"1.2.3.4.5", NULL, NULL},
	    {"1.2.3.", NULL, NULL},
	    {"", NULL, NULL},
	    {":::", NULL, NULL},
	    {"1:2:3:4:5:6:7:8:9", NULL, NULL},
	    {"1::2::3", NULL, NULL},
	    {"1:", NULL, NULL},
	    {"12345::1", NULL, NULL},
	    {"fe80::1%eth0", NULL, NULL},
	    {"::ffff:1.2.3", NULL, NULL},
	    {"1:2:3:4:5:6:7:1.2.3.4", NULL, NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cf_ip ip;
		bool ok = cf_ip_parse(cases[i].in, strlen(cases[i].in), &ip);
		if (!cases[i].out) {
			TAP_OK(!ok, "'%s' is not an IP literal", cases[i].in);
			continue;
		}
		char text[CF_IP_TEXT];
		text[0] = '\0';
		if (ok)
			cf_ip_format(&ip, text, sizeof(text));
		TAP_STREQ(text, cases[i].out, "'%s' parses and prints as '%s'", cases[i].in,
			  cases[i].out);
		TAP_STREQ(ok ? cf_ip_special(&ip) : "?", cases[i].class, "'%s' is %s", cases[i].in,
			  cases[i].class ? cases[i].class : "public");
	}
}

static void test_names(void)
{
	static const struct {
		const char *in, *out; /* out NULL: refused */
	} cases[] = {
	    {"GitHub.com", "github.com"},
	    {"registry.npmjs.org.", "registry.npmjs.org"},
	    {"a-b_c.example", "a-b_c.example"},
	    {"x.io", "x.io"},
	    {"localhost", "localhost"},
	    {"", NULL},
	    {".", NULL},
	    {"a..b", NULL},
	    {".a", NULL},
	    {"-a.com", NULL},
	    {"a-.com", NULL},
	    {"a.com-", NULL},
	    {"a b.com", NULL},
	    {"a.b.c.1", NULL},
	    {"127.1", NULL},
	    {"0x7f000001", NULL},
	    {"2130706433", NULL},
	    {"caf\xc3\xa9.fr", NULL},
	    {"a/b.com", NULL},
	    {"a.com..", NULL},
	    {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[CF_HOST_MAX + 1];
		const char *why =
		    cf_host_normalize(cases[i].in, strlen(cases[i].in), out, sizeof(out));
		if (cases[i].out)
			TAP_STREQ(why ? why : out, cases[i].out, "name '%s' -> '%s'", cases[i].in,
				  cases[i].out);
		else
			TAP_OK(why != NULL, "name '%s' refused (%s)", cases[i].in, why ? why : "-");
	}
	char long_name[300];
	memset(long_name, 'a', sizeof(long_name));
	for (int i = 63; i < 300; i += 64)
		long_name[i] = '.';
	char out[CF_HOST_MAX + 1];
	TAP_OK(cf_host_normalize(long_name, 253, out, sizeof(out)) == NULL,
	       "a name of 253 characters is a name");
	TAP_OK(cf_host_normalize(long_name, 254, out, sizeof(out)) != NULL,
	       "a name of 254 characters is refused");
}

static void test_patterns(void)
{
	static const struct {
		const char *in;
		const char *host; /* NULL: refused */
		bool sub, ip;
		unsigned port;
	} cases[] = {
	    {"github.com", "github.com", false, false, 0},
	    {"*.npmjs.org", "npmjs.org", true, false, 0},
	    {"GitHub.COM:443", "github.com", false, false, 443},
	    {"*.example.com:8080", "example.com", true, false, 8080},
	    {"127.0.0.5", "127.0.0.5", false, true, 0},
	    {"127.0.0.5:8000", "127.0.0.5", false, true, 8000},
	    {"::1", "::1", false, true, 0},
	    {"2001:db8::1", "2001:db8::1", false, true, 0},
	    {"[2001:db8::1]", "2001:db8::1", false, true, 0},
	    {"[::1]:443", "::1", false, true, 443},
	    {"[::ffff:10.0.0.1]", "10.0.0.1", false, true, 0},
	    {"", NULL, false, false, 0},
	    {"*", NULL, false, false, 0},
	    {"*.", NULL, false, false, 0},
	    {"a.*.com", NULL, false, false, 0},
	    {"*github.com", NULL, false, false, 0},
	    {"**.github.com", NULL, false, false, 0},
	    {"*.127.0.0.1", NULL, false, false, 0},
	    {"github.com:0", NULL, false, false, 0},
	    {"github.com:65536", NULL, false, false, 0},
	    {"github.com:08", NULL, false, false, 0},
	    {"github.com:", NULL, false, false, 0},
	    {"github.com:http", NULL, false, false, 0},
	    {"[::1", NULL, false, false, 0},
	    {"[::1]x", NULL, false, false, 0},
	    {"[github.com]", NULL, false, false, 0},
	    {"[127.0.0.1]", NULL, false, false, 0},
	    {"http://github.com", NULL, false, false, 0},
	    {"github.com/path", NULL, false, false, 0},
	    {" github.com", NULL, false, false, 0},
	    {"127.1", NULL, false, false, 0},
	    /* Address ranges. */
	    {"10.0.0.0/8", "10.0.0.0/8", false, true, 0},
	    {"203.0.113.0/24:443", "203.0.113.0/24", false, true, 443},
	    {"127.0.0.1/32", "127.0.0.1/32", false, true, 0},
	    {"fd00::/8", "fd00::/8", false, true, 0},
	    {"FD00:0::/8", "fd00::/8", false, true, 0},
	    {"[fd00::/8]:8080", "fd00::/8", false, true, 8080},
	    {"[fd00::/8]", "fd00::/8", false, true, 0},
	    {"::ffff:10.0.0.0/104", "10.0.0.0/8", false, true, 0},
	    {"10.1.2.3/8", NULL, false, false, 0},
	    {"10.0.0.0/0", NULL, false, false, 0},
	    {"::/0", NULL, false, false, 0},
	    {"10.0.0.0/33", NULL, false, false, 0},
	    {"fd00::/129", NULL, false, false, 0},
	    {"10.0.0.0/08", NULL, false, false, 0},
	    {"10.0.0.0/", NULL, false, false, 0},
	    {"10.0.0.0/8x", NULL, false, false, 0},
	    {"10.0.0.0/-8", NULL, false, false, 0},
	    {"10.0.0.0/8/8", NULL, false, false, 0},
	    {"[10.0.0.0/8]", NULL, false, false, 0},
	    {"*.10.0.0.0/8", NULL, false, false, 0},
	    {"example.com/8", NULL, false, false, 0},
	    {"::ffff:10.0.0.0/95", NULL, false, false, 0},
	    {"[fd00::/8", NULL, false, false, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cf_net_rule r = {0};
		const char *why = cf_net_pattern_parse(cases[i].in, strlen(cases[i].in), &r);
		if (!cases[i].host) {
			TAP_OK(why != NULL, "pattern '%s' refused (%s)", cases[i].in,
			       why ? why : "-");
			continue;
		}
		TAP_OK(!why && !strcmp(r.host, cases[i].host) && r.subdomains == cases[i].sub &&
			   r.is_ip == cases[i].ip && r.port == cases[i].port,
		       "pattern '%s': host '%s'%s%s port %u (%s)", cases[i].in, r.host,
		       r.subdomains ? " and below" : "", r.is_ip ? " address" : "", r.port,
		       why ? why : "ok");
	}
}

struct want {
	const char *where, *msg;
};

static void parse_case(const char *name, const char *text, enum cf_layer layer, size_t n_net,
		       const struct want *w, size_t n_want)
{
	struct cf_ruleset rs = {0};
	struct cf_net_rules net = {0};
	struct cf_diags d = {0};
	struct confine_error err = {0};
	int rc = cf_rules_parse_net(text, strlen(text), "f.json", layer, &rs, &net, &d, &err);
	TAP_INTEQ(d.n, n_want, "%s: %zu diagnostic(s)", name, n_want);
	TAP_OK((rc == 0) == (n_want == 0), "%s: return code %d", name, rc);
	for (size_t i = 0; i < d.n && i < n_want; i++) {
		char where[128];
		snprintf(where, sizeof(where), "%d:%d %s", d.v[i].line, d.v[i].column,
			 d.v[i].pointer);
		TAP_STREQ(where, w[i].where, "%s: diagnostic %zu position and pointer", name, i);
		TAP_OK(strstr(d.v[i].message, w[i].msg) != NULL, "%s: message '%s' has '%s'", name,
		       d.v[i].message, w[i].msg);
	}
	TAP_INTEQ(net.n, n_net, "%s: %zu network rule(s) kept", name, n_net);
	cf_ruleset_release(&rs);
	cf_net_rules_release(&net);
	cf_diags_release(&d);
}

static void test_file(void)
{
	parse_case(
	    "network only",
	    "{\"version\": 1,\n \"network\": {\"allow\": [\"github.com\", \"*.npmjs.org\"],\n"
	    "  \"deny\": [\"gist.github.com\"]}}",
	    CF_LAYER_USER, 3, NULL, 0);
	parse_case("rules and network",
		   "{\"version\": 1, \"rules\": [], \"network\": {\"deny\": [\"x.io\"]}}",
		   CF_LAYER_WORKSPACE, 1, NULL, 0);
	parse_case("network empty", "{\"version\": 1, \"network\": {}}", CF_LAYER_USER, 0, NULL, 0);
	static const struct want ws_allow2[] = {
	    {"3:13 /network/allow/0", "may deny domains but not allow them"},
	    {"3:21 /network/allow/1", "may deny domains but not allow them"}};
	parse_case("workspace allows: every one reported",
		   "{\"version\": 1,\n \"network\": {\"deny\": [\"a.io\"],\n"
		   "  \"allow\": [\"b.io\", \"c.io\"]}}",
		   CF_LAYER_WORKSPACE, 1, ws_allow2, 2);
	static const struct want bad[] = {
	    {"2:12 /network/allow/0", "\"*.*.io\": '*' is only allowed"},
	    {"2:22 /network/allow/1", "a network rule is a string"},
	    {"2:25 /network/allow/2", "the port after ':' must be a number"},
	    {"3:3 /network/other", "unknown key \"other\""},
	};
	parse_case("bad entries: every one reported",
		   "{\"version\": 1, \"network\": {\n \"allow\": [\"*.*.io\", 7, \"a.io:99999\"],\n"
		   "  \"other\": []}}",
		   CF_LAYER_USER, 0, bad, 4);
	static const struct want not_obj[] = {{"1:27 /network", "must be an object"}};
	parse_case("network not an object", "{\"version\": 1, \"network\": []}", CF_LAYER_USER, 0,
		   not_obj, 1);
	static const struct want not_arr[] = {{"1:36 /network/deny", "must be an array"}};
	parse_case("list not an array", "{\"version\": 1, \"network\": {\"deny\": \"x.io\"}}",
		   CF_LAYER_USER, 0, not_arr, 1);
	static const struct want none[] = {{"1:1 /rules", "missing required key 'rules'"}};
	parse_case("neither rules nor network", "{\"version\": 1}", CF_LAYER_USER, 0, none, 1);

	/* Positions of the kept rules, for explain. */
	struct cf_ruleset rs = {0};
	struct cf_net_rules net = {0};
	struct cf_diags d = {0};
	const char *text = "{\"version\": 1, \"network\": {\n  \"allow\": [\"a.io\",\n"
			   "     \"b.io:443\"], \"deny\": [\"c.io\"]}}";
	cf_rules_parse_net(text, strlen(text), "f.json", CF_LAYER_USER, &rs, &net, &d, NULL);
	TAP_INTEQ(net.n, 3, "three rules kept");
	if (net.n == 3) {
		TAP_OK(net.v[0].action == CF_DENY && !strcmp(net.v[0].pattern, "c.io") &&
			   net.v[0].line == 3 && net.v[0].column == 28 && net.v[0].index == 0,
		       "the deny list comes first: c.io at 3:28, index 0");
		TAP_OK(net.v[2].action == CF_ALLOW && net.v[2].port == 443 && net.v[2].line == 3 &&
			   net.v[2].column == 6 && net.v[2].index == 1 &&
			   !strcmp(net.v[2].source, "f.json") && net.v[2].layer == CF_LAYER_USER,
		       "b.io:443 at 3:6, index 1 of allow, source and layer");
	}
	cf_ruleset_release(&rs);
	cf_net_rules_release(&net);
	cf_diags_release(&d);
	/* cf_rules_parse checks the section as well, and keeps only the path rules. */
	static const char bad_ws[] = "{\"version\": 1, \"network\": {\"allow\": [\"x.io\"]}}";
	TAP_INTEQ(
	    cf_rules_parse(bad_ws, strlen(bad_ws), "f.json", CF_LAYER_WORKSPACE, &rs, &d, NULL),
	    CONFINE_E_RULES, "cf_rules_parse refuses a workspace allow too");
	cf_ruleset_release(&rs);
	cf_diags_release(&d);
}

static void add(struct cf_net_policy *p, enum cf_layer l, enum cf_action a, const char *pat,
		int line)
{
	struct cf_net_rules rs = {0};
	struct cf_net_rule r = {0};
	const char *why = cf_net_pattern_parse(pat, strlen(pat), &r);
	if (why) {
		TAP_OK(0, "pattern %s: %s", pat, why);
		return;
	}
	r.pattern = (char *)pat;
	r.action = a;
	r.source = "test";
	r.line = line;
	cf_net_rules_add(&rs, &r, NULL);
	TAP_INTEQ(cf_net_policy_add(p, l, &rs, NULL), 0, "add %s", pat);
	cf_net_rules_release(&rs);
}

static const char *decide(const struct cf_net_policy *p, const char *host, uint16_t port)
{
	static char buf[256];
	char norm[CF_HOST_MAX + 1];
	bool is_ip;
	struct cf_ip ip;
	const char *why =
	    cf_net_host_parse(host, strlen(host), true, norm, sizeof(norm), &is_ip, &ip);
	if (why)
		return why;
	struct cf_net_decision d;
	cf_net_decide(p, norm, is_ip ? &ip : NULL, port, &d);
	snprintf(buf, sizeof(buf), "%s %s%s%s", cf_action_name(d.action), cf_layer_name(d.layer),
		 d.rule ? " " : "", d.rule ? d.rule->pattern : "");
	return buf;
}

static void test_decide(void)
{
	struct cf_net_policy p = {0};
	add(&p, CF_LAYER_SESSION, CF_ALLOW, "api.example.com", 1);
	add(&p, CF_LAYER_SESSION, CF_ALLOW, "127.0.0.5", 2);
	add(&p, CF_LAYER_WORKSPACE, CF_DENY, "*.example.com", 3);
	add(&p, CF_LAYER_WORKSPACE, CF_DENY, "pypi.org", 4);
	add(&p, CF_LAYER_USER, CF_ALLOW, "*.github.com", 5);
	add(&p, CF_LAYER_USER, CF_DENY, "gist.github.com", 6);
	add(&p, CF_LAYER_USER, CF_ALLOW, "pypi.org", 7);
	add(&p, CF_LAYER_USER, CF_ALLOW, "example.com:443", 8);
	add(&p, CF_LAYER_USER, CF_ALLOW, "[::1]:8080", 9);
	TAP_INTEQ(cf_net_policy_allows(&p), 6, "six allows");
	TAP_INTEQ(cf_net_policy_count(&p), 9, "nine rules");

	TAP_STREQ(decide(&p, "api.example.com", 443), "allow session api.example.com",
		  "the session comes before the workspace");
	TAP_STREQ(decide(&p, "www.example.com", 443), "deny workspace *.example.com",
		  "a workspace deny of every subdomain");
	TAP_STREQ(decide(&p, "example.com", 443), "allow user example.com:443",
		  "'*.' does not cover the domain itself");
	TAP_STREQ(decide(&p, "example.com", 80), "ask fallback", "a port rule holds for its port");
	TAP_STREQ(decide(&p, "pypi.org", 443), "deny workspace pypi.org",
		  "a workspace deny beats a user allow");
	TAP_STREQ(decide(&p, "gist.github.com", 443), "deny user gist.github.com",
		  "within a layer the deny list comes first");
	TAP_STREQ(decide(&p, "a.b.github.com", 22), "allow user *.github.com",
		  "'*.' covers every depth");
	TAP_STREQ(decide(&p, "github.com", 443), "ask fallback", "github.com itself is unlisted");
	TAP_STREQ(decide(&p, "evilgithub.com", 443), "ask fallback",
		  "a suffix without a dot does not match");
	TAP_STREQ(decide(&p, "API.Example.COM.", 443), "allow session api.example.com",
		  "names compare normalised");
	TAP_STREQ(decide(&p, "127.0.0.5", 9), "allow session 127.0.0.5", "an address rule");
	TAP_STREQ(decide(&p, "[::ffff:127.0.0.5]", 9), "allow session 127.0.0.5",
		  "the IPv4-mapped form is the same address");
	TAP_STREQ(decide(&p, "127.0.0.6", 9), "ask fallback", "another address is unlisted");
	TAP_STREQ(decide(&p, "[::1]", 8080), "allow user [::1]:8080", "an IPv6 address and port");
	TAP_STREQ(decide(&p, "[::1]", 8081), "ask fallback", "another port");
	add(&p, CF_LAYER_SESSION, CF_ALLOW, "10.0.0.0/8", 11);
	add(&p, CF_LAYER_SESSION, CF_ALLOW, "[fd00::/8]:8443", 12);
	add(&p, CF_LAYER_SESSION, CF_DENY, "10.9.0.0/16", 13);
	TAP_STREQ(decide(&p, "10.1.2.3", 80), "allow session 10.0.0.0/8", "an address in a range");
	TAP_STREQ(decide(&p, "10.255.255.255", 80), "allow session 10.0.0.0/8",
		  "the range's last address");
	TAP_STREQ(decide(&p, "11.0.0.0", 80), "ask fallback", "the next address is outside");
	TAP_STREQ(decide(&p, "10.9.1.1", 80), "deny session 10.9.0.0/16",
		  "a narrower deny of the layer comes first");
	TAP_STREQ(decide(&p, "[::ffff:10.1.2.3]", 80), "allow session 10.0.0.0/8",
		  "the IPv4-mapped form of an address in the range");
	TAP_STREQ(decide(&p, "[fd12::1]", 8443), "allow session [fd00::/8]:8443",
		  "an IPv6 range with its port");
	TAP_STREQ(decide(&p, "[fd12::1]", 443), "ask fallback", "... on another port");
	TAP_STREQ(decide(&p, "[fe00::1]", 8443), "ask fallback", "outside the IPv6 range");
	TAP_STREQ(decide(&p, "ten.example", 80), "ask fallback", "a range never matches a name");

	/* Addresses after resolution. */
	char buf[256];
	struct cf_net_decision by;
	struct cf_ip ip;
	cf_ip_parse("127.0.0.1", 9, &ip);
	const char *why = cf_net_address_check(&p, &ip, 80, &by, buf, sizeof(buf));
	TAP_OK(why && strstr(why, "127.0.0.1 is a loopback address"), "127.0.0.1 refused: %s",
	       why ? why : "-");
	cf_ip_parse("127.0.0.5", 9, &ip);
	TAP_OK(!cf_net_address_check(&p, &ip, 80, &by, buf, sizeof(buf)) && by.rule,
	       "127.0.0.5 named by a rule: allowed");
	cf_ip_parse("169.254.169.254", 15, &ip);
	why = cf_net_address_check(&p, &ip, 80, &by, buf, sizeof(buf));
	TAP_OK(why && strstr(why, "link-local"), "the metadata address refused: %s",
	       why ? why : "-");
	cf_ip_parse("140.82.112.3", 12, &ip);
	TAP_OK(!cf_net_address_check(&p, &ip, 443, &by, buf, sizeof(buf)) && !by.rule,
	       "a public address needs no rule");
	cf_ip_parse("::1", 3, &ip);
	why = cf_net_address_check(&p, &ip, 80, &by, buf, sizeof(buf));
	TAP_OK(why != NULL, "::1 port 80 refused: the rule names port 8080");
	TAP_OK(!cf_net_address_check(&p, &ip, 8080, &by, buf, sizeof(buf)),
	       "::1 port 8080 named by a rule");
	cf_ip_parse("10.200.0.1", 10, &ip);
	TAP_OK(!cf_net_address_check(&p, &ip, 80, &by, buf, sizeof(buf)) && by.rule,
	       "a private address inside an allowed range: allowed");
	cf_ip_parse("10.9.0.1", 8, &ip);
	why = cf_net_address_check(&p, &ip, 80, &by, buf, sizeof(buf));
	TAP_OK(why && strstr(why, "denied by rule '10.9.0.0/16'"), "one inside a denied range: %s",
	       why ? why : "-");
	struct cf_ip net;
	unsigned bits = 0;
	char text[CF_IP_TEXT];
	static const struct {
		const char *ip, *net;
		unsigned bits;
	} ranges[] = {{"10.1.2.3", "10.0.0.0", 8},	{"172.20.0.1", "172.16.0.0", 12},
		      {"127.0.0.9", "127.0.0.0", 8},	{"169.254.169.254", "169.254.0.0", 16},
		      {"100.64.3.4", "100.64.0.0", 10}, {"fd12::1", "fc00::", 7},
		      {"fe80::1", "fe80::", 10},	{"203.0.113.9", "203.0.113.0", 24}};
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		cf_ip_parse(ranges[i].ip, strlen(ranges[i].ip), &ip);
		bool found = cf_ip_special_range(&ip, &net, &bits);
		cf_ip_format(&net, text, sizeof(text));
		TAP_OK(found && !strcmp(text, ranges[i].net) && bits == ranges[i].bits,
		       "the special range of %s is %s/%u", ranges[i].ip, text, bits);
	}
	cf_ip_parse("140.82.112.3", 12, &ip);
	TAP_OK(!cf_ip_special_range(&ip, &net, &bits), "a public address has no special range");
	add(&p, CF_LAYER_USER, CF_DENY, "140.82.112.3", 10);
	cf_ip_parse("140.82.112.3", 12, &ip);
	why = cf_net_address_check(&p, &ip, 443, &by, buf, sizeof(buf));
	TAP_OK(why && strstr(why, "denied by rule"), "a denied public address: %s",
	       why ? why : "-");

	struct cf_net_rules ws = {0};
	struct cf_net_rule r = {0};
	cf_net_pattern_parse("x.io", 4, &r);
	r.pattern = "x.io";
	r.action = CF_ALLOW;
	cf_net_rules_add(&ws, &r, NULL);
	TAP_INTEQ(cf_net_policy_add(&p, CF_LAYER_WORKSPACE, &ws, NULL), CONFINE_E_RULES,
		  "the policy refuses a workspace allow from anywhere");
	cf_net_rules_release(&ws);
	cf_net_policy_release(&p);
}

int main(void)
{
	test_ip();
	test_names();
	test_patterns();
	test_file();
	test_decide();
	return tap_done();
}
