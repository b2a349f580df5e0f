/* SPDX-License-Identifier: MIT */
/*
 * The landlock backend's own seccomp rules (SPEC 3.3, R42), added to the filter of SPEC 3.1
 * when cf_seccomp_opts.supervise is set (exec/linux/seccomp.c builds it, at build time).
 *
 * Landlock has no right for a file's mode, owner, timestamps or extended attributes, and a
 * root caller's command is uid 0 (without capabilities, but the owner of every root-owned
 * file).  So every system call that changes them goes to confine's supervisor
 * (SECCOMP_RET_USER_NOTIF, exec/linux/supervisor.c), which resolves the target in the
 * command's view, decides on what it opened, and makes the change itself on that descriptor,
 * or answers EACCES (exec/linux/metaguard.c).  The family is closed by listing every entry
 * point the kernel has for these four attributes: the chmod, chown, utime and xattr calls in
 * all their path, l*, f* and *at forms, and the inode-flag ioctls.
 *
 * There is no IPC namespace either: every SysV IPC call is refused with EPERM (the i386 ipc(2)
 * multiplexer exists only on foreign architectures, which the filter kills), and so is
 * uselib(2), which loads a file by path outside the open(2) path.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>

#include <seccomp.h>
#ifdef __clang__
#pragma clang diagnostic ignored "-Wmissing-field-initializers"
#endif

#include "exec/linux/harden.h"
#include "exec/linux/supervise_rules.h"
#include "util/util.h"

/* Linux 6.13; libseccomp 2.5 does not know their names.  The numbers of system calls added
 * since 5.1 are the same on every architecture this builds for. */
#define NR_SETXATTRAT 463
#define NR_REMOVEXATTRAT 466

static const char *const sysv[] = {
    "shmget", "shmat",	"shmdt", "shmctl",     "msgget", "msgsnd", "msgrcv",
    "msgctl", "semget", "semop", "semtimedop", "semctl", "ipc",	   "uselib",
};

/* Every call that changes a mode, an owner, timestamps or an extended attribute.  The chmod
 * family with a setuid or setgid bit stays EPERM (seccomp.c); only the other modes go to the
 * supervisor. */
static const char *const meta[] = {
    "chown",	 "fchown",	"lchown",	"fchownat",	"utime",
    "utimes",	 "futimesat",	"utimensat",	"setxattr",	"lsetxattr",
    "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
};
static const char *const chmods[] = {"chmod", "fchmod", "fchmodat", "fchmodat2"};
static const int chmod_mode_arg[] = {1, 1, 2, 2};

/* pathguard.c: every open(2) but O_PATH (which reads and writes nothing), and every call that
 * makes, renames, links or removes a directory entry, or truncates by path. */
static const char *const paths_calls[] = {
    "creat",  "mkdir",	"mkdirat",  "mknod",	 "mknodat", "symlink",	"symlinkat", "link",
    "linkat", "rename", "renameat", "renameat2", "unlink",  "unlinkat", "rmdir",     "truncate",
};

const struct cf_supervise_open cf_supervise_opens[CF_SUPERVISE_N_OPENS] = {{"open", 1},
									   {"openat", 2}};

static int add_path_rules(scmp_filter_ctx ctx, const char **what)
{
	int rc = 0, nr;
	for (size_t i = 0; i < sizeof(paths_calls) / sizeof(paths_calls[0]) && rc == 0; i++) {
		*what = paths_calls[i];
		nr = seccomp_syscall_resolve_name(paths_calls[i]);
		rc =
		    nr == __NR_SCMP_ERROR ? -EINVAL : seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	}
	for (size_t i = 0; i < CF_SUPERVISE_N_OPENS && rc == 0; i++) {
		const struct cf_supervise_open *o = &cf_supervise_opens[i];
		*what = o->name;
		nr = seccomp_syscall_resolve_name(o->name);
		rc =
		    nr == __NR_SCMP_ERROR
			? -EINVAL
			: seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
					   SCMP_CMP64(o->flags_arg, SCMP_CMP_MASKED_EQ, O_PATH, 0));
	}
	return rc;
}

