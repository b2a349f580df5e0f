/* SPDX-License-Identifier: MIT */
/*
 * The scan cache of R32: what an earlier glob scan (host/scan.c) found in each directory it
 * read, so that the next scan reads only the directories that changed.
 *
 * One record per directory the scan walked: its identity (device, inode), its timestamps
 * (mtime, ctime, with nanoseconds), the moment the scan read it, and its entries that mattered
 * to the patterns (the ones that matched, and the subdirectories the walk went into), sorted
 * by name.  A record is reused only when the directory's identity and both timestamps are
 * unchanged, the file system keeps timestamps confine trusts (local ones), and the timestamps
 * are older than the moment of the read by more than CF_SCAN_RACY_NS (the racy-timestamp rule:
 * an entry created right after the read, within the file system's timestamp granularity,
 * could leave the timestamps as they were).  The kernel sets ctime to the current time on every
 * change of a directory's entries and nobody can set it back (utimensat sets it too), so an
 * unchanged ctime older than the read means an unchanged listing.
 *
 * The file is confine's own state (R30): $XDG_CACHE_HOME/confine/scan-KEY, one per set of
 * patterns (which includes the workspace; ipc-KEY for the sweep of /run, host/ipc.c), 0600 in a
 * 0700 directory that is a write-deny override inside the sandbox.  Anything that is not exactly
 * what confine wrote (truncated, corrupt, another key or version, another owner, writable by
 * others, a symlink, a hard link, larger than the bound, written before the clock was set) is
 * ignored: the scan reads everything again.
 */
#ifndef CONFINE_SCAN_CACHE_H
#define CONFINE_SCAN_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/facts.h"
#include "rules/rules.h"

#define CF_SCAN_NONE UINT32_MAX
/* 2 s: covers file systems that keep whole seconds and the coarse clock the kernel stamps
 * files with (up to a tick behind the clock confine reads). */
#define CF_SCAN_RACY_NS 2000000000LL
/* The bound of a cache file (and of the records kept in memory for one): past it the scan
 * still runs, but nothing is stored. */
#define CF_SCAN_CACHE_MAX_BYTES (64u << 20)

enum {
	CF_SCAN_TRUSTED = 1, /* on a file system whose timestamps confine trusts */
};

/* Flags of an entry (the glob scan's; the sweep of /run uses DIVE only). */
enum {
	CF_SCAN_KID_MATCH = 1, /* a pattern matched it */
	CF_SCAN_KID_DIVE = 2,  /* a directory some pattern is alive below: the walk goes in */
};

/* A directory the scan read.  Times are nanoseconds since the epoch (CLOCK_REALTIME). */
struct cf_scan_dir {
	uint64_t dev, ino;
	int64_t mtime, ctime;
	int64_t read;	   /* just before its entries were read */
	uint32_t first, n; /* its entries: kids[first, first + n), sorted by name (strcmp) */
	uint32_t mode;	   /* st_mode */
	uint32_t flags;	   /* CF_SCAN_* */
};

/* An entry of a directory that mattered: a match, or a directory the walk went into. */
struct cf_scan_kid {
	uint32_t name; /* offset in names */
	uint32_t dir;  /* the record of the directory it is, or CF_SCAN_NONE */
	uint16_t len;  /* of the name, 1..255 */
	uint8_t kind;  /* enum cf_kind */
	uint8_t flags; /* CF_SCAN_KID_* */
};

/* The directory a walk starts at (the wildcard-free prefix of its patterns). */
struct cf_scan_root {
	uint32_t name, len; /* the absolute path, in names */
	uint32_t dir;	    /* its record */
	uint32_t pad;
};

struct cf_scan_cache {
	char key[65]; /* cf_scan_cache_key of the patterns */
	char kind[8]; /* the file's name is KIND-KEY: "scan" (glob scan), "ipc" (sweep of /run) */
	struct cf_scan_root *roots;
	struct cf_scan_dir *dirs;
	struct cf_scan_kid *kids;
	char *names;
	size_t nroots, ndirs, nkids, nnames;
	size_t croots, cdirs, ckids, cnames; /* capacity; 0 for a parsed (read-only) cache */
	void *blob;			     /* a parsed cache: the file's bytes, which hold all */
};

void cf_scan_cache_free(struct cf_scan_cache *c);

/* The key of a set of glob rules (their resolved patterns, case folding and order) for the
 * calling user: 64 hex digits. */
void cf_scan_cache_key(const struct cf_ruleset *rules, char key[65]);

