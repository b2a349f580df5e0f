/* SPDX-License-Identifier: MIT */
/*
 * Validation of read-only file injections (SPEC 6, R21).  Pure.
 *
 * Everything here is decided from the request alone, so that a bad injection is refused before
 * confine reads a file, creates a memfd or starts anything: limits, the syntax of NAME and
 * TARGET, reserved names and duplicates.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "policy/inject.h"
#include "util/util.h"

/* A target longer than this could not be resolved by the kernel anyway (PATH_MAX). */
#define TARGET_MAX 4095
#define NAME_MAX_LEN 255

/*
 * Variables whose value a loader, an interpreter, a shell or a common tool acts on: as a path
 * they load code or configuration that runs code, or name a program to execute.  An injection
 * sets its variable to the path of a read-only file, last, over everything else; aimed at one
 * of these it would turn "a file the command can read" into "code every process of the sandbox
 * runs", which is not what injection is for.  Matched case-insensitively (Windows' variables
 * are, and refusing `path` costs nothing).
 */
static const char *const reserved_prefixes[] = {
    "LD_",	   /* the glibc and musl loaders: LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT */
    "DYLD_",	   /* the macOS loader */
    "BASH_FUNC_",  /* exported bash functions */
    "CONFINE_",	   /* confine's own variables, removed from every environment (SPEC 5) */
    "GIT_CONFIG",  /* GIT_CONFIG, _GLOBAL, _SYSTEM, _COUNT, _KEY_n: config runs commands */
    "NPM_CONFIG_", /* npm's configuration (scripts, node-options, prefixes) */
    "LUA_INIT",	   /* LUA_INIT and LUA_INIT_5_x run the file */
    "DOTNET_",	   /* startup hooks, additional deps, roll-forward */
    "CORECLR_",	   /* the .NET profiler */
    "COMPLUS_",	   /* .NET legacy knobs */
    "PYTHON",	   /* every CPython knob: PYTHONPATH, PYTHONSTARTUP, PYTHONHOME, ... */
    "PERL",	   /* PERL5LIB, PERL5OPT, PERLLIB, PERL5DB, PERL_MB_OPT, ... */
    "RUBY",	   /* RUBYOPT, RUBYLIB, RUBY_... */
    "JAVA_TOOL_",  /* JAVA_TOOL_OPTIONS */
    "_JAVA_",	   /* _JAVA_OPTIONS */
    "JDK_JAVA_",   /* JDK_JAVA_OPTIONS */
    "OPENSSL_",	   /* OPENSSL_CONF loads engines and providers (code) */
    "GCONV_",	   /* glibc's iconv modules are shared objects */
    "GLIBC_",	   /* GLIBC_TUNABLES */
    "MALLOC_",	   /* glibc malloc knobs (MALLOC_CHECK_, ...) */
    "PHP_INI_",	   /* PHP_INI_SCAN_DIR */
    "R_PROFILE",   /* R_PROFILE, R_PROFILE_USER: R code run at start */
    "GUILE_",	   /* load paths */
    "TCL_",	   /* TCL_LIBRARY */
    "NODE_",	   /* NODE_OPTIONS, NODE_PATH, NODE_REPL_EXTERNAL_MODULE, ... */
    "GTK_",	   /* GTK_MODULES, GTK_PATH */
    "GIO_",	   /* GIO_MODULE_DIR, GIO_EXTRA_MODULES */
    "QT_PLUGIN_",  /* QT_PLUGIN_PATH */
    "GST_PLUGIN_", /* GStreamer plugins */
    "LIBGL_",	   /* LIBGL_DRIVERS_PATH */
    "SSL_CERT_",   /* SSL_CERT_FILE/DIR: whom TLS trusts */
};

static const char *const reserved_names[] = {
    /* shells and the exec path */
    "PATH",
    "ENV",
    "BASH_ENV",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "PROMPT_COMMAND",
    "IFS",
    "CDPATH",
    "ZDOTDIR",
    "SHELL",
    "HOME",
    "TMPDIR",
    "PWD",
    "OLDPWD",
    /* interpreters and runtimes not covered by a prefix */
    "CLASSPATH",
    "TCLLIBPATH",
    "PHPRC",
    "EMACSLOADPATH",
    "VIMINIT",
    "EXINIT",
    "MYVIMRC",
    "GDBINIT",
    "INPUTRC",
    "TERMINFO",
    "TERMINFO_DIRS",
    "LOCPATH",
    "NLSPATH",
    "HOSTALIASES",
    "RESOLV_HOST_CONF",
    "RES_OPTIONS",
    "LOCALDOMAIN",
    "TZDIR",
    /* programs other programs execute */
    "EDITOR",
    "VISUAL",
    "PAGER",
    "MANPAGER",
    "BROWSER",
    "GIT_EXEC_PATH",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
    "GIT_EDITOR",
    "GIT_PAGER",
    "GIT_SEQUENCE_EDITOR",
    "GIT_EXTERNAL_DIFF",
    "GIT_PROXY_COMMAND",
    "GIT_TEMPLATE_DIR",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "GPG_TTY",
    "SSLKEYLOGFILE",
    "CURL_CA_BUNDLE",
    "REQUESTS_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
    "LESSOPEN",
    "LESSCLOSE",
    /* what confine's own launch and the proxies set */
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "FTP_PROXY",
};

