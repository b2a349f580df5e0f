/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#ifndef _WIN32
#include <sys/resource.h>
#endif

#include "util/util.h"

static void copy(char *dst, size_t cap, const char *src)
{
	if (!src)
		src = "";
	size_t n = strlen(src);
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int verr(struct confine_error *err, int code, const char *what, const char *subject,
		const char *fmt, va_list ap) CF_PRINTF(5, 0);

static int verr(struct confine_error *err, int code, const char *what, const char *subject,
		const char *fmt, va_list ap)
{
	if (!err || err->code != 0)
		return code;
	memset(err, 0, sizeof(*err));
	err->code = code;
	copy(err->what, sizeof(err->what), what);
	copy(err->subject, sizeof(err->subject), subject);
	if (fmt)
		vsnprintf(err->reason, sizeof(err->reason), fmt, ap);
	return code;
}

int cf_err(struct confine_error *err, int code, const char *what, const char *subject,
	   const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr(err, code, what, subject, fmt, ap);
	va_end(ap);
	return code;
}

/* The same for a host, through the public header. */
int confine_error_set(struct confine_error *err, int code, const char *what, const char *subject,
		      const char *reason_fmt, ...)
{
	va_list ap;
	va_start(ap, reason_fmt);
	verr(err, code, what, subject, reason_fmt, ap);
	va_end(ap);
	return code;
}

int cf_err_os(struct confine_error *err, int code, const char *what, const char *subject,
	      const char *syscall, int os_errno)
{
	if (!err || err->code != 0)
		return code;
	cf_err(err, code, what, subject, "%s", strerror(os_errno));
	err->os_errno = os_errno;
	copy(err->syscall, sizeof(err->syscall), syscall);
	cf_err_os_cause(err, os_errno);
	return code;
}

/* Out of descriptors is never what the failing step would otherwise suggest (a path that
 * changed, a broken installation): said as what it is, wherever it happens. */
void cf_err_os_cause(struct confine_error *err, int os_errno)
{
	if (!err)
		return;
#ifndef _WIN32
	struct rlimit rl;
	if (os_errno == EMFILE && getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		size_t n = strlen(err->reason);
		snprintf(err->reason + n, sizeof(err->reason) - n,
			 "%sthis process may have %llu files open at once (RLIMIT_NOFILE, "
			 "ulimit -n)",
			 n ? ": " : "", (unsigned long long)rl.rlim_cur);
		cf_err_hint(err,
			    "raise the limit in the calling shell, e.g. 'ulimit -n 1024': confine "
			    "holds a few dozen descriptors while it starts the sandbox, more with "
			    "many rules; nothing was run");
	}
#endif
	if (os_errno == ENFILE)
		cf_err_hint(err, "the system's table of open files is full; close programs or "
				 "raise fs.file-max; nothing was run");
}

void cf_err_hint(struct confine_error *err, const char *fmt, ...)
{
	if (!err)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->hint, sizeof(err->hint), fmt, ap);
	va_end(ap);
}

int confine_error_set_os(struct confine_error *err, int code, const char *what, const char *subject,
			 const char *syscall, int os_errno)
{
	return cf_err_os(err, code, what, subject, syscall, os_errno);
}

void confine_error_hint(struct confine_error *err, const char *fmt, ...)
{
	/* Only a failure without a remedy yet: never one failure's hint on another. */
	if (!err || !fmt || err->code == 0 || err->hint[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->hint, sizeof(err->hint), fmt, ap);
	va_end(ap);
}

int cf_err_publish(struct confine_error *err, const struct confine_error *mine)
{
	if (err && err->code == 0 && mine->code != 0)
		*err = *mine;
	return mine->code;
}

int cf_nomem(struct confine_error *err)
{
	return cf_err(err, CONFINE_E_NOMEM, "out of memory", "", "an allocation failed");
}

const char *confine_strerror(int code)
{
	switch (code) {
	case CONFINE_OK:
		return "success";
	case CONFINE_E_NOMEM:
		return "out of memory";
	case CONFINE_E_INVALID:
		return "invalid argument";
	case CONFINE_E_RULES:
		return "invalid rules";
	case CONFINE_E_WORKSPACE:
		return "workspace refused";
	case CONFINE_E_PLAN:
		return "rules cannot be compiled";
	case CONFINE_E_SCAN:
		return "glob scan failed";
	case CONFINE_E_BACKEND:
		return "no sandbox backend available";
	case CONFINE_E_OS:
		return "system call failed";
	case CONFINE_E_SPAWN:
		return "sandbox setup failed";
	case CONFINE_E_NOTFOUND:
		return "command not found";
	case CONFINE_E_NOEXEC:
		return "command not executable";
	case CONFINE_E_LIMIT:
		return "limit exceeded";
	case CONFINE_E_APPROVAL:
		return "not approved";
	case CONFINE_E_RECORD:
		return "record not written";
	}
	return "unknown error";
}
