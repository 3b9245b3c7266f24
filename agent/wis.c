/*
 * wis.c: the will-it-scale style harness (see wis.h).
 *
 * will-it-scale starts N copies of a testcase, as threads of one process or
 * as processes, each bumping its own counter in a shared page, and prints
 * the sum of the counters' growth every second after five warm-up seconds.
 * This harness measures the same quantity, with these differences:
 *
 *  - an interval is `interval_ms` (100 ms) instead of a second, one warm-up
 *    interval is discarded instead of five, and the rate is computed from
 *    the measured length of each interval rather than the nominal one;
 *  - counters are unsigned long, not unsigned long long: one store on every
 *    architecture, so a 32-bit host never reads a torn counter, and deltas
 *    over an interval are exact modulo 2^32 (no interval comes near that);
 *  - tasks are not bound to cores (will-it-scale binds task i to core
 *    i mod cores through hwloc); the scheduler places them;
 *  - a task's file is created, sized and unlinked by the harness in the
 *    trial's scratch directory before the tasks start, rather than by each
 *    testcase in /tmp, so no file can be left behind;
 *  - threads are told to stop through a flag and joined; processes are
 *    killed and reaped, as will-it-scale's are, and also die with the trial
 *    (PR_SET_PDEATHSIG) without leaving its process group.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "facts.h"
#include "ipc.h"
#include "timing.h"
#include "wire.h"
#include "wis.h"

/* One counter per 128 bytes: no two tasks share a cache line, POWER's included. */
#define SLOT_BYTES	128
#define MAX_TASKS	4096
#define THREAD_STACK	(256 * 1024)

/* A task's slot in the shared area, written only by that task. */
struct slot {
	volatile unsigned long	 ops;
	const char *volatile	 what;	/* set by wis_fail() */
	volatile int		 err;
	volatile int		 failed;
};

/* Slot 0 of the shared area is the control block, written by the trial. */
struct control {
	volatile int	stop;
};

struct task {
	struct wis_task		 pub;	/* first: a testcase's pointer is this task's */
	const struct wis_test	*test;
	struct slot		*slot;
	int			 go_fd;	/* read end of the start pipe */
	int			 started;
	pthread_t		 thread;
	pid_t			 pid;
};

const struct bench_metric wis_metrics[] = {
	{ "ops_per_sec", "ops/s", 1, "operations per second of all tasks together" },
	{ "ops_per_sec_per_task", "ops/s", 1, "operations per second per task (total / tasks)" },
	{ NULL, NULL, 0, NULL }
};

int
wis_fail(struct wis_task *w, const char *what, int err)
{
	struct slot *s = ((struct task *)(void *)w)->slot;

	/* A string literal has the same address in a forked child as in the trial. */
	s->what = what;
	s->err = err;
	__sync_synchronize();	/* what and err are visible before failed */
	s->failed = 1;
	return -1;
}

/* --- The testcases of the mapping tests ------------------------------------ */

/* One pass's mapping of the task's `size` bytes, as its test says; NULL after wis_fail(). */
static volatile char *
map_pass(struct wis_task *w)
{
	enum wis_map map = ((struct task *)(void *)w)->test->map;
	void *p;

	p = mmap(NULL, w->size, PROT_READ | PROT_WRITE,
	    map == WIS_ANON ? MAP_PRIVATE | MAP_ANONYMOUS : map == WIS_SHARED ? MAP_SHARED : MAP_PRIVATE,
	    w->fd, 0);
	if (p == MAP_FAILED) {
		wis_fail(w, "mmap", errno);
		return NULL;
	}
	return p;
}

int
wis_map_unmap(struct wis_task *w)
{
	volatile char *p;

	while (wis_running(w)) {
		if ((p = map_pass(w)) == NULL)
			return -1;
		munmap((void *)p, w->size);
		wis_op(w);
	}
	return 0;
}

/*
 * A byte written to every page of each pass, one operation per page; with
 * `flush` the page is then dropped with MADV_DONTNEED and read back.
 */