static bool has_prefix_ci(const char *s, const char *prefix)
{
	return !strncasecmp(s, prefix, strlen(prefix));
}

bool cf_inject_name_reserved(const char *name)
{
	for (size_t i = 0; i < sizeof(reserved_prefixes) / sizeof(reserved_prefixes[0]); i++)
		if (has_prefix_ci(name, reserved_prefixes[i]))
			return true;
	for (size_t i = 0; i < sizeof(reserved_names) / sizeof(reserved_names[0]); i++)
		if (!strcasecmp(name, reserved_names[i]))
			return true;
	return false;
}

void cf_injects_release(struct cf_injects *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].where);
		free(l->v[i].data);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* The subject of a message: the value as given, with a NUL shown as "\0" (the C string would
 * otherwise end there and hide what was refused). */
static void subject_of(const char *where, size_t n, char *out, size_t cap)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k + 3 < cap; i++) {
		unsigned char c = (unsigned char)where[i];
		if (c == '\0') {
			out[k++] = '\\';
			out[k++] = '0';
		} else {
			out[k++] = (char)c;
		}
	}
	out[k] = '\0';
}

static int check_name(const char *name, size_t n, const char *subj, struct confine_error *err)
{
	bool ok = n > 0 && n <= NAME_MAX_LEN && (isalpha((unsigned char)name[0]) || name[0] == '_');
	for (size_t i = 1; ok && i < n; i++)
		ok = isalnum((unsigned char)name[i]) || name[i] == '_';
	if (!ok) {
		cf_err(err, CONFINE_E_INVALID, "invalid injection", subj,
		       "an env-pointer NAME must match [A-Za-z_][A-Za-z0-9_]* (at most %d "
		       "characters)",
		       NAME_MAX_LEN);
		return CONFINE_E_INVALID;
	}
	if (cf_inject_name_reserved(name)) {
		cf_err(err, CONFINE_E_INVALID, "invalid injection", subj,
		       "%s is a variable that a loader, an interpreter or a shell acts on; an "
		       "injection never points one at a file",
		       name);
		cf_err_hint(err,
			    "choose the variable the program reads its settings path from (for "
			    "example CLAUDE_CODE_MANAGED_SETTINGS_PATH)");
		return CONFINE_E_INVALID;
	}
	return 0;
}

/* Absolute, no NUL, no control character, no ".." component; normalised into *out. */
static int check_target(const char *t, size_t n, const char *subj, char **out,
			struct confine_error *err)
{
	if (n == 0 || t[0] != '/')
		return cf_err(err, CONFINE_E_INVALID, "invalid injection", subj,
			      "a fixed-path TARGET must be an absolute path inside the sandbox");
	if (n > TARGET_MAX)
		return cf_err(err, CONFINE_E_LIMIT, "invalid injection", subj,
			      "a fixed-path TARGET may be at most %d bytes long", TARGET_MAX);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t[i];
		if (c == '\0')
			return cf_err(err, CONFINE_E_INVALID, "invalid injection", subj,
				      "a fixed-path TARGET may not contain a NUL byte");
		if (c < 0x20 || c == 0x7f)
			return cf_err(err, CONFINE_E_INVALID, "invalid injection", subj,
				      "a fixed-path TARGET may not contain a control character "
				      "(byte 0x%02x)",
				      c);
	}
	for (size_t i = 0; i < n;) {
		while (i < n && t[i] == '/')
			i++;
		size_t s = i;
		while (i < n && t[i] != '/')
			i++;
		if (i - s == 2 && t[s] == '.' && t[s + 1] == '.')
			return cf_err(err, CONFINE_E_INVALID, "invalid injection", subj,
				      "a fixed-path TARGET may not contain a '..' component");
	}
	/* `t` is n bytes, not necessarily NUL-terminated (confine_request_add_injection_n). */
	char *copy = cf_strndup(t, n);
	char *norm = copy ? cf_path_normalize(copy) : NULL;
	free(copy);
	if (!norm)
		return cf_nomem(err);
	if (!strcmp(norm, "/")) {
		free(norm);
		return cf_err(err, CONFINE_E_INVALID, "invalid injection", subj,
			      "a fixed-path TARGET names a file, not the root directory");
	}
	if (cf_path_within(norm, CF_INJECT_ENV_DIR) || cf_path_within(CF_INJECT_ENV_DIR, norm)) {
		free(norm);
		return cf_err(err, CONFINE_E_INVALID, "invalid injection", subj,
			      "%s is where confine places the env-pointer files",
			      CF_INJECT_ENV_DIR);
	}
	*out = norm;
	return 0;
}

