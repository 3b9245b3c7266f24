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

#define VERDICT_THRESHOLD	5.0	/* percent, when no plan or option says */
#define VERDICT_THRESHOLD_MAX	1000	/* percent: a plan's or an option's at most */
#define VERDICT_ALPHA		0.05	/* the test's level; the interval is 1 - ALPHA */
#define VERDICT_MIN_TRIALS	3	/* fewer values are noisy */
#define VERDICT_MIN_NIGHTS	3	/* fewer nights: verdict_nights() cannot say */
#define VERDICT_FALLBACK_MARGIN	2	/* with fewer nights, the threshold times this */
#define VERDICT_PRIOR_MIN_SERIES 8	/* fewer series: no pooled variance */
#define VERDICT_PRIOR_MAX_DF	50	/* d0 at most (and for an infinite one) */
#define VERDICT_PRIOR_OUTLIER	0.01	/* F-test p below it: the series' own variance */
#define VERDICT_TREND_MIN_NIGHTS 5	/* fewer segment nights: no trend rule */
#define VERDICT_TREND_WEIGHT	0.2	/* the trend's share of a row's alpha */
#define VERDICT_WINDOW_WEIGHT	0.1	/* the window rule's share of a row's alpha */
#define VERDICT_WINDOW_MAX	3	/* nights a window holds at most, tonight the last */

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
	/* verdict_nights() with a prior only (else 0 and NAN): */
	int	pooled;		/* the moderated variance was used */
	double	df;		/* the prediction test's degrees of freedom */
	int	trend_tested;	/* the trend rule was applied */
	double	trend;		/* the trend's change over the segment's nights and
				 * tonight, percent (NAN: no trend rule) */
	double	trend_lo, trend_hi;	/* its 95% interval, percent */
	double	trend_p;	/* the slope's two-sided p (NAN: none) */
	int	by_trend;	/* the kind (bad, better) is the trend rule's */
	int	window_tested;	/* the window rule was applied */
	size_t	window_n;	/* the window's nights, tonight the last */
	double	window;		/* their geometric mean against the nights
				 * before them, percent (NAN: no window rule) */
	double	window_lo, window_hi;	/* its 95% interval, percent */
	double	window_p;	/* its p, Bonferroni over the windows tried */
	int	by_window;	/* the kind (bad, better) is the window rule's */
	/* verdict_nights() with prior->one_sided only (else NAN): */
	double	better_p;	/* the row's p towards better, weighted as
				 * verdict_row_p() (p, trend_p and window_p are
				 * then towards worse) */
};

/*
 * The pooled night-to-night variance of a night's series, for
 * verdict_nights(): the prior of an empirical-Bayes moderated variance
 * (Smyth 2004, "Linear models and empirical Bayes methods for assessing
 * differential expression in microarray experiments", Stat. Appl. Genet.
 * Mol. Biol. 3(1), section 6: limma's fitFDist).  On the log scale, so
 * that series of any size pool: a series' variance is that of the logs of
 * its segment's nights.
 */
struct verdict_prior {
	double	df;		/* d0; 0: no prior (each series' own variance) */
	double	s2;		/* s0^2, of log values */
	int	trend;		/* apply the trend rule too */
	int	window;		/* apply the window rule too */
	int	one_sided;	/* p, trend_p and window_p towards worse only */
	int	per_test;	/* each test pools by the F-test of its own
				 * baseline's variance, not the segment's */
};

/*
 * The variance of log x[0..k) into *s2 and its degrees of freedom k - 1
 * into *df.  Returns 0, or -1 when k < 2 or a value is not finite and
 * positive (*s2 and *df are then not written).
 */
int	verdict_log_spread(const double *x, size_t k, double *s2, double *df);

