/*
 * stats.h: the few statistics reports need: mean, standard deviation,
 * median, Student's t distribution and Welch's two-sample t-test.
 *
 * The t distribution's CDF is computed through the regularized incomplete
 * beta function (a continued fraction, Numerical Recipes' betacf shape,
 * evaluated with the modified Lentz method), accurate to about 1e-12 for
 * the sample sizes benchmarks have.  Its quantile is Halley's method on
 * the upper tail from a Cornish-Fisher start, cached per thread by p and
 * df (docs/performance.md, "The t distribution's cost").
 */
#ifndef FLEETMARK_STATS_H
#define FLEETMARK_STATS_H

#include <stddef.h>

double	stats_mean(const double *x, size_t n);		/* NAN when n == 0 */
double	stats_sd(const double *x, size_t n);		/* sample (n - 1); NAN when n < 2 */
/* The median (mean of the middle two for even n); x is not changed. */
double	stats_median(const double *x, size_t n);

/* The regularized incomplete beta function I_x(a, b), 0 <= x <= 1. */
double	stats_betai(double a, double b, double x);

/* P(T <= t) for Student's t with df degrees of freedom (df > 0, real). */
double	stats_t_cdf(double t, double df);

/*
 * P(T > t), the upper tail, from the incomplete beta function directly:
 * 1 - stats_t_cdf() loses every digit once the tail is below 1e-16.
 */
double	stats_t_sf(double t, double df);

/*
 * The t with P(T <= t) = p (0 < p < 1, df > 0); NAN outside the domain.
 * Closed forms for 1 and 2 df; otherwise Halley's steps on the upper
 * tail I_{df/(df+t^2)}(df/2, 1/2) / 2 = 1 - p, 2 to 4 incomplete betas.
 * Relative error below 1e-11 for 0.6 <= p <= 1 - 1e-9 and 0.1 <= df <=
 * 1e4 (against mpmath at 50 digits, tests/unit/test-stats.c to 1e-10);
 * near p = 1/2 at large df the cdf's own cancellation bounds it (1e-9 at
 * p = 0.51, df = 1e4).  The last 64 (p, df) asked for in each thread
 * are kept (a direct-mapped cache), so that the few quantiles a report
 * asks again and again (0.975 at integer df) cost one lookup.
 * Thread-safe.
 */
double	stats_t_quantile(double p, double df);

struct stats_welch {
	double	t;	/* (mean x - mean y) / standard error */
	double	df;	/* Welch-Satterthwaite degrees of freedom */
	double	p;	/* two-sided p-value */
	double	diff;	/* mean x - mean y */
	double	se;	/* standard error of diff (0 when both variances are 0) */
};

/*
 * Welch's unequal-variance t-test of x against y, as R's t.test(x, y).
 * Returns -1 when it cannot be computed (fewer than 2 values on a side).
 * When both variances are 0: p is 1 for equal means, 0 otherwise (t is
 * +-inf, df is n1 + n2 - 2).
 */
int	stats_welch(const double *x, size_t nx, const double *y, size_t ny,
	    struct stats_welch *out);

/*
 * The confidence interval of mean x - mean y at `level` (0.95 for R's
 * default) from a stats_welch() result, as t.test's conf.int:
 * diff -+ t(1 - (1 - level) / 2; df) * se.  A zero se gives [diff, diff].
 */
void	stats_welch_ci(const struct stats_welch *w, double level, double *lo,
	    double *hi);

/*
 * One-sample t-test of x against the value mu, as R's t.test(x, mu = mu):
 * t, df = n - 1, the two-sided p, diff = mean - mu and its se in *out.
 * Returns -1 when n < 2.
 * When every value is the same: p is 1 when it equals mu, else 0.
 */
int	stats_ttest1(const double *x, size_t n, double mu, struct stats_welch *out);

#endif /* FLEETMARK_STATS_H */
