/*
 * report-matrix.c: a grid per series for a metric measured over two swept
 * parameters (threads down, pages across), and the %change grid of each
 * compared pair (report_pairs(): each series against the baseline group's
 * series of its host).
 *
 * For each (bench, metric), the parameters whose values differ between its
 * cells are the swept ones.  With two or more, the rows are "threads" if
 * it is swept, else the first swept parameter (in the lines' order); the
 * columns "pages" if swept, else the next one; any other swept parameter
 * gives one grid per combination of its values (named in the title).
 * Values sort numerically when they are all numbers.  A cell is the mean
 * of the trials (the median with --aggregate median); a change cell is the
 * plain change of that value, with " *" where the compare table would mark
 * it (verdict.h: Welch p < 0.05 and the change's 95% interval reaching the
 * threshold).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"
#include "report-int.h"
#include "report.h"
#include "robust.h"
#include "strv.h"
#include "verdict.h"
#include "xmalloc.h"

struct kv {
	char	*k, *v;
};

/* "k=v,k=v" into pairs (a new array; n set). */
static struct kv *
split_params(const char *params, size_t *n)
{
	struct kv *a = NULL;
	size_t cap = 0;
	const char *p = params;

	*n = 0;
	while (*p) {
		size_t len = strcspn(p, ","), klen;
		const char *eq = memchr(p, '=', len);

		klen = eq ? (size_t)(eq - p) : len;
		xgrow(&a, &cap, *n + 1, sizeof(*a));
		a[*n].k = xstrndup(p, klen);
		a[*n].v = eq ? xstrndup(eq + 1, len - klen - 1) : xstrdup("");
		(*n)++;
		p += len;
		if (*p == ',')
			p++;
	}
	return a;
}

static void
free_kv(struct kv *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(a[i].k);
		free(a[i].v);
	}
	free(a);
}

static const char *
kv_get(const struct kv *a, size_t n, const char *k)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(a[i].k, k) == 0)
			return a[i].v;
	return NULL;
}

static void
sort_num(struct strv *l)
{
	size_t i;

	if (l->n < 2)
		return;		/* l->s may be NULL, which qsort() must not get */
	for (i = 0; i < l->n; i++)
		if (!report_is_number(l->v[i]))
			return;
	qsort(l->v, l->n, sizeof(*l->v), report_cmp_num);
}

/* The cell of bench/metric whose params are `fixed` plus row=rv, col=cv. */
static long
find_cell(const struct report *r, const size_t *cells, size_t ncells, const char *rowk,
    const char *rv, const char *colk, const char *cv, const char *fixed)
{
	size_t i, j, n;

	for (i = 0; i < ncells; i++) {
		const struct rcell *c = &r->cells[cells[i]];
		struct kv *a = split_params(c->params, &n);
		const char *x = kv_get(a, n, rowk), *y = kv_get(a, n, colk);
		int match = x && y && strcmp(x, rv) == 0 && strcmp(y, cv) == 0;

		/* the other parameters must be the fixed ones */
		for (j = 0; match && j < n; j++) {
			char *item;

			if (strcmp(a[j].k, rowk) == 0 || strcmp(a[j].k, colk) == 0)
				continue;
			item = xasprintf("%s=%s", a[j].k, a[j].v);
			match = report_params_match(fixed, item);
			free(item);
		}
		free_kv(a, n);
		if (match)
			return (long)cells[i];
	}
	return -1;
}

/* The params of a cell without the row and column keys: "k=v,k=v". */
static char *
rest_of(const char *params, const char *rowk, const char *colk)
{
	size_t n, i, len = 0;
	struct kv *a = split_params(params, &n);
	char *out = xstrdup(""), *tmp;

	for (i = 0; i < n; i++) {
		if (strcmp(a[i].k, rowk) == 0 || strcmp(a[i].k, colk) == 0)
			continue;
		tmp = xasprintf("%s%s%s=%s", out, len ? "," : "", a[i].k, a[i].v);
		free(out);
		out = tmp;
		len = strlen(out);
	}
	free_kv(a, n);
	return out;
}

/* Only the swept parameters of rest, for titles: "huge=0" of "accesses=512,huge=0". */
static char *
swept_only(const char *rest, const struct strv *swept)
{
	size_t n, i, k;
	struct kv *a = split_params(rest, &n);
	char *out = xstrdup(""), *tmp;

	for (i = 0; i < n; i++)
		for (k = 0; k < swept->n; k++)
			if (strcmp(a[i].k, swept->v[k]) == 0) {
				tmp = xasprintf("%s%s%s=%s", out, *out ? "," : "", a[i].k, a[i].v);
				free(out);
				out = tmp;
			}
	free_kv(a, n);
	return out;
}

/*
 * A grid's columns: the hidden ones (CSV and JSON only) by name, then the
 * row parameter, then one per column value from MC_VALUES.
 */
enum matrix_col {
	MC_SERIES, MC_BASELINE, MC_BENCH, MC_METRIC, MC_PARAMS, MC_QUANTITY,
	MC_NHIDDEN,
	MC_ROW = MC_NHIDDEN,
	MC_VALUES
};

