/*
 * timing.c: calibrated, overhead-corrected measurement (see timing.h).
 *
 * The calibration follows lmbench: double the iteration count until a run
 * is long enough to trust, then scale it to the target interval.  The
 * clock overhead is the median cost of back-to-back clock reads; the loop
 * overhead is the median cost per iteration of a loop that does nothing but
 * a volatile store, which is what every benchmark loop carries besides its
 * operation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "bench.h"
#include "timing.h"
#include "wire.h"

static double clock_overhead;
static double loop_overhead;
static volatile int loop_sink;

double
timing_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void
samples_sort(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
}

double
samples_median(const double *v, int n)
{
	double *c, m;

	if (n <= 0)
		return 0;
	if ((c = malloc(sizeof(*c) * (size_t)n)) == NULL)
		return v[0];
	memcpy(c, v, sizeof(*c) * (size_t)n);
	samples_sort(c, n);
	m = (n % 2) ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

void
samples_subtract(double *v, int n, double d)
{
	int i;

	for (i = 0; i < n; i++)
		v[i] = v[i] > d ? v[i] - d : 0;
}

void
samples_to_mbps(double *v, int n, double bytes)
{
	int i;

	for (i = 0; i < n; i++)
		v[i] = v[i] > 0 ? bytes / v[i] * 1e3 : 0;
}

static void
empty_loop(uint64_t n, void *arg)
{
	(void)arg;
	while (n--)
		loop_sink = 0;
}

void
timing_init(void)
{
	double v[21], t0, t1;
	int i, j;

	if (clock_overhead > 0)
		return;
	for (i = 0; i < 21; i++) {
		t0 = timing_now();
		for (j = 0; j < 100; j++)
			t1 = timing_now();
		v[i] = (t1 - t0) / 100;
	}
	clock_overhead = samples_median(v, 21);
	for (i = 0; i < 21; i++) {
		t0 = timing_now();
		empty_loop(100000, NULL);
		t1 = timing_now();
		v[i] = (t1 - t0 - clock_overhead) / 100000;
	}
	loop_overhead = samples_median(v, 21);
	if (loop_overhead < 0)
		loop_overhead = 0;
}

double
timing_clock_overhead(void)
{
	return clock_overhead;
}

double
timing_loop_overhead(void)
{
	return loop_overhead;
}

static double
run_once(timing_fn fn, void *arg, uint64_t n)
{
	double t0, t1;

	t0 = timing_now();
	fn(n, arg);
	t1 = timing_now();
	return t1 - t0;
}

/*
 * Operations per sample for fn: grow n until a run lasts a tenth of the
 * target, scale it to the target, then warm up with one discarded sample
 * at that count.  A stall during calibration makes the count too small;
 * when the warm-up shows that (it took under half the target), scale again
 * from it, at most three times.  0 when the trial's deadline passed first.
 */
static uint64_t
calibrate(struct trial *t, timing_fn fn, void *arg, const struct timing_opts *o)
{
	double target = (o && o->target_ns > 0) ? o->target_ns : TIMING_TARGET_NS;
	uint64_t cap = (o && o->max_iters) ? o->max_iters : UINT64_MAX / 4;
	double el, scaled;
	uint64_t n = 1;
	int i;

	for (;;) {
		if (trial_expired(t))
			return 0;
		el = run_once(fn, arg, n);
		if (el >= target / 10 || n >= cap)
			break;
		n = (el < target / 1000) ? n * 8 : n * 2;
		if (n > cap)
			n = cap;
	}
	if (el < target && n < cap) {
		scaled = (double)n * target / (el > 1 ? el : 1);
		n = scaled >= (double)cap ? cap : (uint64_t)scaled;
		if (n == 0)
			n = 1;
	}
	for (i = 0; i < 3; i++) {
		if (trial_expired(t))
			return 0;
		el = run_once(fn, arg, n);
		if (el >= target / 2 || n >= cap)
			break;
		scaled = (double)n * target / (el > 1 ? el : 1);
		n = scaled >= (double)cap ? cap : (uint64_t)scaled;
		if (n == 0)
			n = 1;
	}
	return n;
}

/* One sample of n operations: ns per operation, overheads removed. */
static double
sample(timing_fn fn, void *arg, uint64_t n, const struct timing_opts *o)
{
	double per = (run_once(fn, arg, n) - clock_overhead) / (double)n;

	if (!(o && o->keep_loop))
		per -= loop_overhead;
	return per > 0 ? per : 0;
}

