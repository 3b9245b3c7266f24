/*
 * report-judge.c: every row the compare and matrix tables judge, judged
 * once (report-int.h, docs/reports.md "The verdict"): each (point,
 * compared pair) gets verdict_judge() on the trial values; a row with
 * fewer than 3 trials on a side, or a side too noisy for the threshold,
 * cannot be judged (with the trials a side that would decide it, or the
 * spread above the threshold that more trials would not shrink:
 * verdict_needed()) and is never marked; the p-values of the rows judged are
 * Benjamini-Hochberg adjusted together (fdr.h) at the plan's
 * regression.fdr, and a row is marked better or worse when its q is at
 * most that level and the far end of its 95% interval reaches the
 * threshold.  Outliers among each side's trials are counted (robust.h),
 * never dropped.  The threshold (report_threshold()) and whether a worse
 * row's metric counts as a regression (report_regression_counts()) are
 * here too, so that the tables and the HTML report ask the judge, not
 * the compare table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fdr.h"
#include "report-int.h"
#include "report.h"
#include "robust.h"
#include "stats.h"
#include "verdict.h"
#include "xmalloc.h"

double
report_threshold(const struct report *r, const struct report_opts *o, size_t base)
{
	return o->threshold >= 0 ? o->threshold : r->series[base].threshold >= 0 ?
	    r->series[base].threshold : VERDICT_THRESHOLD;
}

int
report_regression_counts(const struct report *r, size_t s, size_t b,
    const struct rcell *cell)
{
	const char *list = r->series[s].regmetrics ? r->series[s].regmetrics :
	    r->series[b].regmetrics;
	char *name;
	int in;

	if (list == NULL)
		return strchr(cell->metric, ':') == NULL;	/* a monitor's: secondary */
	name = xasprintf(" %s.%s ", cell->bench, cell->metric);
	in = strstr(list, name) != NULL;
	free(name);
	return in;
}

double
report_fdr(const struct report *r, size_t base)
{
	double f = r->series[base].fdr;

	return f > 0 && f < 1 ? f : REPORT_DEFAULT_FDR;
}

int
report_side_noisy(const struct rvals *v, double threshold)
{
	size_t i;

	if (v == NULL || v->n < VERDICT_MIN_TRIALS)
		return 1;
	/* values that never vary are steady, whatever their mean (a count of 0) */
	for (i = 1; i < v->n && v->v[i] == v->v[0]; i++)
		;
	if (i == v->n)
		return 0;
	return verdict_noisy(verdict_rsd(v->v, v->n), v->n, threshold);
}

/* Outliers among v's trials (0 when a value is not finite). */
static size_t
outliers(const struct rvals *v)
{
	struct robust_outliers o;
	char *err = NULL;

	if (v == NULL || robust_outliers(v->v, v->n, NULL, &o, &err) != 0) {
		free(err);
		return 0;
	}
	return o.count;
}

/* Whether the judged row d is significant with the adjusted q. */
static int
significant(const struct verdict *d, double q, double level, double threshold)
{
	int pct = d->good != 0 && isfinite(d->good);

	if (!d->tested || isnan(q) || q > level)
		return 0;
	return pct ? fmax(fabs(d->lo), fabs(d->hi)) >= threshold :
	    fabs(d->change) >= threshold;
}

/*
 * What would let row j be judged (verdict_needed()): j->needed, the trials
 * a side that would decide it, or j->spread, when more would not help.
 */
static void
needed(struct rjudge *j, double threshold)
{
	double sb = j->bv->n > 1 ? stats_sd(j->bv->v, j->bv->n) : NAN;
	double ss = j->v->n > 1 ? stats_sd(j->v->v, j->v->n) : NAN;

	if (verdict_needed(&j->d, j->v->n, j->bv->n, 0, ss, sb, threshold, &j->needed,
	    &j->spread) < 0) {
		j->needed = 0;
		j->spread = NAN;
	}
}

int
report_judge(const struct report *r, const struct report_opts *o, size_t base,
    struct rjudged *out, char **err)
{
	size_t *pairs = report_pairs(r, base, NULL), s, c, i, np = 0, cap = 0;
	double *p = NULL;
	unsigned char *use = NULL;