static const char *const hidden_cols[MC_NHIDDEN] = {
	[MC_SERIES] = "series", [MC_BASELINE] = "baseline", [MC_BENCH] = "bench",
	[MC_METRIC] = "metric", [MC_PARAMS] = "params", [MC_QUANTITY] = "quantity",
};

static struct rgrid *
new_grid(const char *title, const char *rowk, const struct strv *cols, const char *colk)
{
	const char **names = xcalloc(cols->n + MC_VALUES, sizeof(*names));
	char **owned = xcalloc(cols->n + 1, sizeof(*owned));
	struct rgrid *g;
	size_t i;

	for (i = 0; i < MC_NHIDDEN; i++)
		names[i] = hidden_cols[i];
	names[MC_ROW] = rowk;
	for (i = 0; i < cols->n; i++) {
		owned[i] = xasprintf("%s=%s", colk, cols->v[i]);
		names[MC_VALUES + i] = owned[i];
	}
	g = rgrid_new("matrix", title, MC_VALUES, cols->n + MC_VALUES, names);
	g->nhidden = MC_NHIDDEN;
	strv_free(owned, cols->n);
	free(names);
	return g;
}

/* A value cell: "1010 ±0.4%", and " !" when a trial is an outlier. */
static void
value_cell(char *buf, size_t cap, const struct rvals *v, double m, double thr)
{
	struct robust_outliers out;
	double rsd = verdict_rsd(v->v, v->n);
	char *err = NULL;
	size_t len;

	numfmt_fixed(buf, cap, m, 4);
	if (v->n > 1 && isnan(rsd) && !report_side_noisy(v, thr))
		rsd = 0;
	len = strlen(buf);
	if (!isnan(rsd))
		snprintf(buf + len, cap - len, " ±%.1f%%", rsd);
	if (robust_outliers(v->v, v->n, NULL, &out, &err) == 0 && out.count > 0) {
		len = strlen(buf);
		snprintf(buf + len, cap - len, " !");
	}
	free(err);
}

/* The grids of one (bench, metric). */
static void
grids_for(const struct report *r, const struct report_opts *o, const size_t *pairs,
    const struct rjudged *jd, const size_t *cells, size_t ncells, const char *rowk, const char *colk,
    const struct strv *swept, struct rgrids *gs)
{
	const struct rcell *c0 = &r->cells[cells[0]];
	struct strv rows = STRV_INIT, cols = STRV_INIT, rests = STRV_INIT;
	size_t i, f, s, x, y, n;

	for (i = 0; i < ncells; i++) {
		struct kv *a = split_params(r->cells[cells[i]].params, &n);
		const char *rv = kv_get(a, n, rowk), *cv = kv_get(a, n, colk);
		char *rest;

		if (rv && cv) {
			strv_push_unique(&rows, rv);
			strv_push_unique(&cols, cv);
			rest = rest_of(r->cells[cells[i]].params, rowk, colk);
			strv_push_unique(&rests, rest);
			free(rest);
		}
		free_kv(a, n);
	}
	sort_num(&rows);
	sort_num(&cols);

	for (f = 0; f < rests.n; f++) {
		char *fixed = swept_only(rests.v[f], swept);
		long *map = xcalloc(rows.n * cols.n, sizeof(*map));

		for (x = 0; x < rows.n; x++)
			for (y = 0; y < cols.n; y++)
				map[x * cols.n + y] = find_cell(r, cells, ncells, rowk, rows.v[x],
				    colk, cols.v[y], rests.v[f]);
		/* one grid per series, then one per compared pair */
		for (s = 0; s < 2 * r->nseries; s++) {
			size_t si = s % r->nseries, b = pairs[si];
			int change = s >= r->nseries, any = 0;
			struct rgrid *g;
			char *title;

			if (change && b == (size_t)-1)
				continue;
			if (change)
				title = xasprintf("%s %s (%% change of the %s, + the value grew; "
				    "* significant: q <= %g and the 95%% interval reaches %g%%; ? "
				    "cannot judge: fewer than %d trials a side or rsd > %g%%; ! "
				    "outliers among the trials)%s%s: %s against %s", c0->bench,
				    c0->metric, o->aggregate == REPORT_AGG_MEDIAN ? "median" :
				    "mean", jd->fdr, jd->threshold, VERDICT_MIN_TRIALS,
				    jd->threshold, *fixed ? ", " : "", fixed, r->series[si].name,
				    r->series[b].name);
			else
				title = xasprintf("%s %s (%s, %s of %s ±rsd; ! outliers among the "
				    "trials)%s%s: %s", c0->bench, c0->metric, c0->unit,
				    o->aggregate == REPORT_AGG_MEDIAN ? "median" : "mean", "trials",
				    *fixed ? ", " : "", fixed, r->series[si].name);
			g = new_grid(title, rowk, &cols, colk);
			free(title);
			for (x = 0; x < rows.n; x++) {
				size_t row = rgrid_add_row(g);

				rgrid_set(g, row, MC_SERIES, r->series[si].name, NAN);
				rgrid_set(g, row, MC_BASELINE, change ? r->series[b].name : "", NAN);
				rgrid_set(g, row, MC_BENCH, c0->bench, NAN);
				rgrid_set(g, row, MC_METRIC, c0->metric, NAN);
				rgrid_set(g, row, MC_PARAMS, rests.v[f], NAN);
				rgrid_set(g, row, MC_QUANTITY, change ? "change%" : o->aggregate ==
				    REPORT_AGG_MEDIAN ? "median" : "mean", NAN);
				rgrid_set(g, row, MC_ROW, rows.v[x], NAN);
				for (y = 0; y < cols.n; y++) {
					long ci = map[x * cols.n + y];
					const struct rvals *v = ci >= 0 ?
					    report_vals(r, si, (size_t)ci) : NULL;
					double m = report_agg(v, o->aggregate), bm, ch;
					const struct rvals *bv;
					const struct rjudge *j;
					char buf[64];

					if (isnan(m))
						continue;
					if (!change) {
						value_cell(buf, sizeof(buf), v, m, jd->threshold);
						rgrid_set(g, row, MC_VALUES + y, buf, m);
						report_cell_notes(r, si, (size_t)ci, g, row,
						    MC_VALUES + y);
						any = 1;
						continue;
					}
					bv = report_vals(r, b, (size_t)ci);
					bm = report_agg(bv, o->aggregate);
					if (isnan(bm) || bm == 0)
						continue;
					ch = (m - bm) / fabs(bm) * 100;
					j = report_judged_row(jd, si, (size_t)ci);
					snprintf(buf, sizeof(buf), "%+.1f%%%s%s", ch, j == NULL ? "" :
					    j->mark != RJUDGE_UNMARKED ? " *" :
					    j->state == RJUDGE_FEW || j->state == RJUDGE_NOISY ? " ?" :
					    "", j != NULL && j->base_outliers + j->outliers > 0 ? " !" :
					    "");
					rgrid_set(g, row, MC_VALUES + y, buf, ch);
					any = 1;
				}
			}
			if (any)
				rgrids_add(gs, g);
			else
				rgrid_free(g);
		}
		free(map);
		free(fixed);
	}
	strv_clear(&rows);
	strv_clear(&cols);
	strv_clear(&rests);
}

