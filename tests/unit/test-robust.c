/*
 * test-robust: quantiles, outlier flags, geometric means and the trials
 * a side a decision needs (robust.c), on values with known answers.
 *
 * Sources:
 *  - R: quantile(1:10, c(0.25, 0.5, 0.75)) = 3.25 5.50 7.75 (type 7);
 *    quantile(c(7, 1, 3), 0.1) = 1.4.
 *  - Two-sided critical values of Student's t (R's qt): qt(0.975, 60) =
 *    2.000298, qt(0.975, 62) = 1.998972, qt(0.975, 14) = 2.144787,
 *    qt(0.975, 16) = 2.119905, qt(0.975, 17) = 2.109816.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "robust.h"
#include "stats.h"
#include "tap.h"

static void
test_order(void)
{
	static const double x[6] = { 3, 1, 2, 1, -5, 3 };
	size_t o[6], i, good = 0;
	static const size_t want[6] = { 4, 1, 3, 2, 0, 5 };

	robust_order(x, 6, o);
	for (i = 0; i < 6; i++)
		good += o[i] == want[i];
	is_int(good, 6, "order: as R's order(c(3, 1, 2, 1, -5, 3)) = 5 2 4 3 1 6, ties stable");
}

static void
test_quantile(void)
{
	static const double ten[10] = { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 };
	static const double three[3] = { 7, 1, 3 };

	is_num(robust_quantile(ten, 10, 0.25), 3.25, 1e-12, "quantile(1:10, 0.25) = 3.25 (R type 7)");
	is_num(robust_quantile(ten, 10, 0.5), 5.5, 1e-12, "quantile(1:10, 0.5) = 5.5");
	is_num(robust_quantile(ten, 10, 0.75), 7.75, 1e-12, "quantile(1:10, 0.75) = 7.75");
	is_num(robust_quantile(three, 3, 0.1), 1.4, 1e-12, "quantile(c(7, 1, 3), 0.1) = 1.4");
	is_num(robust_quantile(three, 3, 0), 1, 0, "quantile 0 is the minimum");
	is_num(robust_quantile(three, 3, 1), 7, 0, "quantile 1 is the maximum");
	is_num(robust_quantile(three, 1, 0.7), 7, 0, "one value is every quantile");
	ok(isnan(robust_quantile(three, 0, 0.5)) && isnan(robust_quantile(three, 3, 1.5)),
	    "quantile of nothing, or outside [0, 1], is NaN");
	ok(three[0] == 7 && ten[0] == 10, "quantile leaves x as it was");
}

static void
test_outliers(void)
{
	/* median 10.0, MAD 0.1: M(13.0) = 0.6745 * 3 / 0.1 = 20.2; M(10.2) = 1.35 */
	static const double one[7] = { 10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 13.0 };
	/* median 0, MAD 1: M(v) = 0.6745 v; 5.04 gives 3.399, 5.34 gives 3.602 */
	double edge[8] = { -1, -1, 0, 0, 0, 1, 1, 0 };
	/*
	 * MAD 0: median 5, most trials 5.  Quartiles (type 7) of
	 * 5 5 5 5 5 6 20: Q1 = 5, Q3 = 5.5, IQR 0.5, fences 4.25 and 6.25:
	 * 20 is out, 6 is in.
	 */
	static const double flat[7] = { 5, 20, 5, 5, 6, 5, 5 };
	static const double same[4] = { 3, 3, 3, 3 };
	static const double bad[3] = { 1, NAN, 2 }, inf[2] = { 1, INFINITY };
	struct robust_outliers o;
	unsigned char f[8];
	char *err = NULL;

	ok(robust_outliers(one, 7, f, &o, &err) == 0, "outliers: a slow trial");
	is_int(o.count, 1, "outliers: one flagged");
	ok(f[6] == 1 && f[3] == 0 && f[0] == 0, "outliers: 13.0 is, 10.2 is not");
	is_int(o.rule, ROBUST_MODZ, "outliers: by the modified z-score");
	is_num(o.median, 10.0, 1e-12, "outliers: median 10.0");
	is_num(o.mad, 0.1, 1e-12, "outliers: MAD 0.1");
	is_num(o.hi, 10.0 + 3.5 * 0.1 / 0.6745, 1e-12, "outliers: upper fence median + 3.5 MAD / 0.6745");
	is_num(o.q1, robust_quantile(one, 7, 0.25), 1e-12, "outliers: Q1 as robust_quantile()");
	is_num(o.q3, robust_quantile(one, 7, 0.75), 1e-12, "outliers: Q3 as robust_quantile()");

	edge[7] = 5.04;
	ok(robust_outliers(edge, 8, f, &o, &err) == 0 && o.count == 0 && o.mad == 1,
	    "outliers: M = 3.399 is not flagged (MAD 1)");
	edge[7] = 5.34;
	ok(robust_outliers(edge, 8, f, &o, &err) == 0 && o.count == 1 && f[7] == 1,
	    "outliers: M = 3.602 is flagged");
	edge[7] = -5.34;
	edge[0] = 1;	/* keep median 0, MAD 1 */
	ok(robust_outliers(edge, 8, f, &o, &err) == 0 && o.count == 1 && f[7] == 1 && o.mad == 1,
	    "outliers: a fast trial is flagged as well as a slow one");

	ok(robust_outliers(flat, 7, f, &o, &err) == 0, "outliers: MAD 0");
	is_int(o.rule, ROBUST_IQR, "outliers: MAD 0 falls back to the IQR rule");
	ok(o.count == 1 && f[1] == 1 && f[4] == 0, "outliers: IQR rule flags 20, not 6");
	is_num(o.hi, 6.25, 1e-12, "outliers: Q3 + 1.5 IQR = 6.25");
	is_num(o.lo, 4.25, 1e-12, "outliers: Q1 - 1.5 IQR = 4.25");
	ok(o.q1 == 5 && o.q3 == 5.5, "outliers: the quartiles come with the fences (5, 5.5)");

	ok(robust_outliers(same, 4, NULL, &o, &err) == 0 && o.count == 0,
	    "outliers: identical trials have none (flag may be NULL)");
	ok(robust_outliers(one, 2, f, &o, &err) == 0 && o.count == 0,
	    "outliers: two trials cannot have one");
	ok(robust_outliers(one, 0, f, &o, &err) == 0 && o.count == 0 && o.rule == ROBUST_NONE,
	    "outliers: no trials, no rule");
	ok(isnan(o.q1) && isnan(o.q3), "outliers: no trials, no quartiles");
	ok(robust_outliers(bad, 3, f, &o, &err) == -1 && err != NULL, "outliers: NaN refused");
	if (err)
		printf("# %s\n", err);
	free(err);
	err = NULL;
	ok(robust_outliers(inf, 2, f, &o, &err) == -1 && err != NULL, "outliers: infinity refused");
	free(err);
}

