/* SPDX-License-Identifier: MIT */
/* Credential placeholders (see secrets.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "net/secrets.h"
#include "util/base64.h"

void cf_secrets_init(struct cf_secrets *s)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
}

void cf_secrets_release(struct cf_secrets *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct cf_secret *x = &s->v[i];
		if (x->value) {
			explicit_bzero(x->value, x->value_len);
			free(x->value);
		}
		free(x->name);
		cf_net_policy_release(&x->hosts);
		cf_strv_release(&x->host_list);
	}
	free(s->v);
	cf_net_policy_release(&s->inspect);
	free(s->events);
	pthread_mutex_destroy(&s->lock);
	memset(s, 0, sizeof(*s));
}

static int add_pattern(struct cf_net_policy *p, const char *pattern, struct confine_error *err)
{
	struct cf_net_rules rs = {0};
	struct cf_net_rule r = {0};
	const char *why = cf_net_pattern_parse(pattern, strlen(pattern), &r);
	if (why)
		return cf_err(err, CONFINE_E_INVALID, "invalid host", pattern, "%s", why);
	r.pattern = (char *)pattern;
	r.action = CF_ALLOW;
	r.layer = CF_LAYER_SESSION;
	r.source = "secret";
	int rc = cf_net_rules_add(&rs, &r, err);
	if (rc == 0)
		rc = cf_net_policy_add(p, CF_LAYER_SESSION, &rs, err);
	cf_net_rules_release(&rs);
	return rc;
}

/* The stable middle of the base64 of the placeholder after k bytes of anything: the
 * characters every one of whose bits comes from the placeholder. */
static void base64_form(struct cf_secret *x, int slot, unsigned k, bool url)
{
	uint8_t in[CF_PLACEHOLDER_LEN + 2] = {0};
	char enc[CF_BASE64_LEN(CF_PLACEHOLDER_LEN + 2) + 1];
	memcpy(in + k, x->placeholder, CF_PLACEHOLDER_LEN);
	cf_base64_encode(in, k + CF_PLACEHOLDER_LEN, url, false, enc);
	size_t first = (8 * k + 5) / 6, end = 8 * (k + CF_PLACEHOLDER_LEN) / 6;
	memcpy(x->form[slot], enc + first, end - first);
	x->form[slot][end - first] = '\0';
	x->form_len[slot] = end - first;
	x->form_name[slot] = "base64";
	x->form_ci[slot] = false;
}

static void make_forms(struct cf_secret *x)
{
	static const char hex[] = "0123456789abcdef";
	memcpy(x->form[0], x->placeholder, CF_PLACEHOLDER_LEN + 1);
	x->form_len[0] = CF_PLACEHOLDER_LEN;
	x->form_name[0] = "plain";
	x->form_ci[0] = true;
	for (size_t i = 0; i < CF_PLACEHOLDER_LEN; i++) {
		x->form[1][2 * i] = hex[(unsigned char)x->placeholder[i] >> 4];
		x->form[1][2 * i + 1] = hex[(unsigned char)x->placeholder[i] & 15];
	}
	x->form[1][2 * CF_PLACEHOLDER_LEN] = '\0';
	x->form_len[1] = 2 * CF_PLACEHOLDER_LEN;
	x->form_name[1] = "hex";
	x->form_ci[1] = true;
	for (unsigned k = 0; k < 3; k++) {
		base64_form(x, 2 + (int)k, k, false);
		base64_form(x, 5 + (int)k, k, true);
	}
}

