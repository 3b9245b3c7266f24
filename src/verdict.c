/*
 * verdict.c: the regression rule of the compare table, the matrix table,
 * the nightly run and bisect-run (verdict.h, docs/reports.md).
 */
#include <math.h>
#include <string.h>

#include "stats.h"
#include "verdict.h"

double
verdict_rsd(const double *v, size_t n)
{
	double m = stats_mean(v, n), sd = stats_sd(v, n);

	return m != 0 ? sd / fabs(m) * 100 : NAN;
}

int
verdict_noisy(double rsd, size_t n, double threshold)
{
	return n < VERDICT_MIN_TRIALS || isnan(rsd) || rsd > threshold;
}

int
verdict_significant(enum verdict_kind k)
{
	return k == VERDICT_BAD || k == VERDICT_BETTER;
}

/*
 * The t-test of v against g (Welch) or gv (one sample) into *t, with diff
 * as now - good either way; 0, or -1 when it cannot be made.
 */
static int
test(const double *v, size_t n, const double *g, size_t ng, double gv, struct stats_welch *t)
{
	if (g == NULL)
		return stats_ttest1(v, n, gv, t);
	if (stats_welch(g, ng, v, n, t) != 0)
		return -1;
	t->diff = -t->diff;
	t->t = -t->t;
	return 0;
}

void
verdict_judge(const double *v, size_t n, const double *g, size_t ng, double gv, int higher,
    double threshold, struct verdict *out)
{
	struct stats_welch t;
	double lo, hi, worst;
	int pct, sig;

	memset(out, 0, sizeof(*out));
	out->now = stats_mean(v, n);
	out->good = g != NULL ? stats_mean(g, ng) : gv;
	if (out->good != 0)
		out->change = (out->now - out->good) / fabs(out->good) * 100;
	else
		out->change = out->now == out->good ? 0 : out->now > 0 ? INFINITY : -INFINITY;
	out->worse = higher ? -out->change : out->change;
	out->rsd = verdict_rsd(v, n);
	out->good_rsd = g != NULL ? verdict_rsd(g, ng) : 0;
	out->p = out->lo = out->hi = NAN;
	out->tested = test(v, n, g, ng, gv, &t) == 0;
	/* a percentage of the good mean needs one */
	pct = out->good != 0 && isfinite(out->good);
	if (out->tested) {
		out->p = t.p;
		stats_welch_ci(&t, 1 - VERDICT_ALPHA, &lo, &hi);
		if (pct) {
			out->lo = lo / fabs(out->good) * 100;
			out->hi = hi / fabs(out->good) * 100;
		}
	}

	/*
	 * Significant: the change is, and it counts unless the data show it
	 * to be smaller than the threshold: the far end of its interval must
	 * reach it.  (The measured change against the threshold would flag a
	 * true change of exactly the threshold only half the time.)
	 */
	sig = out->tested && out->p < VERDICT_ALPHA && (pct ?
	    fmax(fabs(out->lo), fabs(out->hi)) >= threshold : fabs(out->change) >= threshold);
	/* the worst the interval allows: how much worse the value may be */
	worst = higher ? -out->lo : out->hi;
	if (sig)
		out->kind = out->worse < 0 ? VERDICT_BETTER : VERDICT_BAD;
	else if (worst < threshold)
		out->kind = VERDICT_GOOD;
	else if (!out->tested || verdict_noisy(out->rsd, n, threshold) ||
	    (g != NULL && verdict_noisy(out->good_rsd, ng, threshold)))
		out->kind = VERDICT_NOISY;
	else
		out->kind = VERDICT_NOT_SIGNIFICANT;
}

const char *
verdict_name(enum verdict_kind k)
{
	switch (k) {
	case VERDICT_GOOD:
		return "good";
	case VERDICT_BAD:
		return "bad";
	case VERDICT_BETTER:
		return "better";
	case VERDICT_NOISY:
		return "noisy";
	case VERDICT_NOT_SIGNIFICANT:
		return "not significant";
	}
	return "?";
}