static void
test_geomean(void)
{
	static const double x[3] = { 1, 2, 4 }, z[4] = { 0, 2, 8, NAN };
	static const double b[3] = { 100, 200, 50 }, a[3] = { 110, 180, 50 };
	static const double b2[5] = { 10, 0, 5, NAN, 40 }, a2[5] = { 20, 0, 0, 3, 10 };
	struct robust_change c;
	size_t used;

	is_num(robust_geomean(x, 3, &used), 2, 1e-12, "geomean(1, 2, 4) = 2");
	is_num(robust_geomean(z, 4, &used), 4, 1e-12, "geomean leaves out 0 and NaN");
	is_int(used, 2, "geomean: two values used");
	ok(isnan(robust_geomean(z, 1, &used)) && used == 0, "geomean of only a zero is NaN");

	robust_geomean_change(b, a, 3, &c);
	/* ratios 1.1, 0.9, 1.0: (1.1 * 0.9 * 1)^(1/3) = 0.99^(1/3) */
	is_num(c.ratio, cbrt(0.99), 1e-12, "geomean change: (1.1 * 0.9 * 1.0)^(1/3)");
	is_num(c.pct, (cbrt(0.99) - 1) * 100, 1e-10, "geomean change in percent (-0.334%)");
	is_int(c.used, 3, "geomean change: three rows");
	/* rows: 2, 0/0 (= 1), 0 on one side (out), NaN (out), 0.25 */
	robust_geomean_change(b2, a2, 5, &c);
	is_num(c.ratio, cbrt(2 * 1 * 0.25), 1e-12, "geomean change: 0/0 counts as 1, x/0 is left out");
	ok(c.used == 3 && c.skipped == 2, "geomean change: three used, two skipped");
	robust_geomean_change(b2 + 2, a2 + 2, 2, &c);
	ok(isnan(c.ratio) && c.used == 0 && c.skipped == 2, "geomean change of nothing usable is NaN");
}

