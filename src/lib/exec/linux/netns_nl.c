/* SPDX-License-Identifier: MIT */
/* Netlink messages of the sandbox's network setup (see netns_nl.h). */
#include <errno.h>
/* netinet/in.h before the kernel's headers, which then leave its definitions alone. */
#include <netinet/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_nat.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/fib_rules.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "exec/linux/netns_nl.h"

#define ALIGN4(n) (((n) + 3u) & ~(size_t)3u)

/* n zeroed bytes at the end of b, aligned; NULL (and b->full) when they do not fit. */
static void *put(struct cf_nlb *b, size_t n)
{
	size_t at = ALIGN4(b->len);
	if (b->full || at > b->cap || ALIGN4(n) > b->cap - at) {
		b->full = true;
		return NULL;
	}
	memset(b->buf + b->len, 0, at + ALIGN4(n) - b->len);
	b->len = at + ALIGN4(n);
	return b->buf + at;
}

static size_t msg_begin(struct cf_nlb *b, uint16_t type, uint16_t flags)
{
	size_t at = ALIGN4(b->len);
	struct nlmsghdr *h = put(b, sizeof(*h));
	if (!h)
		return at;
	h->nlmsg_type = type;
	h->nlmsg_flags = (uint16_t)(NLM_F_REQUEST | flags);
	h->nlmsg_seq = ++b->seq;
	if (flags & NLM_F_ACK)
		b->acks++;
	return at;
}

static void msg_end(struct cf_nlb *b, size_t at)
{
	if (!b->full)
		((struct nlmsghdr *)(void *)(b->buf + at))->nlmsg_len = (uint32_t)(b->len - at);
}

/* An nfnetlink message: the header and struct nfgenmsg. */
static size_t nf_begin(struct cf_nlb *b, uint16_t type, uint16_t flags, uint8_t family,
		       uint16_t res_id)
{
	size_t at = msg_begin(b, type, flags);
	struct nfgenmsg *g = put(b, sizeof(*g));
	if (g) {
		g->nfgen_family = family;
		g->version = NFNETLINK_V0;
		g->res_id = htons(res_id);
	}
	return at;
}

static void attr(struct cf_nlb *b, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = put(b, NLA_HDRLEN + len);
	if (!a)
		return;
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((uint8_t *)a + NLA_HDRLEN, data, len);
}

static void attr_str(struct cf_nlb *b, uint16_t type, const char *s)
{
	attr(b, type, s, strlen(s) + 1);
}

static void attr_be32(struct cf_nlb *b, uint16_t type, uint32_t v)
{
	uint32_t be = htonl(v);
	attr(b, type, &be, sizeof(be));
}

static size_t nest_begin(struct cf_nlb *b, uint16_t type)
{
	size_t at = ALIGN4(b->len);
	struct nlattr *a = put(b, NLA_HDRLEN);
	if (a)
		a->nla_type = (uint16_t)(type | NLA_F_NESTED);
	return at;
}

static void nest_end(struct cf_nlb *b, size_t at)
{
	if (!b->full)
		((struct nlattr *)(void *)(b->buf + at))->nla_len = (uint16_t)(b->len - at);
}

/* One expression of a rule: NFTA_LIST_ELEM { NAME, DATA { ... } }; returns the DATA nest. */
static size_t expr_begin(struct cf_nlb *b, const char *name, size_t *elem)
{
	*elem = nest_begin(b, NFTA_LIST_ELEM);
	attr_str(b, NFTA_EXPR_NAME, name);
	return nest_begin(b, NFTA_EXPR_DATA);
}

static void expr_end(struct cf_nlb *b, size_t data, size_t elem)
{
	nest_end(b, data);
	nest_end(b, elem);
}

static void meta(struct cf_nlb *b, uint32_t key)
{
	size_t e, d = expr_begin(b, "meta", &e);
	attr_be32(b, NFTA_META_DREG, NFT_REG_1);
	attr_be32(b, NFTA_META_KEY, key);
	expr_end(b, d, e);
}

static void payload(struct cf_nlb *b, uint32_t base, uint32_t offset, uint32_t len)
{
	size_t e, d = expr_begin(b, "payload", &e);
	attr_be32(b, NFTA_PAYLOAD_DREG, NFT_REG_1);
	attr_be32(b, NFTA_PAYLOAD_BASE, base);
	attr_be32(b, NFTA_PAYLOAD_OFFSET, offset);
	attr_be32(b, NFTA_PAYLOAD_LEN, len);
	expr_end(b, d, e);
}

