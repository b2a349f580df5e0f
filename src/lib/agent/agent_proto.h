/* SPDX-License-Identifier: MIT */
/*
 * The SSH agent protocol (draft-miller-ssh-agent), as far as confine's filtering agent needs
 * it (R44): framing, the requests a client sends, the identities answer of the caller's agent,
 * and what is inside the data a client asks to have signed.  Every length is checked against
 * what is left before anything is read; nothing here allocates or touches the OS.  Pure.
 *
 * A message on the wire: uint32 length, then `length` bytes: the type byte and its contents.
 * Strings are uint32 length + bytes; a bool is one byte (0 or 1).
 */
#ifndef CONFINE_AGENT_PROTO_H
#define CONFINE_AGENT_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* The largest message either side may send (OpenSSH's agent uses the same bound). */
#define CF_AGENT_MAX_MSG (256u * 1024)
/* The longest session identifier accepted in a binding or a user authentication request. */
#define CF_AGENT_MAX_SID 128
/* Bindings kept per client connection. */
#define CF_AGENT_MAX_BINDS 16

/* Message numbers of the draft. */
enum {
	CF_SSH_AGENT_FAILURE = 5,
	CF_SSH_AGENT_SUCCESS = 6,
	CF_SSH_AGENTC_REQUEST_IDENTITIES = 11,
	CF_SSH_AGENT_IDENTITIES_ANSWER = 12,
	CF_SSH_AGENTC_SIGN_REQUEST = 13,
	CF_SSH_AGENT_SIGN_RESPONSE = 14,
	CF_SSH_AGENTC_ADD_IDENTITY = 17,
	CF_SSH_AGENTC_REMOVE_IDENTITY = 18,
	CF_SSH_AGENTC_REMOVE_ALL_IDENTITIES = 19,
	CF_SSH_AGENTC_ADD_SMARTCARD_KEY = 20,
	CF_SSH_AGENTC_REMOVE_SMARTCARD_KEY = 21,
	CF_SSH_AGENTC_LOCK = 22,
	CF_SSH_AGENTC_UNLOCK = 23,
	CF_SSH_AGENTC_ADD_ID_CONSTRAINED = 25,
	CF_SSH_AGENTC_ADD_SMARTCARD_KEY_CONSTRAINED = 26,
	CF_SSH_AGENTC_EXTENSION = 27,
	CF_SSH_AGENT_EXTENSION_FAILURE = 28,
};

/* SSH_MSG_USERAUTH_REQUEST (RFC 4252), the byte after the session id of a signed request. */
#define CF_SSH_MSG_USERAUTH_REQUEST 50

/* A string of the protocol: where its bytes are, inside the message. */
struct cf_agent_str {
	const uint8_t *p;
	size_t n;
};

/* A reader over bytes: every get checks what is left and fails without moving otherwise. */
struct cf_agent_rd {
	const uint8_t *p;
	size_t n;
};
bool cf_agent_get_u8(struct cf_agent_rd *r, uint8_t *v);
bool cf_agent_get_u32(struct cf_agent_rd *r, uint32_t *v);
bool cf_agent_get_str(struct cf_agent_rd *r, struct cf_agent_str *s);
bool cf_agent_get_bool(struct cf_agent_rd *r, bool *v);

/*
 * Framing: the length of the first complete message in buf[0..n) counting its 4-byte length,
 * 0 when more bytes are needed, -1 when the length is 0 or over CF_AGENT_MAX_MSG (the
 * connection is ended: nothing after it can be trusted to be a message boundary).
 */
long cf_agent_frame(const uint8_t *buf, size_t n);

