/* SPDX-License-Identifier: MIT */
/*
 * The input language of the Seatbelt fuzz target (fuzz-sbpl.c), shared with the Guile reader
 * test, which compiles the same corpus: one item per line, the first byte says what it is.
 *     h PATH | w PATH | t PATH | c PATH      home, workspace, temp root, cache (host facts)
 *     l FROM TO | k SOCKET | d PATH | f PATH  a link, $SSH_AUTH_SOCK, a directory, a file
 *     e                                       unlisted paths exist
 *     n0 | n1 | n2PORT                        network on, off, through the proxy at PORT
 *     g PATH:file|subtree                     an approved write target
 *     i NAME SCRATCH | p TARGET               an env-pointer or a fixed-path injection
 *     rLAX PATTERN                            a rule: L = s(ession) w(orkspace) u(ser),
 *                                             A = r(ead) w(rite) b(oth), X = a(llow) k (ask)
 *                                             d(eny)
 * Defaults: home /Users/ana, workspace /Users/ana/proj, temp /var/folders/x1/abc123/T.
 */
#ifndef CONFINE_SBPL_INPUT_H
#define CONFINE_SBPL_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "plan/macos/sbpl.h"

#define SBPL_FUZZ_MAX_INJ 8

struct sbpl_fuzz {
	struct cf_mac_facts facts;
	struct cf_mac_host host;
	struct cf_ruleset session, ws, user;
	struct cf_grants grants;
	struct cf_strv store, argv;
	struct cf_mac_injection inj[SBPL_FUZZ_MAX_INJ];
	struct cf_mac_input in;
};

/* Builds the compiler's input from the bytes; a negative code when the facts or the grants are
 * refused (that is a valid outcome, err says why).  Release in every case. */
int sbpl_fuzz_decode(const uint8_t *data, size_t size, struct sbpl_fuzz *f,
		     struct confine_error *err);
void sbpl_fuzz_release(struct sbpl_fuzz *f);

#endif
