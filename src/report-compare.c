/*
 * report-compare.c: one row per (bench, params, metric): the baseline's
 * mean and relative standard deviation over its trials, then for each
 * other series its mean, rsd, change against the baseline, and a mark.
 *
 *   better / worse	verdict.h's rule (docs/reports.md): Welch's t-test
 *			on the trial values gives a two-sided p < 0.05 AND
 *			the far end of the change's 95% confidence interval
 *			reaches the threshold (--threshold, else the plan's
 *			regression.threshold, else 5%)
 *   noisy		(the noise column) verdict_noisy(): the series' rsd
 *			is above the threshold, or it has fewer than 3
 *			trials: a change of the threshold's size cannot be
 *			told from noise
 *
 * The change is the plain change of the mean (+ means the value grew);
 * the mark says whether that is better or worse for the metric.
 *
 * A "worse" row is a regression (counted, and named on a "REGRESSION:"
 * line after the table) when its metric is one of the plan's
 * regression.metrics (docs/plans-and-fleets.md): the compared run's plan's list, else the
 * baseline run's; a plan that lists none makes every metric count.
 *
 * The samples table (--samples) has a row per trial: how many samples it
 * took, their min, median and max, the spread (max - min) / |median|, and
 * the samples themselves, a column each (s1, s2...), when there are at
 * most REPORT_SAMPLES_SHOWN: a pagefault trial's batches side by side, to
 * see whether the first batch differs from the rest.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"
#include "report-int.h"
#include "report.h"
#include "stats.h"
#include "verdict.h"
#include "xmalloc.h"

#define DEFAULT_THRESHOLD	5.0

/* A mean as the tables show it (numfmt.h), "-" for none. */
static void
fmt_mean(char *buf, size_t cap, double v)
{
	if (isnan(v))
		snprintf(buf, cap, "-");
	else
		numfmt_fixed(buf, cap, v, 4);
}

double
report_threshold(const struct report *r, const struct report_opts *o, size_t base)
{
	return o->threshold >= 0 ? o->threshold : r->series[base].threshold >= 0 ?
	    r->series[base].threshold : DEFAULT_THRESHOLD;
}

/*
 * The columns of the summary, compare and regressions tables, by name: each
 * enum indexes its table's names (designated initializers), so a column
 * cannot be written under another's name.  The three tables begin with the
 * point's columns; their first non-key column ends the row's key.
 */
enum {
	COL_BENCH, COL_PARAMS, COL_METRIC, COL_UNIT,
	COL_POINT_END
};

#define POINT_COLS \
	[COL_BENCH] = "bench", [COL_PARAMS] = "params", [COL_METRIC] = "metric", \
	[COL_UNIT] = "unit"

enum summary_col {
	SU_SERIES = COL_POINT_END,
	SU_MEAN, SU_RSD, SU_N, SU_NOISY,
	SU_NCOLS
};

static const char *const summary_cols[SU_NCOLS] = {
	POINT_COLS, [SU_SERIES] = "series",
	[SU_MEAN] = "mean", [SU_RSD] = "rsd", [SU_N] = "n", [SU_NOISY] = "noisy",
};

enum compare_col {
	CC_BASELINE = COL_POINT_END, CC_SERIES,
	CC_BASE_MEAN, CC_BASE_RSD, CC_BASE_N, CC_MEAN, CC_RSD, CC_N, CC_CHANGE, CC_P,
	CC_MARK, CC_NOISY,
	CC_NCOLS
};

static const char *const compare_cols[CC_NCOLS] = {
	POINT_COLS, [CC_BASELINE] = "baseline", [CC_SERIES] = "series",
	[CC_BASE_MEAN] = "base mean", [CC_BASE_RSD] = "base rsd", [CC_BASE_N] = "base n",
	[CC_MEAN] = "mean", [CC_RSD] = "rsd", [CC_N] = "n", [CC_CHANGE] = "change",
	[CC_P] = "p", [CC_MARK] = "mark", [CC_NOISY] = "noisy",
};

enum regression_col {
	RC_BASELINE = COL_POINT_END, RC_SERIES,
	RC_BASE_MEAN, RC_MEAN, RC_CHANGE, RC_P,
	RC_NCOLS
};

static const char *const regression_cols[RC_NCOLS] = {
	POINT_COLS, [RC_BASELINE] = "baseline", [RC_SERIES] = "series",
	[RC_BASE_MEAN] = "base mean", [RC_MEAN] = "mean", [RC_CHANGE] = "change",
	[RC_P] = "p",
};

/* The mean, rsd and n columns of one series in a table. */
struct series_cols {
	size_t	mean, rsd, n;
};