/*
 * The row and column parameters of a (bench, metric) whose cells sweep two
 * or more parameters (swept: report_swept()); 0, or -1 when it sweeps fewer.
 */
static int
axes(const struct strv *swept, const char **rowk, const char **colk)
{
	size_t k;

	*rowk = *colk = NULL;
	if (swept->n < 2)
		return -1;
	for (k = 0; k < swept->n; k++)
		if (strcmp(swept->v[k], "threads") == 0)
			*rowk = swept->v[k];
	for (k = 0; k < swept->n; k++)
		if (strcmp(swept->v[k], "pages") == 0 && swept->v[k] != *rowk)
			*colk = swept->v[k];
	for (k = 0; k < swept->n && (*rowk == NULL || *colk == NULL); k++) {
		if (swept->v[k] == *rowk || swept->v[k] == *colk)
			continue;
		if (*rowk == NULL)
			*rowk = swept->v[k];
		else
			*colk = swept->v[k];
	}
	return 0;
}

size_t
report_matrix_cells(const struct report *r, unsigned char *in)
{
	size_t *cells = xcalloc(r->ncells + 1, sizeof(*cells)), ncells, c, k, n = 0;
	unsigned char *done = xcalloc(r->ncells + 1, 1);
	const char *rowk, *colk;

	memset(in, 0, r->ncells);
	for (c = 0; c < r->ncells; c++) {
		struct strv swept = STRV_INIT;

		if (done[c])
			continue;
		ncells = report_metric_cells(r, c, done, cells);
		report_swept(r, cells, ncells, &swept);
		if (axes(&swept, &rowk, &colk) == 0)
			for (k = 0; k < ncells; k++) {
				in[cells[k]] = 1;
				n++;
			}
		strv_clear(&swept);
	}
	free(cells);
	free(done);
	return n;
}

int
report_table_matrix(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	size_t *pairs, *cells, ncells, c, before = gs->n;
	unsigned char *done;
	struct rjudged jd;

	if (report_judge(r, o, base, &jd, err) != 0)
		return -1;
	pairs = report_pairs(r, base, NULL);
	done = xcalloc(r->ncells + 1, 1);
	cells = xcalloc(r->ncells + 1, sizeof(*cells));
	for (c = 0; c < r->ncells; c++) {
		struct strv swept = STRV_INIT;
		const char *rowk, *colk;

		if (done[c])
			continue;
		ncells = report_metric_cells(r, c, done, cells);
		report_swept(r, cells, ncells, &swept);
		if (axes(&swept, &rowk, &colk) == 0)
			grids_for(r, o, pairs, &jd, cells, ncells, rowk, colk, &swept, gs);
		strv_clear(&swept);
	}
	free(cells);
	free(done);
	free(pairs);
	report_judged_release(&jd);
	return gs->n > before ? 0 : 1;
}