static void cmp(struct cf_nlb *b, uint32_t op, const void *data, size_t len)
{
	size_t e, d = expr_begin(b, "cmp", &e);
	attr_be32(b, NFTA_CMP_SREG, NFT_REG_1);
	attr_be32(b, NFTA_CMP_OP, op);
	size_t v = nest_begin(b, NFTA_CMP_DATA);
	attr(b, NFTA_DATA_VALUE, data, len);
	nest_end(b, v);
	expr_end(b, d, e);
}

static void redirect(struct cf_nlb *b, uint16_t port)
{
	uint16_t be = htons(port);
	size_t e, d = expr_begin(b, "immediate", &e);
	attr_be32(b, NFTA_IMMEDIATE_DREG, NFT_REG_1);
	size_t v = nest_begin(b, NFTA_IMMEDIATE_DATA);
	attr(b, NFTA_DATA_VALUE, &be, sizeof(be));
	nest_end(b, v);
	expr_end(b, d, e);
	d = expr_begin(b, "redir", &e);
	attr_be32(b, NFTA_REDIR_REG_PROTO_MIN, NFT_REG_1);
	attr_be32(b, NFTA_REDIR_FLAGS, NF_NAT_RANGE_PROTO_SPECIFIED);
	expr_end(b, d, e);
}

#define TABLE "confine"
#define CHAIN "out"

/* One rule: the family's destination outside loopback, the protocol, the port (0: any), then
 * the redirect to `to`. */
static void rule(struct cf_nlb *b, bool v6, uint8_t proto, uint16_t dport, uint16_t to)
{
	size_t m = nf_begin(b, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWRULE,
			    NLM_F_CREATE | NLM_F_APPEND | NLM_F_ACK, NFPROTO_INET, 0);
	attr_str(b, NFTA_RULE_TABLE, TABLE);
	attr_str(b, NFTA_RULE_CHAIN, CHAIN);
	size_t list = nest_begin(b, NFTA_RULE_EXPRESSIONS);
	uint8_t family = v6 ? NFPROTO_IPV6 : NFPROTO_IPV4;
	meta(b, NFT_META_NFPROTO);
	cmp(b, NFT_CMP_EQ, &family, 1);
	if (v6) {
		/* The destination address (offset 24 of the IPv6 header) is not ::1. */
		static const uint8_t lo6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
		payload(b, NFT_PAYLOAD_NETWORK_HEADER, 24, 16);
		cmp(b, NFT_CMP_NEQ, lo6, sizeof(lo6));
	} else {
		/* The destination's first byte (offset 16 of the IPv4 header) is not 127. */
		static const uint8_t lo4 = 127;
		payload(b, NFT_PAYLOAD_NETWORK_HEADER, 16, 1);
		cmp(b, NFT_CMP_NEQ, &lo4, 1);
	}
	meta(b, NFT_META_L4PROTO);
	cmp(b, NFT_CMP_EQ, &proto, 1);
	if (dport) {
		uint16_t be = htons(dport);
		payload(b, NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2);
		cmp(b, NFT_CMP_EQ, &be, sizeof(be));
	}
	redirect(b, to);
	nest_end(b, list);
	msg_end(b, m);
}

void cf_nl_nft_batch(struct cf_nlb *b, uint16_t port, bool v6)
{
	size_t m = nf_begin(b, NFNL_MSG_BATCH_BEGIN, 0, AF_UNSPEC, NFNL_SUBSYS_NFTABLES);
	msg_end(b, m);
	m = nf_begin(b, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWTABLE, NLM_F_CREATE | NLM_F_ACK,
		     NFPROTO_INET, 0);
	attr_str(b, NFTA_TABLE_NAME, TABLE);
	msg_end(b, m);
	m = nf_begin(b, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWCHAIN, NLM_F_CREATE | NLM_F_ACK,
		     NFPROTO_INET, 0);
	attr_str(b, NFTA_CHAIN_TABLE, TABLE);
	attr_str(b, NFTA_CHAIN_NAME, CHAIN);
	size_t hook = nest_begin(b, NFTA_CHAIN_HOOK);
	attr_be32(b, NFTA_HOOK_HOOKNUM, NF_INET_LOCAL_OUT);
	attr_be32(b, NFTA_HOOK_PRIORITY, (uint32_t)-100); /* NF_IP_PRI_NAT_DST */
	nest_end(b, hook);
	attr_str(b, NFTA_CHAIN_TYPE, "nat");
	attr_be32(b, NFTA_CHAIN_POLICY, NF_ACCEPT);
	msg_end(b, m);
	for (int f = 0; f < (v6 ? 2 : 1); f++) {
		rule(b, f == 1, IPPROTO_UDP, 53, 53);
		rule(b, f == 1, IPPROTO_TCP, 53, 53);
		rule(b, f == 1, IPPROTO_TCP, 0, port);
	}
	m = nf_begin(b, NFNL_MSG_BATCH_END, 0, AF_UNSPEC, NFNL_SUBSYS_NFTABLES);
	msg_end(b, m);
}