/* What a client's request is, by the table of message types confine knows. */
enum cf_agent_kind {
	CF_AGENT_MALFORMED, /* too short, trailing bytes, a bad length inside */
	CF_AGENT_LIST,	    /* REQUEST_IDENTITIES */
	CF_AGENT_SIGN,	    /* SIGN_REQUEST */
	CF_AGENT_BIND,	    /* EXTENSION session-bind@openssh.com */
	CF_AGENT_QUERY,	    /* EXTENSION query */
	CF_AGENT_ADD,	    /* ADD_IDENTITY, ADD_ID_CONSTRAINED */
	CF_AGENT_REMOVE,    /* REMOVE_IDENTITY */
	CF_AGENT_REMOVE_ALL,
	CF_AGENT_LOCK,
	CF_AGENT_UNLOCK,
	CF_AGENT_SMARTCARD_ADD, /* ADD_SMARTCARD_KEY(_CONSTRAINED) */
	CF_AGENT_SMARTCARD_REMOVE,
	CF_AGENT_EXTENSION, /* any other extension */
	CF_AGENT_UNKNOWN,   /* a type the draft does not define for a client (protocol 1, ...) */
};

struct cf_agent_msg {
	enum cf_agent_kind kind;
	uint8_t type;
	const char *why; /* CF_AGENT_MALFORMED: what is wrong (static text) */
	/* CF_AGENT_SIGN */
	struct cf_agent_str key, data;
	uint32_t flags;
	/* CF_AGENT_BIND */
	struct cf_agent_str hostkey, sid, sig;
	bool forwarding;
	/* CF_AGENT_EXTENSION, CF_AGENT_BIND, CF_AGENT_QUERY: the name as sent */
	struct cf_agent_str ext;
};

/* Parses one message body (after the 4-byte length: the type byte and its contents). */
void cf_agent_parse(const uint8_t *body, size_t n, struct cf_agent_msg *out);

/* The name of a request kind for records: "list", "sign", "session-bind", ... */
const char *cf_agent_kind_name(enum cf_agent_kind k);

/* One key of an identities answer. */
struct cf_agent_ident {
	struct cf_agent_str blob, comment;
};

/*
 * Parses the body of the caller's agent's IDENTITIES_ANSWER: up to `cap` keys into v, *n set to
 * how many there are (at most cap; an answer with more is refused).  false when malformed.
 */
bool cf_agent_parse_identities(const uint8_t *body, size_t n, struct cf_agent_ident *v, size_t cap,
			       size_t *count);

/* Appends a whole message (length, type, contents) to out: the identities answer with the
 * keys of v[0..n) that keep[i] says. */
void cf_agent_build_identities(const struct cf_agent_ident *v, const bool *keep, size_t n,
			       struct cf_buf *out);
/* Appends a whole message of one type byte without contents (FAILURE, SUCCESS...). */
void cf_agent_build_byte(uint8_t type, struct cf_buf *out);

/* What a client asks to have signed. */
enum cf_sigdata_kind {
	CF_SIGDATA_OTHER,    /* neither of the two below */
	CF_SIGDATA_USERAUTH, /* an SSH user authentication request (RFC 4252 7) */
	CF_SIGDATA_SSHSIG,   /* an SSHSIG blob (ssh-keygen -Y sign: git commit signing) */
};

struct cf_sigdata {
	enum cf_sigdata_kind kind;
	/* USERAUTH */
	struct cf_agent_str sid, user, key;
	bool hostbound;		     /* publickey-hostbound-v00@openssh.com */
	struct cf_agent_str hostkey; /* hostbound: the server's host key */
	/* SSHSIG */
	struct cf_agent_str ns;
};

/*
 * Classifies the data of a sign request for `key` (the key blob of the request): a user
 * authentication request must name the same key, the service ssh-connection, a signature
 * that follows, a session id of 1..CF_AGENT_MAX_SID bytes and nothing after its last field;
 * an SSHSIG blob starts with its magic and a non-empty namespace and has nothing after its
 * hash.  Anything else is CF_SIGDATA_OTHER.
 */
void cf_agent_parse_sigdata(const uint8_t *data, size_t n, struct cf_agent_str key,
			    struct cf_sigdata *out);

/* Whether two strings hold the same bytes. */
bool cf_agent_str_eq(struct cf_agent_str a, struct cf_agent_str b);

#endif