/*
 * Fit the prior to the variances s2[0..n) with degrees of freedom
 * df[0..n) (verdict_log_spread() of each series' segment) by Smyth's
 * moments of log variances: with e_g = log s2_g - digamma(d_g/2) +
 * log(d_g/2), mean e and sample variance v of the e_g,
 *
 *	trigamma(d0/2) = v - mean trigamma(d_g/2),
 *	s0^2 = exp(mean e + digamma(d0/2) - log(d0/2)),
 *
 * d0 infinite (then VERDICT_PRIOR_MAX_DF, as is any larger d0) when the
 * right side is not positive: the series vary no more than sampling
 * alone would make them.  Values of s2 that are not finite and positive
 * are left out.  Sets out->df and out->s2, the rule flags (trend,
 * window, one_sided, per_test) to 0 for the caller to set, and returns
 * 0; with fewer than VERDICT_PRIOR_MIN_SERIES usable values, out->df = 0
 * and -1.
 */
int	verdict_prior_fit(const double *s2, const double *df, size_t n,
	    struct verdict_prior *out);

/*
 * Judge v[0..n) against the good values g[0..ng) or, when g is NULL, the
 * single good value gv.  higher: higher is better for the metric.
 * threshold: percent.  Always fills *out.
 */
void	verdict_judge(const double *v, size_t n, const double *g, size_t ng, double gv,
	    int higher, double threshold, struct verdict *out);

/*
 * Judge tonight's values v[0..n) against the nights of a history's
 * current segment, the nights' means nights[0..k) (oldest first): the
 * nightly rule, which counts how the nights vary from one to the next and
 * not only the spread of one night's trials.
 *
 * Tonight's mean is one more draw from the nights' distribution when
 * nothing changed, so it is tested against the nights' mean m and sd s
 * with the t prediction interval over nights (df = k - 1):
 *
 *	t = (mean v - m) / (s sqrt(1 + 1/k)),   p = 2 P(T > |t|)
 *	interval: (mean v - m) +- t(0.975; k - 1) s sqrt(1 + 1/k)
 *
 * as percentages of m.  With a prior (verdict_prior_fit(), df > 0) and
 * nights and tonight's mean all positive, the test is on the log scale
 * with the moderated variance (Smyth 2004)
 *
 *	s~^2 = (d0 s0^2 + d s^2) / (d0 + d),   d = k - 1,  df = d0 + d
 *
 * (s^2 of the logs), the interval exp(+-t(0.975; df) s~ sqrt(1 + 1/k))
 * times tonight's ratio to the nights' geometric mean; unless the
 * series' own variance is far above the prior's (s^2 / s0^2 above
 * F(d, d0)'s 1 - VERDICT_PRIOR_OUTLIER quantile): then the rule without
 * a prior, against its own spread.  pooled says which, df the t's.
 *
 * With prior->trend and at least VERDICT_TREND_MIN_NIGHTS nights, the
 * trend rule too: the least-squares slope b of the logs of the nights and
 * tonight (k + 1 values, a night apart) with its residual variance (on
 * k - 1 df, moderated by the same prior when pooled), trend = exp(b k) -
 * 1 in percent (the fitted change from the segment's first night to
 * tonight), trend_p the slope's two-sided t-test p.  The row's p for the
 * false-discovery step is then a weighted Bonferroni of the two tests,
 * verdict_row_p(); a trend whose p / VERDICT_TREND_WEIGHT is below 0.05
 * and whose fitted change reaches the threshold makes the row bad (or
 * better) when the step rule did not (by_trend).
 *
 * With prior->window, nights and tonight positive, the window rule too:
 * for j = 2 .. VERDICT_WINDOW_MAX with at least VERDICT_MIN_NIGHTS nights
 * before the window, the mean of the logs of the last j - 1 nights and
 * tonight against the mean of the logs of the b = k - j + 1 nights
 * before them, t with the variance of those b nights' logs (on b - 1 df,
 * moderated by the prior when pooled) times 1/j + 1/b; the window with
 * the smallest p is kept (window_n = j, window its change and
 * window_lo, window_hi its 95% interval, percent), window_p that p times
 * the windows tried (Bonferroni).  A window whose p / VERDICT_WINDOW_WEIGHT
 * is below 0.05 and whose interval's far end reaches the threshold makes
 * the row bad (or better) when neither the step nor the trend did
 * (by_window).  The step's share of the row's alpha is then 1 -
 * VERDICT_TREND_WEIGHT - VERDICT_WINDOW_WEIGHT.
 *
 * The kinds are then verdict_judge()'s, the same threshold rule over the
 * interval: significant when p < 0.05 (p over the step's share with a
 * trend or window rule) and its far end reaches the threshold; good when
 * its worse end stays below it; noisy when tonight's values are
 * (verdict_noisy()) or the nights' rsd is above the threshold.  good_rsd
 * is the nights' rsd (night to night), the series' own.  This assumes
 * tonight has as many trials as each night had (a plan's repeat).
 * tested needs at least 2 nights and 1 value, or 1 night where the
 * prior has degrees of freedom (the pooled variance alone, s^2 0 on d
 * 0: the series' first nights judged by how the host's nights vary).
 * Without a prior, with fewer than VERDICT_MIN_NIGHTS nights the caller
 * should fall back to verdict_judge() against the last night's trials
 * at a wider threshold (docs/nightly.md).  prior NULL: the plain rule,
 * no trend, no window.
 *
 * With prior->one_sided (the nightly's rule: only worse fails a night),
 * p, trend_p and window_p are one-sided towards worse, half the
 * two-sided p when the change is worse, so a row's whole alpha is spent
 * on the direction that counts; better_p is the row's one-sided p
 * towards better, and a row is better when its step, trend or window
 * test towards better is significant at its share and its far end
 * reaches the threshold (reported, never a regression).  With
 * prior->per_test, the trend and window rules each decide their own
 * pooling, by the F-test above on the variance they use (the trend's
 * residuals, the window's baseline nights): a step a night or two old
 * inflates the segment's variance and would otherwise unpool exactly
 * the tests that must see it.  The intervals stay two-sided 95%.
 * Always fills *out.
 */