void cf_nl_default_route(struct cf_nlb *b, int family)
{
	size_t m = msg_begin(b, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK);
	struct rtmsg *r = put(b, sizeof(*r));
	if (r) {
		r->rtm_family = family == 6 ? AF_INET6 : AF_INET;
		r->rtm_table = RT_TABLE_UNSPEC; /* RTA_TABLE says which */
		r->rtm_protocol = RTPROT_BOOT;
		r->rtm_scope = family == 6 ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK;
		r->rtm_type = RTN_UNICAST;
	}
	uint32_t table = CF_NL_TABLE, lo = 1; /* loopback is the first device of every namespace */
	attr(b, RTA_TABLE, &table, sizeof(table));
	attr(b, RTA_OIF, &lo, sizeof(lo));
	if (family == 6) {
		struct in6_addr a = IN6ADDR_LOOPBACK_INIT;
		attr(b, RTA_PREFSRC, &a, sizeof(a));
	} else {
		struct in_addr a = {htonl(INADDR_LOOPBACK)};
		attr(b, RTA_PREFSRC, &a, sizeof(a));
	}
	msg_end(b, m);
}

/* One routing rule: packets of `proto` (to port `dport`, 0: any) look up CF_NL_TABLE. */
static void fib_rule(struct cf_nlb *b, int family, uint8_t proto, uint16_t dport, uint32_t prio)
{
	size_t m = msg_begin(b, RTM_NEWRULE, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK);
	struct fib_rule_hdr *h = put(b, sizeof(*h));
	if (h) {
		h->family = family == 6 ? AF_INET6 : AF_INET;
		h->action = FR_ACT_TO_TBL;
	}
	uint32_t table = CF_NL_TABLE;
	attr(b, FRA_TABLE, &table, sizeof(table));
	attr(b, FRA_PRIORITY, &prio, sizeof(prio));
	attr(b, FRA_IP_PROTO, &proto, sizeof(proto));
	if (dport) {
		struct fib_rule_port_range pr = {dport, dport};
		attr(b, FRA_DPORT_RANGE, &pr, sizeof(pr));
	}
	msg_end(b, m);
}

void cf_nl_routing_rules(struct cf_nlb *b, int family)
{
	fib_rule(b, family, IPPROTO_TCP, 0, 100);
	fib_rule(b, family, IPPROTO_UDP, 53, 101);
}

int cf_nl_talk(int fd, const struct cf_nlb *b)
{
	if (b->full)
		return -ENOBUFS;
	struct sockaddr_nl to = {.nl_family = AF_NETLINK};
	ssize_t k;
	do
		k = sendto(fd, b->buf, b->len, 0, (struct sockaddr *)&to, sizeof(to));
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return -errno;
	if ((size_t)k != b->len)
		return -EMSGSIZE;
	unsigned acked = 0;
	uint8_t in[8192] __attribute__((aligned(4)));
	while (acked < b->acks) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int n = poll(&p, 1, 2000);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ETIMEDOUT;
		k = recv(fd, in, sizeof(in), MSG_DONTWAIT);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EPIPE;
		size_t left = (size_t)k;
		for (struct nlmsghdr *h = (struct nlmsghdr *)(void *)in; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_type != NLMSG_ERROR)
				continue;
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr)))
				return -EBADMSG;
			const struct nlmsgerr *e = NLMSG_DATA(h);
			if (e->error)
				return e->error;
			acked++;
		}
	}
	return 0;
}
