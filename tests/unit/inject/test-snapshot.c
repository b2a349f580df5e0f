/* SPDX-License-Identifier: MIT */
/*
 * The snapshot-file module (SPEC 6, R21), as a backend that must materialise injections uses
 * it: a private 0700 directory, files created O_CREAT|O_EXCL|O_NOFOLLOW with mode 0600 and
 * re-read against the hash, a planted symlink never followed, a changed file detected
 * ("integrity check failed"), removal when the command ends, and the sweep of a directory
 * whose confine was killed with SIGKILL (at the next start), while a live one is left alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "inject/snapshot.h"
#include "util/util.h"

static char base[256];

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static char *slurp(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void spit(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			perror("write");
		close(fd);
	}
}

/* A confine that creates a snapshot, reports its directory, and waits to be killed. */
static pid_t crashing_confine(char *dir, size_t cap)
{
	int p[2];
	if (pipe(p) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		struct cf_snapshot_dir d;
		struct confine_error err = {0};
		char hash[CF_HASH_HEX];
		if (cf_snapshot_dir_create(base, &d, &err) < 0 ||
		    cf_snapshot_write(&d, "SETTINGS", "crash", 5, hash, NULL, &err) < 0)
			_exit(1);
		if (write(p[1], d.path, strlen(d.path) + 1) < 0)
			_exit(1);
		close(p[1]);
		for (;;)
			pause();
	}
	close(p[1]);
	ssize_t n = read(p[0], dir, cap - 1);
	close(p[0]);
	dir[n > 0 ? n : 0] = '\0';
	return n > 0 ? pid : -1;
}

