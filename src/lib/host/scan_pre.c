/* SPDX-License-Identifier: MIT */
/*
 * The check of the previous scan's directories on several threads (see scan_pre.h).
 *
 * The calling thread first looks at the top of the tree breadth first, until there are enough
 * subtrees to share out (CF_PRE_TASKS_PER_THREAD for every thread) or none is left; then it
 * and the helper threads take the subtrees one by one and look at each depth first.  Each
 * record is claimed once (an atomic exchange), so that no verdict is written twice even if
 * two entries named one record (the cache file's check rules that out; the claim makes it
 * harmless besides).  Every signal is blocked in the helpers; they are joined before
 * cf_scan_pre_run returns, so the walk reads the verdicts without a race.
 *
 * A subtree waiting to be taken holds no descriptor, only its record, the task of its parent
 * and the identity it had when it was looked at: the thread that takes it opens it again from
 * the root (openat2 beneath the root, no symlink on the way) and checks that identity, so that
 * a tree of any width keeps at most one descriptor a level a thread open.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

#include "util/nofollow.h"
#include "host/scan_pre.h"
#include "util/thread.h"

enum { CF_PRE_BUSY = 3, CF_PRE_MAX_THREADS = 4, CF_PRE_TASKS_PER_THREAD = 8 };

#define CF_PRE_NO_TASK UINT32_MAX

struct task {
	uint32_t rec;
	uint32_t parent; /* the task of the directory it is in (CF_PRE_NO_TASK: the root) */
	uint32_t name;	 /* its entry in that directory: offset in prev->names */
	uint16_t len;
	int depth;
	uint64_t dev, ino; /* what it was when looked at */
};

struct cf_scan_pre {
	const struct cf_scan_cache *prev;
	atomic_uchar *v; /* one per record of prev: enum cf_scan_pre_verdict, or CF_PRE_BUSY */
	struct task *tasks;
	size_t ntasks, cap, first; /* tasks[first, ntasks) are shared out */
	atomic_size_t next;
	int rootfd, max_depth;
	struct timespec deadline;
	atomic_bool stop;
};

static bool over_time(struct cf_scan_pre *p, unsigned *tick)
{
	if (atomic_load_explicit(&p->stop, memory_order_relaxed))
		return true;
	if ((++*tick & 255) != 0)
		return false;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > p->deadline.tv_sec ||
	    (now.tv_sec == p->deadline.tv_sec && now.tv_nsec >= p->deadline.tv_nsec)) {
		atomic_store(&p->stop, true);
		return true;
	}
	return false;
}

/* Whether the record has an entry the walk goes into (a subdirectory with a record). */
static bool has_dives(const struct cf_scan_cache *c, uint32_t rec)
{
	const struct cf_scan_dir *d = &c->dirs[rec];
	for (uint32_t i = 0; i < d->n; i++) {
		const struct cf_scan_kid *k = &c->kids[d->first + i];
		if ((k->flags & CF_SCAN_KID_DIVE) && k->kind == CF_KIND_DIR && k->dir < c->ndirs)
			return true;
	}
	return false;
}

static bool push(struct cf_scan_pre *p, const struct task *t)
{
	if (p->ntasks >= CF_PRE_NO_TASK - 1)
		return false;
	if (p->ntasks == p->cap) {
		size_t cap;
		struct task *v = cf_grow_array(p->tasks, p->cap, 64, sizeof(*v), &cap);
		if (!v)
			return false;
		p->tasks = v;
		p->cap = cap;
	}
	p->tasks[p->ntasks++] = *t;
	return true;
}

/* Opens the directory of task j again (O_PATH, beneath the root, no symlink followed) and
 * checks that it is what was looked at; -1 when it is not (the walk then asks itself). */
