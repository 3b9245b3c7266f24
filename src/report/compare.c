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
#include "robust.h"
#include "stats.h"
#include "strbuf.h"
#include "verdict.h"
#include "xmalloc.h"

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
	CC_BASE_MEAN, CC_BASE_RSD, CC_BASE_N, CC_MEAN, CC_RSD, CC_N, CC_CHANGE,
	CC_LO, CC_HI, CC_P, CC_Q, CC_MARK, CC_NOISY, CC_NEEDED, CC_BASE_OUT, CC_OUT,
	CC_NCOLS
};

static const char *const compare_cols[CC_NCOLS] = {
	POINT_COLS, [CC_BASELINE] = "baseline", [CC_SERIES] = "series",
	[CC_BASE_MEAN] = "base mean", [CC_BASE_RSD] = "base rsd", [CC_BASE_N] = "base n",
	[CC_MEAN] = "mean", [CC_RSD] = "rsd", [CC_N] = "n", [CC_CHANGE] = "change",
	[CC_LO] = "ci lo", [CC_HI] = "ci hi", [CC_P] = "p", [CC_Q] = "q",
	[CC_MARK] = "mark", [CC_NOISY] = "noisy", [CC_NEEDED] = "needed",
	[CC_BASE_OUT] = "base outliers", [CC_OUT] = "outliers",
};

/*
 * The compact compare table: one grid per compared pair, the series named
 * once in its title.  The hidden columns (CSV and JSON) identify the row;
 * the text shows the point without the parameters every point of its
 * benchmark shares.
 */
enum compact_col {
	KC_BASELINE, KC_SERIES, KC_BENCH, KC_PARAMS, KC_METRIC, KC_UNIT,
	KC_NHIDDEN,
	KC_POINT = KC_NHIDDEN,
	KC_BASE, KC_NEW, KC_CHANGE, KC_INTERVAL, KC_P, KC_Q, KC_MARK,
	KC_NCOLS
};

static const char *const compact_cols[KC_NCOLS] = {
	[KC_BASELINE] = "baseline", [KC_SERIES] = "series", [KC_BENCH] = "bench",
	[KC_PARAMS] = "params", [KC_METRIC] = "metric", [KC_UNIT] = "unit",
	[KC_POINT] = "point", [KC_BASE] = "base", [KC_NEW] = "new",
	[KC_CHANGE] = "change", [KC_INTERVAL] = "95% interval", [KC_P] = "p",
	[KC_Q] = "q", [KC_MARK] = "mark",
};

enum regression_col {
	RC_BASELINE = COL_POINT_END, RC_SERIES,
	RC_BASE_MEAN, RC_MEAN, RC_CHANGE, RC_P, RC_Q,
	RC_NCOLS
};

