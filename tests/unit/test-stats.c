/*
 * test-stats: mean/sd/median, Student's t CDF and Welch's t-test against
 * published reference values.
 *
 * Sources:
 *  - R's documentation example for t.test (R 4.x, ?t.test, the `sleep`
 *    data set): t.test(extra ~ group, data = sleep) prints
 *    "t = -1.8608, df = 17.776, p-value = 0.07939" and "95 percent
 *    confidence interval: -3.3654832  0.2054832".
 *  - Two-sided critical values of Student's t (any statistics table, e.g.
 *    NIST/SEMATECH e-Handbook §1.3.6.7.2): t(0.975; 1) = 12.706,
 *    t(0.975; 10) = 2.228, t(0.975; 30) = 2.042, t(0.995; 5) = 4.032.
 *  - pt(2, 5) = 0.9490303 and pt(-1, 3) = 0.1955011 (R).
 *  - Closed forms: the t distribution with 1 df is Cauchy,
 *    P(T <= t) = 1/2 + atan(t)/pi; with 2 df, 1/2 + t / (2 sqrt(t^2 + 2)).
 */
#include <math.h>
#include <stdio.h>

#include "stats.h"
#include "tap.h"

int
main(void)
{
	static const double g1[] = { 0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0 };
	static const double g2[] = { 1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4 };
	static const double x4[] = { 1, 2, 3, 4 };
	static const double same[] = { 5, 5, 5 }, other[] = { 6, 6, 6 };
	struct stats_welch w;
	double t, lo, hi;

	is_num(stats_mean(x4, 4), 2.5, 1e-12, "mean");
	is_num(stats_sd(x4, 4), sqrt(5.0 / 3.0), 1e-12, "sample sd (n - 1)");
	is_num(stats_median(x4, 4), 2.5, 1e-12, "median of an even count");
	is_num(stats_median(g1, 3), -0.2, 1e-12, "median of an odd count");
	ok(isnan(stats_sd(x4, 1)), "sd of one value is NaN");

	/* Closed forms. */
	for (t = -5; t <= 5; t += 1.25) {
		char what[64];

		snprintf(what, sizeof(what), "t cdf, 1 df, t=%g (Cauchy)", t);
		is_num(stats_t_cdf(t, 1), 0.5 + atan(t) / M_PI, 1e-12, what);
		snprintf(what, sizeof(what), "t cdf, 2 df, t=%g (closed form)", t);
		is_num(stats_t_cdf(t, 2), 0.5 + t / (2 * sqrt(t * t + 2)), 1e-12, what);
	}
	/* Tables. */
	is_num(stats_t_cdf(12.706, 1), 0.975, 1e-5, "t(0.975; 1) = 12.706");
	is_num(stats_t_cdf(2.228, 10), 0.975, 1e-4, "t(0.975; 10) = 2.228");
	is_num(stats_t_cdf(2.042, 30), 0.975, 1e-4, "t(0.975; 30) = 2.042");
	/* the upper tail without cancellation (references: mpmath's quadrature
	 * of the t density at 40 digits) */
	is_num(stats_t_sf(2, 5), 0.050969739414929178, 1e-13, "P(T > 2), 5 df");
	is_num(stats_t_sf(-2, 5), 0.94903026058507082, 1e-13, "P(T > -2), 5 df");
	is_num(stats_t_sf(30, 10) / 1.9808961710156621e-11, 1, 1e-9, "P(T > 30), 10 df: 1.98e-11");
	is_num(stats_t_sf(60, 3) / 5.0997968366598774e-6, 1, 1e-9, "P(T > 60), 3 df");
	is_num(stats_t_sf(12, 53) / 4.918923377381049e-17, 1, 1e-8,
	    "P(T > 12), 53 df: 4.9e-17, where 1 - cdf is 0");
	ok(1 - stats_t_cdf(12, 53) == 0, "... (as 1 - cdf it is)");
	is_num(stats_t_cdf(4.032, 5), 0.995, 1e-4, "t(0.995; 5) = 4.032");
	is_num(stats_t_cdf(2, 5), 0.9490303, 1e-7, "pt(2, 5) as R");
	is_num(stats_t_cdf(-1, 3), 0.1955011, 1e-7, "pt(-1, 3) as R");
	is_num(stats_t_cdf(0, 7.3), 0.5, 1e-15, "t cdf at 0 is 1/2");
	is_num(stats_t_quantile(0.975, 1), 12.706, 5e-4, "qt(0.975, 1) = 12.706");
	is_num(stats_t_quantile(0.975, 10), 2.228, 5e-4, "qt(0.975, 10) = 2.228");
	is_num(stats_t_quantile(0.995, 5), 4.032, 5e-4, "qt(0.995, 5) = 4.032");
	is_num(stats_t_quantile(0.025, 30), -2.042, 5e-4, "qt(0.025, 30) = -2.042");
	is_num(stats_t_cdf(stats_t_quantile(0.9, 3.7), 3.7), 0.9, 1e-9,
	    "quantile inverts the cdf at a real df");
	ok(isnan(stats_t_quantile(1, 5)) && isnan(stats_t_quantile(0.5, 0)),
	    "quantile outside its domain is NAN");
	is_num(stats_t_cdf(1.959964, 1e7), 0.975, 1e-5, "large df tends to the normal");

	/*
	 * Quantiles and the cdf to 1e-10 relative, at the dfs the verdicts
	 * use (integer and Welch's real ones) and in the far tail: the
	 * values computed with mpmath 1.3 at 40 digits (the t cdf as
	 * 1 - betainc(df/2, 1/2, 0, df/(df+t^2), regularized)/2, its root
	 * by findroot); R is not installed here, and R's qt(0.975, 10) =
	 * 2.228138851986274 and qt(0.975, 30) = 2.042272456301238 agree.
	 */
	{
		static const struct { double p, df, t; } qt[] = {
			{ 0.975, 1, 12.706204736174693314 },
			{ 0.975, 3, 3.1824463052837084359 },
			{ 0.975, 4, 2.7764451051977934898 },
			{ 0.975, 7.5, 2.3330396268649740266 },
			{ 0.975, 10, 2.2281388519862742245 },
			{ 0.975, 30, 2.0422724563012378878 },
			{ 0.975, 57.3, 2.0022382682313360535 },
			{ 0.975, 1000, 1.9623390808264081039 },
			{ 0.975, 1e6, 1.9599663568141066553 },
			{ 0.995, 5, 4.0321429835552271793 },
			{ 0.9, 3.7, 1.5575658388615076557 },
			{ 0.999999, 6, 17.830314500568629164 },
			{ 0.6, 2.5, 0.28145951274854759175 },
		};
		static const struct { double t, df, p; } pt[] = {
			{ 2, 5, 0.94903026058507082188 },
			{ -1, 3, 0.19550110947788532096 },
			{ 0.5, 12.25, 0.68703219919917031609 },
			{ 4, 2.5, 0.98049351207934087669 },
			{ -3, 8, 0.00853584061689132549 },
		};
		char what[96];
		size_t k;
		int r;

		for (k = 0; k < sizeof(qt) / sizeof(qt[0]); k++) {
			snprintf(what, sizeof(what), "qt(%g, %g) = %.15g to 1e-10 relative",
			    qt[k].p, qt[k].df, qt[k].t);
			is_num(stats_t_quantile(qt[k].p, qt[k].df), qt[k].t, 1e-10 * qt[k].t, what);
			snprintf(what, sizeof(what), "qt(%g, %g) = -%.15g", 1 - qt[k].p, qt[k].df,
			    qt[k].t);
			is_num(stats_t_quantile(1 - qt[k].p, qt[k].df), -qt[k].t, 1e-10 * qt[k].t,
			    what);
		}
		/* again: now from the cache, the same value */
		for (r = 0; r < 2; r++)
			is_num(stats_t_quantile(0.975, 57.3), 2.0022382682313360535,
			    1e-10 * 2.0022, "qt(0.975, 57.3) a second time (cached)");
		for (k = 0; k < sizeof(pt) / sizeof(pt[0]); k++) {
			snprintf(what, sizeof(what), "pt(%g, %g) = %.15g to 1e-10 relative",
			    pt[k].t, pt[k].df, pt[k].p);
			is_num(stats_t_cdf(pt[k].t, pt[k].df), pt[k].p, 1e-10 * pt[k].p, what);
		}
	}

	/* R: t.test(extra ~ group, data = sleep) */
	ok(stats_welch(g1, 10, g2, 10, &w) == 0, "welch on the sleep data");
	is_num(w.t, -1.8608, 5e-5, "sleep: t = -1.8608");
	is_num(w.df, 17.776, 5e-4, "sleep: df = 17.776");
	is_num(w.p, 0.07939, 5e-6, "sleep: p-value = 0.07939");
	is_num(w.diff, 0.75 - 2.33, 1e-12, "sleep: difference of the means");
	stats_welch_ci(&w, 0.95, &lo, &hi);
	is_num(lo, -3.3654832, 5e-7, "sleep: 95% CI low = -3.3654832");
	is_num(hi, 0.2054832, 5e-7, "sleep: 95% CI high = 0.2054832");
	stats_welch_ci(&w, 0.99, &lo, &hi);
	ok(lo < -3.3654832 && hi > 0.2054832, "a 99% interval is wider");
	ok(stats_welch(g2, 10, g1, 10, &w) == 0 && w.t > 0 && fabs(w.p - 0.07939) < 5e-6,
	    "welch is symmetric: y against x flips t, keeps p");

	ok(stats_welch(x4, 1, x4, 4, &w) == -1, "welch needs two values a side");
	ok(stats_welch(same, 3, same, 3, &w) == 0 && w.p == 1, "zero variance, equal means: p = 1");
	ok(stats_welch(same, 3, other, 3, &w) == 0 && w.p == 0 && isinf(w.t),
	    "zero variance, different means: p = 0");

	/* R: t.test(sleep$extra[1:10], mu = 0) */
	ok(stats_ttest1(g1, 10, 0, &w) == 0, "one-sample t-test on the sleep data");
	is_num(w.t, 1.3257, 5e-5, "one-sample: t = 1.3257");
	is_num(w.df, 9, 0, "one-sample: df = 9");
	is_num(w.p, 0.2176, 5e-5, "one-sample: p-value = 0.2176");
	ok(stats_ttest1(g1, 10, 0.75, &w) == 0 && w.t == 0 && fabs(w.p - 1) < 1e-12,
	    "against its own mean: t = 0, p = 1");
	ok(stats_ttest1(x4, 1, 0, &w) == -1, "one-sample needs two values");
	ok(stats_ttest1(same, 3, same[0], &w) == 0 && w.p == 1 &&
	    stats_ttest1(same, 3, same[0] + 1, &w) == 0 && w.p == 0,
	    "zero variance: p = 1 at the value, 0 elsewhere");
	return tap_done();
}