static int open_task(const struct cf_scan_pre *p, size_t j)
{
	const struct task *t = &p->tasks[j];
	if (t->parent == CF_PRE_NO_TASK)
		return p->rootfd;
	char path[(255 + 1) * 66];
	size_t at = sizeof(path) - 1;
	path[at] = '\0';
	for (const struct task *u = t; u->parent != CF_PRE_NO_TASK; u = &p->tasks[u->parent]) {
		if (at < (size_t)u->len + 1)
			return -1;
		at -= u->len;
		memcpy(path + at, p->prev->names + u->name, u->len);
		path[--at] = '/';
	}
	const char *rel = path + at + 1;
	const int flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int fd = cf_open_nofollow(p->rootfd, rel, flags, CF_NOFOLLOW_BENEATH, NULL);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || (uint64_t)st.st_dev != t->dev ||
			(uint64_t)st.st_ino != t->ino)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Looks at the subdirectories of the task j's directory (open at fd) that the walk will ask
 * about; those with subdirectories of their own are looked into: pushed as tasks when `share`,
 * else at once, depth first (`t` is then the directory's task, not in the array).
 */
static void look_below(struct cf_scan_pre *p, const struct task *t, uint32_t j, int fd, bool share,
		       unsigned *tick)
{
	const struct cf_scan_cache *c = p->prev;
	const struct cf_scan_dir *d = &c->dirs[t->rec];
	for (uint32_t i = 0; i < d->n; i++) {
		const struct cf_scan_kid *k = &c->kids[d->first + i];
		uint32_t rec = k->dir;
		if (!(k->flags & CF_SCAN_KID_DIVE) || k->kind != CF_KIND_DIR || rec >= c->ndirs ||
		    !(c->dirs[rec].flags & CF_SCAN_TRUSTED) || k->len == 0 || k->len > 255)
			continue;
		if (over_time(p, tick))
			return;
		unsigned char none = CF_SCAN_PRE_UNKNOWN;
		if (!atomic_compare_exchange_strong(&p->v[rec], &none, CF_PRE_BUSY))
			continue;
		char name[256];
		memcpy(name, c->names + k->name, k->len);
		name[k->len] = '\0';
		struct stat st;
		bool looked = fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
		bool same = looked && cf_scan_dir_unchanged(&c->dirs[rec], &st);
		atomic_store_explicit(&p->v[rec], same ? CF_SCAN_PRE_SAME : CF_SCAN_PRE_CHANGED,
				      memory_order_relaxed);
		/* Below a changed directory too: the walk reads it, then asks about each of its
		 * subdirectories that has a record, by the same name. */
		if (!looked || !S_ISDIR(st.st_mode) || t->depth + 1 >= p->max_depth ||
		    !has_dives(c, rec))
			continue;
		struct task sub = {.rec = rec,
				   .parent = j,
				   .name = k->name,
				   .len = k->len,
				   .depth = t->depth + 1,
				   .dev = (uint64_t)st.st_dev,
				   .ino = (uint64_t)st.st_ino};
		if (share && push(p, &sub))
			continue;
		int sfd = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat fst;
		if (sfd < 0)
			continue;
		if (fstat(sfd, &fst) == 0 && fst.st_dev == st.st_dev && fst.st_ino == st.st_ino)
			look_below(p, &sub, CF_PRE_NO_TASK, sfd, false, tick);
		close(sfd); /* else swapped since it was looked at: the walk reads it */
	}
}

/* Takes task j: opens its directory and looks below it, depth first. */
static void take(struct cf_scan_pre *p, size_t j, unsigned *tick)
{
	int fd = open_task(p, j);
	if (fd < 0)
		return;
	struct task t = p->tasks[j];
	look_below(p, &t, CF_PRE_NO_TASK, fd, false, tick);
	if (fd != p->rootfd)
		close(fd);
}

static void *work(void *arg)
{
	struct cf_scan_pre *p = arg;
	unsigned tick = 0;
	for (;;) {
		size_t j = atomic_fetch_add(&p->next, 1) + p->first;
		if (j >= p->ntasks)
			break;
		if (!atomic_load_explicit(&p->stop, memory_order_relaxed))
			take(p, j, &tick);
	}
	return NULL;
}

/* The CPUs this process may run on. */
static int cpus(void)
{
#ifdef __linux__
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	return CPU_COUNT(&set);
#else
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
#endif
}

struct cf_scan_pre *cf_scan_pre_run(const struct cf_scan_cache *prev, uint32_t root, int rootfd,
				    const struct cf_scan_budget *budget,
				    const struct timespec *deadline)
{
	if (!prev || root >= prev->ndirs || prev->ndirs < budget->parallel_min_dirs)
		return NULL;
	int threads = cpus();
	if (threads > CF_PRE_MAX_THREADS)
		threads = CF_PRE_MAX_THREADS;
	if (threads < 2 && budget->parallel_min_dirs > 0)
		return NULL;
	if (threads < 2)
		threads = 2; /* asked for always (the tests): two threads even on one CPU */
	struct cf_scan_pre *p = calloc(1, sizeof(*p));
	if (!p || !(p->v = calloc(prev->ndirs, sizeof(*p->v)))) {
		free(p);
		return NULL;
	}
	p->prev = prev;
	p->rootfd = rootfd;
	p->max_depth = budget->max_depth;
	p->deadline = *deadline;
	unsigned tick = 0;

	/* The root, as the walk looks at it (fstat of its descriptor). */
	struct stat st;
	bool same = (prev->dirs[root].flags & CF_SCAN_TRUSTED) && fstat(rootfd, &st) == 0 &&
		    cf_scan_dir_unchanged(&prev->dirs[root], &st);
	atomic_store(&p->v[root], same ? CF_SCAN_PRE_SAME : CF_SCAN_PRE_CHANGED);
	struct task top = {.rec = root, .parent = CF_PRE_NO_TASK};
	if (!push(p, &top))
		return p;

	/* Breadth first until there is enough to share out (the tasks looked into here keep
	 * their place in the array: their children name them as parents). */
	size_t want = (size_t)threads * CF_PRE_TASKS_PER_THREAD;
	while (p->first < p->ntasks && p->ntasks - p->first < want && !over_time(p, &tick)) {
		size_t j = p->first++;
		int fd = open_task(p, j);
		if (fd < 0)
			continue;
		struct task t = p->tasks[j];
		look_below(p, &t, (uint32_t)j, fd, true, &tick);
		if (fd != rootfd)
			close(fd);
	}

	/* Then depth first, on every thread. */
	pthread_t tid[CF_PRE_MAX_THREADS - 1];
	int started = 0;
	size_t left = p->ntasks - p->first;
	for (int i = 0; left > 1 && i < threads - 1 && (size_t)i + 1 < left; i++) {
		if (cf_thread_start(&tid[started], 256 * 1024, false, work, p) != 0)
			break;
		started++;
	}
	work(p);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	return p;
}

enum cf_scan_pre_verdict cf_scan_pre_get(const struct cf_scan_pre *p, uint32_t rec)
{
	if (!p || rec >= p->prev->ndirs)
		return CF_SCAN_PRE_UNKNOWN;
	unsigned char v = atomic_load_explicit((atomic_uchar *)&p->v[rec], memory_order_relaxed);
	return v == CF_SCAN_PRE_SAME || v == CF_SCAN_PRE_CHANGED ? (enum cf_scan_pre_verdict)v
								 : CF_SCAN_PRE_UNKNOWN;
}

void cf_scan_pre_free(struct cf_scan_pre *p)
{
	if (!p)
		return;
	free(p->tasks);
	free(p->v);
	free(p);
}
