/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the Seatbelt profile compiler (SPEC 9, R25, R26).  Input: facts, rules, grants
 * and injections in the line language of sbpl_input.h.  Invariants, for every input that
 * compiles:
 *   - the profile reads back (sbpl_eval.c): balanced, only (version 1), (allow ...) and
 *     (deny ...) forms, every regex compiles with POSIX regcomp;
 *   - every string literal is one the compiler checked and passes the R26 check again; every
 *     regex literal is the compiler's own;
 *   - soundness, on paths derived from the rules and their near misses: where the profile
 *     allows reading or writing, so does the policy (first match wins, the Mac's read posture,
 *     grants, injections);
 *   - exactness where no documented widening applies (a deny's other spellings, a deny's '?'
 *     over several bytes, rules that contradict each other, non-ASCII): the profile decides
 *     exactly as the policy;
 *   - metadata of a path the command may not read is allowed only on an ancestor of something
 *     it may read.
 * Inputs that do not compile must say why.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../golden/sbpl_eval.h"
#include "sbpl_input.h"
#include "util/util.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "fuzz-sbpl: check failed at line %d: %s\n", __LINE__, #c); \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* The read posture of SPEC 9, written here again: system roots, the root directory and the
 * top-level links. */
static const char *const roots[] = {
    "/usr",
    "/bin",
    "/sbin",
    "/System",
    "/Library",
    "/Applications",
    "/opt",
    "/dev",
    "/private/etc",
    "/private/var/select",
    "/private/var/db/timezone",
};

static bool within(const char *p, const char *d)
{
	return cf_path_within(p, d);
}

static bool within_ci(const char *p, const char *d)
{
	size_t n = strlen(d);
	if (!strcmp(d, "/"))
		return true;
	if (strlen(p) < n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char a = p[i], b = d[i];
		if (a >= 'A' && a <= 'Z')
			a = (char)(a - 'A' + 'a');
		if (b >= 'A' && b <= 'Z')
			b = (char)(b - 'A' + 'a');
		if (a != b)
			return false;
	}
	return p[n] == '\0' || p[n] == '/';
}

struct oracle {
	const struct cf_mac_input *in;
	struct cf_policy p;
	struct cf_host ph;
	struct cf_strv readable; /* roots of reads at the fallback's priority */
	struct cf_strv meta;	 /* what the command may read: its ancestors get metadata */
	bool deny_question;	 /* a deny glob has '?' */
};

