/*
 * ab/aa.c: what an A/A run of `fleetmark ab` (both sides the same
 * kernel, `fleetmark qualify`) says a row can see, from its variance
 * components (ab.h, ab_qualify_row()).  Pure computation.
 */
#include <math.h>
#include <string.h>

#include "ab.h"

/* A pair's sd for `trials` trials a boot; NAN when it cannot be told. */
static double
pair_sd(const struct ab_components *comp, double trials)
{
	double v;

	if (!isfinite(comp->var_between) || !(trials >= 1))
		return NAN;
	v = comp->var_between;
	if (isfinite(comp->var_within))
		v += comp->var_within / trials;
	return sqrt(2 * v);
}

void
ab_qualify_row(const struct ab_components *comp, double trials, size_t boots,
    double alpha, double df0, double threshold, double cost_boot, double cost_trial,
    struct ab_qual *out)
{
	memset(out, 0, sizeof(*out));
	out->sd_d = pair_sd(comp, trials);
	out->detectable = ab_detectable(out->sd_d, boots, df0, alpha, AB_POWER);
	out->needed = ab_boots_needed(out->sd_d, df0, threshold, alpha, AB_POWER);
	if (!isfinite(out->sd_d))
		return;
	out->kj = ab_kj_trials(cost_boot, cost_trial, comp->var_within, comp->var_between);
	if (out->kj > 0)
		out->needed_kj = ab_boots_needed(pair_sd(comp, out->kj), df0, threshold, alpha,
		    AB_POWER);
}

double
ab_night_detectable(double night_sd, size_t nights, double alpha, double power)
{
	/*
	 * ab_detectable(x, n) is exp(lambda(n) x / sqrt(n)) - 1 on n - 1 df:
	 * x = night_sd sqrt(n + 1) gives lambda(n) night_sd sqrt(1 + 1 / n).
	 */
	if (nights < 2 || !isfinite(night_sd))
		return INFINITY;
	return ab_detectable(night_sd * sqrt((double)nights + 1), nights, 0, alpha, power);
}

size_t
ab_nights_needed(double night_sd, double threshold, double alpha, double power)
{
	size_t lo = 2, hi = AB_NIGHTS_CAP, mid;

	if (!isfinite(night_sd) || night_sd < 0 || !(threshold > 0))
		return 0;
	/* the detectable change shrinks as the window grows: the first, by halves */
	if (!(ab_night_detectable(night_sd, hi, alpha, power) <= threshold))
		return 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ab_night_detectable(night_sd, mid, alpha, power) <= threshold)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}