/*
 * opener.c (R36): every open(2)/openat(2) that could open an existing FIFO for reading, as the
 * bwrap backend's IPC guard filter sends them (seccomp.c says which): a read without O_CREAT,
 * a read with O_CREAT but not O_EXCL; never O_PATH, O_DIRECTORY or a write access (Landlock's
 * write_file refuses FIFOs outside the writable areas).  Flags are an int: compared on their
 * low 32 bits.
 */
int cf_supervise_add_read_rule(void *ctx, int nr, unsigned flags_arg)
{
	const uint64_t plain = O_WRONLY | O_RDWR | O_PATH | O_DIRECTORY | O_CREAT;
	int rc =
	    seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
			     SCMP_CMP(flags_arg, SCMP_CMP_MASKED_EQ, plain & 0xffffffffULL, 0));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
				      SCMP_CMP(flags_arg, SCMP_CMP_MASKED_EQ,
					       (plain | O_EXCL) & 0xffffffffULL, O_CREAT));
	return rc;
}

static int add_read_rules(scmp_filter_ctx ctx, const char **what)
{
	int rc = 0, nr;
	for (size_t i = 0; i < CF_SUPERVISE_N_OPENS && rc == 0; i++) {
		*what = cf_supervise_opens[i].name;
		nr = seccomp_syscall_resolve_name(cf_supervise_opens[i].name);
		if (nr == __NR_SCMP_ERROR)
			return -EINVAL;
		rc = cf_supervise_add_read_rule(ctx, nr, cf_supervise_opens[i].flags_arg);
	}
	return rc;
}

int cf_supervise_add_rules(void *vctx, int level, struct confine_error *err)
{
	scmp_filter_ctx ctx = vctx;
	int rc = 0, nr;
	const char *what = "";
	for (size_t i = 0; i < sizeof(sysv) / sizeof(sysv[0]) && rc == 0; i++) {
		what = sysv[i];
		nr = seccomp_syscall_resolve_name(sysv[i]);
		rc = nr == __NR_SCMP_ERROR ? -EINVAL
					   : seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
	}
	for (size_t i = 0; i < sizeof(meta) / sizeof(meta[0]) && rc == 0; i++) {
		what = meta[i];
		nr = seccomp_syscall_resolve_name(meta[i]);
		rc =
		    nr == __NR_SCMP_ERROR ? -EINVAL : seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	}
	for (size_t i = 0; i < sizeof(chmods) / sizeof(chmods[0]) && rc == 0; i++) {
		what = chmods[i];
		nr = seccomp_syscall_resolve_name(chmods[i]);
		rc = nr == __NR_SCMP_ERROR
			 ? -EINVAL
			 : seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
					    SCMP_CMP64((unsigned)chmod_mode_arg[i],
						       SCMP_CMP_MASKED_EQ, S_ISUID | S_ISGID, 0));
	}
#if defined(__x86_64__) || defined(__aarch64__) || defined(__riscv)
	if (rc == 0) {
		what = "setxattrat";
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, NR_SETXATTRAT, 0);
	}
	if (rc == 0) {
		what = "removexattrat";
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, NR_REMOVEXATTRAT, 0);
	}
#endif
	/* The request is compared on its low 32 bits, as the kernel reads it (seccomp.c). */
	for (size_t i = 0; i < CF_SUPERVISE_N_IOCTLS && rc == 0; i++) {
		what = "ioctl";
		const struct cf_supervise_ioctl *c = &cf_supervise_ioctls[i];
		rc = seccomp_rule_add(
		    ctx, c->fate != CF_IOCTL_DENY ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(ioctl), 1, SCMP_A1_64(SCMP_CMP_MASKED_EQ, 0xffffffffULL, c->request));
	}
	if (rc == 0 && level == CF_SUPERVISE_PATHS)
		rc = add_path_rules(ctx, &what);
	else if (rc == 0 && level == CF_SUPERVISE_READS)
		rc = add_read_rules(ctx, &what);
	if (rc < 0)
		return cf_err_os(err, CONFINE_E_OS, "cannot build seccomp filter", what,
				 "libseccomp", -rc);
	return 0;
}

/* The inode-flag and file-system-object ioctls: the flags and the extended attribute block
 * are made by the supervisor like a chmod; what makes a file immutable for good, gives it a
 * new identity or creates and removes subvolumes is refused.  TIOCGPTPEER opens the terminal
 * side of a pseudo-terminal the command made: Landlock checks that open against the devpts
 * path, which no rule grants (only the command's own terminals are reachable), so the
 * supervisor opens it from the master the command holds (ptyguard.c). */
