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
