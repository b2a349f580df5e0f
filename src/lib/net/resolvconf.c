/* SPDX-License-Identifier: MIT */
/* The sandbox's resolver configuration (see resolvconf.h).  Pure. */
#include <string.h>

#include "util/addr.h"
#include "net/resolvconf.h"

/* Calls fn on each line of text (without its newline) that holds only printable ASCII and
 * tabs. */
static void each_line(const char *text, void (*fn)(const char *, size_t, void *), void *ctx)
{
	for (const char *s = text; s && *s;) {
		size_t n = strcspn(s, "\n");
		bool clean = true;
		for (size_t i = 0; i < n && clean; i++)
			clean = (s[i] >= 0x20 && s[i] < 0x7f) || s[i] == '\t' ||
				(s[i] == '\r' && i + 1 == n);
		if (clean)
			fn(s, n && s[n - 1] == '\r' ? n - 1 : n, ctx);
		s += n + (s[n] == '\n');
	}
}

/* The first word of a line (after blanks), and where it ends. */
static size_t first_word(const char *s, size_t n, size_t *start)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	*start = i;
	while (i < n && s[i] != ' ' && s[i] != '\t')
		i++;
	return i - *start;
}

static bool word_is(const char *s, size_t n, const char *w)
{
	return n == strlen(w) && !memcmp(s, w, n);
}

static void resolv_line(const char *s, size_t n, void *ctx)
{
	size_t at, wl = first_word(s, n, &at);
	if (word_is(s + at, wl, "search") || word_is(s + at, wl, "domain") ||
	    word_is(s + at, wl, "options")) {
		cf_buf_addn(ctx, s, n);
		cf_buf_addc(ctx, '\n');
	}
}

void cf_resolv_conf(const char *host_text, struct cf_buf *out)
{
	cf_buf_add(out, "# confine: the resolver inside the sandbox (names are decided by "
			"confine's rules)\nnameserver 127.0.0.1\n");
	each_line(host_text, resolv_line, out);
}

static void hosts_line(const char *s, size_t n, void *ctx)
{
	size_t at, wl = first_word(s, n, &at);
	struct cf_ip ip;
	if (!wl || s[at] == '#' || !cf_ip_parse(s + at, wl, &ip))
		return;
	bool loopback =
	    (ip.family == 4 && ip.b[0] == 127) ||
	    (ip.family == 6 && cf_ip_special(&ip) && !strcmp(cf_ip_special(&ip), "loopback"));
	if (!loopback)
		return;
	cf_buf_addn(ctx, s, n);
	cf_buf_addc(ctx, '\n');
}

void cf_hosts_file(const char *host_text, struct cf_buf *out)
{
	cf_buf_add(out, "# confine: the host's loopback lines; every other name is decided by "
			"confine's rules\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost "
			"ip6-loopback\n");
	each_line(host_text, hosts_line, out);
}

struct ns_ctx {
	struct cf_buf *out;
	bool hosts;
};

static void ns_line(const char *s, size_t n, void *ctx)
{
	struct ns_ctx *c = ctx;
	size_t at, wl = first_word(s, n, &at);
	if (word_is(s + at, wl, "hosts:")) {
		if (!c->hosts)
			cf_buf_add(c->out, "hosts: files dns\n");
		c->hosts = true;
		return;
	}
	cf_buf_addn(c->out, s, n);
	cf_buf_addc(c->out, '\n');
}

void cf_nsswitch(const char *host_text, struct cf_buf *out)
{
	struct ns_ctx c = {out, false};
	each_line(host_text, ns_line, &c);
	if (!c.hosts)
		cf_buf_add(out, "hosts: files dns\n");
}
