/* SPDX-License-Identifier: MIT */
/*
 * R43, the pure parts of the resolver inside: DNS queries read with a length check before every
 * byte (what a stub sends, and what it must never be made to do), answers byte for byte,
 * reverse names, synthetic addresses, and the decision on a name before its port is known.
 */
#include <stdlib.h>
#include <string.h>

#include "net/decide.h"
#include "net/dns.h"
#include "net/synth.h"
#include "policy/policy.h"
#include "rules/netrules.h"
#include "../tap.h"

/* A query: id 0x1234, RD, one question for `name` (dotted) of type qtype, class IN. */
static size_t query(const char *name, uint16_t qtype, uint8_t *out)
{
	static const uint8_t head[12] = {0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
	memcpy(out, head, 12);
	size_t o = 12;
	const char *s = name;
	while (*s) {
		const char *dot = strchr(s, '.');
		size_t n = dot ? (size_t)(dot - s) : strlen(s);
		out[o++] = (uint8_t)n;
		memcpy(out + o, s, n);
		o += n;
		s += n + (dot ? 1 : 0);
	}
	out[o++] = 0;
	out[o++] = (uint8_t)(qtype >> 8);
	out[o++] = (uint8_t)qtype;
	out[o++] = 0;
	out[o++] = 1;
	return o;
}

static void test_parse(void)
{
	uint8_t m[600];
	struct cf_dns_query q;
	size_t n = query("Registry.NPMJS.org", CF_DNS_A, m);
	TAP_INTEQ(cf_dns_parse_query(m, n, &q), 0, "an A query is read");
	TAP_STREQ(q.name, "registry.npmjs.org", "its name, in lower case");
	TAP_OK(q.name_ok && q.qtype == CF_DNS_A && q.qclass == CF_DNS_CLASS_IN && q.rd &&
		   q.id == 0x1234 && q.question_end == n,
	       "type, class, RD, id and the question's end");
	n = query("a.example.", CF_DNS_AAAA, m);
	TAP_INTEQ(cf_dns_parse_query(m, n, &q), 0, "a name with a root label (a final dot)");

	TAP_INTEQ(cf_dns_parse_query(m, 11, &q), -1, "fewer bytes than a header: no answer");
	n = query("a.test", CF_DNS_A, m);
	m[2] |= 0x80;
	TAP_INTEQ(cf_dns_parse_query(m, n, &q), -1, "a response is never answered (no loop)");
	m[2] = 0x09; /* opcode 1 (IQUERY), RD */
	TAP_INTEQ(cf_dns_parse_query(m, n, &q), CF_DNS_NOTIMP, "another opcode: NOTIMP");
	TAP_OK(q.id == 0x1234 && q.rd, "with the id and RD to answer with");
	m[2] = 0x01;
	m[5] = 2;
	TAP_INTEQ(cf_dns_parse_query(m, n, &q), CF_DNS_FORMERR, "two questions: FORMERR");
	m[5] = 1;
	m[7] = 1;
	TAP_INTEQ(cf_dns_parse_query(m, n, &q), CF_DNS_FORMERR, "an answer in a query: FORMERR");
	m[7] = 0;
	TAP_INTEQ(cf_dns_parse_query(m, n - 1, &q), CF_DNS_FORMERR, "the class cut short");
	TAP_INTEQ(cf_dns_parse_query(m, 14, &q), CF_DNS_FORMERR, "a label running past the end");
	/* A compression pointer in the question (to the header). */
	uint8_t ptr[] = {0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 0x00, 0, 1, 0, 1};
	TAP_INTEQ(cf_dns_parse_query(ptr, sizeof(ptr), &q), CF_DNS_FORMERR,
		  "a compression pointer: FORMERR");
	uint8_t ext[] = {0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x41, 'a', 0, 0, 1, 0, 1};
	TAP_INTEQ(cf_dns_parse_query(ext, sizeof(ext), &q), CF_DNS_FORMERR,
		  "an extended label type: FORMERR");
	/* 255 bytes on the wire at most: four labels of 63 and the root are 257. */
	char longname[300];
	memset(longname, 'a', 4 * 64);
	for (int i = 1; i < 4; i++)
		longname[i * 64 - 1] = '.';
	longname[4 * 64 - 1] = '\0';
	n = query(longname, CF_DNS_A, m);
	TAP_INTEQ(cf_dns_parse_query(m, n, &q), CF_DNS_FORMERR, "a name over 255 bytes: FORMERR");
	/* Names that are no host names: answered NXDOMAIN, never looked at again. */
	static const char *const not_hosts[] = {"a b.test", "1.2.3.4", "0x7f000001",
						"caf\xc3\xa9.test"};
	for (size_t i = 0; i < sizeof(not_hosts) / sizeof(not_hosts[0]); i++) {
		n = query(not_hosts[i], CF_DNS_A, m);
		TAP_OK(cf_dns_parse_query(m, n, &q) == 0 && !q.name_ok && !q.name[0],
		       "'%s' is a query, but not for a host name", not_hosts[i]);
	}
	/* A dot inside a label is not a label boundary. */
	uint8_t dotted[] = {0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 3, 'a', '.', 'b', 0, 0, 1, 0, 1};
	TAP_OK(cf_dns_parse_query(dotted, sizeof(dotted), &q) == 0 && !q.name_ok,
	       "a label holding a dot is no host name");
	uint8_t root[] = {0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1};
	TAP_OK(cf_dns_parse_query(root, sizeof(root), &q) == 0 && !q.name_ok, "the root name");
}

static void test_answer(void)
{
	uint8_t m[600], a[CF_DNS_UDP_MAX];
	struct cf_dns_query q;
	size_t n = query("api.test", CF_DNS_A, m);
	cf_dns_parse_query(m, n, &q);
	struct cf_ip ip = {.family = 4, .b = {198, 18, 0, 7}};
	size_t k = cf_dns_answer(m, &q, 0, false, CF_DNS_NOERROR, &ip, NULL, 60, a, sizeof(a));
	static const uint8_t want_head[12] = {0x12, 0x34, 0x85, 0x80, 0, 1, 0, 1, 0, 0, 0, 0};
	static const uint8_t want_rr[16] = {0xc0, 0x0c, 0, 1, 0,   1,  0, 0,
					    0,	  60,	0, 4, 198, 18, 0, 7};
	TAP_OK(k == n + 16 && !memcmp(a, want_head, 12) && !memcmp(a + 12, m + 12, n - 12) &&
		   !memcmp(a + n, want_rr, 16),
	       "an A answer: QR AA RD RA, the question echoed, one record of 198.18.0.7, TTL 60");
	k = cf_dns_answer(m, &q, 0, false, CF_DNS_NXDOMAIN, &ip, NULL, 60, a, sizeof(a));
	TAP_OK(k == n && a[3] == 0x83 && a[7] == 0, "NXDOMAIN: no record, rcode 3");
	k = cf_dns_answer(m, &q, 0, false, CF_DNS_NOERROR, NULL, NULL, 60, a, sizeof(a));
	TAP_OK(k == n && a[3] == 0x80 && a[7] == 0, "no data: NOERROR without a record");
	n = query("7.0.18.198.in-addr.arpa", CF_DNS_PTR, m);
	cf_dns_parse_query(m, n, &q);
	k = cf_dns_answer(m, &q, 0, false, CF_DNS_NOERROR, NULL, "api.test", 60, a, sizeof(a));
	static const uint8_t want_ptr[] = {0xc0, 0x0c, 0,   12,	 0,   1, 0,   0,   0,	60,  0,
					   10,	 3,    'a', 'p', 'i', 4, 't', 'e', 's', 't', 0};
	TAP_OK(k == n + sizeof(want_ptr) && !memcmp(a + n, want_ptr, sizeof(want_ptr)),
	       "a PTR answer: the name in labels");
	k = cf_dns_answer(NULL, NULL, 0x4321, true, CF_DNS_FORMERR, NULL, NULL, 0, a, sizeof(a));
	TAP_OK(k == 12 && a[0] == 0x43 && a[1] == 0x21 && a[2] == 0x85 && a[3] == 0x81 && a[5] == 0,
	       "FORMERR without a question");
	TAP_INTEQ(cf_dns_answer(m, &q, 0, false, CF_DNS_NOERROR, &ip, NULL, 60, a, 20), 0,
		  "an answer that does not fit is not written");
}

static void test_reverse(void)
{
	struct cf_ip ip;
	TAP_OK(cf_dns_reverse_v4("5.0.18.198.in-addr.arpa", &ip) && ip.family == 4 &&
		   ip.b[0] == 198 && ip.b[1] == 18 && ip.b[2] == 0 && ip.b[3] == 5,
	       "5.0.18.198.in-addr.arpa is 198.18.0.5");
	static const char *const bad[] = {"05.0.18.198.in-addr.arpa",
					  "5.0.18.in-addr.arpa",
					  "256.0.18.198.in-addr.arpa",
					  "a.0.18.198.in-addr.arpa",
					  "1.5.0.18.198.in-addr.arpa",
					  "5.0.18.198.ip6.arpa",
					  "in-addr.arpa",
					  ".0.18.198.in-addr.arpa"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		TAP_OK(!cf_dns_reverse_v4(bad[i], &ip), "'%s' is no reverse IPv4 name", bad[i]);
}

static void test_synth(void)
{
	struct cf_synth *s = cf_synth_new();
	struct cf_ip a, b, c;
	TAP_OK(cf_synth_addr(s, "one.test", &a) == 0 && a.b[0] == 198 && a.b[1] == 18 &&
		   a.b[2] == 0 && a.b[3] == 1,
	       "the first name gets 198.18.0.1");
	TAP_OK(cf_synth_addr(s, "two.test", &b) == 0 && b.b[3] == 2, "the next 198.18.0.2");
	TAP_OK(cf_synth_addr(s, "one.test", &c) == 0 && cf_ip_equal(&a, &c),
	       "a name keeps its address");
	TAP_STREQ(cf_synth_name(s, &b), "two.test", "an address stands for its name");
	struct cf_ip last = {0};
	char name[32];
	for (int i = 3; i <= 300; i++) {
		snprintf(name, sizeof(name), "n%d.test", i);
		cf_synth_addr(s, name, &last);
	}
	TAP_OK(last.b[2] == 1 && last.b[3] == 46,
	       "addresses skip .255 and .0 (the 300th is 198.18.1.46)");
	struct cf_ip x = {.family = 4, .b = {198, 18, 0, 255}};
	TAP_OK(!cf_synth_name(s, &x), ".255 is never handed out");
	x.b[3] = 0;
	x.b[2] = 1;
	TAP_OK(!cf_synth_name(s, &x), ".0 is never handed out");
	x = (struct cf_ip){.family = 4, .b = {198, 19, 0, 1}};
	TAP_OK(cf_synth_in_range(&x) && !cf_synth_name(s, &x),
	       "198.19.0.1 is in the range, not handed out");
	x.b[1] = 20;
	TAP_OK(!cf_synth_in_range(&x), "198.20.0.1 is outside the range");
	TAP_INTEQ(cf_synth_count(s), 300, "300 names");
	cf_synth_free(s);
	s = cf_synth_new();
	int r = 0;
	for (int i = 0; i < CF_SYNTH_MAX && r == 0; i++) {
		snprintf(name, sizeof(name), "m%d.test", i);
		r = cf_synth_addr(s, name, &last);
	}
	TAP_OK(r == 0 && last.b[0] == 198 && (last.b[1] & 0xfe) == 18,
	       "%d names fit in 198.18.0.0/15", CF_SYNTH_MAX);
	TAP_INTEQ(cf_synth_addr(s, "one-more.test", &a), -1, "then the table is full");
	TAP_OK(cf_synth_addr(s, "m5.test", &a) == 0, "an earlier name still answers");
	cf_synth_free(s);
}

static void add(struct cf_net_policy *p, enum cf_layer l, enum cf_action a, const char *pat)
{
	struct cf_net_rules rs = {0};
	struct cf_net_rule r = {0};
	cf_net_pattern_parse(pat, strlen(pat), &r);
	r.pattern = (char *)pat;
	r.action = a;
	r.source = "test";
	cf_net_rules_add(&rs, &r, NULL);
	cf_net_policy_add(p, l, &rs, NULL);
	cf_net_rules_release(&rs);
}

static void test_decide_name(void)
{
	struct cf_net_policy p = {0};
	add(&p, CF_LAYER_SESSION, CF_ALLOW, "api.test:443");
	add(&p, CF_LAYER_SESSION, CF_ALLOW, "*.cdn.test");
	add(&p, CF_LAYER_USER, CF_DENY, "api.test");
	add(&p, CF_LAYER_USER, CF_DENY, "*.evil.test");
	add(&p, CF_LAYER_USER, CF_DENY, "web.test:80");
	add(&p, CF_LAYER_USER, CF_DENY, "192.0.2.7");
	struct cf_net_decision d;
	TAP_INTEQ(cf_net_decide_name(&p, "api.test", &d), CF_ALLOW,
		  "allowed on one port, denied on the others: an address (the port decides)");
	TAP_OK(d.rule && !strcmp(d.rule->pattern, "api.test:443"), "the allowing rule says so");
	TAP_INTEQ(cf_net_decide_name(&p, "x.cdn.test", &d), CF_ALLOW, "allowed by a pattern");
	TAP_INTEQ(cf_net_decide_name(&p, "a.evil.test", &d), CF_DENY, "denied on every port");
	TAP_OK(d.rule && !strcmp(d.rule->pattern, "*.evil.test"), "by its rule");
	TAP_INTEQ(cf_net_decide_name(&p, "web.test", &d), CF_ASK,
		  "denied on one port, no rule for the others: ask");
	TAP_INTEQ(cf_net_decide_name(&p, "other.test", &d), CF_ASK, "no rule: ask");
	TAP_OK(!d.rule && d.layer == CF_LAYER_FALLBACK, "the fallback");
	cf_net_policy_release(&p);
}

int main(void)
{
	test_parse();
	test_answer();
	test_reverse();
	test_synth();
	test_decide_name();
	return tap_done();
}
