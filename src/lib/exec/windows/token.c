/* SPDX-License-Identifier: MIT */
/*
 * The capability SID of a run and the write-restricted token (SPEC 10).
 *
 * A write-restricted token runs every write access check twice: with the user's own SIDs and
 * with the restricting SIDs only; both must grant.  The restricting SIDs are a capability SID
 * made for this run (so an ACE of an earlier or a concurrent run grants nothing), the logon
 * SID and Everyone, which ordinary programs need to write to objects of their own session.
 * The user's SID is never among them: every file the user may write would grant it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include <bcrypt.h>
#include <sddl.h>

#include "exec/windows/win.h"
#include "util/util.h"

int cf_win_capability_new(char **sid, struct confine_error *err)
{
	ULONG v[4];
	NTSTATUS st = BCryptGenRandom(NULL, (PUCHAR)v, sizeof(v), BCRYPT_USE_SYSTEM_PREFERRED_RNG);
	if (st != 0)
		return cf_win_oserr(err, CONFINE_E_OS, "cannot make a capability SID", "",
				    "BCryptGenRandom", (DWORD)st);
	*sid = cf_asprintf("S-1-5-21-%lu-%lu-%lu-%lu", (unsigned long)v[0], (unsigned long)v[1],
			   (unsigned long)v[2], (unsigned long)v[3]);
	return *sid ? 0 : cf_nomem(err);
}

/* A copy of the logon SID of a token (the group with SE_GROUP_LOGON_ID). */
static PSID logon_sid(HANDLE tok, struct confine_error *err)
{
	DWORD n = 0;
	GetTokenInformation(tok, TokenGroups, NULL, 0, &n);
	TOKEN_GROUPS *g = n ? malloc(n) : NULL;
	PSID out = NULL;
	if (!g || !GetTokenInformation(tok, TokenGroups, g, n, &n)) {
		cf_win_oserr(err, CONFINE_E_SPAWN, "cannot read the token's groups", "",
			     "GetTokenInformation", GetLastError());
		free(g);
		return NULL;
	}
	for (DWORD i = 0; i < g->GroupCount && !out; i++) {
		if ((g->Groups[i].Attributes & SE_GROUP_LOGON_ID) != SE_GROUP_LOGON_ID)
			continue;
		DWORD len = GetLengthSid(g->Groups[i].Sid);
		out = malloc(len);
		if (out && !CopySid(len, out, g->Groups[i].Sid)) {
			free(out);
			out = NULL;
		}
	}
	free(g);
	if (!out)
		cf_err(err, CONFINE_E_SPAWN, "cannot build the restricted token", "logon SID",
		       "the caller's token has no logon SID");
	return out;
}

/* The token's user SID (a pointer into `buf`). */
static PSID user_sid(HANDLE tok, void **buf)
{
	DWORD n = 0;
	GetTokenInformation(tok, TokenUser, NULL, 0, &n);
	*buf = n ? malloc(n) : NULL;
	if (!*buf || !GetTokenInformation(tok, TokenUser, *buf, n, &n))
		return NULL;
	return ((TOKEN_USER *)*buf)->User.Sid;
}

/*
 * The default DACL of the new token: what the command creates without an inherited ACL (its
 * pipes, events, sections) must be writable through the restricting SIDs too, or its own
 * second access check fails.  The user, SYSTEM, the logon SID and the capability SID.
 */
static int set_default_dacl(HANDLE tok, PSID cap, PSID logon, struct confine_error *err)
{
	void *ubuf = NULL;
	PSID user = user_sid(tok, &ubuf), system = NULL;
	DWORD slen = SECURITY_MAX_SID_SIZE;
	int r = 0;
	if (!user || !(system = malloc(slen)) ||
	    !CreateWellKnownSid(WinLocalSystemSid, NULL, system, &slen)) {
		r = cf_win_oserr(err, CONFINE_E_SPAWN, "cannot build the restricted token",
				 "default DACL", "CreateWellKnownSid", GetLastError());
		goto out;
	}
	PSID sids[] = {user, system, logon, cap};
	DWORD size = sizeof(ACL);
	for (size_t i = 0; i < 4; i++)
		size += sizeof(ACCESS_ALLOWED_ACE) + GetLengthSid(sids[i]);
	ACL *acl = malloc(size);
	bool ok = acl && InitializeAcl(acl, size, ACL_REVISION);
	for (size_t i = 0; ok && i < 4; i++)
		ok = AddAccessAllowedAce(acl, ACL_REVISION, GENERIC_ALL, sids[i]);
	TOKEN_DEFAULT_DACL dd = {acl};
	if (!ok || !SetTokenInformation(tok, TokenDefaultDacl, &dd, sizeof(dd)))
		r = cf_win_oserr(err, CONFINE_E_SPAWN, "cannot build the restricted token",
				 "default DACL", "SetTokenInformation", GetLastError());
	free(acl);
out:
	free(system);
	free(ubuf);
	return r;
}

int cf_win_token_new(const char *capability, HANDLE *out, struct confine_error *err)
{
	HANDLE base = NULL, tok = NULL;
	PSID cap = NULL, logon = NULL, world = NULL;
	wchar_t *wcap = NULL;
	DWORD wlen = SECURITY_MAX_SID_SIZE;
	int r = CONFINE_E_SPAWN;

	*out = NULL;
	if (!OpenProcessToken(GetCurrentProcess(),
			      TOKEN_DUPLICATE | TOKEN_QUERY | TOKEN_ASSIGN_PRIMARY |
				  TOKEN_ADJUST_DEFAULT | TOKEN_ADJUST_SESSIONID,
			      &base)) {
		r = cf_win_oserr(err, CONFINE_E_SPAWN, "cannot build the restricted token", "",
				 "OpenProcessToken", GetLastError());
		goto out;
	}
	if (!(wcap = cf_w_from_utf8(capability)) || !ConvertStringSidToSidW(wcap, &cap)) {
		r = cf_win_oserr(err, CONFINE_E_SPAWN, "cannot build the restricted token",
				 capability, "ConvertStringSidToSidW", GetLastError());
		goto out;
	}
	if (!(logon = logon_sid(base, err)))
		goto out;
	if (!(world = malloc(wlen)) || !CreateWellKnownSid(WinWorldSid, NULL, world, &wlen)) {
		r = cf_win_oserr(err, CONFINE_E_SPAWN, "cannot build the restricted token",
				 "Everyone", "CreateWellKnownSid", GetLastError());
		goto out;
	}
	SID_AND_ATTRIBUTES restricting[3] = {{cap, 0}, {logon, 0}, {world, 0}};
	if (!CreateRestrictedToken(base, DISABLE_MAX_PRIVILEGE | LUA_TOKEN | WRITE_RESTRICTED, 0,
				   NULL, 0, NULL, 3, restricting, &tok)) {
		r = cf_win_oserr(err, CONFINE_E_SPAWN, "cannot build the restricted token", "",
				 "CreateRestrictedToken", GetLastError());
		goto out;
	}
	if ((r = set_default_dacl(tok, cap, logon, err)) < 0)
		goto out;
	*out = tok;
	tok = NULL;
	r = 0;
out:
	if (tok)
		CloseHandle(tok);
	if (base)
		CloseHandle(base);
	if (cap)
		LocalFree(cap);
	free(logon);
	free(world);
	free(wcap);
	return r;
}
