/*
 * timing.h: lmbench-style timing of a repeated operation.
 *
 * A benchmark hands over a function that performs its operation n times.
 * timing_measure() calibrates n until one sample lasts the target interval,
 * warms up with one discarded sample, then takes the requested number of
 * samples.  From each sample it subtracts the cost of the clock reads and
 * of the empty loop (both measured once per process by timing_init()), so
 * what remains is the operation itself, in nanoseconds per operation.
 */
#ifndef FLEETMARK_TIMING_H
#define FLEETMARK_TIMING_H

#include <stdint.h>

struct trial;

/* Perform the measured operation n times. */
typedef void (*timing_fn)(uint64_t n, void *arg);

/* Monotonic time in nanoseconds. */
double	timing_now(void);

/* Measure the clock and loop overheads; called once before any trial. */
void	timing_init(void);

/* Cost of one timing_now() pair, and of one empty loop iteration, in ns. */
double	timing_clock_overhead(void);
double	timing_loop_overhead(void);

/* Default length of one sample, in ns (5 ms, as lmbench's usual "enough"). */
#define TIMING_TARGET_NS	5e6

struct timing_opts {
	double		target_ns;	/* 0: TIMING_TARGET_NS */
	uint64_t	max_iters;	/* 0: no cap; 1 for operations that cannot repeat */
	int		keep_loop;	/* do not subtract the loop overhead */
};

/*
 * The parameter that says which runs are samples, for the benchmarks that
 * declare it (TIMING_SAMPLING_PARAM in their parameter table):
 *
 *   lmbench  (the default) lmbench's benchmp(): the count is recalibrated
 *            after every run, and only a run that lasted over 95% of the
 *            target interval is a sample, so a run that went faster than
 *            the last is dropped and the samples lean towards the slower
 *            runs of a machine whose speed changes, as lmbench's do
 *   all      every run at one count, calibrated once, after a discarded
 *            warm-up: fleetmark's own, whose median catches the quiet
 *            moments of a shared machine and spreads less
 */
#define TIMING_SAMPLING		"sampling"
#define TIMING_SAMPLING_PARAM						\
	{ TIMING_SAMPLING, PARAM_ENUM, "lmbench",				\
	  "which runs are samples: lmbench (benchmp's: over 95% of the "	\
	  "interval, the count recalibrated after each) or all (every run "	\
	  "at one count)", "lmbench|all" }

/*
 * The parameter that sets the target interval of a sample, in
 * microseconds, for the benchmarks that declare it: lmbench's ENOUGH, or
 * the longer interval some of its programs insist on whatever ENOUGH
 * says (lat_pipe and lat_udp a second, lat_tcp, bw_pipe and bw_unix two).
 */
#define TIMING_INTERVAL		"interval"
#define TIMING_INTERVAL_PARAM(def, lmbench)					\
	{ TIMING_INTERVAL, PARAM_INT, def, "microseconds a sample lasts at "	\
	  "least (lmbench: " lmbench ")", "1000..10000000" }

/*
 * Fill samples[0..n) with nanoseconds per operation, taken as the trial's
 * sampling parameter says (lmbench's rule when it has none).  Returns the
 * number of operations of the last sample, or 0 when the trial's deadline
 * passed first.  `o` may be NULL for the defaults.
 */
uint64_t timing_measure(struct trial *t, timing_fn fn, void *arg,
	    const struct timing_opts *o, double *samples, int n);

/*
 * lmbench's sampling rule, benchmp()'s, for a benchmark that times its
 * runs itself (lat_fs, whose runs need untimed work around them):
 * timing_rule_init() sets the first count (one operation) from `o` (may
 * be NULL: 5 ms, no cap but lmbench's 2^27); after each run of r->n
 * operations that took `el` ns, overheads removed, timing_rule_next()
 * says whether it is a sample (it lasted over 95% of the target, or ran
 * at the cap) and sets r->n for the next run: eightfold while runs take
 * under 150 us, else rescaled to 1.1 targets when the run took under 99%
 * or over 120% of one.  timing_measure() uses the same.
 */
struct timing_rule {
	double		target;		/* ns a sample lasts at least */
	uint64_t	cap;		/* the largest count */
	uint64_t	n;		/* operations in the next run */
};

void	timing_rule_init(struct timing_rule *r, const struct timing_opts *o);
int	timing_rule_next(struct timing_rule *r, double el);

/*
 * Measure k operations in turn: fn[j](n, arg[j]) is calibrated as
 * timing_measure() does, then the samples are taken interleaved, one of
 * each operation nsamples times over, so that a change in the machine
 * while measuring shifts them alike, which matters when one number is
 * subtracted from another.  samples[j][0..nsamples) gets fn[j]'s ns per
 * operation and iters[j] its operations per sample.  `o` (may be NULL)
 * applies to all.  Returns 0, or -1 when the trial's deadline passed first.
 */
int	timing_measure_interleaved(struct trial *t, int k, const timing_fn *fn,
	    void *const *arg, const struct timing_opts *o, double *const *samples,
	    uint64_t *iters, int nsamples);

/*
 * Measure with the defaults and report the result as `metric`, converted
 * from ns per operation by dividing by `unit_ns` (1000 for microseconds).
 * Returns 0 or the value of trial_error().
 */
int	timing_report(struct trial *t, const char *metric, timing_fn fn,
	    void *arg, double unit_ns);

/* Sort n values in ascending order. */
void	samples_sort(double *v, int n);

/* Median of n values (n > 0); the array is not modified. */
double	samples_median(const double *v, int n);

/* v[i] -= d for every sample, never below zero. */
void	samples_subtract(double *v, int n, double d);

/* Turn ns per operation into MB/s (10^6 bytes) for `bytes` per operation. */
void	samples_to_mbps(double *v, int n, double bytes);

#endif /* FLEETMARK_TIMING_H */