static const char *const regression_cols[RC_NCOLS] = {
	POINT_COLS, [RC_BASELINE] = "baseline", [RC_SERIES] = "series",
	[RC_BASE_MEAN] = "base mean", [RC_MEAN] = "mean", [RC_CHANGE] = "change",
	[RC_P] = "p", [RC_Q] = "q",
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

/*
 * The "REGRESSION: exec.seconds[copies=50] +12.3% (p=0.001) host/label:
 * 1.20 -> 1.35 s" lines, as a grid of their own (a text rendering, and
 * rows for CSV and JSON).
 */
static void
regression_add(struct rgrid *g, struct strbuf *text, const struct rcell *cell, const char *base,
    const char *series, const struct verdict *d, double q)
{
	char bbuf[32], mbuf[32], cbuf[32], pbuf[32], qbuf[32], params[96];
	size_t row = rgrid_add_row(g);

	numfmt_mean(bbuf, sizeof(bbuf), d->good);
	numfmt_mean(mbuf, sizeof(mbuf), d->now);
	snprintf(cbuf, sizeof(cbuf), "%+.1f%%", d->change);
	numfmt_p(pbuf, sizeof(pbuf), d->p);
	numfmt_p(qbuf, sizeof(qbuf), q);
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
	rgrid_set(g, row, RC_Q, qbuf, q);
	strbuf_addf(text, "REGRESSION: %s.%s%s%s%s %s (p=%s, q=%s) %s: %s -> %s %s (baseline "
	    "%s)\n", cell->bench, cell->metric, *params ? "[" : "", params, *params ? "]" : "",
	    cbuf, pbuf, qbuf, series, bbuf, mbuf, cell->unit, base);
}

/* Mean, rsd (percent) and count into the columns c; whether it is noisy. */
static int
series_cells(struct rgrid *g, size_t row, const struct series_cols *c,
    const struct rvals *v, double thr, double *mean)
{
	double m = v ? stats_mean(v->v, v->n) : NAN;
	double rsd = verdict_rsd(v ? v->v : NULL, v ? v->n : 0);
	char buf[64];

	/* values that never vary have no spread, even at 0 */
	if (v != NULL && v->n > 1 && m == 0 && !report_side_noisy(v, thr))
		rsd = 0;
	*mean = m;
	numfmt_mean(buf, sizeof(buf), m);
	rgrid_set(g, row, c->mean, buf, m);
	numfmt_rsd(buf, sizeof(buf), rsd);
	rgrid_set(g, row, c->rsd, buf, rsd);
	snprintf(buf, sizeof(buf), "%zu", v ? v->n : 0);
	rgrid_set(g, row, c->n, buf, v ? (double)v->n : 0);
	return report_side_noisy(v, thr);
}

char *
report_unused_text(const struct report *r)
{
	const struct report_counts *n = &r->counts;

	if (n->failed + n->nometric + n->corrupt + n->truncated + n->unknown_format == 0)
		return xstrdup("");
	return xasprintf("  Lines not used: %zu failed (%zu of them infrastructure), %zu "
	    "without a metric, %zu corrupt, %zu truncated, %zu of an unknown format",
	    n->failed, n->infra, n->nometric, n->corrupt, n->truncated, n->unknown_format);
}

int
report_table_summary(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	double thr = report_threshold(r, o, base), m;
	struct rgrid *g;
	char *title, *unused = report_unused_text(r);
	size_t s, c;

	(void)err;
	title = xasprintf("Summary: mean and rsd of the trials; noisy: rsd > %g%% or fewer "
	    "than %d trials.%s", thr, VERDICT_MIN_TRIALS, unused);
	free(unused);
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

/*
 * The regressions of a judged report: a "REGRESSION:" line and a row of
 * the regressions grid for every worse row whose metric counts.  Adds the
 * grid to gs when it has a row; returns how many.  cells, when not NULL,
 * limits it to the cells flagged there.
 */
static int
regressions(const struct report *r, const struct rjudged *jd, const unsigned char *cells,
    struct rgrids *gs)
{
	struct rgrid *rg;
	struct strbuf sb;
	size_t i;
	int n = 0;

	rg = rgrid_new("regressions", "Regressions: worse, and a metric of the plan's "
	    "regression.metrics (every metric when it lists none)", RC_BASE_MEAN, RC_NCOLS,
	    regression_cols);
	strbuf_init(&sb, 0);
	for (i = 0; i < jd->n; i++) {
		const struct rjudge *j = &jd->rows[i];

		if (j->mark != RJUDGE_WORSE || (cells != NULL && !cells[j->cell]) ||
		    !report_regression_counts(r, j->series, j->base, &r->cells[j->cell]))
			continue;
		regression_add(rg, &sb, &r->cells[j->cell], r->series[j->base].name,
		    r->series[j->series].name, &j->d, j->q);
		n++;
	}
	if (rg->nrows > 0) {
		rg->text = strbuf_detach(&sb, NULL);
		rgrids_add(gs, rg);
	} else {
		strbuf_release(&sb);
		rgrid_free(rg);
	}
	return n;
}

/*
 * The geometric mean rows of a compare: for each compared pair and
 * (bench, metric) with at least two rows, the geometric means of the two
 * sides' means and of the rows' ratios (benchstat's geomean row).
 * add(row, ...) writes one row of a grid.
 */
struct geomean {
	size_t	series, base, cell;	/* cell: the (bench, metric)'s first */
	size_t	rows;
	double	bmean, mean;		/* geometric means of the sides' means */
	struct robust_change ch;
};

/* The geomean rows of jd (a new array, *n set). */
static struct geomean *
geomeans(const struct report *r, const struct rjudged *jd, const unsigned char *cells,
    size_t *n)
{
	struct geomean *gm = NULL;
	double *b = xcalloc(jd->n + 1, sizeof(*b)), *a = xcalloc(jd->n + 1, sizeof(*a));
	unsigned char *done = xcalloc(jd->n + 1, 1);
	size_t i, k, m, cap = 0;

	*n = 0;
	for (i = 0; i < jd->n; i++) {
		const struct rjudge *j = &jd->rows[i], *x;
		const struct rcell *ci = &r->cells[j->cell];

		if (done[i] || j->state == RJUDGE_NONE || (cells && !cells[j->cell]))
			continue;
		for (k = i, m = 0; k < jd->n; k++) {
			x = &jd->rows[k];
			if (x->series != j->series || x->state == RJUDGE_NONE ||
			    (cells && !cells[x->cell]) ||
			    strcmp(r->cells[x->cell].bench, ci->bench) != 0 ||
			    strcmp(r->cells[x->cell].metric, ci->metric) != 0)
				continue;
			done[k] = 1;
			b[m] = x->d.good;
			a[m++] = x->d.now;
		}
		if (m < 2)
			continue;
		xgrow(&gm, &cap, *n + 1, sizeof(*gm));
		gm[*n].series = j->series;
		gm[*n].base = j->base;
		gm[*n].cell = j->cell;
		gm[*n].rows = m;
		gm[*n].bmean = robust_geomean(b, m, NULL);
		gm[*n].mean = robust_geomean(a, m, NULL);
		robust_geomean_change(b, a, m, &gm[*n].ch);
		if (gm[*n].ch.used < 2)
			continue;
		(*n)++;
	}
	free(b);
	free(a);
	free(done);
	return gm;
}

int
report_table_compare(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	struct rjudged jd;
	struct geomean *gm;
	struct rgrid *g;
	char *title, *unused;
	size_t i, ngm;
	int n;

	if (report_judge(r, o, base, &jd, err) != 0)
		return -1;
	if (r->nseries < 2) {
		*err = xasprintf("nothing to compare %s with (one series; give another run, "
		    "or a run with another variant, label or host)", r->series[base].name);
		report_judged_release(&jd);
		return -1;
	}
	unused = report_unused_text(r);
	title = xasprintf("Compare against %s: mean and rsd of the trials; change of the "
	    "mean, + the value grew; ci: its 95%% interval; p: Welch's t-test; q: p "
	    "adjusted over the %zu rows judged (Benjamini-Hochberg); better/worse: q <= %g "
	    "and the interval reaches %g%%; cannot judge: fewer than %d trials a side or "
	    "noisy (rsd > %g%%), needed: trials a side that would decide it (none when "
	    "noisy: more trials will not help); outliers: "
	    "trials a modified z-score flags (kept).%s", r->series[base].name, jd.judged,
	    jd.fdr, jd.threshold, VERDICT_MIN_TRIALS, jd.threshold, unused);
	free(unused);
	g = rgrid_new("compare", title, CC_BASE_MEAN, CC_NCOLS, compare_cols);
	free(title);
	for (i = 0; i < jd.n; i++) {
		const struct rjudge *j = &jd.rows[i];
		const struct rcell *cell = &r->cells[j->cell];
		size_t row = rgrid_add_row(g);
		double bm, m;
		char buf[64];

		point_cells(g, row, cell);
		rgrid_set(g, row, CC_BASELINE, r->series[j->base].name, NAN);
		rgrid_set(g, row, CC_SERIES, r->series[j->series].name, NAN);
		report_cell_notes(r, j->base, j->cell, g, row, compare_base.mean);
		report_cell_notes(r, j->series, j->cell, g, row, compare_series.mean);
		series_cells(g, row, &compare_base, j->bv, jd.threshold, &bm);
		series_cells(g, row, &compare_series, j->v, jd.threshold, &m);
		rgrid_set(g, row, CC_NOISY, j->base_noisy && j->noisy ? "both" : j->base_noisy ?
		    "base" : j->noisy ? "series" : "", NAN);
		if (j->bv != NULL) {
			snprintf(buf, sizeof(buf), "%zu", j->base_outliers);
			rgrid_set(g, row, CC_BASE_OUT, buf, (double)j->base_outliers);
		}
		if (j->v != NULL) {
			snprintf(buf, sizeof(buf), "%zu", j->outliers);
			rgrid_set(g, row, CC_OUT, buf, (double)j->outliers);
		}
		if (j->state == RJUDGE_NONE)
			continue;
		numfmt_change(buf, sizeof(buf), j->d.change);
		rgrid_set(g, row, CC_CHANGE, buf, j->d.change);
		if (j->state != RJUDGE_JUDGED) {
			rgrid_set(g, row, CC_MARK, "cannot judge", NAN);
			if (j->needed) {
				snprintf(buf, sizeof(buf), "%zu", j->needed);
				rgrid_set(g, row, CC_NEEDED, buf, (double)j->needed);
			}
		}
		if (!j->d.tested)
			continue;
		if (!isnan(j->d.lo)) {
			numfmt_change(buf, sizeof(buf), j->d.lo);
			rgrid_set(g, row, CC_LO, buf, j->d.lo);
			numfmt_change(buf, sizeof(buf), j->d.hi);
			rgrid_set(g, row, CC_HI, buf, j->d.hi);
		}
		numfmt_p(buf, sizeof(buf), j->d.p);
		rgrid_set(g, row, CC_P, buf, j->d.p);
		if (!isnan(j->q)) {
			numfmt_p(buf, sizeof(buf), j->q);
			rgrid_set(g, row, CC_Q, buf, j->q);
		}
		if (j->mark != RJUDGE_UNMARKED)
			rgrid_set(g, row, CC_MARK, j->mark == RJUDGE_BETTER ? "better" : "worse",
			    NAN);
	}
	gm = geomeans(r, &jd, NULL, &ngm);
	for (i = 0; i < ngm; i++) {
		const struct rcell *cell = &r->cells[gm[i].cell];
		size_t row = rgrid_add_row(g);
		char buf[64];

		rgrid_set(g, row, COL_BENCH, cell->bench, NAN);
		rgrid_set(g, row, COL_PARAMS, "geomean", NAN);
		rgrid_set(g, row, COL_METRIC, cell->metric, NAN);
		rgrid_set(g, row, COL_UNIT, cell->unit, NAN);
		rgrid_set(g, row, CC_BASELINE, r->series[gm[i].base].name, NAN);
		rgrid_set(g, row, CC_SERIES, r->series[gm[i].series].name, NAN);
		numfmt_mean(buf, sizeof(buf), gm[i].bmean);
		rgrid_set(g, row, CC_BASE_MEAN, buf, gm[i].bmean);
		numfmt_mean(buf, sizeof(buf), gm[i].mean);
		rgrid_set(g, row, CC_MEAN, buf, gm[i].mean);
		snprintf(buf, sizeof(buf), "%zu", gm[i].ch.used);
		rgrid_set(g, row, CC_N, buf, (double)gm[i].ch.used);
		numfmt_change(buf, sizeof(buf), gm[i].ch.pct);
		rgrid_set(g, row, CC_CHANGE, buf, gm[i].ch.pct);
	}
	free(gm);
	rgrids_add(gs, g);
	n = regressions(r, &jd, NULL, gs);
	report_judged_release(&jd);
	return n;
}

/*
 * The parameters of cell that differ between the points of its benchmark
 * (the others, defaults and fixed values, are left out): "threads=4", or
 * "" when every point of the benchmark has the same.
 */
static char *
varying_params(const struct report *r, const struct rcell *cell)
{
	struct strbuf sb;
	const char *p = cell->params;
	size_t c;

	strbuf_init(&sb, 0);
	while (*p) {
		size_t len = strcspn(p, ",");
		char *item = xstrndup(p, len), *eq = strchr(item, '='), *key, *v;
		int varies = 0;

		key = eq ? xstrndup(item, (size_t)(eq - item)) : xstrdup(item);
		for (c = 0; c < r->ncells && !varies; c++) {
			if (strcmp(r->cells[c].bench, cell->bench) != 0)
				continue;
			v = report_param(r->cells[c].params, key);
			varies = v == NULL || strcmp(v, eq ? eq + 1 : "") != 0;
			free(v);
		}
		if (varies)
			strbuf_addf(&sb, "%s%s", sb.len ? "," : "", item);
		free(key);
		free(item);
		p += len;
		if (*p == ',')
			p++;
	}
	return strbuf_detach(&sb, NULL);
}

/* "5026 ±0.4%" (with "xN" when the trials are not the table's usual n). */
static void
side_text(char *buf, size_t cap, const struct rvals *v, double thr, size_t usual)
{
	char m[32];
	double rsd;

	if (v == NULL || v->n == 0) {
		snprintf(buf, cap, "-");
		return;
	}
	numfmt_mean(m, sizeof(m), stats_mean(v->v, v->n));
	rsd = verdict_rsd(v->v, v->n);
	/* values that never vary have no spread, even at 0 */
	if (v->n > 1 && isnan(rsd) && !report_side_noisy(v, thr))
		rsd = 0;
	if (isnan(rsd))
		snprintf(buf, cap, "%s", m);
	else
		snprintf(buf, cap, "%s ±%.1f%%", m, rsd);
	if (v->n != usual)
		snprintf(buf + strlen(buf), cap - strlen(buf), " n=%zu", v->n);
}

int
report_table_compact(const struct report *r, const struct report_opts *o, size_t base,
    const unsigned char *cells, struct rgrids *gs, char **err)
{
	struct rjudged jd;
	struct geomean *gm;
	size_t i, k, s, ngm, usual = 0, *hist = NULL, hcap = 0, one = 1;
	int multi = 0;

	if (report_judge(r, o, base, &jd, err) != 0)
		return -1;
	/* the usual number of trials, said once in the title */
	for (i = 0; i < jd.n; i++) {
		const struct rvals *sides[2] = { jd.rows[i].bv, jd.rows[i].v };

		for (k = 0; k < 2; k++) {
			size_t old = hcap;

			if (sides[k] == NULL || (cells && !cells[jd.rows[i].cell]))
				continue;
			if (sides[k]->n >= hcap) {
				xgrow(&hist, &hcap, sides[k]->n + 1, sizeof(*hist));
				memset(hist + old, 0, (hcap - old) * sizeof(*hist));
			}
			if (++hist[sides[k]->n] > hist[usual] || usual == 0)
				usual = sides[k]->n;
		}
	}
	free(hist);
	for (i = 1; i < r->ncells; i++)
		multi |= strcmp(r->cells[i].bench, r->cells[0].bench) != 0;
	gm = geomeans(r, &jd, cells, &ngm);
	for (s = 0; s < r->nseries; s++) {
		struct rgrid *g = NULL;
		size_t b = (size_t)-1;

		for (i = 0; i < jd.n; i++) {
			const struct rjudge *j = &jd.rows[i];
			const struct rcell *cell = &r->cells[j->cell];
			char buf[VERDICT_WHY_MAX + 32], *vp, *point;
			size_t row;

			if (j->series != s || (cells && !cells[j->cell]))
				continue;
			if (g == NULL) {
				char *title, *unused = report_unused_text(r);

				b = j->base;
				title = xasprintf("Compare: new %s against base %s (mean ±rsd of %zu "
				    "trial%s); change: + the value grew, with its 95%% interval; p: "
				    "Welch's t-test, q: adjusted over the %zu rows judged "
				    "(Benjamini-Hochberg); worse/better: q <= %g and the interval "
				    "reaches %g%%; cannot judge: fewer than %d trials a side (N needed: "
				    "the trials a side that would decide it) or rsd > %g%% (noisy, X%% > "
				    "%g%%: more trials will not help); !: outliers among the trials "
				    "(kept).%s",
				    r->series[s].name, r->series[b].name, usual, usual == one ? "" :
				    "s", jd.judged, jd.fdr, jd.threshold, VERDICT_MIN_TRIALS,
				    jd.threshold, jd.threshold, unused);
				free(unused);
				g = rgrid_new("compact", title, KC_BASE, KC_NCOLS, compact_cols);
				g->nhidden = KC_NHIDDEN;
				g->left_last = 1;
				free(title);
			}
			row = rgrid_add_row(g);
			rgrid_set(g, row, KC_BASELINE, r->series[j->base].name, NAN);
			rgrid_set(g, row, KC_SERIES, r->series[s].name, NAN);
			rgrid_set(g, row, KC_BENCH, cell->bench, NAN);
			rgrid_set(g, row, KC_PARAMS, cell->params, NAN);
			rgrid_set(g, row, KC_METRIC, cell->metric, NAN);
			rgrid_set(g, row, KC_UNIT, cell->unit, NAN);
			vp = varying_params(r, cell);
			point = xasprintf("%s%s%s (%s)%s%s", multi ? cell->bench : "", multi ? "." :
			    "", cell->metric, cell->unit, *vp ? " " : "", vp);
			rgrid_set(g, row, KC_POINT, point, NAN);
			free(point);
			free(vp);
			report_cell_notes(r, j->base, j->cell, g, row, KC_BASE);
			report_cell_notes(r, s, j->cell, g, row, KC_NEW);
			side_text(buf, sizeof(buf), j->bv, jd.threshold, usual);
			rgrid_set(g, row, KC_BASE, buf, j->bv ? stats_mean(j->bv->v, j->bv->n) : NAN);
			side_text(buf, sizeof(buf), j->v, jd.threshold, usual);
			rgrid_set(g, row, KC_NEW, buf, j->v ? stats_mean(j->v->v, j->v->n) : NAN);
			if (j->state == RJUDGE_NONE)
				continue;
			numfmt_change(buf, sizeof(buf), j->d.change);
			rgrid_set(g, row, KC_CHANGE, buf, j->d.change);
			if (j->d.tested && !isnan(j->d.lo)) {
				numfmt_interval(buf, sizeof(buf), j->d.lo, j->d.hi);
				rgrid_set(g, row, KC_INTERVAL, buf, NAN);
			}
			if (j->d.tested) {
				numfmt_p(buf, sizeof(buf), j->d.p);
				rgrid_set(g, row, KC_P, buf, j->d.p);
			}
			if (!isnan(j->q)) {
				numfmt_p(buf, sizeof(buf), j->q);
				rgrid_set(g, row, KC_Q, buf, j->q);
			}
			if (j->state != RJUDGE_JUDGED) {
				snprintf(buf, sizeof(buf), "cannot judge: ");
				report_judge_why(r, j, jd.threshold, VERDICT_WHY_SHORT,
				    buf + strlen(buf), sizeof(buf) - strlen(buf));
			} else
				snprintf(buf, sizeof(buf), "%s", j->mark == RJUDGE_WORSE ? "worse" :
				    j->mark == RJUDGE_BETTER ? "better" : "");
			if (j->base_outliers + j->outliers > 0)
				snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s!",
				    buf[0] ? " " : "");
			rgrid_set(g, row, KC_MARK, buf, NAN);
		}
		if (g == NULL)
			continue;
		for (i = 0; i < ngm; i++) {
			const struct rcell *cell = &r->cells[gm[i].cell];
			char buf[96], *point;
			size_t row;

			if (gm[i].series != s)
				continue;
			row = rgrid_add_row(g);
			rgrid_set(g, row, KC_BASELINE, r->series[gm[i].base].name, NAN);
			rgrid_set(g, row, KC_SERIES, r->series[s].name, NAN);
			rgrid_set(g, row, KC_BENCH, cell->bench, NAN);
			rgrid_set(g, row, KC_PARAMS, "geomean", NAN);
			rgrid_set(g, row, KC_METRIC, cell->metric, NAN);
			rgrid_set(g, row, KC_UNIT, cell->unit, NAN);
			point = xasprintf("%s%s%s (%s) geomean", multi ? cell->bench : "",
			    multi ? "." : "", cell->metric, cell->unit);
			rgrid_set(g, row, KC_POINT, point, NAN);
			free(point);
			numfmt_mean(buf, sizeof(buf), gm[i].bmean);
			rgrid_set(g, row, KC_BASE, buf, gm[i].bmean);
			numfmt_mean(buf, sizeof(buf), gm[i].mean);
			rgrid_set(g, row, KC_NEW, buf, gm[i].mean);
			numfmt_change(buf, sizeof(buf), gm[i].ch.pct);
			rgrid_set(g, row, KC_CHANGE, buf, gm[i].ch.pct);
		}
		rgrids_add(gs, g);
	}
	free(gm);
	report_judged_release(&jd);
	return 0;
}

int
report_table_regressions(const struct report *r, const struct report_opts *o, size_t base,
    const unsigned char *cells, struct rgrids *gs, char **err)
{
	struct rjudged jd;
	int n;

	if (report_judge(r, o, base, &jd, err) != 0)
		return -1;
	n = regressions(r, &jd, cells, gs);
	report_judged_release(&jd);
	return n;
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
	numfmt_mean(buf, sizeof(buf), lo);
	rgrid_set(g, row, SA_MIN, buf, lo);
	numfmt_mean(buf, sizeof(buf), med);
	rgrid_set(g, row, SA_MEDIAN, buf, med);
	numfmt_mean(buf, sizeof(buf), hi);
	rgrid_set(g, row, SA_MAX, buf, hi);
	if (med != 0 && isfinite(med) && isfinite(hi - lo)) {
		spread = (hi - lo) / fabs(med) * 100;
		snprintf(buf, sizeof(buf), "%.1f%%", spread);
		rgrid_set(g, row, SA_SPREAD, buf, spread);
	}
	for (i = 0; i < sm->n && sm->n <= REPORT_SAMPLES_SHOWN; i++) {
		numfmt_mean(buf, sizeof(buf), sm->v[i]);
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
