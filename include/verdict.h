/*
 * verdict.h: the one regression rule of fleetmark.  Is a measurement worse
 * or better than a known-good one, significantly, or is it impossible to
 * tell?  The compare table's mark, the matrix table's stars, the nightly
 * run's exit 4 (through the compare table) and `fleetmark bisect-run`'s
 * good / bad / skip all come from verdict_judge(); the rule is documented
 * once, in docs/reports.md ("The verdict").
 *
 * Against good values (two samples) the test is Welch's t-test and its
 * 95% confidence interval; against a single good value (`bisect-run --good
 * VALUE`), the one-sample t-test and its interval.  The change and the
 * interval are percentages of the good mean (or value), + when the value
 * grew.
 *
 *   significant	p < 0.05 AND the far end of the interval (the end
 *			farther from 0) reaches the threshold; when the good
 *			mean is 0 or not finite there is no percentage, and
 *			the change itself must reach it
 *   VERDICT_BAD	significant, and worse for the metric: a regression
 *   VERDICT_BETTER	significant, and better
 *   VERDICT_GOOD	not significant, and the interval's worse end stays
 *			below the threshold: the data show that the value is
 *			not worse by the threshold
 *   VERDICT_NOISY	neither: the interval reaches the threshold (or there
 *			is none: fewer than 2 values), and a side is noisy
 *			(verdict_noisy())
 *   VERDICT_NOT_SIGNIFICANT
 *			neither, with steady values: the change may be as
 *			large as the threshold, but is not significant
 */
#ifndef FLEETMARK_VERDICT_H
#define FLEETMARK_VERDICT_H

#include <stddef.h>

#define VERDICT_ALPHA		0.05	/* the test's level; the interval is 1 - ALPHA */
#define VERDICT_MIN_TRIALS	3	/* fewer values are noisy */

enum verdict_kind {
	VERDICT_GOOD,
	VERDICT_BAD,
	VERDICT_BETTER,
	VERDICT_NOISY,
	VERDICT_NOT_SIGNIFICANT,
};

struct verdict {
	enum verdict_kind kind;
	int	tested;		/* the t-test could be made: 2 values a side (or 2
				 * values against a good value) */
	double	now;		/* the values' mean */
	double	good;		/* the good values' mean, or the good value */
	double	change;		/* (now - good) / |good|, percent: + grew; +-inf
				 * against a good of 0 (0 when now is 0 too) */
	double	worse;		/* change towards worse for the metric (< 0: better) */
	double	p;		/* the test's two-sided p; NAN when not tested */
	double	lo, hi;		/* the change's 95% interval, percent, lo <= hi;
				 * NAN when not tested or the good mean is 0 or
				 * not finite */
	double	rsd;		/* of the values, percent (verdict_rsd()) */
	double	good_rsd;	/* of the good values, percent (0 for a good value) */
};

/*
 * Judge v[0..n) against the good values g[0..ng) or, when g is NULL, the
 * single good value gv.  higher: higher is better for the metric.
 * threshold: percent.  Always fills *out.
 */
void	verdict_judge(const double *v, size_t n, const double *g, size_t ng, double gv,
	    int higher, double threshold, struct verdict *out);

/* Whether the kind is significant (bad or better): the compare table marks it. */
int	verdict_significant(enum verdict_kind k);

/*
 * The relative standard deviation of v[0..n) in percent: the sample
 * standard deviation over |mean|; NAN for fewer than 2 values or a zero
 * mean.
 */
double	verdict_rsd(const double *v, size_t n);

/*
 * Whether n values of this rsd are too noisy to tell a change of the
 * threshold's size from noise: fewer than VERDICT_MIN_TRIALS, or an rsd
 * above the threshold (or NAN).  The compare table's noisy column.
 */
int	verdict_noisy(double rsd, size_t n, double threshold);

/* "good", "bad", "better", "noisy", "not significant". */
const char	*verdict_name(enum verdict_kind k);

#endif /* FLEETMARK_VERDICT_H */
