/*
 * verdict.h: is a measurement good, bad, or impossible to tell, against a
 * known-good measurement?  The rule of `fleetmark bisect-run`
 * (docs/bisect.md), kept apart from the command so that it can be tested
 * on numbers alone.
 *
 *   worse	the change (percent) in the direction that is worse for the
 *		metric: of the mean against the good values' mean, or of the
 *		median against a single good value
 *   bad	worse >= threshold, and significant: Welch's t-test against
 *		the good values, or a one-sample t-test against the good
 *		value, p < 0.05
 *   good	worse < threshold, and the values (and the good values) have
 *		an rsd of at most the threshold
 *   unsure	anything else: too noisy, or worse but not significantly
 */
#ifndef FLEETMARK_VERDICT_H
#define FLEETMARK_VERDICT_H

#include <stddef.h>

#define VERDICT_ALPHA	0.05

enum verdict_kind {
	VERDICT_GOOD,
	VERDICT_BAD,
	VERDICT_UNSURE,
};

struct verdict {
	enum verdict_kind kind;
	double	now;		/* the values' mean, or median against a good value */
	double	good;		/* the good values' mean, or the good value */
	double	change;		/* (now - good) / |good|, percent: + grew */
	double	worse;		/* change towards worse for the metric (< 0: better) */
	double	p;		/* the test's two-sided p, NAN when it cannot be computed */
	double	rsd;		/* of the values, percent */
	double	good_rsd;	/* of the good values, percent (0 for a good value) */
};

/*
 * Judge v[0..n) against the good values g[0..ng) or, when g is NULL, the
 * single good value gv.  higher: higher is better for the metric.
 * threshold: percent.  Always fills *out.
 */
void	verdict_judge(const double *v, size_t n, const double *g, size_t ng, double gv,
	    int higher, double threshold, struct verdict *out);

/* "good", "bad", "unsure". */
const char	*verdict_name(enum verdict_kind k);

#endif /* FLEETMARK_VERDICT_H */