static void
test_needed(void)
{
	/* Two samples of spread 5 around 100 and 104 (sample sd exactly 5). */
	double sa[8], sb[8], lo, hi, k;
	struct stats_welch w;
	size_t n, i, agree;

	/*
	 * mean 100, sd 5 a side, threshold 5%: the interval must be narrower
	 * than 5.  width(n) = 2 qt(0.975, 2 (n - 1)) sqrt(50 / n):
	 * n = 31: 2 * 2.000298 * 1.270001 = 5.0813 (too wide);
	 * n = 32: 2 * 1.998972 * 1.25 = 4.9974.  So 32.
	 */
	ok(robust_trials_needed(100, 5, 5, 5, &n) == 0, "needed: computable");
	is_int(n, 32, "needed: 32 trials a side for sd 5% at a 5% threshold");
	ok(!robust_decidable(100, 5, 31, 5, 31, 5) && robust_decidable(100, 5, 32, 5, 32, 5),
	    "decidable: 31 a side is not enough, 32 is");
	/* sd 0 and 5: df = n - 1; n = 17: 2 * 2.119905 * 5 / sqrt(17) = 5.141,
	 * n = 18: 2 * 2.109816 * 5 / sqrt(18) = 4.9728.  So 18. */
	ok(robust_trials_needed(-100, 0, 5, 5, &n) == 0 && n == 18,
	    "needed: one side exact, the other sd 5: 18 (a negative mean counts by size)");
	ok(robust_trials_needed(100, 0, 0, 5, &n) == 0 && n == 2, "needed: no spread: 2");
	ok(robust_trials_needed(100, 1, 1, 50, &n) == 0 && n == 2, "needed: a wide threshold: 2");
	ok(robust_trials_needed(1, 1, 1, 1e-3, &n) == 0 && n == ROBUST_TRIALS_MAX,
	    "needed: hopeless is capped at ROBUST_TRIALS_MAX");
	ok(robust_trials_needed(0, 1, 1, 5, &n) == -1, "needed: a zero mean cannot be told");
	ok(robust_trials_needed(100, NAN, 1, 5, &n) == -1, "needed: an unknown sd cannot be told");
	ok(robust_trials_needed(100, 1, 1, 0, &n) == -1, "needed: a zero threshold cannot be told");
	ok(!robust_decidable(100, 0, 1, 0, 5, 5), "decidable: one trial a side never is");

	/*
	 * Half the spread, about a quarter of the trials: sd 2.5 a side,
	 * n = 8: 2 * qt(0.975, 14) * sqrt(12.5 / 8) = 2 * 2.144787 * 1.25 =
	 * 5.362; n = 9: 2 * 2.119905 * 1.178511 = 4.9966.  So 9.
	 */
	ok(robust_trials_needed(100, 2.5, 2.5, 5, &n) == 0 && n == 9,
	    "needed: half the spread, 9 trials a side (about a quarter)");

	/* The rule is the width of stats_welch_ci()'s interval, on real samples. */
	for (i = 0, agree = 0; i < 40; i++) {
		size_t j, m = 2 + i % 7;

		for (j = 0; j < m; j++) {
			k = (double)j - (double)(m - 1) / 2;
			sa[j] = 100 + k * (1 + (double)(i % 5));
			sb[j] = 103 + k * (0.5 + (double)(i % 3));
		}
		stats_welch(sa, m, sb, m, &w);
		stats_welch_ci(&w, 0.95, &lo, &hi);
		agree += robust_decidable(100, stats_sd(sa, m), m, stats_sd(sb, m), m, 6) ==
		    (hi - lo < 6);
	}
	is_int(agree, 40, "decidable agrees with the width of stats_welch_ci() on 40 samples");
}

int
main(void)
{
	test_order();
	test_quantile();
	test_outliers();
	test_geomean();
	test_needed();
	return tap_done();
}