int cf_secrets_add(struct cf_secrets *s, const char *name, const char *value, size_t len,
		   const char *placeholder, const struct cf_strv *hosts, struct confine_error *err)
{
	if (!len || memchr(value, '\r', len) || memchr(value, '\n', len) || memchr(value, 0, len)) {
		cf_err(err, CONFINE_E_INVALID, "invalid secret", name,
		       "its value is empty or holds a line break or a NUL byte (only the trailing "
		       "newline of a file is dropped)");
		cf_err_hint(err, "a secret is one line: a token, a key, a password");
		return CONFINE_E_INVALID;
	}
	if (strlen(placeholder) != CF_PLACEHOLDER_LEN)
		return cf_err(err, CONFINE_E_INVALID, "invalid secret", name, "bad placeholder");
	struct cf_secret *v = realloc(s->v, (s->n + 1) * sizeof(*v));
	if (!v)
		return cf_nomem(err);
	s->v = v;
	struct cf_secret *x = &s->v[s->n];
	memset(x, 0, sizeof(*x));
	s->n++;
	memcpy(x->placeholder, placeholder, CF_PLACEHOLDER_LEN + 1);
	if (!(x->name = cf_strdup(name)) || !(x->value = malloc(len + 1)))
		return cf_nomem(err);
	memcpy(x->value, value, len);
	x->value[len] = '\0';
	x->value_len = len;
	for (size_t i = 0; i < hosts->n; i++) {
		int r = add_pattern(&x->hosts, hosts->v[i], err);
		if (r < 0)
			return r;
		if (cf_strv_add(&x->host_list, hosts->v[i]) < 0)
			return cf_nomem(err);
	}
	make_forms(x);
	return 0;
}

int cf_secrets_inspect_add(struct cf_secrets *s, const char *pattern, struct confine_error *err)
{
	int r = add_pattern(&s->inspect, pattern, err);
	if (r == 0)
		s->n_inspect++;
	return r;
}

bool cf_secret_listed(const struct cf_secret *sec, const char *host, const struct cf_ip *ip,
		      uint16_t port)
{
	struct cf_net_decision d;
	cf_net_decide(&sec->hosts, host, ip, port, &d);
	return d.action == CF_ALLOW;
}

bool cf_secrets_inspected(const struct cf_secrets *s, const char *host, const struct cf_ip *ip,
			  uint16_t port)
{
	if (s->n_inspect) {
		struct cf_net_decision d;
		cf_net_decide(&s->inspect, host, ip, port, &d);
		if (d.action == CF_ALLOW)
			return true;
	}
	for (size_t i = 0; i < s->n; i++)
		if (cf_secret_listed(&s->v[i], host, ip, port))
			return true;
	return false;
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool contains(const char *buf, size_t n, const char *pat, size_t pn, bool ci)
{
	if (pn > n)
		return false;
	if (!ci)
		return memmem(buf, n, pat, pn) != NULL;
	char first = lower(pat[0]);
	for (size_t i = 0; i + pn <= n; i++) {
		if (lower(buf[i]) != first)
			continue;
		size_t k = 1;
		while (k < pn && lower(buf[i + k]) == lower(pat[k]))
			k++;
		if (k == pn)
			return true;
	}
	return false;
}

/* The text with every %XX turned into its byte (anything else kept); *out malloc'd. */
static char *percent_decode(const char *buf, size_t n, size_t *out_len)
{
	char *o = malloc(n + 1);
	if (!o)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '%' && i + 2 < n && cf_hex_value(buf[i + 1]) >= 0 &&
		    cf_hex_value(buf[i + 2]) >= 0) {
			o[k++] = (char)(cf_hex_value(buf[i + 1]) << 4 | cf_hex_value(buf[i + 2]));
			i += 2;
		} else {
			o[k++] = buf[i];
		}
	}
	*out_len = k;
	return o;
}

bool cf_secrets_find(const struct cf_secrets *s, const char *buf, size_t n, const bool *skip,
		     struct cf_secret_hit *hit)
{
	size_t dn = 0;
	char *dec = NULL;
	bool found = false;
	for (size_t i = 0; i < s->n && !found; i++) {
		const struct cf_secret *x = &s->v[i];
		if (skip && skip[i])
			continue;
		for (int f = 0; f < CF_SECRET_FORMS && !found; f++)
			if (contains(buf, n, x->form[f], x->form_len[f], x->form_ci[f])) {
				*hit = (struct cf_secret_hit){x, x->form_name[f]};
				found = true;
			}
		if (found || !memchr(buf, '%', n))
			continue;
		/* Out of memory: the plain search above is what is left. */
		if (!dec && !(dec = percent_decode(buf, n, &dn)))
			continue;
		if (contains(dec, dn, x->form[0], x->form_len[0], true) ||
		    contains(dec, dn, x->form[1], x->form_len[1], true)) {
			*hit = (struct cf_secret_hit){x, "percent"};
			found = true;
		}
	}
	free(dec);
	return found;
}

