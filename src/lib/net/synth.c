/* SPDX-License-Identifier: MIT */
/* Synthetic addresses (see synth.h): names in the order handed out, and an open-addressing
 * hash of them.  Pure. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/synth.h"
#include "util/util.h"

struct cf_synth {
	char **names; /* by slot: slot k is 198.18.0.0 + offset(k) */
	size_t n, cap;
	uint32_t *hash; /* slot + 1, 0 empty */
	size_t hcap;	/* a power of two, more than twice n */
};

/* The offset from 198.18.0.0 of slot k: the slots skip the addresses ending in .0 and .255 (254
 * a block of 256).  65536 slots fit in the 131072 addresses of the /15. */
static uint32_t offset_of(size_t k)
{
	return (uint32_t)((k / 254) * 256 + k % 254 + 1);
}

static bool slot_of(uint32_t off, size_t *k)
{
	uint32_t low = off & 0xff;
	if (low == 0 || low == 255)
		return false;
	*k = (off >> 8) * 254 + low - 1;
	return true;
}

static uint32_t fnv(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

struct cf_synth *cf_synth_new(void)
{
	return calloc(1, sizeof(struct cf_synth));
}

void cf_synth_free(struct cf_synth *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->names[i]);
	free(s->names);
	free(s->hash);
	free(s);
}

/* Whether name has a slot (*k); *pos is where it is in the hash, or where it would go. */
static bool find(const struct cf_synth *s, const char *name, size_t *k, size_t *pos)
{
	if (!s->hcap)
		return false;
	size_t i = fnv(name) & (s->hcap - 1);
	while (s->hash[i]) {
		if (!strcmp(s->names[s->hash[i] - 1], name)) {
			*k = s->hash[i] - 1;
			*pos = i;
			return true;
		}
		i = (i + 1) & (s->hcap - 1);
	}
	*pos = i;
	return false;
}

static int rehash(struct cf_synth *s, size_t hcap)
{
	uint32_t *h = calloc(hcap, sizeof(*h));
	if (!h)
		return -1;
	for (size_t k = 0; k < s->n; k++) {
		size_t i = fnv(s->names[k]) & (hcap - 1);
		while (h[i])
			i = (i + 1) & (hcap - 1);
		h[i] = (uint32_t)(k + 1);
	}
	free(s->hash);
	s->hash = h;
	s->hcap = hcap;
	return 0;
}

static void addr_of(size_t k, struct cf_ip *out)
{
	uint32_t v = (198u << 24 | 18u << 16) + offset_of(k);
	*out = (struct cf_ip){.family = 4,
			      .b = {v >> 24, (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff}};
}

int cf_synth_addr(struct cf_synth *s, const char *name, struct cf_ip *out)
{
	size_t pos, k;
	if (find(s, name, &k, &pos)) {
		addr_of(k, out);
		return 0;
	}
	if (s->n >= CF_SYNTH_MAX)
		return -1;
	if (s->n == s->cap) {
		size_t cap;
		char **v = cf_grow_array(s->names, s->cap, 64, sizeof(*v), &cap);
		if (!v)
			return -1;
		s->names = v;
		s->cap = cap;
	}
	if ((s->n + 1) * 2 > s->hcap && rehash(s, s->hcap ? s->hcap * 2 : 128) < 0)
		return -1;
	char *copy = cf_strdup(name);
	if (!copy)
		return -1;
	find(s, name, &k, &pos); /* where it goes in the table, which may have been rebuilt */
	s->names[s->n] = copy;
	s->hash[pos] = (uint32_t)(s->n + 1);
	addr_of(s->n, out);
	s->n++;
	return 0;
}

bool cf_synth_in_range(const struct cf_ip *ip)
{
	return ip->family == 4 && ip->b[0] == 198 && (ip->b[1] & 0xfe) == 18;
}

const char *cf_synth_name(const struct cf_synth *s, const struct cf_ip *ip)
{
	if (!cf_synth_in_range(ip))
		return NULL;
	uint32_t off = (uint32_t)(ip->b[1] - 18) << 16 | (uint32_t)ip->b[2] << 8 | ip->b[3];
	size_t k;
	if (!slot_of(off, &k) || k >= s->n)
		return NULL;
	return s->names[k];
}

size_t cf_synth_count(const struct cf_synth *s)
{
	return s->n;
}