static int
pages(struct wis_task *w, int flush)
{
	/* what a page reads after MADV_DONTNEED: the file's (or a new) zero page, or a shared page kept */
	static const char *const wrong[] = {
		[WIS_ANON] = "an anonymous page kept its data after MADV_DONTNEED",
		[WIS_PRIVATE] = "a private page kept its data after MADV_DONTNEED",
		[WIS_SHARED] = "a shared page lost its data after MADV_DONTNEED",
	};
	enum wis_map map = ((struct task *)(void *)w)->test->map;
	char want = map == WIS_SHARED ? 1 : 0;
	volatile char *p;
	size_t i;

	while (wis_running(w)) {
		if ((p = map_pass(w)) == NULL)
			return -1;
		for (i = 0; i < w->size && wis_running(w); i += w->pagesize) {
			p[i] = flush ? 1 : 0;
			if (flush && madvise((void *)(p + i), w->pagesize, MADV_DONTNEED) != 0)
				return wis_fail(w, "madvise", errno);
			if (flush && p[i] != want)
				return wis_fail(w, wrong[map], 0);
			wis_op(w);
		}
		munmap((void *)p, w->size);
	}
	return 0;
}

int
wis_fault_pages(struct wis_task *w)
{
	return pages(w, 0);
}

int
wis_flush_pages(struct wis_task *w)
{
	return pages(w, 1);
}

/* --- The harness ------------------------------------------------------------ */

static void
run_task(struct task *k)
{
	char c;

	/* All tasks block here until the trial closes the pipe's write end. */
	while (read(k->go_fd, &c, 1) < 0 && errno == EINTR)
		;
	if (wis_running(&k->pub) && k->test->testcase(&k->pub) != 0 && !k->slot->failed)
		wis_fail(&k->pub, "testcase", 0);
}

static void *
thread_main(void *arg)
{
	run_task(arg);
	return NULL;
}

static int
start_thread(struct trial *t, struct task *k)
{
	pthread_attr_t attr;
	int r;

	if ((r = pthread_attr_init(&attr)) != 0)
		return trial_error(t, WIRE_ERR_BENCH, "pthread_attr_init: %s", strerror(r));
	/* small stacks: a 32-bit host runs out of address space before memory */
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	r = pthread_create(&k->thread, &attr, thread_main, k);
	pthread_attr_destroy(&attr);
	if (r != 0)
		return trial_error(t, WIRE_ERR_BENCH, "task %d: pthread_create: %s", k->pub.nr,
		    strerror(r));
	k->started = 1;
	return 0;
}

static int
start_process(struct trial *t, struct task *k, int go_w, pid_t trial_pid)
{
	pid_t pid;

	if ((pid = fork()) < 0)
		return trial_error(t, WIRE_ERR_BENCH, "task %d: fork: %s", k->pub.nr, strerror(errno));
	if (pid == 0) {
		close(go_w);	/* else this task's own copy would keep the pipe open */
		ipc_die_with(trial_pid, 1);
		run_task(k);
		_exit(0);
	}
	k->pid = pid;
	k->started = 1;
	return 0;
}

/* Stop every started task and wait until none is left. */
static void
stop_tasks(struct task *k, int n, int threads)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!k[i].started)
			continue;
		if (threads)
			pthread_join(k[i].thread, NULL);
		else
			kill(k[i].pid, SIGKILL);
	}
	for (i = 0; i < n && !threads; i++)
		if (k[i].started)
			while (waitpid(k[i].pid, NULL, 0) < 0 && errno == EINTR)
				;
}

/* Report the first task that failed, if any. */
static int
check_failed(struct trial *t, struct task *k, int n)
{
	const char *what;
	int i, err;

	for (i = 0; i < n; i++) {
		if (!k[i].slot->failed)
			continue;
		__sync_synchronize();
		what = k[i].slot->what;
		err = k[i].slot->err;
		if (err != 0)
			return trial_error(t, WIRE_ERR_BENCH, "task %d: %s: %s", i, what, strerror(err));
		return trial_error(t, WIRE_ERR_BENCH, "task %d: %s", i, what);
	}
	return 0;
}