/* The bytes of a cache file (a fresh allocation; NULL on out-of-memory or past the bound). */
void *cf_scan_cache_serialize(const struct cf_scan_cache *c, int64_t clock_offset, size_t *len);
/*
 * Parses a cache file's bytes; takes `buf` (freed on failure).  Everything is checked: sizes,
 * checksum, key, version, that every offset and index is in bounds, that names are single
 * path components, that entries are sorted and every directory record is reached once, in
 * walk order (so no walk of it can loop).  `clock_offset` is the current CLOCK_REALTIME -
 * CLOCK_BOOTTIME; a file written under another (the clock was set, or the machine rebooted) is
 * refused.  Returns 0 and the cache, or -1 and why (a static string).  Pure.
 */
int cf_scan_cache_parse(void *buf, size_t len, const char key[65], int64_t clock_offset,
			struct cf_scan_cache **out, const char **why);

/* Writes key, clock offset and checksum into a file image, so that cf_scan_cache_parse gets
 * past them (the fuzz target and tests use it to reach the structural checks). */
void cf_scan_cache_seal(void *buf, size_t len, const char key[65], int64_t clock_offset);

/* Building a cache as a scan walks (false or CF_SCAN_NONE: out of memory or past a limit). */
size_t cf_scan_cache_bytes(const struct cf_scan_cache *c);
/* A new directory record like d, with no entries yet: its index. */
uint32_t cf_scan_rec_dir(struct cf_scan_cache *c, const struct cf_scan_dir *d);
/* An entry of the directory record made last (its entries are contiguous). */
bool cf_scan_rec_kid(struct cf_scan_cache *c, const char *name, size_t n, enum cf_kind kind);
bool cf_scan_rec_root(struct cf_scan_cache *c, const char *path, size_t n, uint32_t dir);
/* Sorts the entries of record dir by name. */
void cf_scan_rec_sort(struct cf_scan_cache *c, uint32_t dir);
/* The record of the entry `name` of record dir, or CF_SCAN_NONE. */
uint32_t cf_scan_rec_child(const struct cf_scan_cache *c, uint32_t dir, const char *name, size_t n);

struct stat;
/* Whether record d still holds for the directory that lstat gives st for (the racy rule
 * included; see the top of this file).  Pure. */
bool cf_scan_dir_unchanged(const struct cf_scan_dir *d, const struct stat *st);
/* Whether the file system of fd keeps timestamps confine trusts (local ones).  Touches the
 * OS. */
bool cf_scan_fs_trusted(int fd);
/* A record of the directory st, read now (its entries follow).  Touches the OS (clock). */
void cf_scan_dir_init(struct cf_scan_dir *d, const struct stat *st, bool trusted);

/* CLOCK_REALTIME - CLOCK_BOOTTIME in nanoseconds.  Touches the OS (clocks). */
int64_t cf_scan_clock_offset(void);

/*
 * Loads the cache of `key` from the directory `dir` (confine's cache directory): 0 and the
 * cache, or -1 and why it was not used.  The directory must be the caller's own and writable by
 * nobody else, the file a regular file with one link, the caller's, 0600-ish (no write for
 * group or others), reached without following a symlink.  When `dir` is missing and its parent
 * is the caller's own, it is created (0700) first, so that the plan made after this protects it
 * (R30).  Touches the OS.
 */
int cf_scan_cache_load(const char *dir, const char key[65], struct cf_scan_cache **out,
		       const char **why);
/* The same for the file KIND-KEY; the directory is created only when `create`. */
int cf_scan_cache_load_at(const char *dir, bool create, const char *kind, const char key[65],
			  struct cf_scan_cache **out, const char **why);
/* Opens confine's cache directory (O_RDONLY|O_DIRECTORY, its last component not followed)
 * when it is the caller's and nobody else may write it, creating it (0700) first when `create`
 * and its parent is the caller's: a descriptor, or -1 and why.  Touches the OS. */
int cf_cache_dir_open(const char *dir, bool create, const char **why);
/* The checks of cf_scan_cache_load_at for any file NAME of confine's cache directory (at most
 * `max` bytes): 0 and its bytes (malloc'd), or -1 and why.  Touches the OS. */
int cf_cache_file_read(const char *dir, bool create, const char *name, size_t max, void **buf,
		       size_t *len, const char **why);
/* Writes NAME atomically into confine's cache directory as cf_scan_cache_store does, and keeps
 * the directory bounded.  0, or -1 when nothing was written.  Touches the OS. */
int cf_cache_file_write(const char *dir, const char *name, const void *buf, size_t len);
/* Writes the cache atomically (a new 0600 file made with O_EXCL, then renamed over the old
 * one), never through a symlink; only into an existing directory that passes the checks of
 * cf_scan_cache_load.  Best effort: 0, or -1 when nothing was written.  Touches the OS. */
int cf_scan_cache_store(const char *dir, const struct cf_scan_cache *c);

#endif