/* The parameter `name` of t's benchmark, or NULL when it declares none. */
static const struct bench_param *
declared(const struct trial *t, const char *name)
{
	const struct bench_param *p;

	if (t == NULL || t->bench == NULL || t->bench->params == NULL)
		return NULL;
	for (p = t->bench->params; p->name != NULL; p++)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

static int
declares(const struct trial *t, const char *name)
{
	return declared(t, name) != NULL;
}

/*
 * Whether t's benchmark declares the sampling parameter and it says
 * "all": every run at one calibrated count is a sample.
 */
static int
every_run(const struct trial *t)
{
	return declares(t, TIMING_SAMPLING) &&
	    strcmp(trial_str(t, TIMING_SAMPLING), "all") == 0;
}

/*
 * Once per trial process: a note when the sampling or the interval is not
 * lmbench's, the default of the benchmark's table.
 */
static void
note_unlike(struct trial *t)
{
	static int noted;
	const struct bench_param *p;

	if (noted)
		return;
	noted = 1;
	if (every_run(t))
		trial_note(t, WIRE_NOTE_UNLIKE_LMBENCH "sampling=all: every run at one "
		    "calibrated count is a sample, none dropped");
	if ((p = declared(t, TIMING_INTERVAL)) != NULL &&
	    trial_int(t, TIMING_INTERVAL) != strtoll(p->def, NULL, 10))
		trial_note(t, WIRE_NOTE_UNLIKE_LMBENCH "samples of %lld us, lmbench's of %s",
		    trial_int(t, TIMING_INTERVAL), p->def);
}

void
timing_rule_init(struct timing_rule *r, const struct timing_opts *o)
{
	r->target = (o && o->target_ns > 0) ? o->target_ns : TIMING_TARGET_NS;
	r->cap = (o && o->max_iters) ? o->max_iters : (UINT64_C(1) << 27);
	r->n = 1;
}

/*
 * lmbench's benchmp_interval() (lib_timing.c): a run counts as a sample
 * only when it lasted over 0.95 of the interval; after every run that took
 * under 0.99 or over 1.2 of it, the count grows eightfold while a run
 * takes under 150 us, else is rescaled to 1.1 intervals.
 */
int
timing_rule_next(struct timing_rule *r, double el)
{
	int keep = el > 0.95 * r->target || r->n >= r->cap;
	double scaled;

	if ((el < 0.99 * r->target && r->n < r->cap) || el > 1.2 * r->target) {
		if (el > 150e3) {
			scaled = (double)r->n / el * 1.1 * r->target + 1;
			r->n = scaled >= (double)r->cap ? r->cap : (uint64_t)scaled;
		} else
			r->n = r->n * 8 > r->cap ? r->cap : r->n * 8;
	}
	return keep;
}

/*
 * lmbench's benchmp(): runs of fn by timing_rule_next()'s rule until
 * nsamples are kept.  The runs that fall short are dropped, so on a
 * machine whose speed changes from run to run the samples lean towards
 * the slower runs, as lmbench's do.  Returns the count of the last
 * sample, 0 at the deadline.
 */
static uint64_t
benchmp(struct trial *t, timing_fn fn, void *arg, const struct timing_opts *o,
    double *samples, int nsamples)
{
	struct timing_rule r;
	uint64_t n, last = 0;
	double el, per;
	int got = 0, begun = 0;

	timing_rule_init(&r, o);
	while (got < nsamples) {
		if (trial_expired(t))
			return 0;
		n = r.n;
		el = run_once(fn, arg, n) - clock_overhead;
		if (!(o && o->keep_loop))
			el -= (double)n * loop_overhead;
		if (timing_rule_next(&r, el)) {
			if (!begun) {
				trial_measure_begin(t);
				begun = 1;
			}
			per = el / (double)n;
			samples[got++] = per > 0 ? per : 0;
			last = n;
		}
	}
	trial_measure_end(t);
	return last;
}

uint64_t
timing_measure(struct trial *t, timing_fn fn, void *arg,
    const struct timing_opts *o, double *samples, int nsamples)
{
	struct timing_opts io = { 0, 0, 0 };
	uint64_t n;
	int i;

	timing_init();
	note_unlike(t);
	if (declares(t, TIMING_INTERVAL)) {
		if (o != NULL)
			io = *o;
		io.target_ns = (double)trial_int(t, TIMING_INTERVAL) * 1e3;
		o = &io;
	}
	if (!every_run(t))
		return benchmp(t, fn, arg, o, samples, nsamples);
	if ((n = calibrate(t, fn, arg, o)) == 0)
		return 0;
	trial_measure_begin(t);
	for (i = 0; i < nsamples; i++) {
		if (trial_expired(t))
			return 0;
		samples[i] = sample(fn, arg, n, o);
	}
	trial_measure_end(t);
	return n;
}

int
timing_measure_interleaved(struct trial *t, int k, const timing_fn *fn,
    void *const *arg, const struct timing_opts *o, double *const *samples,
    uint64_t *iters, int nsamples)
{
	int i, j;

	timing_init();
	for (j = 0; j < k; j++)
		if ((iters[j] = calibrate(t, fn[j], arg[j], o)) == 0)
			return -1;
	trial_measure_begin(t);
	for (i = 0; i < nsamples; i++)
		for (j = 0; j < k; j++) {
			if (trial_expired(t))
				return -1;
			samples[j][i] = sample(fn[j], arg[j], iters[j], o);
		}
	trial_measure_end(t);
	return 0;
}

int
timing_report(struct trial *t, const char *metric, timing_fn fn, void *arg,
    double unit_ns)
{
	int n = trial_samples(t), i;
	double *v;
	uint64_t iters;

	if ((v = calloc((size_t)n, sizeof(*v))) == NULL)
		return trial_error(t, WIRE_ERR_BENCH, "out of memory");
	if ((iters = timing_measure(t, fn, arg, NULL, v, n)) == 0) {
		free(v);
		return trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached while measuring %s", metric);
	}
	for (i = 0; i < n; i++)
		v[i] /= unit_ns;
	trial_metric(t, metric, v, n, iters);
	free(v);
	return 0;
}
