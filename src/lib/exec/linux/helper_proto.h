/* SPDX-License-Identifier: MIT */
/*
 * The status protocol between confine-init (pid 1 in the sandbox) and confine: fixed-size
 * records on a pipe, written with one write(2) each (atomic below PIPE_BUF).
 */
#ifndef CONFINE_HELPER_PROTO_H
#define CONFINE_HELPER_PROTO_H

#include <stdint.h>

enum {
	CF_HELPER_READY = 'R',	    /* sandbox set up; value: landlock ABI applied (0: none) */
	CF_HELPER_EXEC_FAIL = 'E',  /* execvp of the command failed; value: errno */
	CF_HELPER_FAIL = 'H',	    /* the helper could not harden the sandbox; value: errno */
	CF_HELPER_MODE_FAIL = 'M',  /* helper mode (its mounts, made by exec/linux/bwrap/masks.c)
				     * failed; value: errno; message: "CALL\tPATH" */
	CF_HELPER_CHANGED = 'C',    /* helper mode: a target is not what the plan saw (gone, a
				     * symlink on the way, another kind); value: errno; message:
				     * the path */
	CF_HELPER_CACHE_FAIL = 'O', /* helper mode: a tool cache's overlay could not be made (R39;
				     * a file system without the extended attributes it needs);
				     * value: errno; message: "CALL\tPATH" */
	CF_HELPER_EXIT = 'X',	    /* the command ended; value: the exit status pid 1 exits with
				     * (so that a pid 1 killed from outside is not taken for it) */
};

/*
 * R36: the list confine-init reads on --ipc-fd (exec/linux/ipcguard.c writes it), one record
 * per path: the op, the path, a NUL.
 */
#define CF_IPC_WRITABLE 'w' /* a writable area: Landlock write_file beneath it */
#define CF_IPC_WRITABLE_FD                                                                         \
	'W'		 /* the same by the descriptor (decimal) of the directory or               \
			  * file that bwrap binds read-write: the very object, whatever            \
			  * a rename on the host does to its path meanwhile */
#define CF_IPC_ALLOW 'a' /* an allow: a FIFO or socket it names, or directly in it */
/* A tool cache's overlay (R39): a writable area too, but mounted with the masks, after READY
 * (exec/linux/bwrap/masks.c): pid 1 adds its rule once confine says go.  Landlock does not look at
 * the directory an overlay hides (it steps over a mount point), so a rule made before would
 * be on the wrong inode. */
#define CF_IPC_OVERLAY 'o'

struct cf_helper_record {
	char type;
	char pad[3];
	int32_t value;
	char message[248]; /* NUL-terminated */
};

#endif
