/* SPDX-License-Identifier: MIT */
/*
 * Snapshot files (SPEC 6, R21) for a backend that must materialise an injection as a host file
 * (macOS: Seatbelt can only allow a path).  POSIX only; Linux never needs it (sealed memfds).
 *
 *   cf_snapshot_dir_create   a private directory (0700, owned by the caller) under BASE, locked
 *                            (flock on the directory) for as long as it is open
 *   cf_snapshot_write        one file in it: O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600, then
 *                            re-read and compared with the content's BLAKE3
 *   cf_snapshot_verify       re-reads a file and compares it with a hash ("integrity check
 *                            failed" on a difference)
 *   cf_snapshot_dir_remove   removes the files and the directory (when the command has ended)
 *   cf_snapshot_sweep        removes the directories under BASE that a crashed confine left:
 *                            those whose lock nobody holds
 *
 * BASE must be a directory the sandboxed command cannot write (the scratch directory would
 * otherwise be renamable from inside); the caller chooses it.  Nothing here follows a symlink:
 * every file is reached relative to the directory's descriptor with O_NOFOLLOW, and the sweep
 * unlinks entries, never what they point to.
 */
#ifndef CONFINE_INJECT_SNAPSHOT_H
#define CONFINE_INJECT_SNAPSHOT_H

#include <stddef.h>

#include "confine.h"
#include "inject/hash.h"

/* Directories are named CF_SNAPSHOT_PREFIX + 6 random characters. */
#define CF_SNAPSHOT_PREFIX "confine-snap-"

struct cf_snapshot_dir {
	char *path;   /* BASE/confine-snap-XXXXXX */
	char *name;   /* confine-snap-XXXXXX */
	int basefd;   /* BASE */
	int dirfd;    /* the directory; holds the flock */
	char **files; /* names written, for the removal */
	size_t n_files;
};

#define CF_SNAPSHOT_DIR_INIT                                                                       \
	{                                                                                          \
		.basefd = -1, .dirfd = -1                                                          \
	}

/* Creates the private directory under `base` (an existing directory, reached without
 * following a symlink at its last component).  Touches the OS. */
int cf_snapshot_dir_create(const char *base, struct cf_snapshot_dir *d, struct confine_error *err);

/* Writes `len` bytes as the file `name` (no '/', not starting with '.') and verifies it: `hash`
 * receives the BLAKE3 of what the file holds, equal to that of `data`, else "integrity check
 * failed".  *path_out (may be NULL) receives the file's path (malloc'd).  An existing entry at
 * the name, a symlink included, is an error: nothing is followed or overwritten.  Touches the
 * OS. */
int cf_snapshot_write(struct cf_snapshot_dir *d, const char *name, const void *data, size_t len,
		      char hash[CF_HASH_HEX], char **path_out, struct confine_error *err);

/* Re-reads `name` (O_NOFOLLOW; a regular file of the caller with one link) and compares its
 * BLAKE3 with `hash`: CONFINE_E_SPAWN "integrity check failed" when they differ.  Touches the
 * OS. */
int cf_snapshot_verify(const struct cf_snapshot_dir *d, const char *name, const char *hash,
		       struct confine_error *err);

/* Removes every file written and the directory, closes the descriptors (which releases the
 * lock) and resets d.  Accepts a directory never created.  Touches the OS. */
int cf_snapshot_dir_remove(struct cf_snapshot_dir *d, struct confine_error *err);

/* Removes the snapshot directories under `base` whose lock is not held (their confine is
 * gone) and that belong to the caller; *removed (may be NULL) counts them.  Entries are
 * unlinked, never followed; a directory holding anything confine does not write (a
 * subdirectory) is left.  A missing base is not an error.  Touches the OS. */
int cf_snapshot_sweep(const char *base, size_t *removed, struct confine_error *err);

#endif