static bool digits_after(const char *p, const char *prefix)
{
	size_t n = strlen(prefix);
	if (strncmp(p, prefix, n) || !p[n])
		return false;
	for (const char *s = p + n; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static bool write_device(const char *p)
{
	return !strcmp(p, "/dev/null") || !strcmp(p, "/dev/zero") || !strcmp(p, "/dev/tty") ||
	       !strcmp(p, "/dev/ptmx") || digits_after(p, "/dev/ttys") ||
	       digits_after(p, "/dev/fd/");
}

static bool read_posture(const struct oracle *o, const char *p)
{
	if (!strcmp(p, "/") || !strcmp(p, "/etc") || !strcmp(p, "/tmp") || !strcmp(p, "/var") ||
	    write_device(p))
		return true;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (within(p, roots[i]))
			return true;
	for (size_t i = 0; i < o->readable.n; i++)
		if (within(p, o->readable.v[i]))
			return true;
	return false;
}

static bool granted(const struct oracle *o, const char *p)
{
	const struct cf_grants *g = o->in->grants;
	for (size_t i = 0; g && i < g->n; i++)
		if (g->v[i].scope == CF_GRANT_FILE ? !strcmp(p, g->v[i].path)
						   : within(p, g->v[i].path))
			return true;
	return false;
}

/* The policy's answer for a path, as the profile must enforce it. */
static void decide(const struct oracle *o, const char *p, bool *rd_ok, bool *wr_ok, bool *exact)
{
	struct cf_decision rd, wr;
	cf_policy_decide(&o->p, p, CF_ACC_READ, &rd);
	cf_policy_decide(&o->p, p, CF_ACC_WRITE, &wr);
	*rd_ok = rd.layer == CF_LAYER_FALLBACK ? read_posture(o, p) : rd.action == CF_ALLOW;
	bool grant = wr.layer != CF_LAYER_OVERRIDE && granted(o, p);
	if (grant)
		*wr_ok = true;
	else if (wr.layer == CF_LAYER_FALLBACK)
		/* A path hidden for reading is not writable by the fallback (as on Linux). */
		*wr_ok = (wr.action == CF_ALLOW || write_device(p)) && rd.action == CF_ALLOW;
	else
		*wr_ok = wr.action == CF_ALLOW;
	*exact = !(rd.action != CF_ALLOW &&
		   (grant || (wr.action == CF_ALLOW && wr.layer != CF_LAYER_FALLBACK)));
	for (size_t i = 0; i < o->in->n_injections; i++)
		if (!strcmp(p, o->in->injections[i].scratch)) {
			*rd_ok = true;
			*wr_ok = false;
		}
}

/* Whether the profile may differ from the policy at p by a documented widening of a deny. */
static bool widened(const struct oracle *o, const char *p)
{
	if (o->deny_question)
		return true;
	for (const char *s = p; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return true;
	for (int l = 0; l < CF_LAYER_FALLBACK; l++) {
		const struct cf_ruleset *rs = &o->p.layers[l];
		for (size_t i = 0; i < rs->n; i++) {
			const struct cf_rule *r = &rs->v[i];
			if (r->action != CF_ALLOW && !r->glob &&
			    within_ci(p, r->path) != within(p, r->path))
				return true;
		}
	}
	return false;
}

static int add(struct cf_strv *v, const char *s)
{
	if (!s || v->n >= 48 || s[0] != '/')
		return 0;
	return cf_strv_contains(v, s) ? 0 : cf_strv_add(v, s);
}

static void addf(struct cf_strv *v, const char *a, const char *b)
{
	char *s = cf_asprintf("%s%s", a, b);
	add(v, s);
	free(s);
}

/* A concrete path the glob matches: "**" and '*' take "" or "ab", '?' takes "q". */
static char *instance(const char *glob, bool longer)
{
	struct cf_buf b;
	cf_buf_init(&b);
	for (const char *s = glob; *s; s++) {
		if (s[0] == '*' && s[1] == '*') {
			cf_buf_add(&b, longer ? "ab/cd" : "");
			s++;
		} else if (*s == '*') {
			cf_buf_add(&b, longer ? "ab" : "");
		} else if (*s == '?') {
			cf_buf_addc(&b, 'q');
		} else {
			cf_buf_addc(&b, *s);
		}
	}
	char *t = cf_buf_take(&b);
	char *n = t && t[0] == '/' ? cf_path_normalize(t) : NULL;
	free(t);
	return n;
}

static void probes(const struct oracle *o, struct cf_strv *v)
{
	const struct cf_mac_host *h = o->in->host;
	add(v, h->workspace);
	addf(v, h->workspace, "/src/a.c");
	addf(v, h->workspace, "/.env");
	addf(v, h->workspace, "/.git/hooks/pre-commit");
	addf(v, h->workspace, "/.confine/rules.json");
	addf(v, h->home, "/.ssh/id_rsa");
	addf(v, h->home, "/notes");
	for (size_t i = 0; h->temp && i < h->temp->n; i++)
		addf(v, h->temp->v[i], "/x");
	add(v, "/usr/bin/git");
	add(v, "/dev/null");
	for (size_t i = 0; i < o->in->n_injections; i++) {
		add(v, o->in->injections[i].scratch);
		addf(v, o->in->injections[i].scratch, "x");
	}
	for (size_t i = 0; o->in->grants && i < o->in->grants->n; i++) {
		add(v, o->in->grants->v[i].path);
		addf(v, o->in->grants->v[i].path, "/x");
		addf(v, o->in->grants->v[i].path, "x");
	}
	for (int l = CF_LAYER_SESSION; l < CF_LAYER_FALLBACK; l++) {
		const struct cf_ruleset *rs = &o->p.layers[l];
		for (size_t i = 0; i < rs->n; i++) {
			const char *p = rs->v[i].path;
			if (rs->v[i].glob) {
				for (int k = 0; k < 2; k++) {
					char *x = instance(p, k);
					add(v, x);
					if (x) {
						addf(v, x, "x");
						addf(v, x, "/in");
					}
					free(x);
				}
				continue;
			}
			add(v, p);
			addf(v, p, "/x");
			addf(v, p, "x");
			char *d = cf_path_dirname(p);
			add(v, d);
			free(d);
		}
	}
}

static void check_literals(const struct cf_mac_plan *plan, const struct sbpl_profile *sp)
{
	const char *const *v;
	size_t n = sbpl_strings(sp, &v);
	/* The reader meets the literals in the order the compiler wrote (and checked) them. */
	CHECK(n > 0 && n == plan->strings.n);
	for (size_t i = 0; i < n; i++) {
		CHECK(!strcmp(plan->strings.v[i], v[i]));
		CHECK(!cf_mac_string_problem(v[i], strlen(v[i]), v[i][0] == '/'));
		CHECK(!strchr(v[i], '"') && !strchr(v[i], '\\'));
	}
	n = sbpl_regexes(sp, &v);
	CHECK(n == plan->regexes.n);
	for (size_t i = 0; i < n; i++)
		CHECK(!strcmp(plan->regexes.v[i], v[i]) && !strchr(v[i], '"'));
}

static void oracle_init(struct oracle *o, const struct cf_mac_input *in)
{
	struct confine_error err = {0};
	memset(o, 0, sizeof(*o));
	o->in = in;
	/* The compiler succeeded with this input: building its policy again must too. */
	CHECK(cf_mac_policy(in, &o->ph, &o->p, &err) == 0);
	const struct cf_mac_host *h = in->host;
	cf_strv_add(&o->readable, h->workspace);
	cf_strv_add(&o->meta, h->workspace);
	for (size_t i = 0; i < o->p.temp_roots.n; i++) {
		cf_strv_add(&o->readable, o->p.temp_roots.v[i]);
		cf_strv_add(&o->meta, o->p.temp_roots.v[i]);
	}
	for (size_t i = 0; h->cache && i < h->cache->n; i++) {
		cf_strv_add(&o->readable, h->cache->v[i]);
		cf_strv_add(&o->meta, h->cache->v[i]);
	}
	for (size_t i = 0; in->grants && i < in->grants->n; i++) {
		cf_strv_add(&o->readable, in->grants->v[i].path);
		cf_strv_add(&o->meta, in->grants->v[i].path);
	}
	for (size_t i = 0; i < in->n_injections; i++)
		cf_strv_add(&o->meta, in->injections[i].scratch);
	for (int l = 0; l < CF_LAYER_FALLBACK; l++) {
		const struct cf_ruleset *rs = &o->p.layers[l];
		for (size_t i = 0; i < rs->n; i++) {
			const struct cf_rule *r = &rs->v[i];
			if (r->action != CF_ALLOW && r->glob && strchr(r->path, '?'))
				o->deny_question = true;
			if (r->action != CF_ALLOW || r->glob)
				continue;
			cf_strv_add(&o->meta, r->path);
			if (r->access & CF_ACC_WRITE)
				cf_strv_add(&o->readable, r->path);
		}
	}
}

static void oracle_release(struct oracle *o)
{
	cf_policy_release(&o->p);
	cf_strv_release(&o->readable);
	cf_strv_release(&o->meta);
}

static bool ancestor_of_readable(const struct oracle *o, const char *p)
{
	for (size_t i = 0; i < o->meta.n; i++)
		if (within(o->meta.v[i], p) && strcmp(o->meta.v[i], p))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbpl_fuzz f;
	struct confine_error err = {0};
	struct cf_mac_plan plan;
	if (size > 4096)
		return 0;
	int r = sbpl_fuzz_decode(data, size, &f, &err);
	if (r < 0) {
		CHECK(r == CONFINE_E_NOMEM || err.what[0]);
		sbpl_fuzz_release(&f);
		return 0;
	}
	r = cf_mac_plan_compile(&f.in, &plan, &err);
	if (r < 0) {
		CHECK(err.code == r && err.what[0] && err.reason[0]);
		sbpl_fuzz_release(&f);
		return 0;
	}
	char why[256];
	struct sbpl_profile *sp = sbpl_read(plan.profile, why, sizeof(why));
	if (!sp)
		fprintf(stderr, "fuzz-sbpl: the profile does not read back: %s\n", why);
	CHECK(sp != NULL);
	check_literals(&plan, sp);

	struct oracle o;
	struct cf_strv v = {0};
	oracle_init(&o, &f.in);
	probes(&o, &v);
	for (size_t i = 0; i < v.n; i++) {
		const char *p = v.v[i];
		bool rd, wr, exact;
		decide(&o, p, &rd, &wr, &exact);
		bool srd = sbpl_allows(sp, "file-read-data", SBPL_FILE, p);
		bool swr = sbpl_allows(sp, "file-write-data", SBPL_FILE, p);
		if ((srd && !rd) || (swr && !wr) ||
		    (exact && !widened(&o, p) && (srd != rd || swr != wr)))
			fprintf(
			    stderr,
			    "fuzz-sbpl: %s: profile read %d write %d, policy read %d write %d\n", p,
			    srd, swr, rd, wr);
		CHECK(!srd || rd);
		CHECK(!swr || wr);
		if (exact && !widened(&o, p)) {
			CHECK(srd == rd);
			CHECK(swr == wr);
		}
		if (sbpl_allows(sp, "file-read-metadata", SBPL_FILE, p) && !srd)
			CHECK(ancestor_of_readable(&o, p));
		/* explain's view of the Mac's read posture is the one written here. */
		CHECK(cf_mac_fallback_readable(&f.in, &o.p, p) == read_posture(&o, p));
	}
	cf_strv_release(&v);
	oracle_release(&o);
	sbpl_free(sp);
	cf_mac_plan_release(&plan);
	sbpl_fuzz_release(&f);
	return 0;
}