bool cf_secrets_scan_feed(const struct cf_secrets *s, struct cf_secret_scan *st, const char *buf,
			  size_t n, const bool *skip, struct cf_secret_hit *hit)
{
	if (st->seen >= CF_SECRET_BODY_SCAN || !n)
		return false;
	if (n > CF_SECRET_BODY_SCAN - st->seen)
		n = CF_SECRET_BODY_SCAN - st->seen;
	st->seen += n;
	/* The window: what was kept of the previous pieces, then this one, in slices small
	 * enough for a buffer of its own. */
	char win[sizeof(st->carry) + 16384];
	while (n) {
		size_t take = n < 16384 ? n : 16384;
		memcpy(win, st->carry, st->carry_len);
		memcpy(win + st->carry_len, buf, take);
		size_t wl = st->carry_len + take;
		if (cf_secrets_find(s, win, wl, skip, hit))
			return true;
		size_t keep = wl < sizeof(st->carry) ? wl : sizeof(st->carry);
		memcpy(st->carry, win + wl - keep, keep);
		st->carry_len = keep;
		buf += take;
		n -= take;
	}
	return false;
}

void cf_secrets_record(struct cf_secrets *s, const char *name, const char *host, uint16_t port,
		       const char *outcome, const char *where, const char *encoding)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	pthread_mutex_lock(&s->lock);
	if (s->n_events >= CF_SECRET_MAX_EVENTS) {
		s->dropped++;
		pthread_mutex_unlock(&s->lock);
		return;
	}
	if (!s->events && !(s->events = malloc(CF_SECRET_MAX_EVENTS * sizeof(*s->events)))) {
		s->dropped++;
		pthread_mutex_unlock(&s->lock);
		return;
	}
	struct confine_secret_event *e = &s->events[s->n_events++];
	memset(e, 0, sizeof(*e));
	e->size = sizeof(*e);
	e->time_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	snprintf(e->name, sizeof(e->name), "%s", name);
	snprintf(e->host, sizeof(e->host), "%s", host);
	e->port = port;
	snprintf(e->outcome, sizeof(e->outcome), "%s", outcome);
	/* Printable ASCII only: a header name is the command's choice. */
	snprintf(e->where, sizeof(e->where), "%s", where);
	for (char *c = e->where; *c; c++)
		if (*c < ' ' || *c >= 127)
			*c = '?';
	snprintf(e->encoding, sizeof(e->encoding), "%s", encoding);
	pthread_mutex_unlock(&s->lock);
}

/* Appends in[0..n) to out with every pat replaced by rep; returns how many were. */
static size_t replace_all(const char *in, size_t n, const char *pat, size_t pn, const char *rep,
			  size_t rn, struct cf_buf *out)
{
	size_t count = 0, i = 0;
	while (i < n) {
		const char *at = pn <= n - i ? memmem(in + i, n - i, pat, pn) : NULL;
		if (!at) {
			cf_buf_addn(out, in + i, n - i);
			break;
		}
		cf_buf_addn(out, in + i, (size_t)(at - (in + i)));
		cf_buf_addn(out, rep, rn);
		i = (size_t)(at - in) + pn;
		count++;
	}
	return count;
}

static bool name_is(const char *p, size_t n, const char *name)
{
	size_t k = strlen(name);
	if (n != k)
		return false;
	for (size_t i = 0; i < k; i++)
		if (lower(p[i]) != name[i])
			return false;
	return true;
}

/* The listed secrets replaced in one piece of text (a line, or decoded credentials): the
 * result in *out (reset first). */
static void replace_listed(const struct cf_secrets *s, const bool *listed, const char *in, size_t n,
			   struct cf_buf *out, bool *hit)
{
	struct cf_buf a, b;
	cf_buf_init(&a);
	cf_buf_addn(&a, in, n);
	for (size_t i = 0; i < s->n && !a.oom; i++) {
		if (!listed[i])
			continue;
		cf_buf_init(&b);
		hit[i] = replace_all(a.s ? a.s : "", a.len, s->v[i].placeholder, CF_PLACEHOLDER_LEN,
				     s->v[i].value, s->v[i].value_len, &b) > 0;
		if (b.oom)
			a.oom = true;
		explicit_bzero(a.s, a.len);
		cf_buf_release(&a);
		a = b;
	}
	cf_buf_release(out);
	*out = a;
}