void	verdict_nights(const double *v, size_t n, const double *nights, size_t k,
	    int higher, double threshold, const struct verdict_prior *prior,
	    struct verdict *out);

/*
 * The p a row brings to the false-discovery step: p, or with a trend or
 * window rule the weighted Bonferroni min(1, p / ws, trend_p / wt,
 * window_p / ww), wt = VERDICT_TREND_WEIGHT and ww =
 * VERDICT_WINDOW_WEIGHT for the rules applied, ws = 1 - those
 * (Rosenthal & Rubin 1983, "Ensemble-adjusted p values", Psychol. Bull.
 * 94(3); valid for the row whatever the tests' dependence); NAN when
 * not tested.
 */
double	verdict_row_p(const struct verdict *d);

/*
 * One row of a night's (or a table's) verdicts, for the false-discovery
 * step over all of them.
 */
struct verdict_row {
	struct verdict	v;		/* as judged (verdict_judge(), verdict_nights()) */
	int		judgeable;	/* 0: cannot judge (verdict_judgeable()): never
					 * significant, never a regression */
	size_t		needed;		/* when not judgeable: trials a side that would
					 * be needed (0: more will not help, or cannot
					 * be told: verdict_needed()) */
	double		spread;		/* when more trials will not help: the rsd
					 * above the threshold, percent; else NAN */
	double		q;		/* verdict_adjust(): the Benjamini-Hochberg q
					 * (NAN when the row has no p) */
	int		held;		/* verdict_adjust(): significant, and q <= fdr */
};