/* The samples table; its columns s1, s2... follow these. */
enum samples_col {
	SA_SERIES = COL_POINT_END, SA_REP,
	SA_N, SA_MIN, SA_MEDIAN, SA_MAX, SA_SPREAD,
	SA_NCOLS
};

static const char *const samples_cols[SA_NCOLS] = {
	POINT_COLS, [SA_SERIES] = "series", [SA_REP] = "rep",
	[SA_N] = "n", [SA_MIN] = "min", [SA_MEDIAN] = "median", [SA_MAX] = "max",
	[SA_SPREAD] = "spread",
};

static const struct series_cols summary_series = { SU_MEAN, SU_RSD, SU_N };
static const struct series_cols compare_base = { CC_BASE_MEAN, CC_BASE_RSD, CC_BASE_N };
static const struct series_cols compare_series = { CC_MEAN, CC_RSD, CC_N };

/* The point's cells of a row. */
static void
point_cells(struct rgrid *g, size_t row, const struct rcell *cell)
{
	rgrid_set(g, row, COL_BENCH, cell->bench, NAN);
	rgrid_set(g, row, COL_PARAMS, cell->params, NAN);
	rgrid_set(g, row, COL_METRIC, cell->metric, NAN);
	rgrid_set(g, row, COL_UNIT, cell->unit, NAN);
}

/* Whether a worse cell of series s (against b) counts as a regression. */
static int
counts(const struct report *r, size_t s, size_t b, const struct rcell *cell)
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

/*
 * The "REGRESSION: exec.seconds[copies=50] +12.3% (p=0.001) host/label:
 * 1.20 -> 1.35 s" lines, as a grid of their own (a text rendering, and
 * rows for CSV and JSON).
 */
static void
regression_add(struct rgrid *g, FILE *text, const struct rcell *cell, const char *base,
    const char *series, const struct verdict *d)
{
	char bbuf[32], mbuf[32], cbuf[32], pbuf[32], params[96];
	size_t row = rgrid_add_row(g);

	fmt_mean(bbuf, sizeof(bbuf), d->good);
	fmt_mean(mbuf, sizeof(mbuf), d->now);
	snprintf(cbuf, sizeof(cbuf), "%+.1f%%", d->change);
	snprintf(pbuf, sizeof(pbuf), "%.2g", d->p);
	if (strlen(cell->params) >= sizeof(params))
		snprintf(params, sizeof(params), "%.*s...", (int)sizeof(params) - 4,
		    cell->params);
	else
		snprintf(params, sizeof(params), "%s", cell->params);
	point_cells(g, row, cell);
	rgrid_set(g, row, RC_BASELINE, base, NAN);
	rgrid_set(g, row, RC_SERIES, series, NAN);
	rgrid_set(g, row, RC_BASE_MEAN, bbuf, d->good);
	rgrid_set(g, row, RC_MEAN, mbuf, d->now);
	rgrid_set(g, row, RC_CHANGE, cbuf, d->change);
	rgrid_set(g, row, RC_P, pbuf, d->p);
	fprintf(text, "REGRESSION: %s.%s%s%s%s %s (p=%s) %s: %s -> %s %s (baseline %s)\n",
	    cell->bench, cell->metric, *params ? "[" : "", params, *params ? "]" : "", cbuf,
	    pbuf, series, bbuf, mbuf, cell->unit, base);
}

/* Mean, rsd (percent) and count into the columns c; whether it is noisy. */
static int
series_cells(struct rgrid *g, size_t row, const struct series_cols *c,
    const struct rvals *v, double thr, double *mean)
{
	double m = v ? stats_mean(v->v, v->n) : NAN;
	double rsd = verdict_rsd(v ? v->v : NULL, v ? v->n : 0);
	char buf[64];

	*mean = m;
	fmt_mean(buf, sizeof(buf), m);
	rgrid_set(g, row, c->mean, buf, m);
	if (isnan(rsd))
		snprintf(buf, sizeof(buf), "-");
	else
		snprintf(buf, sizeof(buf), "±%.1f%%", rsd);
	rgrid_set(g, row, c->rsd, buf, rsd);
	snprintf(buf, sizeof(buf), "%zu", v ? v->n : 0);
	rgrid_set(g, row, c->n, buf, v ? (double)v->n : 0);
	return v == NULL || verdict_noisy(rsd, v->n, thr);
}

