/*
 * stats.c: mean, sd, median, Student's t CDF and Welch's t-test for the
 * compare table.  Small and dependency-free: the only special function
 * needed is the regularized incomplete beta, by continued fraction.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "xmalloc.h"

double
stats_mean(const double *x, size_t n)
{
	double s = 0;
	size_t i;

	if (n == 0)
		return NAN;
	for (i = 0; i < n; i++)
		s += x[i];
	return s / (double)n;
}

double
stats_sd(const double *x, size_t n)
{
	double m, s = 0;
	size_t i;

	if (n < 2)
		return NAN;
	m = stats_mean(x, n);
	for (i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return sqrt(s / (double)(n - 1));
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double
stats_median(const double *x, size_t n)
{
	double *c, m;

	if (n == 0)
		return NAN;
	c = xreallocarray(NULL, n, sizeof(*c));
	memcpy(c, x, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

#define LENTZ_TINY	1e-300

/*
 * One step of the modified Lentz method with the coefficient aa: updates
 * c and d and returns the factor the fraction is multiplied by.
 */
static double
lentz_step(double aa, double *c, double *d)
{
	*d = 1 + aa * *d;
	if (fabs(*d) < LENTZ_TINY)
		*d = LENTZ_TINY;
	*c = 1 + aa / *c;
	if (fabs(*c) < LENTZ_TINY)
		*c = LENTZ_TINY;
	*d = 1 / *d;
	return *d * *c;
}

/* Continued fraction for I_x(a, b), modified Lentz: an even and an odd step a turn. */
static double
betacf(double a, double b, double x)
{
	const double eps = 1e-15;
	double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d, h, aa, del;
	int m, m2;

	d = 1 - qab * x / qap;
	if (fabs(d) < LENTZ_TINY)
		d = LENTZ_TINY;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 10000; m++) {
		m2 = 2 * m;
		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		h *= lentz_step(aa, &c, &d);
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		del = lentz_step(aa, &c, &d);
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double
stats_betai(double a, double b, double x)
{
	double bt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	/* The fraction converges fast for x < (a + 1) / (a + b + 2). */
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}

double
stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	/* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2) */
	tail = stats_betai(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail / 2 : tail / 2;
}

double
stats_t_quantile(double p, double df)
{
	double lo = 0, hi = 1, mid;
	int i;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p < 0.5)
		return -stats_t_quantile(1 - p, df);
	while (stats_t_cdf(hi, df) < p && hi < 1e300)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-12 * (1 + hi); i++) {
		mid = (lo + hi) / 2;
		if (stats_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

int
stats_welch(const double *x, size_t nx, const double *y, size_t ny,
    struct stats_welch *out)
{
	double mx, my, vx, vy, sx, sy, se2;

	if (nx < 2 || ny < 2)
		return -1;
	mx = stats_mean(x, nx);
	my = stats_mean(y, ny);
	vx = stats_sd(x, nx);
	vy = stats_sd(y, ny);
	vx *= vx;
	vy *= vy;
	sx = vx / (double)nx;
	sy = vy / (double)ny;
	se2 = sx + sy;
	out->diff = mx - my;
	out->se = sqrt(se2);
	if (se2 == 0) {
		out->df = (double)(nx + ny - 2);
		if (mx == my) {
			out->t = 0;
			out->p = 1;
		} else {
			out->t = mx > my ? INFINITY : -INFINITY;
			out->p = 0;
		}
		return 0;
	}
	out->t = (mx - my) / sqrt(se2);
	out->df = se2 * se2 / (sx * sx / (double)(nx - 1) + sy * sy / (double)(ny - 1));
	/* Two-sided: P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2), no cancellation. */
	out->p = stats_betai(out->df / 2, 0.5, out->df / (out->df + out->t * out->t));
	return 0;
}

void
stats_welch_ci(const struct stats_welch *w, double level, double *lo, double *hi)
{
	double h = w->se > 0 ? stats_t_quantile(1 - (1 - level) / 2, w->df) * w->se : 0;

	*lo = w->diff - h;
	*hi = w->diff + h;
}

int
stats_ttest1(const double *x, size_t n, double mu, struct stats_welch *out)
{
	double m, sd;

	if (n < 2)
		return -1;
	m = stats_mean(x, n);
	sd = stats_sd(x, n);
	out->df = (double)(n - 1);
	out->diff = m - mu;
	out->se = sd / sqrt((double)n);
	if (sd == 0) {
		out->t = m == mu ? 0 : m > mu ? INFINITY : -INFINITY;
		out->p = m == mu ? 1 : 0;
		return 0;
	}
	out->t = (m - mu) / (sd / sqrt((double)n));
	out->p = stats_betai(out->df / 2, 0.5, out->df / (out->df + out->t * out->t));
	return 0;
}
