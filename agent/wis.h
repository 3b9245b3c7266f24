/*
 * wis.h: a will-it-scale style harness for scaling benchmarks.
 *
 * A testcase is a function that repeats one operation forever, bumping its
 * task's counter once per operation.  wis_run() starts `tasks` copies of it
 * as threads of one process or as separate processes, lets them run, and
 * every `interval_ms` reads all counters: one sample is one interval's
 * operations per second, in total and per task.  The first interval is a
 * warm-up and is discarded.
 *
 * A benchmark built on it is one WIS_BENCH() line naming its testcase,
 * what each task maps and the default of its `size`:
 *
 *	WIS_BENCH(page_fault1, "summary", "will-it-scale page_fault1 (...)",
 *	    wis_fault_pages, WIS_ANON, 1, "16M", "help of size");
 *
 * The testcases of will-it-scale's mapping tests (mmap, page_fault,
 * tlb_flush) are here, over what the test maps; another testcase is a
 * function of the benchmark's own file.
 */
#ifndef FLEETMARK_WIS_H
#define FLEETMARK_WIS_H

#include <stddef.h>

#include "bench.h"

/* What a testcase sees of its task. */
struct wis_task {
	int			 nr;		/* 0 .. tasks-1 */
	int			 fd;		/* the task's own file of `size` bytes (WIS_PRIVATE, WIS_SHARED), else -1 */
	size_t			 size;		/* the `size` parameter, a whole number of pages */
	size_t			 pagesize;
	volatile unsigned long	*ops;		/* this task's counter; no other task writes it */
	volatile const int	*stop;		/* set when the harness wants threads to return */
};

/* What each task of a test maps, read-write, `size` bytes at a time. */
enum wis_map {
	WIS_ANON,		/* private anonymous memory */
	WIS_PRIVATE,		/* the task's own file, MAP_PRIVATE */
	WIS_SHARED,		/* the task's own file, MAP_SHARED */
};

struct wis_test {
	/*
	 * Repeat the operation until wis_running() turns false, calling
	 * wis_op() once per operation.  Return 0, or the value of wis_fail().
	 * In processes mode the task is killed instead of told to stop, so a
	 * testcase must hold nothing that outlives its process.
	 */
	int		(*testcase)(struct wis_task *w);
	enum wis_map	  map;		/* WIS_PRIVATE, WIS_SHARED: each task gets an unlinked file of `size` bytes */
	int		  touches;	/* the testcase populates `size` bytes (checked against RAM) */
};

/* Nonzero while the testcase should go on (threads mode can be told to stop). */
static inline int
wis_running(const struct wis_task *w)
{
	return !*w->stop;
}

/* Count one operation. */
static inline void
wis_op(struct wis_task *w)
{
	(*w->ops)++;
}

/*
 * Record that the testcase failed: `what` (a string literal, e.g. "mmap")
 * and `err`, an errno value, or 0 for a check that failed.  The trial
 * fails with "task N: what: strerror(err)".  Returns -1 for the testcase
 * to return.
 */
int	wis_fail(struct wis_task *w, const char *what, int err);

/*
 * Run one trial of the testcase with the trial's mode, tasks, interval_ms
 * and size; report ops_per_sec and ops_per_sec_per_task.  Every task is
 * stopped and joined or reaped before it returns, on every path.  Returns
 * 0 or the value of trial_error().
 */
int	wis_run(struct trial *t, const struct wis_test *test);

/*
 * The testcases of the mapping tests.  Each pass maps `size` bytes as the
 * test's `map` says and unmaps them again; in between:
 *
 *	wis_map_unmap	nothing: one operation per mmap+munmap pair (mmap1, mmap2)
 *	wis_fault_pages	a byte written to every page, one operation per page
 *			(a page fault; page_fault1, 2, 3)
 *	wis_flush_pages	per page a byte written, the page dropped with
 *			madvise(MADV_DONTNEED) and read back (zero again,
 *			or in a shared mapping what was written), one
 *			operation per page (tlb_flush1, 2, 3)
 */
int	wis_map_unmap(struct wis_task *w);
int	wis_fault_pages(struct wis_task *w);
int	wis_flush_pages(struct wis_task *w);

/* The parameters of every will-it-scale benchmark; `size` has a per-test default. */
#define WIS_PARAMS(size_default, size_help)					\
	{ "mode", PARAM_ENUM, "processes",					\
	  "tasks are processes (own mm) or threads of one process (shared mm)",	\
	  "threads|processes" },						\
	{ "tasks", PARAM_CPUS, "1", "number of tasks running the testcase", "1..4096" }, \
	{ "interval_ms", PARAM_INT, "100", "length of one sample", "1..60000" },	\
	{ "size", PARAM_INT, size_default, size_help, "1.." },			\
	{ NULL, 0, NULL, NULL, NULL }

extern const struct bench_metric wis_metrics[];

/*
 * Define `struct bench bench_NAME` (registered in benches.c): a
 * will-it-scale benchmark running `testcase` with `map` and `touches` (as
 * in struct wis_test), with WIS_PARAMS(size_default, size_help) and
 * wis_metrics.
 */
#define WIS_BENCH(NAME, summary, from, testcase, map, touches, size_default, size_help) \
	static const struct wis_test NAME##_test = { testcase, map, touches };	\
	static int								\
	NAME##_run(struct trial *t)						\
	{									\
		return wis_run(t, &NAME##_test);				\
	}									\
	static const struct bench_param NAME##_params[] = {			\
		WIS_PARAMS(size_default, size_help)				\
	};									\
	BENCH(NAME, summary, from, NAME##_params, wis_metrics, NAME##_run)

#endif /* FLEETMARK_WIS_H */