int
report_table_summary(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	double thr = report_threshold(r, o, base), m;
	struct rgrid *g;
	char *title;
	size_t s, c;

	(void)err;
	title = xasprintf("Summary: mean and rsd of the trials; noisy: rsd > %g%% or fewer "
	    "than %d trials.  Lines not used: %zu failed (%zu of them infrastructure), %zu "
	    "without a metric, %zu corrupt, %zu truncated, %zu of an unknown format", thr,
	    VERDICT_MIN_TRIALS, r->counts.failed, r->counts.infra, r->counts.nometric,
	    r->counts.corrupt, r->counts.truncated, r->counts.unknown_format);
	g = rgrid_new("summary", title, SU_MEAN, SU_NCOLS, summary_cols);
	free(title);
	for (c = 0; c < r->ncells; c++)
		for (s = 0; s < r->nseries; s++) {
			const struct rvals *v = report_vals(r, s, c);
			size_t row;

			if (v == NULL)
				continue;
			row = rgrid_add_row(g);
			point_cells(g, row, &r->cells[c]);
			rgrid_set(g, row, SU_SERIES, r->series[s].name, NAN);
			report_cell_notes(r, s, c, g, row, summary_series.mean);
			rgrid_set(g, row, SU_NOISY, series_cells(g, row, &summary_series, v, thr,
			    &m) ? "noisy" : "", NAN);
		}
	rgrids_add(gs, g);
	return 0;
}

int
report_table_compare(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	double thr = report_threshold(r, o, base);
	size_t *pairs = report_pairs(r, base, NULL), s, c, b, npairs = 0, tlen = 0;
	struct rgrid *g, *rg;
	char *title, *text = NULL;
	FILE *tf;
	int regressions = 0;

	for (s = 0; s < r->nseries; s++)
		npairs += pairs[s] != (size_t)-1;
	if (npairs == 0) {
		*err = xasprintf("nothing to compare %s with (one series; give another run, "
		    "or a run with another variant, label or host)", r->series[base].name);
		free(pairs);
		return -1;
	}
	title = xasprintf("Compare against %s: mean and rsd of the trials; change of the "
	    "mean; better/worse: Welch's t-test p < %.2f and the change's 95%% interval "
	    "reaches %g%%; noisy: rsd > "
	    "%g%% or fewer than %d trials.  Lines not used: %zu failed (%zu of them "
	    "infrastructure), %zu without a metric, %zu corrupt, %zu truncated, %zu of "
	    "an unknown format", r->series[base].name, VERDICT_ALPHA, thr, thr,
	    VERDICT_MIN_TRIALS, r->counts.failed, r->counts.infra, r->counts.nometric,
	    r->counts.corrupt, r->counts.truncated, r->counts.unknown_format);
	g = rgrid_new("compare", title, CC_BASE_MEAN, CC_NCOLS, compare_cols);
	free(title);
	rg = rgrid_new("regressions", "Regressions: worse, and a metric of the plan's "
	    "regression.metrics (every metric when it lists none)", RC_BASE_MEAN, RC_NCOLS,
	    regression_cols);
	if ((tf = open_memstream(&text, &tlen)) == NULL) {
		*err = xstrdup("cannot make the report: out of memory");
		rgrid_free(g);
		rgrid_free(rg);
		free(pairs);
		return -1;
	}

	for (c = 0; c < r->ncells; c++) {
		const struct rcell *cell = &r->cells[c];

		for (s = 0; s < r->nseries; s++) {
			const struct rvals *bv, *v;
			struct verdict d;
			size_t row;
			double bm, m;
			int nb, ns;
			char buf[64];

			if ((b = pairs[s]) == (size_t)-1)
				continue;
			bv = report_vals(r, b, c);
			v = report_vals(r, s, c);
			if (bv == NULL && v == NULL)
				continue;
			row = rgrid_add_row(g);
			point_cells(g, row, cell);
			rgrid_set(g, row, CC_BASELINE, r->series[b].name, NAN);
			rgrid_set(g, row, CC_SERIES, r->series[s].name, NAN);
			report_cell_notes(r, b, c, g, row, compare_base.mean);
			report_cell_notes(r, s, c, g, row, compare_series.mean);
			nb = series_cells(g, row, &compare_base, bv, thr, &bm);
			ns = series_cells(g, row, &compare_series, v, thr, &m);
			rgrid_set(g, row, CC_NOISY, nb && ns ? "both" : nb ? "base" : ns ? "series" :
			    "", NAN);
			if (!bv || !v || isnan(bm) || bm == 0)
				continue;
			verdict_judge(v->v, v->n, bv->v, bv->n, 0, cell->higher, thr, &d);
			snprintf(buf, sizeof(buf), "%+.1f%%", d.change);
			rgrid_set(g, row, CC_CHANGE, buf, d.change);
			if (!d.tested)
				continue;
			snprintf(buf, sizeof(buf), "%.3g", d.p);
			rgrid_set(g, row, CC_P, buf, d.p);
			if (!verdict_significant(d.kind))
				continue;
			rgrid_set(g, row, CC_MARK, d.kind == VERDICT_BETTER ? "better" : "worse",
			    NAN);
			if (d.kind == VERDICT_BAD && counts(r, s, b, cell)) {
				regressions++;
				regression_add(rg, tf, cell, r->series[b].name, r->series[s].name,
				    &d);
			}
		}
	}
	fclose(tf);
	rgrids_add(gs, g);
	if (rg->nrows > 0) {
		rg->text = text;
		rgrids_add(gs, rg);
	} else {
		rgrid_free(rg);
		free(text);
	}
	free(pairs);
	return regressions;
}

