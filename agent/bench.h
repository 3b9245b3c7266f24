/*
 * bench.h: what a benchmark is, and what it may call while it runs.
 *
 * A benchmark is a `struct bench` registered in benches.c.  It declares its
 * parameters (with defaults) and the metrics it reports (with units and
 * direction), so `fleetmark-agent list` can describe it without running it.
 * Its run() function executes inside a freshly forked trial process (see
 * supervise.c) with the current directory set to a private scratch
 * directory that is removed after the trial, and reports through the
 * trial_*() functions below, which write wire-format lines on stdout.
 */
#ifndef FLEETMARK_BENCH_H
#define FLEETMARK_BENCH_H

#include <stddef.h>
#include <stdint.h>

enum param_type {
	PARAM_INT,	/* integer, with an optional K/M/G suffix (powers of 1024) */
	PARAM_CPUS,	/* integer, or N% of the host's online CPUs (at least 1):
			 * tasks (threads, processes) that run at once */
	PARAM_STR,	/* any string */
	PARAM_ENUM,	/* one of the '|'-separated words in `choices` */
};

struct bench_param {
	const char	*name;
	enum param_type	 type;
	const char	*def;		/* default, in the same syntax as a value */
	const char	*help;
	/*
	 * The values accepted.  PARAM_ENUM: "a|b|c".  PARAM_INT and
	 * PARAM_CPUS: NULL (any), or a range "MIN..MAX" in the syntax of a
	 * value ("2..1024", "1K..64M"; an end may be left out: "1.."),
	 * checked before the trial starts and published by `list` (for
	 * PARAM_CPUS, of the count N% resolves to).
	 */
	const char	*choices;
};

/*
 * A limit on the product of two integer parameters, each taken as at
 * least 1 (threads=0 counts as one): a x b <= max.  Checked before the
 * trial starts and published by `list`, so that plans are checked too.
 */
struct bench_limit {
	const char	*a, *b;
	long long	 max;
};

struct bench_metric {
	const char	*name;
	const char	*unit;		/* "us", "ns", "MB/s", "ops/s", ... */
	int		 higher_better;
	const char	*help;
};

struct trial;

/* A point of a suite: a benchmark and its parameters ("k=v k=v"). */
struct suite_member {
	const char	*bench;
	const char	*params;
};

struct bench {
	const char			*name;
	const char			*summary;
	const char			*from;		/* what it reproduces */
	const struct bench_param	*params;	/* ends with a NULL name */
	const struct bench_metric	*metrics;	/* ends with a NULL name */
	/* Run one trial; return 0, or the value of trial_error(). */
	int				(*run)(struct trial *);
	const struct suite_member	*suite;		/* suites only: ends with NULL bench */
	const struct bench_limit	*limits;	/* or NULL; ends with a NULL a */
};

/*
 * Define `const struct bench bench_NAME`, the benchmark the registry
 * (benches.c) knows as "NAME", from its summary, what it reproduces, its
 * parameter and metric tables and its run function:
 *
 *	BENCH(lat_mmap, "cost of mapping a file, ...",
 *	    "lmbench lat_mmap (File & VM: Mmap Latency)", params, metrics, run);
 *
 * The name is the identifier's, so the two cannot disagree.
 */
#define BENCH(NAME, summary, from, params, metrics, run)			\
	BENCH_LIMITS(NAME, summary, from, params, metrics, run, NULL)

/* The same, with limits on products of parameters (struct bench_limit). */
#define BENCH_LIMITS(NAME, summary, from, params, metrics, run, limits)		\
	const struct bench bench_##NAME = {					\
		#NAME, summary, from, params, metrics, run, NULL, limits	\
	}

/* The registry (benches.c). */
extern const struct bench *const benches[];
const struct bench *bench_find(const char *name);

/* --- Inside a trial ------------------------------------------------------- */

/* Value of a declared parameter, already validated and resolved. */
long long	 trial_int(const struct trial *t, const char *name);
const char	*trial_str(const struct trial *t, const char *name);

/* Number of samples requested (--samples, default 11). */
int		 trial_samples(const struct trial *t);

/* The trial's private scratch directory (also the current directory). */
const char	*trial_tmpdir(const struct trial *t);

/* Nonzero once the trial's deadline has passed. */
int		 trial_expired(const struct trial *t);

/* Seconds left before the deadline (may be negative). */
double		 trial_remaining(const struct trial *t);

/*
 * Report a metric declared by the benchmark with its raw samples, in the
 * metric's unit.  The median becomes the trial's value.  `iters` is the
 * number of operations behind each sample, or 0 when not meaningful.
 */
void		 trial_metric(struct trial *t, const char *metric,
		     const double *samples, int n, uint64_t iters);

/*
 * The measured part of a trial begins and ends: the monitors (monitor.c)
 * read their counters here.  timing.c calls both around its samples; a
 * benchmark that times itself calls them around its sample loop.  Only
 * the first begin and the last end count; without them the monitors cover
 * the whole run.  No-ops when the trial has no monitors.
 */
void		 trial_measure_begin(struct trial *t);
void		 trial_measure_end(struct trial *t);

/*
 * The operations in the measured window (iterations x samples), for the
 * monitors' per-operation figures; trial_metric() sets it from the first
 * metric with iterations, so only a benchmark whose metrics say none
 * needs to.  The first value given stays.
 */
void		 trial_ops(struct trial *t, unsigned long long ops);

/* A qualifying fact ("THP always", "fault-around 64 KB"). */
void		 trial_note(struct trial *t, const char *fmt, ...)
		     __attribute__((format(printf, 2, 3)));

/*
 * Report that the trial failed, with an error class from wire.h
 * (WIRE_ERR_BENCH or WIRE_ERR_UNSUPPORTED).  Returns -1 for the caller to
 * return from run().  The message says what failed, with strerror where
 * relevant.
 */
int		 trial_error(struct trial *t, const char *class,
		     const char *fmt, ...)
		     __attribute__((format(printf, 3, 4)));

#endif /* FLEETMARK_BENCH_H */
