/*
 * spin: burn a fixed amount of CPU work, optionally made longer by a known
 * percentage.  It exists to test the statistics: two series that differ
 * only by extra=5 must be told apart, and two with the same extra must not.
 *
 * One sample runs `work` million iterations of a dependent integer chain
 * (which no compiler can vectorise or elide), plus extra percent.
 */
#include <stdint.h>

#include "bench.h"
#include "timing.h"
#include "wire.h"

static volatile uint64_t sink;

static void
burn(uint64_t iters)
{
	uint64_t x = 88172645463325252ULL, i;

	for (i = 0; i < iters; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	sink = x;
}

static int
run(struct trial *t)
{
	uint64_t iters = (uint64_t)trial_int(t, "work") * 1000000ULL;
	int n = trial_samples(t), i;
	double v[1000], t0;

	if (trial_int(t, "work") <= 0 || trial_int(t, "extra") < 0)
		return trial_error(t, WIRE_ERR_REQUEST, "work must be positive and extra not negative");
	iters += iters * (uint64_t)trial_int(t, "extra") / 100;
	burn(iters / 10);	/* warm up */
	for (i = 0; i < n && i < 1000; i++) {
		if (trial_expired(t))
			return trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached after %d samples", i);
		t0 = timing_now();
		burn(iters);
		v[i] = (timing_now() - t0 - timing_clock_overhead()) / 1e6;
	}
	trial_metric(t, "time", v, i, iters);
	return 0;
}

static const struct bench_param params[] = {
	{ "work", PARAM_INT, "20", "million iterations per sample", "1.." },
	{ "extra", PARAM_INT, "0", "percent more work, a known slowdown", "0.." },
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "time", "ms", 0, "time per sample" },
	{ NULL, NULL, 0, NULL }
};

BENCH(spin, "burn CPU for a known amount of work",
    "fleetmark's own, for testing statistics with a known effect size", params, metrics, run);