/* A trial's row of the samples table. */
static void
samples_row(struct rgrid *g, const struct rcell *cell, const char *series, int rep,
    const struct rsamples *sm)
{
	double lo = NAN, hi = NAN, med = NAN, spread = NAN;
	char buf[NUMFMT_MAX];
	size_t row = rgrid_add_row(g), i;

	point_cells(g, row, cell);
	rgrid_set(g, row, SA_SERIES, series, NAN);
	snprintf(buf, sizeof(buf), "%d", rep);
	rgrid_set(g, row, SA_REP, buf, NAN);
	snprintf(buf, sizeof(buf), "%zu", sm->n);
	rgrid_set(g, row, SA_N, buf, (double)sm->n);
	if (sm->n == 0)
		return;
	for (i = 0; i < sm->n; i++) {
		if (i == 0 || sm->v[i] < lo)
			lo = sm->v[i];
		if (i == 0 || sm->v[i] > hi)
			hi = sm->v[i];
	}
	med = stats_median(sm->v, sm->n);
	fmt_mean(buf, sizeof(buf), lo);
	rgrid_set(g, row, SA_MIN, buf, lo);
	fmt_mean(buf, sizeof(buf), med);
	rgrid_set(g, row, SA_MEDIAN, buf, med);
	fmt_mean(buf, sizeof(buf), hi);
	rgrid_set(g, row, SA_MAX, buf, hi);
	if (med != 0 && isfinite(med) && isfinite(hi - lo)) {
		spread = (hi - lo) / fabs(med) * 100;
		snprintf(buf, sizeof(buf), "%.1f%%", spread);
		rgrid_set(g, row, SA_SPREAD, buf, spread);
	}
	for (i = 0; i < sm->n && sm->n <= REPORT_SAMPLES_SHOWN; i++) {
		fmt_mean(buf, sizeof(buf), sm->v[i]);
		rgrid_set(g, row, SA_NCOLS + i, buf, sm->v[i]);
	}
}

int
report_table_samples(const struct report *r, const struct report_opts *o,
    struct rgrids *gs, char **err)
{
	const char *cols[SA_NCOLS + REPORT_SAMPLES_SHOWN];
	char names[REPORT_SAMPLES_SHOWN][8];
	struct rgrid *g;
	char *title;
	size_t s, c, i, j, *order = NULL, cap = 0, shown = 0;

	(void)o;
	if (!r->keep_samples) {
		*err = xstrdup("the samples were not read");
		return -1;
	}
	/* a column per sample, as many as the longest trial shown one by one */
	for (c = 0; c < r->ncells; c++)
		for (s = 0; s < r->nseries; s++) {
			const struct rvals *v = report_vals(r, s, c);

			for (i = 0; v != NULL && v->smp != NULL && i < v->n; i++)
				if (v->smp[i].n <= REPORT_SAMPLES_SHOWN && v->smp[i].n > shown)
					shown = v->smp[i].n;
		}
	for (i = 0; i < SA_NCOLS; i++)
		cols[i] = samples_cols[i];
	for (i = 0; i < shown; i++) {
		snprintf(names[i], sizeof(names[i]), "s%zu", i + 1);
		cols[SA_NCOLS + i] = names[i];
	}
	title = xasprintf("Samples: each trial's samples (the agent's batches or "
	    "repetitions within the trial): min, median, max; spread (max - min) / median; "
	    "s1, s2...: the samples in the order taken, when a trial has at most %d",
	    REPORT_SAMPLES_SHOWN);
	g = rgrid_new("samples", title, SA_N, SA_NCOLS + shown, cols);
	free(title);
	for (c = 0; c < r->ncells; c++)
		for (s = 0; s < r->nseries; s++) {
			const struct rvals *v = report_vals(r, s, c);

			if (v == NULL || v->smp == NULL)
				continue;
			/* trials by rep, whatever order the lines came in */
			xgrow(&order, &cap, v->n, sizeof(*order));
			for (i = 0; i < v->n; i++) {
				for (j = i; j > 0 && v->rep[order[j - 1]] > v->rep[i]; j--)
					order[j] = order[j - 1];
				order[j] = i;
			}
			for (i = 0; i < v->n; i++)
				samples_row(g, &r->cells[c], r->series[s].name, v->rep[order[i]],
				    &v->smp[order[i]]);
		}
	free(order);
	rgrids_add(gs, g);
	return 0;
}
