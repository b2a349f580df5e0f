/* SPDX-License-Identifier: MIT */
/*
 * Landlock rights per ABI version and the explicit downgrade table (SPEC 3.3, R28).  Pure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/landlock/ll_plan.h"
#include "util/util.h"

/*
 * Highest ABI first: the plan is written for min(kernel, CF_LL_ABI_KNOWN); each older ABI loses
 * what its newer entries add.  `required` marks what policy required cannot do without.
 */
static const struct cf_ll_abi_entry table[] = {
    {1,
     "fs: execute write_file read_file read_dir remove_dir remove_file make_char make_dir "
     "make_reg make_sock make_fifo make_block make_sym",
     "no Landlock: the backend cannot run", true, "Landlock (ABI 1)"},
    {2, "fs: refer", "renames and links across directories fail with EXDEV (stricter, accepted)",
     false, "LANDLOCK_ACCESS_FS_REFER"},
    {3, "fs: truncate",
     "truncate(2) is not governed: a readable, write-denied file could be emptied", true,
     "LANDLOCK_ACCESS_FS_TRUNCATE (ABI 3)"},
    {4, "net: bind_tcp connect_tcp",
     "with the network off, TCP is refused by the socket-family filter alone (still enforced)",
     false, "LANDLOCK_ACCESS_NET_CONNECT_TCP"},
    {5, "fs: ioctl_dev",
     "ioctl(2) on devices is not governed (TIOCSTI and TIOCLINUX stay refused by seccomp)", false,
     "LANDLOCK_ACCESS_FS_IOCTL_DEV"},
    /* Not required: Ubuntu 24.04's kernel (ABI 4), the reason this backend exists, would be
     * refused.  Signals are a denial of service, not a way to read or write; abstract unix
     * sockets stay unreachable below ABI 9 anyway (socket(AF_UNIX) is refused). */
    {6, "scope: abstract_unix_socket signal",
     "signals are not scoped: without a pid namespace the command can signal (and kill) "
     "every process of the user",
     false, "LANDLOCK_SCOPE_SIGNAL (ABI 6)"},
    {7, "restrict_self: log flags (audit)", "nothing: confine does not use audit logging", false,
     "LANDLOCK_RESTRICT_SELF_LOG_*"},
    {8, "restrict_self: tsync", "nothing: the child is single-threaded when it restricts itself",
     false, "LANDLOCK_RESTRICT_SELF_TSYNC"},
    {9, "fs: resolve_unix",
     "connect(2) and sendmsg(2) to pathname unix sockets are not governed by Landlock: "
     "socket(AF_UNIX) and datagram socketpairs are refused by seccomp instead (stream "
     "socketpairs work)",
     false, "LANDLOCK_ACCESS_FS_RESOLVE_UNIX"},
};

const struct cf_ll_abi_entry *cf_ll_abi_table(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

uint64_t cf_ll_fs_rights(int abi)
{
	if (abi < 1)
		return 0;
	uint64_t r = (CF_LL_FS_MAKE_SYM << 1) - 1; /* bits 0..12 */
	if (abi >= 2)
		r |= CF_LL_FS_REFER;
	if (abi >= 3)
		r |= CF_LL_FS_TRUNCATE;
	if (abi >= 5)
		r |= CF_LL_FS_IOCTL_DEV;
	if (abi >= 9)
		r |= CF_LL_FS_RESOLVE_UNIX;
	return r;
}

static const char *const names[] = {
    "execute",	 "write_file", "read_file", "read_dir",	 "remove_dir",	 "remove_file",
    "make_char", "make_dir",   "make_reg",  "make_sock", "make_fifo",	 "make_block",
    "make_sym",	 "refer",      "truncate",  "ioctl_dev", "resolve_unix",
};

void cf_ll_access_names(struct cf_buf *b, uint64_t access)
{
	bool first = true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(access & (1ULL << i)))
			continue;
		cf_buf_addf(b, "%s%s", first ? "" : ",", names[i]);
		first = false;
	}
	if (first)
		cf_buf_add(b, "none");
}

void cf_ll_listings_release(struct cf_ll_listings *l)
{
	for (size_t i = 0; i < l->n; i++) {
		for (size_t j = 0; j < l->v[i].n; j++)
			free(l->v[i].v[j].name);
		free(l->v[i].v);
		free(l->v[i].dir);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

struct cf_ll_listing *cf_ll_listings_add(struct cf_ll_listings *l, const char *dir)
{
	if (l->n == l->cap) {
		size_t cap;
		struct cf_ll_listing *v = cf_grow_array(l->v, l->cap, 16, sizeof(*v), &cap);
		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	char *d = cf_strdup(dir);
	if (!d)
		return NULL;
	l->v[l->n] = (struct cf_ll_listing){.dir = d};
	return &l->v[l->n++];
}

int cf_ll_listing_add(struct cf_ll_listing *l, const char *name, enum cf_kind kind)
{
	if (l->n == l->cap) {
		size_t cap;
		struct cf_ll_dirent *v = cf_grow_array(l->v, l->cap, 32, sizeof(*v), &cap);
		if (!v)
			return CONFINE_E_NOMEM;
		l->v = v;
		l->cap = cap;
	}
	char *n = cf_strdup(name);
	if (!n)
		return CONFINE_E_NOMEM;
	l->v[l->n++] = (struct cf_ll_dirent){.name = n, .kind = kind};
	return 0;
}

static int dirent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cf_ll_dirent *)a)->name,
		      ((const struct cf_ll_dirent *)b)->name);
}

static int listing_cmp(const void *a, const void *b)
{
	return cf_path_cmp(((const struct cf_ll_listing *)a)->dir,
			   ((const struct cf_ll_listing *)b)->dir);
}

void cf_ll_listings_sort(struct cf_ll_listings *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].n)
			qsort(l->v[i].v, l->v[i].n, sizeof(l->v[i].v[0]), dirent_cmp);
	if (l->n)
		qsort(l->v, l->n, sizeof(l->v[0]), listing_cmp);
}
