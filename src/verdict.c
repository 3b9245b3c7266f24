/*
 * verdict.c: the regression rule of the compare table, the matrix table,
 * the nightly run and bisect-run (verdict.h, docs/reports.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fdr.h"
#include "robust.h"
#include "stats.h"
#include "verdict.h"
#include "xmalloc.h"

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

/*
 * The kind of *out from its test and interval: significant when the
 * change is, and it counts unless the data show it to be smaller than
 * the threshold: the far end of its interval must reach it.  (The
 * measured change against the threshold would flag a true change of
 * exactly the threshold only half the time.)  ng: the good values' count
 * for the noise check, 0 for a single good value.
 */
static void
classify(struct verdict *out, int pct, size_t n, size_t ng, double threshold, int higher)
{
	double worst;
	int sig;

	sig = out->tested && out->p < VERDICT_ALPHA && (pct ?
	    fmax(fabs(out->lo), fabs(out->hi)) >= threshold : fabs(out->change) >= threshold);
	/* the worst the interval allows: how much worse the value may be */
	worst = higher ? -out->lo : out->hi;
	if (sig)
		out->kind = out->worse < 0 ? VERDICT_BETTER : VERDICT_BAD;
	else if (worst < threshold)
		out->kind = VERDICT_GOOD;
	else if (!out->tested || verdict_noisy(out->rsd, n, threshold) ||
	    (ng > 0 && verdict_noisy(out->good_rsd, ng, threshold)))
		out->kind = VERDICT_NOISY;
	else
		out->kind = VERDICT_NOT_SIGNIFICANT;
}

void
verdict_judge(const double *v, size_t n, const double *g, size_t ng, double gv, int higher,
    double threshold, struct verdict *out)
{
	struct stats_welch t;
	double lo, hi;
	int pct;

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

	classify(out, pct, n, g != NULL ? ng : 0, threshold, higher);
}

void
verdict_nights(const double *v, size_t n, const double *nights, size_t k, int higher,
    double threshold, struct verdict *out)
{
	double m, s, se, tq, diff;
	int pct;

	memset(out, 0, sizeof(*out));
	out->now = stats_mean(v, n);
	out->good = m = stats_mean(nights, k);
	if (m != 0)
		out->change = (out->now - m) / fabs(m) * 100;
	else
		out->change = out->now == m ? 0 : out->now > 0 ? INFINITY : -INFINITY;
	out->worse = higher ? -out->change : out->change;
	out->rsd = verdict_rsd(v, n);
	out->good_rsd = verdict_rsd(nights, k);
	out->p = out->lo = out->hi = NAN;
	out->tested = n >= 1 && k >= 2;
	pct = m != 0 && isfinite(m);
	if (out->tested) {
		s = stats_sd(nights, k);
		se = s * sqrt(1 + 1 / (double)k);
		diff = out->now - m;
		if (se > 0) {
			out->p = 2 * (1 - stats_t_cdf(fabs(diff) / se, (double)(k - 1)));
			if (out->p < 0)
				out->p = 0;
		} else
			out->p = diff == 0 ? 1 : 0;
		tq = stats_t_quantile(1 - VERDICT_ALPHA / 2, (double)(k - 1));
		if (pct) {
			out->lo = (diff - tq * se) / fabs(m) * 100;
			out->hi = (diff + tq * se) / fabs(m) * 100;
		}
	}
	/* the nights' own n is not known here: they are noisy by their rsd alone */
	classify(out, pct, n, k >= VERDICT_MIN_TRIALS ? k : VERDICT_MIN_TRIALS, threshold,
	    higher);
}

int
verdict_judgeable(const struct verdict *d, size_t n, size_t ng, int nights, double sd,
    double good_sd, double threshold, size_t *needed)
{
	size_t k;

	if (needed != NULL)
		*needed = 0;
	if (n >= VERDICT_MIN_TRIALS && (ng == 0 || ng >= VERDICT_MIN_TRIALS) &&
	    (nights || !verdict_noisy(d->rsd, n, threshold)) &&
	    (ng == 0 || !verdict_noisy(d->good_rsd, ng, threshold)))
		return 1;
	if (ng == 0 && !nights)
		good_sd = 0;	/* a single good value */
	else if (isnan(good_sd))
		good_sd = sd;
	if (needed != NULL && robust_trials_needed(d->good, good_sd, sd, threshold, &k) == 0)
		*needed = k < VERDICT_MIN_TRIALS ? VERDICT_MIN_TRIALS : k;
	return 0;
}

size_t
verdict_adjust(struct verdict_row *rows, size_t n, double fdr)
{
	double *p = xreallocarray(NULL, n ? n : 1, sizeof(*p));
	char *err = NULL;
	size_t i, held = 0;

	for (i = 0; i < n; i++)
		p[i] = rows[i].judgeable && rows[i].v.tested && !isnan(rows[i].v.p) ?
		    fmin(fmax(rows[i].v.p, 0), 1) : NAN;
	if (fdr_bh(p, n, p, &err) != 0) {
		free(err);	/* cannot be: every p is in [0, 1] or NaN */
		for (i = 0; i < n; i++)
			p[i] = NAN;
	}
	for (i = 0; i < n; i++) {
		rows[i].q = p[i];
		rows[i].held = rows[i].judgeable && verdict_significant(rows[i].v.kind) &&
		    (fdr <= 0 || fdr > 1 || p[i] <= fdr);
		held += rows[i].held;
	}
	free(p);
	return held;
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
