/*
 * robust.h: the small robust statistics a verdict needs besides stats.h:
 * quantiles, outlier flags among a point's trials, the geometric mean of
 * a compare's ratios, and how many trials a side would decide a change
 * at a threshold (`repeat: auto` and the "cannot judge" message).
 *
 * Methods and references:
 *
 *  - Quantiles: R's default, quantile(x, type = 7) (Hyndman & Fan 1996,
 *    "Sample quantiles in statistical packages", definition 7): linear
 *    interpolation between order statistics at h = (n - 1) p.
 *  - Outliers: the modified z-score of Iglewicz & Hoaglin (1993), "How to
 *    Detect and Handle Outliers" (ASQC Basic References in Quality
 *    Control 16): M = 0.6745 (x - median) / MAD, MAD the median absolute
 *    deviation from the median, flagged when |M| > 3.5.  When MAD is 0
 *    (more than half the trials identical) M is undefined and Tukey's
 *    fences are used instead (Tukey 1977, "Exploratory Data Analysis"):
 *    flagged below Q1 - 1.5 IQR or above Q3 + 1.5 IQR, quartiles as above.
 *    Outliers are flagged, never dropped: what to do with them is the
 *    report's business.
 *  - Geometric mean: benchstat's geomean row (golang.org/x/perf): zero
 *    values are left out (they come from counts and would make it 0 or
 *    undefined); for a change, a row that is 0 on both sides counts as a
 *    ratio of 1 and a row 0 on one side only cannot be counted.
 *  - Trials needed: the Welch interval of the difference of two means
 *    (stats.h; R's t.test conf.int) at 95%, with n trials on each side and
 *    the spreads observed.  A change can be decided at a threshold when
 *    the interval is narrower than the threshold: it then cannot hold
 *    both 0 and a change of the threshold's size, so it either excludes
 *    no change or shows the change to be smaller than the threshold (the
 *    compare table's rule: p < 0.05 and the interval reaching the
 *    threshold).  The width is 2 t(0.975; df) sqrt((sa^2 + sb^2) / n)
 *    with Welch-Satterthwaite's df = (sa^2 + sb^2)^2 (n - 1) /
 *    (sa^4 + sb^4); it falls with n, so the smallest n is found by
 *    doubling and bisection.
 *
 * Complexity: quantiles, outliers and medians O(n log n) (a sort of a
 * copy); geometric means O(n); trials needed O(log N) t quantiles.
 */
#ifndef FLEETMARK_ROBUST_H
#define FLEETMARK_ROBUST_H

#include <stddef.h>

/* The modified z-score's cut (Iglewicz & Hoaglin) and Tukey's fence factor. */
#define ROBUST_MODZ_CUT		3.5
#define ROBUST_IQR_FENCE	1.5
/* The most trials a side robust_trials_needed() ever answers. */
#define ROBUST_TRIALS_MAX	1000000

/*
 * The order of x[0..n) (no NaN): order[k] is the index of the k-th
 * smallest value, ties in the order of their indices (a stable sort, as
 * R's order()).  O(n log n).
 */
void	robust_order(const double *x, size_t n, size_t *order);

/*
 * The p-quantile (0 <= p <= 1) of x[0..n), R's type 7; x is not changed.
 * NAN when n is 0 or p is outside [0, 1].
 */
double	robust_quantile(const double *x, size_t n, double p);

enum robust_rule {
	ROBUST_NONE,		/* nothing to judge: no trials */
	ROBUST_MODZ,		/* modified z-score, |M| > 3.5 */
	ROBUST_IQR,		/* MAD was 0: Tukey's fences */
};

struct robust_outliers {
	size_t	count;		/* trials flagged */
	enum robust_rule rule;	/* the rule that flagged them */
	double	median;
	double	mad;		/* median absolute deviation (unscaled) */
	double	lo, hi;		/* trials below lo or above hi are flagged */
	double	q1, q3;		/* the first and third quartiles (type 7) */
};

/*
 * Flag the outliers among the trials x[0..n): flag[i] = 1 for each (flag
 * may be NULL when only the count is wanted), 0 for the others; *out gets
 * the count, the rule and the fences.  Returns 0, or -1 with a malloc'd
 * message in *err when a value is NaN or infinite (nothing is written).
 */
int	robust_outliers(const double *x, size_t n, unsigned char *flag,
	    struct robust_outliers *out, char **err);

/*
 * The geometric mean of the positive finite values of x[0..n) (zeros,
 * negatives and NaN are left out, as benchstat leaves out zeros); *used,
 * when not NULL, gets how many entered.  NAN when none did.
 */
double	robust_geomean(const double *x, size_t n, size_t *used);

struct robust_change {
	double	ratio;		/* geometric mean of after / before over the rows used */
	double	pct;		/* (ratio - 1) * 100: + the values grew */
	size_t	used;		/* rows counted (0 / 0 counts as a ratio of 1) */
	size_t	skipped;	/* rows left out: NaN, negative, or 0 on one side */
};

/*
 * The geometric mean of the rows' ratios after[i] / before[i], i < n: the
 * summary change of a compare (benchstat's geomean row).  *out always
 * filled; ratio and pct are NAN when no row could be used.  Callers show
 * it when at least two rows were used (one row's geomean is that row).
 */
void	robust_geomean_change(const double *before, const double *after, size_t n,
	    struct robust_change *out);

/*
 * Whether the 95% Welch interval of mean b - mean a, with na and nb
 * trials of sample standard deviations sd_a and sd_b, is narrower than
 * threshold percent of |mean| (the baseline's mean): a change can then be
 * decided at the threshold.  0 when it cannot be told (fewer than 2
 * trials a side, a zero or non-finite mean, a NaN or negative sd, a
 * threshold that is not positive).
 */
int	robust_decidable(double mean, double sd_a, size_t na, double sd_b, size_t nb,
	    double threshold);

/*
 * The smallest number of trials n a side (n >= 2) with which
 * robust_decidable(mean, sd_a, n, sd_b, n, threshold) holds, the spreads
 * taken as observed: "about n trials a side would be needed".  More than
 * ROBUST_TRIALS_MAX gives ROBUST_TRIALS_MAX.  Both spreads 0 give 2 (the
 * verdict's own minimum of 3 trials is the caller's to apply).  Returns
 * 0 with *out set, or -1 when it cannot be told (as robust_decidable()).
 * The count says nothing of the noise rule (an rsd above the threshold),
 * which no count changes: verdict_needed() applies both.
 */
int	robust_trials_needed(double mean, double sd_a, double sd_b, double threshold,
	    size_t *out);

#endif /* FLEETMARK_ROBUST_H */