/* A private, already unlinked file of `size` bytes for task k. */
static int
make_file(struct trial *t, struct task *k, size_t size)
{
	char name[32];
	int fd, e;

	snprintf(name, sizeof(name), "wis-file.%d", k->pub.nr);
	if ((fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
		return trial_error(t, WIRE_ERR_BENCH, "create %s: %s", name, strerror(errno));
	k->pub.fd = fd;
	e = ftruncate(fd, (off_t)size) == 0 ? 0 : errno;
	unlink(name);
	if (e != 0)
		return trial_error(t, WIRE_ERR_BENCH, "ftruncate %s to %zu bytes: %s", name, size,
		    strerror(e));
	return 0;
}

/* The filesystem under the task files decides what page_fault3 and tlb_flush3 cost. */
static void
note_filesystem(struct trial *t)
{
	struct statfs sf;
	unsigned long type;
	const char *name;

	if (statfs(".", &sf) != 0)
		return;
	type = (unsigned long)sf.f_type & 0xffffffffUL;
	if ((name = facts_fs_name(type)) == NULL)
		name = "filesystem";
	trial_note(t, "task files on %s (statfs type 0x%lx)", name, type);
}

static void
note_thp(struct trial *t)
{
	char mode[128];

	switch (facts_thp(mode, sizeof(mode))) {
	case -1:
		trial_note(t, "THP not available");
		break;
	case 0:
		trial_note(t, "THP %s", mode);
		break;
	}
}

/* Bounds on `size` and on the memory all tasks together will populate. */
static int
check_size(struct trial *t, const struct wis_test *test, long long size, long long tasks,
    int threads, size_t pagesize)
{
	unsigned long long max = (sizeof(size_t) < 8 || sizeof(off_t) < 8) ? 1ULL << 30 : 1ULL << 40;
	double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)pagesize;

	if (size <= 0)
		return trial_error(t, WIRE_ERR_REQUEST, "size must be positive");
	if ((unsigned long long)size > max)
		return trial_error(t, WIRE_ERR_UNSUPPORTED, "size %lld is more than this host's limit of %llu",
		    size, max);
	if (test->touches && ram > 0 && (double)size * (double)tasks > ram / 2)
		return trial_error(t, WIRE_ERR_UNSUPPORTED,
		    "%lld tasks x size %lld is more than half of this host's %.0f MB of memory",
		    tasks, size, ram / 1048576);
	/* threads share one address space: on a 32-bit host that is at most 3 GB */
	if (threads && sizeof(void *) < 8 && (double)size * (double)tasks > 1.5 * 1073741824.0)
		return trial_error(t, WIRE_ERR_UNSUPPORTED,
		    "%lld threads x size %lld do not fit a 32-bit address space", tasks, size);
	return 0;
}

static void
sleep_until(double when)
{
	struct timespec ts;
	double d;

	while ((d = when - timing_now()) > 0) {
		ts.tv_sec = (time_t)(d / 1e9);
		ts.tv_nsec = (long)(d - (double)ts.tv_sec * 1e9);
		nanosleep(&ts, NULL);
	}
}

int
wis_run(struct trial *t, const struct wis_test *test)
{
	int threads = strcmp(trial_str(t, "mode"), "threads") == 0, file = test->map != WIS_ANON;
	long long ntasks = trial_int(t, "tasks"), interval = trial_int(t, "interval_ms");
	long long size = trial_int(t, "size");
	size_t pagesize = (size_t)sysconf(_SC_PAGESIZE), area_len = 0, sz;
	int n = trial_samples(t), i, j, rc, go[2] = { -1, -1 };
	double *total = NULL, *per = NULL, t0, t1, sum;
	unsigned long *prev = NULL, cur;
	struct control *ctl = NULL;
	struct task *k = NULL;
	char *area = MAP_FAILED;
	pid_t self = getpid();

	if (ntasks < 1 || ntasks > MAX_TASKS)
		return trial_error(t, WIRE_ERR_REQUEST, "tasks must be 1 to %d", MAX_TASKS);
	if (interval < 1 || interval > 60000)
		return trial_error(t, WIRE_ERR_REQUEST, "interval_ms must be 1 to 60000");
	if ((rc = check_size(t, test, size, ntasks, threads, pagesize)) != 0)
		return rc;
	sz = ((size_t)size + pagesize - 1) / pagesize * pagesize;

	/* the counters live in memory every task shares, threads or processes */
	area_len = ((size_t)ntasks + 1) * SLOT_BYTES;
	area = mmap(NULL, area_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	k = calloc((size_t)ntasks, sizeof(*k));
	prev = calloc((size_t)ntasks, sizeof(*prev));
	total = malloc(sizeof(*total) * (size_t)n);
	per = malloc(sizeof(*per) * (size_t)n);
	if (area == MAP_FAILED || k == NULL || prev == NULL || total == NULL || per == NULL) {
		rc = trial_error(t, WIRE_ERR_BENCH, "cannot allocate the counters of %lld tasks",
		    ntasks);
		goto out;
	}
	ctl = (struct control *)(void *)area;
	for (i = 0; i < ntasks; i++) {
		k[i].slot = (struct slot *)(void *)(area + ((size_t)i + 1) * SLOT_BYTES);
		k[i].test = test;
		k[i].pub.nr = i;
		k[i].pub.fd = -1;
		k[i].pub.size = sz;
		k[i].pub.pagesize = pagesize;
		k[i].pub.ops = &k[i].slot->ops;
		k[i].pub.stop = &ctl->stop;
	}
	for (i = 0; file && i < ntasks; i++)
		if ((rc = make_file(t, &k[i], sz)) != 0)
			goto out;
	if (file)
		note_filesystem(t);
	if (!file)
		note_thp(t);	/* anonymous memory: THP may change the page size */
	if (ntasks > sysconf(_SC_NPROCESSORS_ONLN))
		trial_note(t, "%lld tasks on %ld CPUs", ntasks, sysconf(_SC_NPROCESSORS_ONLN));

	if (pipe(go) != 0) {
		rc = trial_error(t, WIRE_ERR_BENCH, "pipe: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < ntasks; i++) {
		k[i].go_fd = go[0];
		rc = threads ? start_thread(t, &k[i]) : start_process(t, &k[i], go[1], self);
		if (rc != 0)
			goto out;
	}
	close(go[1]);	/* every task sees EOF: they start together */
	go[1] = -1;

	for (j = 0; j < ntasks; j++)
		prev[j] = k[j].slot->ops;
	t0 = timing_now();
	for (i = -1; i < n; i++) {	/* interval -1 is the warm-up */
		sleep_until(t0 + (double)interval * 1e6);
		t1 = timing_now();
		sum = 0;
		for (j = 0; j < ntasks; j++) {
			cur = k[j].slot->ops;
			sum += (double)(cur - prev[j]);	/* modulo 2^bits: wrap-safe */
			prev[j] = cur;
		}
		if ((rc = check_failed(t, k, (int)ntasks)) != 0)
			goto out;
		if (i >= 0) {
			total[i] = sum * 1e9 / (t1 - t0);
			per[i] = total[i] / (double)ntasks;
		}
		t0 = t1;
		if (i + 1 < n && trial_expired(t)) {
			rc = trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached after %d samples", i + 1);
			goto out;
		}
	}
	rc = 0;
out:
	if (ctl != NULL)
		ctl->stop = 1;	/* before the start: a task released now returns at once */
	if (go[1] >= 0)
		close(go[1]);
	if (k != NULL)
		stop_tasks(k, (int)ntasks, threads);
	if (go[0] >= 0)
		close(go[0]);
	for (i = 0; k != NULL && i < ntasks; i++)
		if (k[i].pub.fd >= 0)
			close(k[i].pub.fd);
	if (rc == 0) {
		trial_metric(t, "ops_per_sec", total, n, 0);
		trial_metric(t, "ops_per_sec_per_task", per, n, 0);
	}
	free(total);
	free(per);
	free(prev);
	free(k);
	if (area != MAP_FAILED)
		munmap(area, area_len);
	return rc;
}
