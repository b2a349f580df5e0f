/* SPDX-License-Identifier: MIT */
/*
 * The IPC guard of confine-init (R36): host FIFOs and pathname sockets outside the writable
 * areas are refused by mechanism, wherever they are and whoever made them.
 *
 * The kernel cannot say from a path whether it names a FIFO, and Landlock's read right covers
 * FIFOs and files alike (and execve needs it), so for the read direction there is no rule to
 * load: the command's own process gets a second seccomp filter (exec/linux/seccomp.c,
 * cf_seccomp_guard_build_fd) whose listener pid 1 keeps.  Every open(2)/openat(2) that could
 * open an existing FIFO for reading stops there; the guard resolves the path as the command
 * would, holds the object (O_PATH), decides on that object -- a FIFO is refused with EACCES
 * unless it lies on a writable mount (the writable areas, an anonymous pipe) or is allowed --
 * and opens it itself, handing the descriptor back with SECCOMP_IOCTL_NOTIF_ADDFD.  The
 * kernel never resolves the command's path a second time, so nothing the command changes in
 * between (its memory, a symlink, its working directory, a descriptor) matters.  connect(2)
 * is answered the same way: the guard takes the command's socket (pidfd_getfd), resolves a
 * pathname address itself, decides on the socket file it found and connects the command's
 * socket to that very object (through /proc/self/fd/N of its own); any other address is
 * connected as given.  Unix datagram sockets, which could send to a path without connect(2),
 * cannot be made at all (the filter).  The write direction costs nothing: Landlock's
 * WRITE_FILE, granted beneath the writable areas, /dev, /proc, the allowed FIFOs and the
 * objects of descriptors 0-2 only (a regular file elsewhere was read-only already: EROFS comes
 * before the Landlock check), refuses opening any other FIFO for writing.
 *
 * Used by init.c: cf_guard_prepare before READY, cf_guard_overlays after go, cf_guard_child
 * in the command's process before its execve, cf_guard_start in pid 1 after the fork.
 */
#ifndef CONFINE_HELPER_GUARD_H
#define CONFINE_HELPER_GUARD_H

#include <stdbool.h>
#include <stddef.h>

struct cf_guard_prep {
	int ruleset;	 /* the Landlock write layer of the command */
	int sock[2];	 /* the listener travels from the child (1) to pid 1 (0) */
	char *prog;	 /* the guard's seccomp program */
	size_t prog_len; /* bytes */
	void *allow;	 /* struct cf_guard_ident[]: allowed FIFOs and sockets, and their dirs */
	size_t n_allow;
	char *list; /* the list of --ipc-fd (helper_proto.h) */
	size_t list_len;
};

/* Reads the list on ipc_fd and the program on filter_fd, creates the Landlock write layer
 * and adds the writable areas given by descriptor, closing them (all before pid 1 closes what
 * it inherited but p->ruleset).  0, or -1 with errno and *what naming the step. */
int cf_guard_read(int ipc_fd, int filter_fd, struct cf_guard_prep *p, const char **what);

/* Adds the rest of the Landlock write layer, by path (inside the sandbox, before the command
 * exists), and the table of allows, and makes the socket pair the listener travels on.  0, or
 * -1 with errno and *what. */
int cf_guard_prepare(struct cf_guard_prep *p, const char **what);

/* Adds the tool caches' overlays to the Landlock write layer (CF_IPC_OVERLAY), by path: once
 * confine has mounted them (go), before the fork.  0, or -1 with errno and *what. */
int cf_guard_overlays(struct cf_guard_prep *p, const char **what);

/* In the command's process, right before its execve: the Landlock layer, the filter with its
 * listener, the listener sent to pid 1.  0, or -1 with errno and *what. */
int cf_guard_child(struct cf_guard_prep *p, const char **what);

/* In pid 1 after the fork: takes the listener from the child and starts the guard's thread.
 * 0 (also when the child sent none: it failed before its execve and says so itself), or -1
 * with errno. */
int cf_guard_start(struct cf_guard_prep *p);

#endif