int main(void)
{
	struct confine_error err = {0};
	struct cf_snapshot_dir d;
	char hash[CF_HASH_HEX], want[CF_HASH_HEX], path[512], outside[512];
	char *fpath = NULL;

	snprintf(base, sizeof(base), "/var/tmp/confine-snap-test.XXXXXX");
	bool made = mkdtemp(base) != NULL;
	TAP_OK(made, "scratch base");
	snprintf(outside, sizeof(outside), "%s/outside", base);

	/* A restrictive umask changes nothing: the modes are set, not requested. */
	mode_t old = umask(0777);
	int r = cf_snapshot_dir_create(base, &d, &err);
	umask(old);
	TAP_INTEQ(r, 0, "R21 snapshot directory created (%s)", err.reason);
	if (r < 0)
		return tap_done();
	TAP_OK(!strncmp(d.name, CF_SNAPSHOT_PREFIX, strlen(CF_SNAPSHOT_PREFIX)), "named %s",
	       d.name);
	TAP_INTEQ(mode_of(d.path), 0700, "R21 the directory is 0700");

	old = umask(0777);
	r = cf_snapshot_write(&d, "POLICY", "policy bytes", 12, hash, &fpath, &err);
	umask(old);
	TAP_INTEQ(r, 0, "R21 snapshot written (%s)", err.reason);
	cf_blake3_hex("policy bytes", 12, want);
	TAP_STREQ(hash, want, "R21 the hash is the content's BLAKE3");
	snprintf(path, sizeof(path), "%s/POLICY", d.path);
	TAP_STREQ(fpath, path, "the path of the snapshot");
	free(fpath);
	TAP_INTEQ(mode_of(path), 0600, "R21 the file is 0600");
	TAP_STREQ(slurp(path), "policy bytes", "R21 the file holds the content");
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_snapshot_verify(&d, "POLICY", want, &err), 0, "R21 it verifies");

	/* A second write at the same name is refused: O_EXCL. */
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_snapshot_write(&d, "POLICY", "other", 5, hash, NULL, &err), CONFINE_E_OS,
		  "R21 an existing name is never overwritten");
	TAP_INTEQ(err.os_errno, EEXIST, "R21 ... EEXIST");
	TAP_STREQ(slurp(path), "policy bytes", "R21 the first content is untouched");

	/* A symlink planted at the destination is not followed: not to an existing file, not to
	 * a new one. */
	spit(outside, "outside");
	snprintf(path, sizeof(path), "%s/PLANTED", d.path);
	r = symlink(outside, path);
	TAP_INTEQ(r, 0, "a symlink planted at the destination");
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_snapshot_write(&d, "PLANTED", "evil", 4, hash, NULL, &err), CONFINE_E_OS,
		  "R21 writing through a planted symlink is refused");
	TAP_INTEQ(err.os_errno, EEXIST, "R21 ... EEXIST (O_CREAT|O_EXCL)");
	TAP_STREQ(slurp(outside), "outside", "R21 the symlink's target is untouched");
	char dangling[600];
	snprintf(dangling, sizeof(dangling), "%s/created-through-link", base);
	snprintf(path, sizeof(path), "%s/DANGLING", d.path);
	r = symlink(dangling, path);
	TAP_INTEQ(r, 0, "a dangling symlink planted");
	memset(&err, 0, sizeof(err));
	TAP_OK(cf_snapshot_write(&d, "DANGLING", "evil", 4, hash, NULL, &err) < 0,
	       "R21 writing through a dangling symlink is refused");
	TAP_OK(!exists(dangling), "R21 nothing was created at the dangling symlink's target");
	memset(&err, 0, sizeof(err));
	TAP_OK(cf_snapshot_write(&d, "../escape", "x", 1, hash, NULL, &err) < 0,
	       "a name with '/' is refused");
	TAP_OK(cf_snapshot_write(&d, ".hidden", "x", 1, hash, NULL, &err) < 0,
	       "a name starting with '.' is refused");

	/* Integrity: a change after the write is detected. */
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_snapshot_write(&d, "CHANGED", "original", 8, hash, NULL, &err), 0,
		  "another snapshot");
	snprintf(path, sizeof(path), "%s/CHANGED", d.path);
	spit(path, "tampered");
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_snapshot_verify(&d, "CHANGED", hash, &err), CONFINE_E_SPAWN,
		  "R21 a changed snapshot fails verification");
	TAP_STREQ(err.what, "integrity check failed", "R21 ... 'integrity check failed'");
	r = chmod(path, 0644);
	TAP_OK(r == 0, "mode changed");
	spit(path, "original");
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_snapshot_verify(&d, "CHANGED", hash, &err), CONFINE_E_SPAWN,
		  "R21 a snapshot no longer 0600 fails verification");
	snprintf(path, sizeof(path), "%s/CHANGED", d.path);
	char linked[600];
	snprintf(linked, sizeof(linked), "%s/hardlink", base);
	bool linked_ok = chmod(path, 0600) == 0 && link(path, linked) == 0;
	TAP_OK(linked_ok, "a hard link to it");
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_snapshot_verify(&d, "CHANGED", hash, &err), CONFINE_E_SPAWN,
		  "R21 a snapshot with a second link fails verification");
	unlink(linked);
	memset(&err, 0, sizeof(err));
	TAP_INTEQ(cf_snapshot_verify(&d, "CHANGED", hash, &err), 0,
		  "the original content and mode verify again");

	/* The sweep leaves a live directory alone. */
	size_t removed = 99;
	char keep[512];
	snprintf(keep, sizeof(keep), "%s", d.path);
	TAP_INTEQ(cf_snapshot_sweep(base, &removed, &err), 0, "sweep");
	TAP_INTEQ(removed, 0, "R21 the sweep leaves a directory in use alone");
	TAP_OK(exists(keep), "R21 ... it is still there");

	/* Clean-up when the command ends: the files and the directory go, the planted links'
	 * targets stay. */
	TAP_INTEQ(cf_snapshot_dir_remove(&d, &err), 0, "removal");
	TAP_OK(!exists(keep), "R21 the directory is removed when the command ends");
	TAP_STREQ(slurp(outside), "outside", "R21 the removal left the symlink's target alone");
	TAP_INTEQ(d.dirfd, -1, "the descriptors are closed");
	TAP_INTEQ(cf_snapshot_dir_remove(&d, &err), 0, "removing twice is harmless");

	/* kill -9 of the confine that owns a snapshot: its directory stays, and the next start
	 * sweeps it. */
	char crashed[512];
	pid_t pid = crashing_confine(crashed, sizeof(crashed));
	TAP_OK(pid > 0, "a confine with a snapshot (%s)", crashed);
	removed = 99;
	TAP_INTEQ(cf_snapshot_sweep(base, &removed, &err), 0, "sweep while it runs");
	TAP_INTEQ(removed, 0, "R21 a running confine's directory is not swept");
	TAP_OK(exists(crashed), "R21 ... still there");
	kill(pid, SIGKILL);
	int st;
	waitpid(pid, &st, 0);
	TAP_OK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "killed with SIGKILL");
	TAP_OK(exists(crashed), "R21 the killed confine left its directory behind");

	/* Things planted for the sweep: a symlink named like a snapshot directory (to a real
	 * directory), and a stale directory holding a symlink to a file outside. */
	char victim[600], lure[600], stale[600], staleln[700];
	snprintf(victim, sizeof(victim), "%s/victim", base);
	snprintf(lure, sizeof(lure), "%s/%slure", base, CF_SNAPSHOT_PREFIX);
	snprintf(stale, sizeof(stale), "%s/%sstale", base, CF_SNAPSHOT_PREFIX);
	snprintf(staleln, sizeof(staleln), "%s/link", stale);
	char victim_file[700];
	snprintf(victim_file, sizeof(victim_file), "%s/precious", victim);
	bool planted = mkdir(victim, 0700) == 0 && symlink(victim, lure) == 0 &&
		       mkdir(stale, 0700) == 0 && symlink(outside, staleln) == 0;
	TAP_OK(planted, "a lure and a stale directory with a symlink");
	spit(victim_file, "precious");

	removed = 0;
	TAP_INTEQ(cf_snapshot_sweep(base, &removed, &err), 0, "the next start's sweep");
	TAP_INTEQ(removed, 2, "R21 the killed confine's directory and the stale one are swept");
	TAP_OK(!exists(crashed), "R21 the killed confine's snapshot directory is gone");
	TAP_OK(!exists(stale), "R21 the stale directory is gone");
	TAP_STREQ(slurp(outside), "outside", "R21 the sweep unlinked the symlink, not its target");
	TAP_OK(exists(lure), "R21 a symlink named like a snapshot directory is not followed");
	TAP_STREQ(slurp(victim_file), "precious", "R21 ... and its target's content stays");
	TAP_INTEQ(cf_snapshot_sweep("/var/tmp/confine-no-such-base", &removed, &err), 0,
		  "a missing base is not an error");

	unlink(lure);
	unlink(victim_file);
	rmdir(victim);
	unlink(outside);
	rmdir(base);
	return tap_done();
}
