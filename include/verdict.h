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
#define VERDICT_MIN_NIGHTS	3	/* fewer nights: verdict_nights() cannot say */
#define VERDICT_FALLBACK_MARGIN	2	/* with fewer nights, the threshold times this */

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

/*
 * Judge tonight's values v[0..n) against the nights of a history's
 * current segment, the nights' means nights[0..k) (oldest first, any
 * order will do): the nightly rule, which counts how the nights vary
 * from one to the next and not only the spread of one night's trials.
 *
 * Tonight's mean is one more draw from the nights' distribution when
 * nothing changed, so it is tested against the nights' mean m and sd s
 * with the t prediction interval over nights (df = k - 1):
 *
 *	t = (mean v - m) / (s sqrt(1 + 1/k)),   p = 2 P(T > |t|)
 *	interval: (mean v - m) +- t(0.975; k - 1) s sqrt(1 + 1/k)
 *
 * as percentages of m.  The kinds are then verdict_judge()'s, the same
 * threshold rule over this interval: significant when p < 0.05 and its
 * far end reaches the threshold; good when its worse end stays below it;
 * noisy when tonight's values are (verdict_noisy()) or the nights' rsd
 * is above the threshold.  good_rsd is the nights' rsd (night to night).
 * This assumes tonight has as many trials as each night had (a plan's
 * repeat), as its nights' spread is that of such means.  tested needs at
 * least 2 nights and 1 value; with fewer than VERDICT_MIN_NIGHTS nights
 * the caller should fall back to verdict_judge() against the last night's
 * trials at a wider threshold (docs/nightly.md).  Always fills *out.
 */
void	verdict_nights(const double *v, size_t n, const double *nights, size_t k,
	    int higher, double threshold, struct verdict *out);

/*
 * One row of a night's (or a table's) verdicts, for the false-discovery
 * step over all of them.
 */
struct verdict_row {
	struct verdict	v;		/* as judged (verdict_judge(), verdict_nights()) */
	int		judgeable;	/* 0: cannot judge (verdict_judgeable()): never
					 * significant, never a regression */
	size_t		needed;		/* when not judgeable: trials a side that would
					 * be needed (0: cannot be told) */
	double		q;		/* verdict_adjust(): the Benjamini-Hochberg q
					 * (NAN when the row has no p) */
	int		held;		/* verdict_adjust(): significant, and q <= fdr */
};

/*
 * Whether a verdict can be judged at all: at least VERDICT_MIN_TRIALS
 * values (n) and, when ng is not 0, as many good values, and neither
 * side noisy (verdict_noisy() at the threshold).  With nights set the
 * good side is a segment's nights (verdict_nights()): then only their
 * night-to-night rsd can make the row noisy, as tonight's spread is part
 * of what the nights' spread already holds.  When not, *needed (when
 * not NULL) gets robust_trials_needed()'s estimate of the trials a side
 * that would decide a change of the threshold's size, with the spreads sd
 * (the values') and good_sd (the good side's; NAN: as sd; 0 against a
 * single good value), at least
 * VERDICT_MIN_TRIALS; 0 when it cannot be told.
 */
int	verdict_judgeable(const struct verdict *d, size_t n, size_t ng, int nights,
	    double sd, double good_sd, double threshold, size_t *needed);

/*
 * The false-discovery step over every row a night judges (every host,
 * metric and point): Benjamini-Hochberg (fdr.h) over the p of the rows
 * that are judgeable and tested (the others are left out of m and get a
 * NAN q), then held = significant (verdict_significant()) and q <= fdr.
 * A significant row that is not held is no regression and no mark.
 * fdr outside (0, 1] keeps every significant judgeable row (no step).
 * Returns the number of rows held.
 */
size_t	verdict_adjust(struct verdict_row *rows, size_t n, double fdr);

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
