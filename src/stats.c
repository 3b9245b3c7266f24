/*
 * stats.c: mean, sd, median, Student's t CDF and Welch's t-test for the
 * compare table.  Small and dependency-free: the only special function
 * needed is the regularized incomplete beta, by continued fraction; the
 * t quantile is found from it by Halley's method.
 */
#include <math.h>
#include <stdint.h>
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

/* I_x(a, b) with lg = log(Gamma(a + b) / (Gamma(a) Gamma(b))) given. */
static double
betai_lg(double a, double b, double x, double lg)
{
	double bt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lg + a * log(x) + b * log1p(-x));
	/* The fraction converges fast for x < (a + 1) / (a + b + 2). */
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}

double
stats_betai(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	return betai_lg(a, b, x, lgamma(a + b) - lgamma(a) - lgamma(b));
}

double
stats_t_sf(double t, double df)
{
	double tail;

	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	if (isinf(t))
		return t > 0 ? 0 : 1;
	/* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2) */
	tail = stats_betai(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? tail / 2 : 1 - tail / 2;
}

double
stats_t_cdf(double t, double df)
{
	return stats_t_sf(-t, df);	/* T is symmetric */
}

/*
 * A start for the upper-tail quantile: Abramowitz & Stegun 26.2.23 for the
 * normal quantile z of 1 - q (error below 4.5e-4), then the Cornish-Fisher
 * expansion of t in 1/df to the third term (Abramowitz & Stegun 26.7.5).
 * Halley's steps in quantile_halley() make it exact; this only saves steps.
 */
static double
quantile_start(double q, double df)
{
	double s = sqrt(-2 * log(q)), z, z2, g1, g2, g3;

	z = s - (2.515517 + s * (0.802853 + s * 0.010328)) /
	    (1 + s * (1.432788 + s * (0.189269 + s * 0.001308)));
	z2 = z * z;
	g1 = (z2 + 1) * z / 4;
	g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
	g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
	return z + (g1 + (g2 + g3 / df) / df) / df;
}

/*
 * The t > 0 with P(T > t) = q (0 < q < 1/2) on df degrees of freedom:
 * Halley's method on the upper tail g(t) = I_{df/(df+t^2)}(df/2, 1/2) / 2
 * - q, computed without cancellation, with g' = -f (f the t density) and
 * g'' = f (df + 1) t / (df + t^2).  From quantile_start() it converges in
 * 2 to 4 tails where bisection took about 45.  A step that leaves the
 * bracket [lo, hi] of what is known bisects (or doubles) instead.
 */
static double
quantile_halley(double q, double df)
{
	double lg = lgamma((df + 1) / 2) - lgamma(df / 2) - lgamma(0.5);
	double lc = lg + lgamma(0.5) - 0.5 * log(df * M_PI);
	double lo = 0, hi = INFINITY, t = quantile_start(q, df), g, dens, u, next;
	int i;

	if (!(t > 0) || !isfinite(t))
		t = 1;
	/* doubling from 1 reaches any double in 1,100 steps; the others are few */
	for (i = 0; i < 1100; i++) {
		g = betai_lg(df / 2, 0.5, df / (df + t * t), lg) / 2 - q;
		if (g == 0)
			return t;
		if (g > 0)
			lo = t;		/* the tail is still above q: t is too small */
		else
			hi = t;
		dens = exp(lc - (df + 1) / 2 * log1p(t * t / df));
		u = g / dens;
		next = dens > 0 ? t + u / (1 - u * (df + 1) * t / (2 * (df + t * t))) : NAN;
		if (!(next > lo && next < hi))
			next = isinf(hi) ? 2 * t : (lo + hi) / 2;
		if (fabs(next - t) <= 1e-15 * t)
			return next;
		t = next;
		if (isfinite(hi) && hi - lo <= 1e-15 * hi)
			break;
	}
	return t;
}

/*
 * The quantiles asked for most are few (0.975 at the degrees of freedom
 * of equal-sized sides, a night's k - 1): a small cache per thread, keyed
 * by p and df, direct-mapped.
 */
#define QCACHE_SIZE	64

struct qcache_entry {
	double	p, df, t;
};

static _Thread_local struct qcache_entry qcache[QCACHE_SIZE];

/* The slot of (p, df): splitmix64's finalizer over the bits of both. */
static size_t
qcache_slot(double p, double df)
{
	uint64_t a, b;

	memcpy(&a, &p, sizeof(a));
	memcpy(&b, &df, sizeof(b));
	a ^= b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2);
	a ^= a >> 30;
	a *= 0xbf58476d1ce4e5b9ULL;
	a ^= a >> 27;
	a *= 0x94d049bb133111ebULL;
	a ^= a >> 31;
	return (size_t)(a % QCACHE_SIZE);
}

double
stats_t_quantile(double p, double df)
{
	struct qcache_entry *e;
	double t;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p < 0.5)
		return -stats_t_quantile(1 - p, df);
	if (p == 0.5)
		return 0;
	e = &qcache[qcache_slot(p, df)];
	if (e->p == p && e->df == df)
		return e->t;
	/* closed forms in the tail 1 - p, exact for p >= 1/2 (Sterbenz) */
	if (df == 1)
		t = 1 / tan(M_PI * (1 - p));
	else if (df == 2)
		t = (1 - 2 * (1 - p)) / sqrt(2 * (1 - p) * p);
	else
		t = quantile_halley(1 - p, df);
	e->p = p;
	e->df = df;
	e->t = t;
	return t;
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
