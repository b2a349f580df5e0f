/* SPDX-License-Identifier: MIT */
/* Decoding the Seatbelt fuzz input (see sbpl_input.h). */
#include <stdlib.h>
#include <string.h>

#include "sbpl_input.h"
#include "util/util.h"

void sbpl_fuzz_release(struct sbpl_fuzz *f)
{
	cf_mac_facts_release(&f->facts);
	cf_ruleset_release(&f->session);
	cf_ruleset_release(&f->ws);
	cf_ruleset_release(&f->user);
	cf_grants_release(&f->grants);
	cf_strv_release(&f->store);
	cf_strv_release(&f->argv);
	memset(f, 0, sizeof(*f));
}

static int rule(struct sbpl_fuzz *f, const char *l, struct confine_error *err)
{
	if (strlen(l) < 5 || l[4] != ' ')
		return 0;
	struct cf_ruleset *rs = l[1] == 's' ? &f->session : l[1] == 'w' ? &f->ws : &f->user;
	enum cf_layer layer = l[1] == 's'   ? CF_LAYER_SESSION
			      : l[1] == 'w' ? CF_LAYER_WORKSPACE
					    : CF_LAYER_USER;
	struct cf_rule x = {
	    .pattern = (char *)l + 5,
	    .access = l[2] == 'r'   ? CF_ACC_READ
		      : l[2] == 'w' ? CF_ACC_WRITE
				    : CF_ACC_BOTH,
	    .action = l[3] == 'a'   ? CF_ALLOW
		      : l[3] == 'k' ? CF_ASK
				    : CF_DENY,
	    .layer = layer,
	    .source = layer == CF_LAYER_SESSION ? "session" : "fuzz-rules.json",
	    .index = (int)rs->n,
	    .line = layer == CF_LAYER_SESSION ? 0 : (int)rs->n + 1,
	    .column = 1,
	};
	return cf_ruleset_add(rs, &x, err);
}

int sbpl_fuzz_decode(const uint8_t *data, size_t size, struct sbpl_fuzz *f,
		     struct confine_error *err)
{
	struct cf_buf facts;
	struct cf_strv grants = {0};
	size_t n_inj = 0;
	bool home = false, ws = false, temp = false;
	int r;

	memset(f, 0, sizeof(*f));
	cf_buf_init(&facts);
	char *text = malloc(size + 1);
	if (!text)
		return cf_nomem(err);
	memcpy(text, data, size);
	text[size] = '\0';
	f->in.network = CF_MAC_NET_ON;
	r = cf_mac_facts_init(&f->facts, err);
	for (char *s = text, *nl; r == 0 && s && *s; s = nl) {
		nl = strchr(s, '\n');
		if (nl)
			*nl++ = '\0';
		const char *kw = NULL;
		switch (s[0]) {
		case 'h':
			kw = "home", home = true;
			break;
		case 'w':
			kw = "workspace", ws = true;
			break;
		case 't':
			kw = "temp", temp = true;
			break;
		case 'c':
			kw = "cache";
			break;
		case 'l':
			kw = "link";
			break;
		case 'k':
			kw = "ssh-auth-sock";
			break;
		case 'd':
			kw = "dir";
			break;
		case 'f':
			kw = "file";
			break;
		case 'e':
			cf_buf_add(&facts, "unlisted exists\n");
			break;
		case 'n':
			f->in.network = s[1] == '1'   ? CF_MAC_NET_OFF
					: s[1] == '2' ? CF_MAC_NET_PROXY
						      : CF_MAC_NET_ON;
			if (s[1] == '2')
				f->in.proxy_port = (unsigned)strtoul(s + 2, NULL, 10);
			break;
		case 'g':
			if (s[1] == ' ')
				r = cf_strv_add(&grants, s + 2) < 0 ? cf_nomem(err) : 0;
			break;
		case 'i':
		case 'p':
			if (s[1] != ' ' || n_inj == SBPL_FUZZ_MAX_INJ)
				break;
			if (cf_strv_add(&f->store, s + 2) < 0) {
				r = cf_nomem(err);
				break;
			}
			{
				char *v = f->store.v[f->store.n - 1], *sp = strchr(v, ' ');
				if (s[0] == 'p')
					f->inj[n_inj++] = (struct cf_mac_injection){.target = v};
				else if (sp)
					*sp = '\0',
					f->inj[n_inj++] =
					    (struct cf_mac_injection){.name = v, .scratch = sp + 1};
			}
			break;
		case 'r':
			r = rule(f, s, err);
			break;
		}
		if (kw && s[1] == ' ')
			cf_buf_addf(&facts, "%s %s\n", kw, s + 2);
	}
	free(text);
	if (r == 0 && !home)
		cf_buf_add(&facts, "home /Users/ana\n");
	if (r == 0 && !ws)
		cf_buf_add(&facts, "workspace /Users/ana/proj\n");
	if (r == 0 && !temp)
		cf_buf_add(&facts, "temp /var/folders/x1/abc123/T\n");
	if (r == 0 && facts.oom)
		r = cf_nomem(err);
	if (r == 0 && facts.s)
		r = cf_mac_facts_parse(&f->facts, facts.s, err);
	if (r == 0)
		r = cf_mac_facts_finish(&f->facts, NULL, NULL, NULL, err);
	cf_buf_release(&facts);
	f->host = cf_mac_facts_host(&f->facts);
	if (r == 0 && grants.n)
		r = cf_mac_grants(&f->host, (const char *const *)grants.v, grants.n, "fuzz",
				  &f->grants, err);
	if (r == 0 && cf_strv_add(&f->argv, "cmd") < 0)
		r = cf_nomem(err);
	f->in.host = &f->host;
	f->in.session = &f->session;
	f->in.workspace_rules = &f->ws;
	f->in.user_rules = &f->user;
	f->in.grants = grants.n ? &f->grants : NULL;
	f->in.injections = f->inj;
	f->in.n_injections = n_inj;
	f->in.argv = &f->argv;
	cf_strv_release(&grants);
	return r;
}