	(void)err;	/* the step cannot fail; callers keep the error path */
	memset(out, 0, sizeof(*out));
	out->threshold = report_threshold(r, o, base);
	out->fdr = report_fdr(r, base);
	out->ncells = r->ncells;
	out->nseries = r->nseries;
	out->index = xcalloc(r->ncells * r->nseries + 1, sizeof(*out->index));
	for (c = 0; c < r->ncells; c++)
		for (s = 0; s < r->nseries; s++) {
			struct rjudge *j;
			double bm, m;

			if (pairs[s] == (size_t)-1)
				continue;
			xgrow(&out->rows, &cap, out->n + 1, sizeof(*out->rows));
			j = &out->rows[out->n];
			memset(j, 0, sizeof(*j));
			j->cell = c;
			j->series = s;
			j->base = pairs[s];
			j->bv = report_vals(r, j->base, c);
			j->v = report_vals(r, s, c);
			j->q = NAN;
			j->spread = NAN;
			if (j->bv == NULL && j->v == NULL)
				continue;
			out->index[s * r->ncells + c] = ++out->n;
			j->base_outliers = outliers(j->bv);
			j->outliers = outliers(j->v);
			j->base_noisy = report_side_noisy(j->bv, out->threshold);
			j->noisy = report_side_noisy(j->v, out->threshold);
			if (j->bv == NULL || j->v == NULL)
				continue;
			bm = stats_mean(j->bv->v, j->bv->n);
			m = stats_mean(j->v->v, j->v->n);
			if (isnan(bm) || isnan(m) || (bm == 0 && m != 0))
				continue;
			verdict_judge(j->v->v, j->v->n, j->bv->v, j->bv->n, 0, r->cells[c].higher,
			    out->threshold, &j->d);
			j->state = RJUDGE_JUDGED;
			if (j->bv->n < VERDICT_MIN_TRIALS || j->v->n < VERDICT_MIN_TRIALS)
				j->state = RJUDGE_FEW;
			else if (j->base_noisy || j->noisy)
				j->state = RJUDGE_NOISY;
			if (j->state != RJUDGE_JUDGED)
				needed(j, out->threshold);
		}
	/* Benjamini-Hochberg over every row judged */
	p = xcalloc(out->n + 1, sizeof(*p));
	use = xcalloc(out->n + 1, 1);
	for (i = 0; i < out->n; i++) {
		p[i] = out->rows[i].d.p;
		use[i] = out->rows[i].state == RJUDGE_JUDGED && out->rows[i].d.tested;
	}
	np = fdr_bh_rows(p, use, out->n, p);
	for (i = 0; i < out->n; i++) {
		struct rjudge *j = &out->rows[i];

		if (!use[i])
			continue;
		j->q = p[i];
		if (significant(&j->d, j->q, out->fdr, out->threshold))
			j->mark = j->d.worse < 0 ? RJUDGE_BETTER : RJUDGE_WORSE;
	}
	out->judged = np;
	free(p);
	free(use);
	free(pairs);
	return 0;
}

const struct rjudge *
report_judged_row(const struct rjudged *j, size_t series, size_t cell)
{
	size_t k;

	if (j->index == NULL || series >= j->nseries || cell >= j->ncells)
		return NULL;
	k = j->index[series * j->ncells + cell];
	return k ? &j->rows[k - 1] : NULL;
}

void
report_judge_why(const struct report *r, const struct rjudge *j, double threshold, int flags,
    char *buf, size_t size)
{
	struct verdict_row vr;
	size_t n = 0;

	memset(&vr, 0, sizeof(vr));
	vr.v = j->d;
	vr.judgeable = j->state == RJUDGE_JUDGED;
	vr.needed = j->needed;
	vr.spread = j->spread;
	vr.q = j->q;
	vr.held = j->mark != RJUDGE_UNMARKED;
	if (j->bv != NULL && j->v != NULL)
		n = j->bv->n < j->v->n ? j->bv->n : j->v->n;
	verdict_why(&vr, n, r->cells[j->cell].higher, threshold, flags, buf, size);
}

void
report_judged_release(struct rjudged *j)
{
	free(j->rows);
	free(j->index);
	memset(j, 0, sizeof(*j));
}