/*
 * What would let a row that cannot be judged be judged: the rule of
 * docs/reports.md ("Cannot judge").  The noisy rule is a spread against
 * the threshold, which more trials do not shrink, so a row is one of two:
 *
 *  - a side's spread (rsd; values that never vary: 0) is above the
 *    threshold, or against nights (nights set) the nights' rsd from one
 *    to the next is: more trials will not help.  Returns 1 with *spread
 *    the largest such rsd, percent (INFINITY for values that vary about
 *    a mean of 0), and *trials 0.
 *  - otherwise only trials are missing (fewer than VERDICT_MIN_TRIALS on
 *    a side): returns 0 with *trials the trials a side with which the
 *    row is judged and decided.  Against trials that is
 *    robust_trials_needed() at the spreads sd (the values') and good_sd
 *    (the good side's; a side with fewer than 2 values takes the other's;
 *    0 against a single good value, ng 0), at least VERDICT_MIN_TRIALS
 *    (VERDICT_MIN_TRIALS when neither spread is known): with that many,
 *    neither side is noisy at the spreads seen and the 95% interval is
 *    narrower than the threshold, so the verdict is good, bad or better.
 *    Against nights it is VERDICT_MIN_TRIALS: the prediction interval is
 *    the nights', whatever tonight's count.  *spread is NAN.
 *
 * d, n, ng, nights as verdict_judgeable().  Returns -1 when it cannot be
 * told (a good mean of 0 or not finite): *trials 0, *spread NAN.
 */
int	verdict_needed(const struct verdict *d, size_t n, size_t ng, int nights,
	    double sd, double good_sd, double threshold, size_t *trials, double *spread);

/*
 * Whether a verdict can be judged at all: at least VERDICT_MIN_TRIALS
 * values (n) and, when ng is not 0, as many good values, and neither
 * side noisy (verdict_noisy() at the threshold).  With nights set the
 * good side is a segment's nights (verdict_nights()): then only their
 * night-to-night rsd can make the row noisy, as tonight's spread is part
 * of what the nights' spread already holds.  When not, verdict_needed()
 * says what would help: *needed (when not NULL) gets its trials (0: more
 * trials will not help, or it cannot be told) and *spread (when not
 * NULL) its spread (NAN unless more trials will not help).
 */
int	verdict_judgeable(const struct verdict *d, size_t n, size_t ng, int nights,
	    double sd, double good_sd, double threshold, size_t *needed, double *spread);

/*
 * The false-discovery step over every row a night judges (every host,
 * metric and point): Benjamini-Hochberg (fdr_bh_rows()) over the
 * verdict_row_p() of the rows that are judgeable and tested (the others are left out of m and get a
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

#define VERDICT_WHY_SHORT	1	/* verdict_why(): the short form, for a table cell */

/*
 * Why a row is what it is, the same words in every output (the compare,
 * compact and HTML tables, the nightly verdict, bisect-run): the reason
 * that follows the outcome's name ("cannot judge: " + the reason).
 * vr as judged and adjusted (judgeable, needed, spread, held); n the
 * trials of the side with fewer; higher: higher is better for the metric;
 * threshold in percent.  With VERDICT_WHY_SHORT in flags, the short form
 * where there is one.  Writes into buf (size bytes, cut as snprintf()
 * does; VERDICT_WHY_MAX is always enough):
 *
 *   cannot judge, more trials will not help (vr->spread not NAN):
 *	"noisy: more trials will not help, spread 7.4% against threshold 5%"
 *	short: "noisy, 7.4% > 5%"
 *   cannot judge, only trials missing (vr->needed, or n below
 *   VERDICT_MIN_TRIALS):
 *	"about 11 trials a side would be needed"
 *	short: "2 trials, 11 needed" (vr->needed, else VERDICT_MIN_TRIALS)
 *   cannot judge, else (a side noisy with no percentage, a mean of 0):
 *	"noisy"
 *   not significant: "its 95% interval reaches worse by 7.1%"
 *	short: "may be 7.1% worse"
 *   significant, not held by the false-discovery step: "q above the fdr"
 *   noisy: "too noisy to tell"
 *   good, bad, better: "" (the name says it)
 */
#define VERDICT_WHY_MAX		128
void	verdict_why(const struct verdict_row *vr, size_t n, int higher, double threshold,
	    int flags, char *buf, size_t size);

#endif /* FLEETMARK_VERDICT_H */