/* "Basic CREDENTIALS" of an Authorization header: the credentials decoded, the listed
 * placeholders replaced, encoded again.  false when it is not Basic or holds none. */
static bool basic_line(const struct cf_secrets *s, const bool *listed, const char *name, size_t nl,
		       const char *v, size_t vn, struct cf_buf *out, bool *hit)
{
	while (vn && (v[vn - 1] == '\r' || v[vn - 1] == '\n' || v[vn - 1] == ' '))
		vn--;
	while (vn && (*v == ' ' || *v == '\t')) {
		v++;
		vn--;
	}
	if (vn < 7 || !name_is(v, 5, "basic") || v[5] != ' ' || vn - 6 > 4096)
		return false;
	const char *tok = v + 6;
	size_t tn = vn - 6;
	while (tn && *tok == ' ') {
		tok++;
		tn--;
	}
	uint8_t dec[3200];
	long dl = cf_base64_decode(tok, tn, dec);
	bool any = false;
	bool h[64] = {false};
	if (dl <= 0)
		return false;
	struct cf_buf rep;
	cf_buf_init(&rep);
	replace_listed(s, listed, (const char *)dec, (size_t)dl, &rep, h);
	for (size_t i = 0; i < s->n; i++)
		if (h[i])
			hit[i] = any = true;
	if (any && !rep.oom) {
		char *enc = malloc(CF_BASE64_LEN(rep.len) + 1);
		if (enc) {
			cf_base64_encode((const uint8_t *)rep.s, rep.len, false, true, enc);
			cf_buf_addn(out, name, nl);
			cf_buf_add(out, ": Basic ");
			cf_buf_add(out, enc);
			cf_buf_add(out, "\r\n");
			explicit_bzero(enc, strlen(enc));
			free(enc);
		} else {
			out->oom = true;
		}
	}
	explicit_bzero(dec, sizeof(dec));
	if (rep.s)
		explicit_bzero(rep.s, rep.len);
	cf_buf_release(&rep);
	return any;
}

void cf_secrets_substitute_head(const struct cf_secrets *s, const char *host,
				const struct cf_ip *ip, uint16_t port, const char *head, size_t n,
				struct cf_buf *out, bool *replaced, char (*where)[64])
{
	bool listed[64] = {false};
	for (size_t i = 0; i < s->n && i < 64; i++) {
		listed[i] = cf_secret_listed(&s->v[i], host, ip, port);
		replaced[i] = false;
		where[i][0] = '\0';
	}
	size_t i = 0;
	bool first = true;
	while (i < n) {
		const char *nl = memchr(head + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - head) + 1 : n;
		const char *line = head + i;
		size_t ln = e - i;
		const char *colon = first ? NULL : memchr(line, ':', ln);
		size_t name_len = colon ? (size_t)(colon - line) : 0;
		bool hit[64] = {false};
		struct cf_buf lb;
		cf_buf_init(&lb);
		bool auth = colon && (name_is(line, name_len, "authorization") ||
				      name_is(line, name_len, "proxy-authorization"));
		if (!(auth && basic_line(s, listed, line, name_len, colon + 1, ln - name_len - 1,
					 &lb, hit))) {
			cf_buf_release(&lb);
			cf_buf_init(&lb);
			replace_listed(s, listed, line, ln, &lb, hit);
		}
		if (lb.oom)
			out->oom = true;
		else
			cf_buf_addn(out, lb.s ? lb.s : "", lb.len);
		if (lb.s)
			explicit_bzero(lb.s, lb.len);
		cf_buf_release(&lb);
		for (size_t k = 0; k < s->n && k < 64; k++) {
			if (!hit[k] || replaced[k])
				continue;
			replaced[k] = true;
			if (first)
				snprintf(where[k], 64, "request line");
			else
				snprintf(where[k], 64, "header %.*s",
					 (int)(name_len > 48 ? 48 : name_len), line);
		}
		first = false;
		i = e;
	}
}
