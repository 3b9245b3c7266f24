/*
 * robust.c: quantiles, outlier flags, geometric means and the trials a
 * side a decision needs (robust.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "robust.h"
#include "stats.h"
#include "xmalloc.h"

#define LEVEL	0.95

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct keyed {
	double	v;
	size_t	i;
};

static int
cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

void
robust_order(const double *x, size_t n, size_t *order)
{
	struct keyed *k = xreallocarray(NULL, n ? n : 1, sizeof(*k));
	size_t i;

	for (i = 0; i < n; i++) {
		k[i].v = x[i];
		k[i].i = i;
	}
	qsort(k, n, sizeof(*k), cmp_keyed);
	for (i = 0; i < n; i++)
		order[i] = k[i].i;
	free(k);
}

/* A sorted copy of x[0..n) for the caller to free. */
static double *
sorted_copy(const double *x, size_t n)
{
	double *s = xreallocarray(NULL, n ? n : 1, sizeof(*s));

	if (n)
		memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

/* Type 7 on sorted s[0..n), n > 0, 0 <= p <= 1. */
static double
quantile_sorted(const double *s, size_t n, double p)
{
	double h = (double)(n - 1) * p, f = floor(h);
	size_t lo = (size_t)f;

	if (lo + 1 >= n)
		return s[n - 1];
	return s[lo] + (h - f) * (s[lo + 1] - s[lo]);
}

double
robust_quantile(const double *x, size_t n, double p)
{
	double *s, q;

	if (n == 0 || !(p >= 0 && p <= 1))
		return NAN;
	s = sorted_copy(x, n);
	q = quantile_sorted(s, n, p);
	free(s);
	return q;
}

int
robust_outliers(const double *x, size_t n, unsigned char *flag,
    struct robust_outliers *out, char **err)
{
	double *s, q1, q3, iqr;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return err_set(err, -1, "trial %zu has no finite value (%g)", i, x[i]);
	}
	memset(out, 0, sizeof(*out));
	if (n == 0) {
		out->rule = ROBUST_NONE;
		out->median = out->mad = out->lo = out->hi = out->q1 = out->q3 = NAN;
		return 0;
	}
	s = sorted_copy(x, n);
	out->median = quantile_sorted(s, n, 0.5);
	out->q1 = quantile_sorted(s, n, 0.25);
	out->q3 = quantile_sorted(s, n, 0.75);
	for (i = 0; i < n; i++)
		s[i] = fabs(x[i] - out->median);
	qsort(s, n, sizeof(*s), cmp_double);
	out->mad = quantile_sorted(s, n, 0.5);
	if (out->mad > 0) {
		out->rule = ROBUST_MODZ;
		out->lo = out->median - ROBUST_MODZ_CUT * out->mad / 0.6745;
		out->hi = out->median + ROBUST_MODZ_CUT * out->mad / 0.6745;
		for (i = 0; i < n; i++) {
			int f = fabs(0.6745 * (x[i] - out->median) / out->mad) > ROBUST_MODZ_CUT;

			if (flag)
				flag[i] = (unsigned char)f;
			out->count += (size_t)f;
		}
	} else {
		q1 = out->q1;
		q3 = out->q3;
		iqr = q3 - q1;
		out->rule = ROBUST_IQR;
		out->lo = q1 - ROBUST_IQR_FENCE * iqr;
		out->hi = q3 + ROBUST_IQR_FENCE * iqr;
		for (i = 0; i < n; i++) {
			int f = x[i] < out->lo || x[i] > out->hi;

			if (flag)
				flag[i] = (unsigned char)f;
			out->count += (size_t)f;
		}
	}
	free(s);
	return 0;
}

double
robust_geomean(const double *x, size_t n, size_t *used)
{
	double s = 0;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (x[i] > 0 && isfinite(x[i])) {
			s += log(x[i]);
			k++;
		}
	}
	if (used)
		*used = k;
	return k ? exp(s / (double)k) : NAN;
}

void
robust_geomean_change(const double *before, const double *after, size_t n,
    struct robust_change *out)
{
	double s = 0, b, a;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		b = before[i];
		a = after[i];
		if (b == 0 && a == 0) {
			out->used++;		/* log 1 = 0 */
		} else if (b > 0 && a > 0 && isfinite(a) && isfinite(b)) {
			s += log(a / b);
			out->used++;
		} else {
			out->skipped++;
		}
	}
	out->ratio = out->used ? exp(s / (double)out->used) : NAN;
	out->pct = (out->ratio - 1) * 100;
}

/*
 * The width of the 95% Welch interval of the difference for variances va
 * and vb (not both 0) with na and nb trials.
 */
static double
welch_width(double va, size_t na, double vb, size_t nb)
{
	double sa = va / (double)na, sb = vb / (double)nb, se2 = sa + sb, df;

	df = se2 * se2 / (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
	return 2 * stats_t_quantile(1 - (1 - LEVEL) / 2, df) * sqrt(se2);
}

static int
judgeable(double mean, double sd_a, double sd_b, double threshold)
{
	return mean != 0 && isfinite(mean) && sd_a >= 0 && sd_b >= 0 &&
	    isfinite(sd_a) && isfinite(sd_b) && threshold > 0 && isfinite(threshold);
}

int
robust_decidable(double mean, double sd_a, size_t na, double sd_b, size_t nb,
    double threshold)
{
	if (!judgeable(mean, sd_a, sd_b, threshold) || na < 2 || nb < 2)
		return 0;
	if (sd_a == 0 && sd_b == 0)
		return 1;
	return welch_width(sd_a * sd_a, na, sd_b * sd_b, nb) <
	    threshold / 100 * fabs(mean);
}

int
robust_trials_needed(double mean, double sd_a, double sd_b, double threshold,
    size_t *out)
{
	size_t lo, hi, mid;

	if (!judgeable(mean, sd_a, sd_b, threshold))
		return -1;
	/* lo never decides (or is below 2), hi does (or is the cap). */
	if (robust_decidable(mean, sd_a, 2, sd_b, 2, threshold)) {
		*out = 2;
		return 0;
	}
	lo = 2;
	hi = 4;
	while (hi < ROBUST_TRIALS_MAX && !robust_decidable(mean, sd_a, hi, sd_b, hi, threshold)) {
		lo = hi;
		hi *= 2;
	}
	if (hi >= ROBUST_TRIALS_MAX) {
		hi = ROBUST_TRIALS_MAX;
		if (!robust_decidable(mean, sd_a, hi, sd_b, hi, threshold)) {
			*out = ROBUST_TRIALS_MAX;
			return 0;
		}
	}
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (robust_decidable(mean, sd_a, mid, sd_b, mid, threshold))
			hi = mid;
		else
			lo = mid;
	}
	*out = hi;
	return 0;
}