/* The placement known, the content where it says, and the run's limits on injections kept. */
static int check_limits(const struct cf_injects *l, enum confine_inject_placement placement,
			const void *data, size_t len, const char *subj, struct confine_error *err)
{
	if (placement != CONFINE_INJECT_ENV && placement != CONFINE_INJECT_PATH)
		return cf_err(err, CONFINE_E_INVALID, "invalid injection", subj,
			      "unknown placement %d (expected CONFINE_INJECT_ENV or "
			      "CONFINE_INJECT_PATH)",
			      (int)placement);
	if (len && !data)
		return cf_err(err, CONFINE_E_INVALID, "invalid injection", subj,
			      "%zu bytes of content at a NULL pointer", len);
	if (l->n >= CONFINE_INJECT_MAX_COUNT)
		return cf_err(err, CONFINE_E_LIMIT, "too many injections", subj,
			      "at most %d injections per run", CONFINE_INJECT_MAX_COUNT);
	if (len > CONFINE_INJECT_MAX_BYTES)
		return cf_err(err, CONFINE_E_LIMIT, "injection too large", subj,
			      "%zu bytes; an injection may hold at most %u bytes (8 MiB)", len,
			      CONFINE_INJECT_MAX_BYTES);
	if (l->total + len > CONFINE_INJECT_MAX_TOTAL)
		return cf_err(err, CONFINE_E_LIMIT, "injections too large", subj,
			      "%llu bytes in all with this one; the injections of a run may hold "
			      "at most %u bytes (16 MiB) together",
			      (unsigned long long)(l->total + len), CONFINE_INJECT_MAX_TOTAL);
	return 0;
}

/* The injection's key: the variable's NAME (checked), or the target path normalised. */
static int make_key(enum confine_inject_placement placement, const char *where, size_t where_len,
		    const char *subj, char **key, struct confine_error *err)
{
	*key = NULL;
	if (placement != CONFINE_INJECT_ENV)
		return check_target(where, where_len, subj, key, err);
	if (memchr(where, '\0', where_len))
		return cf_err(err, CONFINE_E_INVALID, "invalid injection", subj,
			      "an env-pointer NAME may not contain a NUL byte");
	if (!(*key = cf_strndup(where, where_len)))
		return cf_nomem(err);
	int r = check_name(*key, where_len, subj, err);
	if (r < 0) {
		free(*key);
		*key = NULL;
	}
	return r;
}

/* No other injection of the placement has the key, and no injected file lies above or beneath
 * a target path. */
static int check_unique(const struct cf_injects *l, enum confine_inject_placement placement,
			const char *key, const char *subj, struct confine_error *err)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct cf_inject *o = &l->v[i];
		if (o->placement != placement)
			continue;
		if (!strcmp(o->where, key))
			return cf_err(
			    err, CONFINE_E_INVALID, "duplicate injection", subj,
			    placement == CONFINE_INJECT_ENV
				? "the variable %s is already injected"
				: "'%s' is already an injection target (targets are compared "
				  "after normalising '.', '//' and a trailing '/')",
			    key);
		if (placement == CONFINE_INJECT_PATH &&
		    (cf_path_within(key, o->where) || cf_path_within(o->where, key)))
			return cf_err(
			    err, CONFINE_E_INVALID, "conflicting injection", subj,
			    "'%s' lies %s the injected file '%s'; a file has nothing beneath "
			    "it",
			    key, cf_path_within(key, o->where) ? "beneath" : "above", o->where);
	}
	return 0;
}

int cf_injects_add(struct cf_injects *l, enum confine_inject_placement placement, const char *where,
		   size_t where_len, const void *data, size_t len, struct confine_error *err)
{
	char subj[1024];
	char *key = NULL;
	unsigned char *copy = NULL;
	int r;

	if (!where) {
		where = "";
		where_len = 0;
	}
	subject_of(where, where_len, subj, sizeof(subj));
	if ((r = check_limits(l, placement, data, len, subj, err)) < 0 ||
	    (r = make_key(placement, where, where_len, subj, &key, err)) < 0)
		return r;
	if ((r = check_unique(l, placement, key, subj, err)) < 0)
		goto fail;
	if (l->n == l->cap) {
		size_t cap;
		struct cf_inject *v = cf_grow_array(l->v, l->cap, 8, sizeof(*v), &cap);
		if (!v)
			goto oom;
		l->v = v;
		l->cap = cap;
	}
	/* malloc(0) may return NULL: one byte more keeps "no memory" unambiguous. */
	if (!(copy = malloc(len + 1)))
		goto oom;
	if (len)
		memcpy(copy, data, len);
	l->v[l->n++] =
	    (struct cf_inject){.placement = placement, .where = key, .data = copy, .len = len};
	l->total += len;
	return 0;
oom:
	r = cf_nomem(err);
fail:
	free(key);
	free(copy);
	return r;
}

char *cf_inject_env_path(const char *name)
{
	return cf_asprintf("%s/%s", CF_INJECT_ENV_DIR, name);
}

char *cf_inject_record(enum confine_inject_placement placement, const char *where, const char *hash)
{
	return cf_asprintf("%s:%s=%s", placement == CONFINE_INJECT_ENV ? "env" : "path", where,
			   hash);
}