const struct cf_supervise_ioctl cf_supervise_ioctls[CF_SUPERVISE_N_IOCTLS] = {
    {0x40086602UL, CF_IOCTL_META, "FS_IOC_SETFLAGS"},
    {0x40046602UL, CF_IOCTL_META, "FS_IOC32_SETFLAGS"},
    {0x401c5820UL, CF_IOCTL_META, "FS_IOC_FSSETXATTR"},
    {0x5441UL, CF_IOCTL_PTY, "TIOCGPTPEER"},
    {0x40087602UL, CF_IOCTL_DENY, "FS_IOC_SETVERSION"},
    {0x40047602UL, CF_IOCTL_DENY, "FS_IOC32_SETVERSION"},
    {0x40806685UL, CF_IOCTL_DENY, "FS_IOC_ENABLE_VERITY"},
    {0x800c6613UL, CF_IOCTL_DENY, "FS_IOC_SET_ENCRYPTION_POLICY"},
    {0x50009401UL, CF_IOCTL_DENY, "BTRFS_IOC_SNAP_CREATE"},
    {0x5000940eUL, CF_IOCTL_DENY, "BTRFS_IOC_SUBVOL_CREATE"},
    {0x5000940fUL, CF_IOCTL_DENY, "BTRFS_IOC_SNAP_DESTROY"},
    {0x50009417UL, CF_IOCTL_DENY, "BTRFS_IOC_SNAP_CREATE_V2"},
    {0x50009418UL, CF_IOCTL_DENY, "BTRFS_IOC_SUBVOL_CREATE_V2"},
    {0x5000943fUL, CF_IOCTL_DENY, "BTRFS_IOC_SNAP_DESTROY_V2"},
    {0x4008941aUL, CF_IOCTL_DENY, "BTRFS_IOC_SUBVOL_SETFLAGS"},
};

static const char describe_text[] =
    "seccomp: shmget, shmat, shmdt, shmctl, msgget, msgsnd, msgrcv, msgctl, semget, semop, "
    "semtimedop, semctl, ipc, uselib -> EPERM (no IPC namespace: the host's SysV IPC)\n"
    "seccomp: chmod, fchmod, fchmodat, fchmodat2 (without setuid/setgid), chown, fchown, "
    "lchown, fchownat, utime, utimes, futimesat, utimensat, setxattr, lsetxattr, fsetxattr, "
    "removexattr, lremovexattr, fremovexattr, setxattrat, removexattrat, ioctl "
    "FS_IOC_SETFLAGS/FS_IOC_FSSETXATTR -> confine's supervisor: made on the descriptor it "
    "opened when the target lies in a writable area and is not protected, else EACCES\n"
    "seccomp: ioctl FS_IOC_SETVERSION, FS_IOC_ENABLE_VERITY, FS_IOC_SET_ENCRYPTION_POLICY, "
    "btrfs subvolume and snapshot create/destroy/setflags -> EPERM\n"
    "seccomp: ioctl TIOCGPTPEER -> confine's supervisor: the terminal side of a "
    "pseudo-terminal the command made, opened from the master it holds\n";

const char *cf_supervise_describe(void)
{
	return describe_text;
}

const char *cf_supervise_describe_paths(void)
{
	return "seccomp: open, openat, creat (but O_PATH), mkdir, mkdirat, mknod, mknodat, "
	       "symlink, symlinkat, link, linkat, rename, renameat, renameat2, unlink, unlinkat, "
	       "rmdir, truncate -> confine's supervisor: made by it where the target (a new "
	       "entry: its directory) lies in a writable area and is neither protected nor "
	       "above a protected path, else continued to the kernel under the rules above\n";
}

const char *cf_supervise_describe_reads(void)
{
	return "seccomp: open, openat for reading (not O_PATH, O_DIRECTORY, O_CREAT|O_EXCL) -> "
	       "never continued to the kernel: confine's opener, a thread in a Landlock domain "
	       "above the command's, opens the object itself under the same rules and hands the "
	       "descriptor over; a FIFO outside the writable areas and allows -> EACCES\n";
}
