/*
 * test-changepoint: E-divisive change points (changepoint.c) on series
 * with known answers: the statistic by hand and against its O(n^2)
 * definition, pure noise (the false-positive rate of the permutation
 * test), steps of known size and night, two steps, a drift, an outlier
 * night, constant and too-short series, refused input, and the current
 * segment.  The noisy series come from a seeded generator, so every
 * figure printed here (the "#" lines: false-positive and detection
 * rates) is the same on every run.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "changepoint.h"
#include "tap.h"

/* The test's own generator (not the module's): splitmix64 and Box-Muller. */
static uint64_t gen;

static double
uniform(void)
{
	uint64_t z = (gen += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double
normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* n nights around 100 with rsd `noise` percent. */
static void
noise_series(double *x, size_t n, double noise)
{
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = 100 * (1 + noise / 100 * normal());
}

static int
detect(const double *x, size_t n, size_t min, double threshold, uint64_t seed,
    struct changepoint_result *r)
{
	struct changepoint_opts o;
	char *err = NULL;
	int rc;

	changepoint_opts_init(&o);
	o.min_size = min;
	o.threshold = threshold;
	o.seed = seed;
	rc = changepoint_detect(x, n, &o, r, &err);
	if (rc < 0) {
		printf("# %s\n", err);
		free(err);
	}
	return rc;
}

static void
test_statistic(void)
{
	static const double a[4] = { 0, 0, 1, 1 }, b[3] = { 1, 2, 4 };
	double x[64], q[64], worst = 0, d;
	size_t n, t, i;

	/*
	 * {0, 0 | 1, 1}: cross sum 4, 2/(2*2) * 4 = 2, no within spread:
	 * e = 2, q = 2*2/4 * 2 = 2.
	 */
	is_num(changepoint_qhat(a, 4, 2), 2, 1e-12, "qhat {0,0|1,1} = 2 by hand");
	/*
	 * {1 | 2, 4}: cross |1-2| + |1-4| = 4, 2/(1*2) * 4 = 4; X has one
	 * night (within 0); Y: |2-4| / C(2,2) = 2.  e = 2, q = 2/3 * 2.
	 */
	is_num(changepoint_qhat(b, 3, 1), 4.0 / 3, 1e-12, "qhat {1|2,4} = 4/3 by hand");
	ok(isnan(changepoint_qhat(b, 3, 0)) && isnan(changepoint_qhat(b, 3, 3)),
	    "qhat of an empty side is NaN");

	/* The O(n log n) scores against the definition, ties included. */
	gen = 7;
	for (n = 2; n <= 64; n += 3) {
		for (i = 0; i < n; i++)
			x[i] = i % 4 == 0 ? floor(uniform() * 4) : 1e6 + 3 * normal();
		changepoint_qhat_all(x, n, q);
		for (t = 1; t < n; t++) {
			double ref = changepoint_qhat(x, n, t);

			d = fabs(q[t] - ref) / (1 + fabs(ref));
			if (d > worst)
				worst = d;
		}
	}
	printf("# fast qhat against the definition: worst relative difference %.3g\n", worst);
	ok(worst < 1e-9, "fast qhat equals the O(n^2) definition (ties, 2..64 nights, offset 1e6)");
	changepoint_qhat_all(a, 4, q);
	ok(isnan(q[0]) && fabs(q[2] - 2) < 1e-12, "qhat_all: q[0] is NaN, q[2] as by hand");
}

static void
test_refused(void)
{
	static const double nan3[6] = { 1, 2, NAN, 3, 4, 5 }, inf3[2] = { INFINITY, 1 };
	static const double x[8] = { 1, 1, 1, 1, 2, 2, 2, 2 };
	struct changepoint_result r;
	struct changepoint_opts o;
	char *err = NULL;

	changepoint_opts_init(&o);
	ok(changepoint_detect(nan3, 6, &o, &r, &err) == -1 && err != NULL, "a NaN night is refused");
	if (err)
		printf("# %s\n", err);
	free(err);
	err = NULL;
	changepoint_result_release(&r);
	ok(changepoint_detect(inf3, 2, &o, &r, &err) == -1 && err != NULL,
	    "an infinite night is refused, even in a series too short to split");
	free(err);
	err = NULL;
	o.min_size = 0;
	ok(changepoint_detect(x, 8, &o, &r, &err) == -1 && err != NULL, "min_size 0 is refused");
	free(err);
	err = NULL;
	changepoint_opts_init(&o);
	o.permutations = 0;
	ok(changepoint_detect(x, 8, &o, &r, &err) == -1, "no permutations is refused");
	free(err);
	err = NULL;
	changepoint_opts_init(&o);
	o.p_max = 0.005;	/* 100 permutations cannot give p below 1/101 */
	ok(changepoint_detect(x, 8, &o, &r, &err) == -1 && err != NULL,
	    "a p_max below 1/(R+1) is refused");
	if (err)
		printf("# %s\n", err);
	free(err);
	err = NULL;
	changepoint_opts_init(&o);
	o.threshold = NAN;
	ok(changepoint_detect(x, 8, &o, &r, &err) == -1, "a NaN threshold is refused");
	free(err);
	changepoint_result_release(&r);
}

static void
test_short_and_constant(void)
{
	static const double x[12] = { 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5 };
	static const double y[5] = { 1, 1, 9, 9, 9 };
	struct changepoint_result r;
	size_t n;

	for (n = 0; n <= 2; n++) {
		char what[64];

		snprintf(what, sizeof(what), "a series of %zu nights has no change point", n);
		ok(detect(x, n, 1, 0, 1, &r) == 0 && r.n == 0, what);
		changepoint_result_release(&r);
	}
	ok(detect(y, 5, 3, 0, 1, &r) == 0 && r.n == 0, "5 nights cannot split into two of 3");
	changepoint_result_release(&r);
	ok(detect(x, 12, 2, 0, 1, &r) == 0 && r.n == 0, "a constant series has no change point");
	changepoint_result_release(&r);
}

static void
test_exact_step(void)
{
	double x[20];
	struct changepoint_result r;
	size_t i;

	for (i = 0; i < 20; i++)
		x[i] = i < 10 ? 1 : 2;
	ok(detect(x, 20, 3, 0, 1, &r) == 0 && r.n == 1, "a noiseless step is one change point");
	if (r.n == 1) {
		is_int(r.v[0].index, 10, "at the first night of the new level");
		is_num(r.v[0].before, 1, 1e-12, "mean before 1");
		is_num(r.v[0].after, 2, 1e-12, "mean after 2");
		is_num(r.v[0].pct, 100, 1e-12, "change +100%");
		is_num(r.v[0].lo, 100, 1e-9, "noiseless: the interval is the change");
		/* No shuffle of ten 1s and ten 2s splits as well but 1 in C(20,10). */
		is_num(r.v[0].p, 1.0 / 101, 1e-12, "p = 1/101, the smallest 100 shuffles give");
		/* q = 10*10/20 * (2/100 * 100) = 10 */
		is_num(r.v[0].qhat, 10, 1e-9, "qhat = 10 by hand");
	}
	changepoint_result_release(&r);
}

/* Pure noise: how often a change point is found where there is none. */
static void
test_noise(void)
{
	double x[60];
	struct changepoint_result r;
	size_t s, any = 0, any5 = 0, shuffles = 0, all = 0;

	gen = 1000;
	for (s = 0; s < 200; s++) {
		noise_series(x, 60, 2);
		if (detect(x, 60, 3, 0, s, &r) == 0 && r.n > 0)
			any++;
		all += r.n;
		shuffles += r.shuffles;
		changepoint_result_release(&r);
		if (detect(x, 60, 3, 5, s, &r) == 0 && r.n > 0)
			any5++;
		changepoint_result_release(&r);
	}
	printf("# noise, 200 series of 60 nights (2%% rsd), p <= 0.05: %zu with a change point "
	    "(%.1f%%), %zu change points; with the 5%% threshold %zu; %.1f shuffles a series\n",
	    any, any / 2.0, all, any5, shuffles / 200.0);
	ok(any <= 16, "noise: at most 8% of series with a false change point (nominal 5%)");
	ok(any5 <= any, "noise: the threshold only removes");
	ok(shuffles < 200 * 100, "noise: shuffles stop early when p cannot be significant");
}

/*
 * A 5% step at night 30 of 60, 2% noise, the threshold 5%: the plan's
 * smallest change, as large as the true one.  E-divisive (alpha = 1)
 * places a step of 2.5 sd within a night nine times in ten and exactly
 * seven times in ten (1000 series: 72% on the night, 89% within one,
 * 94% within two); a true change of exactly the threshold is removed
 * when the data show it smaller, about one time in forty.
 */
static void
test_step(void)
{
	double x[60];
	struct changepoint_result r;
	size_t s, found = 0, exact = 0, near = 0, extra = 0, i;
	double pct = 0;

	gen = 2000;
	for (s = 0; s < 200; s++) {
		noise_series(x, 60, 2);
		for (i = 30; i < 60; i++)
			x[i] *= 1.05;
		if (detect(x, 60, 3, 5, s, &r) == 0 && r.n > 0) {
			for (i = 0; i < r.n; i++) {
				if (r.v[i].index + 3 >= 30 && r.v[i].index <= 33)
					break;
			}
			if (i < r.n) {
				found++;
				exact += r.v[i].index == 30;
				near += r.v[i].index + 1 >= 30 && r.v[i].index <= 31;
				pct += r.v[i].pct;
			}
			extra += r.n - (i < r.n);
		}
		changepoint_result_release(&r);
	}
	printf("# 5%% step at night 30 of 60, 2%% noise, 200 series: found within 3 nights %zu, "
	    "within 1 %zu, on the night %zu; mean change %+.2f%%; other change points %zu\n",
	    found, near, exact, found ? pct / (double)found : 0, extra);
	ok(found >= 180, "step: a 5% step in 2% noise found within 3 nights in 90% of series");
	ok(near >= 160, "step: within a night of the true one in 80%");
	ok(exact >= 120, "step: on the very night in 60%");
	ok(extra <= 10, "step: other change points in at most 5% of series");
	ok(found && fabs(pct / (double)found - 5) < 0.5, "step: the measured change averages 5%");
}

/* +5% at night 25, then -8% at night 55, of 80. */
static void
test_two_steps(void)
{
	double x[80];
	struct changepoint_result r;
	size_t s, both = 0, only = 0, i;
	int ok1, ok2;

	gen = 3000;
	for (s = 0; s < 50; s++) {
		noise_series(x, 80, 2);
		for (i = 25; i < 80; i++)
			x[i] *= i < 55 ? 1.05 : 1.05 * 0.92;
		ok1 = ok2 = 0;
		if (detect(x, 80, 3, 3, s, &r) == 0) {
			for (i = 0; i < r.n; i++) {
				ok1 |= r.v[i].index + 2 >= 25 && r.v[i].index <= 27 && r.v[i].pct > 0;
				ok2 |= r.v[i].index + 2 >= 55 && r.v[i].index <= 57 && r.v[i].pct < 0;
			}
		}
		both += ok1 && ok2;
		only += ok1 && ok2 && r.n == 2;
		changepoint_result_release(&r);
	}
	printf("# two steps (+5%% at 25, -8%% at 55 of 80), 50 series: both found within 2 nights "
	    "%zu, and nothing else %zu\n", both, only);
	ok(both >= 45, "two steps: both found (within 2 nights, right signs) in 90% of series");
	ok(only >= 40, "two steps: and no third in 80%");
}

/* 30 flat nights, then +1% a night for 30, 1% noise. */
static void
test_drift(void)
{
	double x[60];
	struct changepoint_result r;
	size_t s, caught = 0, early = 0, wrong = 0, late = 0, i;

	gen = 4000;
	for (s = 0; s < 50; s++) {
		noise_series(x, 60, 1);
		for (i = 30; i < 60; i++)
			x[i] *= 1 + 0.01 * (double)(i - 29);
		if (detect(x, 60, 3, 5, s, &r) == 0 && r.n > 0) {
			caught++;
			early += r.v[0].index < 28;
			late += r.v[0].index - 30 > 10;
			for (i = 0; i < r.n; i++)
				wrong += r.v[i].pct < 0;
		}
		changepoint_result_release(&r);
	}
	printf("# drift of 1%%/night from night 30, 50 series: caught %zu, first change before "
	    "night 28 %zu, more than 10 nights late %zu, downward %zu\n", caught, early, late, wrong);
	ok(caught == 50, "drift: caught in every series");
	ok(early <= 2, "drift: no change point in the flat part (at most 2 of 50)");
	ok(late == 0, "drift: the first change within 10 nights of the drift's start");
	ok(wrong == 0, "drift: every change is upward");
}

/*
 * One disturbed night is not a change point: min_size keeps it from
 * being a segment of its own.  With min_size 1 the same night is one, in
 * a series long enough for a permutation test to notice a single night
 * (p can be no lower than about 2/n: a shuffle puts it at an end).
 */
static void
test_outlier(void)
{
	double x[100];
	struct changepoint_result r;
	size_t s, i, last2 = 0, last3 = 0, last1 = 0, mid = 0;

	gen = 5000;
	for (s = 0; s < 30; s++) {
		noise_series(x, 100, 2);
		x[99] *= 1.3;
		if (detect(x, 100, 2, 5, s, &r) == 0)
			for (i = 0; i < r.n; i++)
				last2 += r.v[i].index >= 96;
		changepoint_result_release(&r);
		if (detect(x, 100, 3, 5, s, &r) == 0)
			for (i = 0; i < r.n; i++)
				last3 += r.v[i].index >= 94;
		changepoint_result_release(&r);
		if (detect(x, 100, 1, 5, s, &r) == 0)
			last1 += r.n == 1 && r.v[0].index == 99;
		changepoint_result_release(&r);
		x[99] /= 1.3;
		x[50] *= 1.3;
		if (detect(x, 100, 3, 5, s, &r) == 0)
			for (i = 0; i < r.n; i++)
				mid += r.v[i].index >= 47 && r.v[i].index <= 53;
		changepoint_result_release(&r);
	}
	printf("# a +30%% night, 30 series of 100: change points near the last night with min_size "
	    "2 %zu, 3 %zu; the night found alone with min_size 1 %zu; near a mid-series one %zu\n",
	    last2, last3, last1, mid);
	is_int(last2, 0, "outlier: a disturbed last night makes no change point (min_size 2)");
	is_int(last3, 0, "outlier: nor with min_size 3");
	ok(last1 >= 25, "outlier: with min_size 1 it is one (the test can fail)");
	is_int(mid, 0, "outlier: a disturbed night mid-series makes no change point");
}

static void
test_determinism(void)
{
	double x[120];
	struct changepoint_result a, b, c;
	size_t i, same = 1;

	gen = 6000;
	noise_series(x, 120, 3);
	for (i = 70; i < 120; i++)
		x[i] *= 1.04;
	detect(x, 120, 3, 0, 42, &a);
	detect(x, 120, 3, 0, 42, &b);
	detect(x, 120, 3, 0, 43, &c);
	same = a.n == b.n;
	for (i = 0; same && i < a.n; i++)
		same = a.v[i].index == b.v[i].index && a.v[i].p == b.v[i].p && a.v[i].qhat == b.v[i].qhat;
	ok(same && a.n > 0, "the same seed gives the same change points and p's");
	ok(c.n > 0 && c.v[0].index == a.v[0].index, "another seed finds the same strong change");
	changepoint_result_release(&a);
	changepoint_result_release(&b);
	changepoint_result_release(&c);
}

static void
test_current(void)
{
	double x[50], sp[50];
	struct changepoint_result r = { 0 };
	struct changepoint cps[2] = { { .index = 10 }, { .index = 30 } };
	struct changepoint_segment g;
	size_t i;

	for (i = 0; i < 50; i++) {
		x[i] = i < 10 ? 1 : i < 30 ? 2 : 3 + (double)(i % 2);
		sp[i] = i % 2 ? 0.3 : 0.4;
	}
	sp[45] = NAN;
	r.v = cps;
	r.n = 2;
	changepoint_current(x, sp, 50, &r, 0, &g);
	ok(g.start == 30 && g.n == 20 && g.change == 1, "current: since the last change point");
	is_num(g.mean, 3.5, 1e-12, "current: its mean");
	is_num(g.sd, sqrt(20 * 0.25 / 19), 1e-12, "current: night-to-night sd");
	/* 19 nights with a spread: 10 of 0.3 (odd) less night 45, 10 of 0.4 */
	is_num(g.within, sqrt((9 * 0.09 + 10 * 0.16) / 19), 1e-12,
	    "current: the nights' own spread pooled, NaN left out");
	changepoint_current(x, sp, 50, &r, 7, &g);
	ok(g.start == 43 && g.n == 7 && g.change == CHANGEPOINT_NONE,
	    "current: at most max nights (regression.nights)");
	changepoint_current(x, NULL, 50, &r, 25, &g);
	ok(g.start == 30 && g.n == 20 && isnan(g.within), "current: a limit above the segment");
	r.n = 0;
	changepoint_current(x, sp, 8, &r, 0, &g);
	ok(g.start == 0 && g.n == 8 && g.change == CHANGEPOINT_NONE && g.mean == 1,
	    "current: no change point, the whole history");
	changepoint_current(x, NULL, 1, NULL, 7, &g);
	ok(g.n == 1 && isnan(g.sd), "current: one night has no sd");
	changepoint_current(NULL, NULL, 0, NULL, 7, &g);
	ok(g.n == 0 && isnan(g.mean), "current: no history");
}

int
main(void)
{
	test_statistic();
	test_refused();
	test_short_and_constant();
	test_exact_step();
	test_noise();
	test_step();
	test_two_steps();
	test_drift();
	test_outlier();
	test_determinism();
	test_current();
	return tap_done();
}
