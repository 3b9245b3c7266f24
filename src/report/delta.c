/*
 * report-delta.c: "metric: A -> B +x%" lines between the baseline and
 * each other series, as in linux-kernel mail ("fork: 166 -> 187 -13%").
 * The sign says better (+) or worse (-) whatever the metric's direction:
 * a latency that grew is negative, a bandwidth that grew is positive.
 * Values are the mean of the trials (the median with --aggregate median).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"
#include "report-int.h"
#include "report.h"
#include "xmalloc.h"

/* Percent better (+) or worse (-); NAN when a is 0. */
static double
better_pct(double a, double b, int higher_better)
{
	if (a == 0 || isnan(a) || isnan(b))
		return NAN;
	return (higher_better ? b - a : a - b) / fabs(a) * 100;
}

char *
report_delta_line(const char *name, double a, double b, int higher_better)
{
	char sa[64], sb[64], sp[64];
	double p = better_pct(a, b, higher_better);

	numfmt_fixed(sa, sizeof(sa), a, 3);
	numfmt_fixed(sb, sizeof(sb), b, 3);
	if (isnan(p))
		snprintf(sp, sizeof(sp), "n/a");
	else
		numfmt_change_whole(sp, sizeof(sp), p);
	return xasprintf("%s: %s -> %s %s", name, sa, sb, sp);
}

/* Percent grown (+) or shrunk (-); NAN when a is 0. */
static double
grew_pct(double a, double b)
{
	if (a == 0 || isnan(a) || isnan(b))
		return NAN;
	return (b - a) / fabs(a) * 100;
}

/* "NAME: A -> B +x% worse": the sign of the compare table, then the word. */
static char *
grew_line(const char *name, double a, double b, int higher_better)
{
	char sa[64], sb[64], sp[64];
	double p = grew_pct(a, b);

	numfmt_fixed(sa, sizeof(sa), a, 3);
	numfmt_fixed(sb, sizeof(sb), b, 3);
	if (isnan(p))
		return xasprintf("%s: %s -> %s n/a", name, sa, sb);
	numfmt_change_whole(sp, sizeof(sp), p);
	return xasprintf("%s: %s -> %s %s%s", name, sa, sb, sp, p == 0 ? "" :
	    (p > 0) == (higher_better != 0) ? " better" : " worse");
}

int
report_table_delta(const struct report *r, const struct report_opts *o, size_t base,
    int grew, struct rgrids *gs, char **err)
{
	/* the columns by name: the enum indexes the names */
	enum { DC_BASELINE, DC_SERIES, DC_METRIC, DC_BASE, DC_VALUE, DC_CHANGE, DC_NCOLS };
	static const char *const cols[DC_NCOLS] = {
		[DC_BASELINE] = "baseline", [DC_SERIES] = "series", [DC_METRIC] = "metric",
		[DC_BASE] = "base", [DC_VALUE] = "value", [DC_CHANGE] = "change%",
	};
	enum report_aggregate agg = o->aggregate == REPORT_AGG_MEDIAN ? REPORT_AGG_MEDIAN :
	    REPORT_AGG_MEAN;
	struct rgrid *g;
	char *text = NULL, *title;
	size_t len = 0, s, c, nothers = 0, *pairs, b;
	FILE *mem;

	if (r->nseries < 2) {
		*err = xstrdup("the delta table needs two series (give two runs, or a run "
		    "with two variants, labels or hosts)");
		return -1;
	}
	if ((mem = open_memstream(&text, &len)) == NULL)
		return err_set(err, -1, "out of memory");
	pairs = report_pairs(r, base, NULL);
	for (s = 0; s < r->nseries; s++)
		nothers += pairs[s] != (size_t)-1;
	if (nothers == 0) {
		*err = xasprintf("nothing to compare %s with", r->series[base].name);
		free(pairs);
		fclose(mem);
		free(text);
		return -1;
	}
	title = xasprintf(grew ? "Delta against %s (+ the value grew, as in the compare "
	    "table; then worse or better)" : "Delta against %s (+ better, - worse)",
	    r->series[base].name);
	g = rgrid_new("delta", title, DC_BASE, DC_NCOLS, cols);
	free(title);
	for (s = 0; s < r->nseries; s++) {
		if ((b = pairs[s]) == (size_t)-1)
			continue;
		if (nothers > 1)
			fprintf(mem, "%s## %s -> %s\n", ftell(mem) ? "\n" : "",
			    r->series[b].name, r->series[s].name);
		for (c = 0; c < r->ncells; c++) {
			const struct rcell *cell = &r->cells[c];
			const char *lname = report_lmbench_name(cell);
			double a = report_agg(report_vals(r, b, c), agg);
			double v = report_agg(report_vals(r, s, c), agg);
			char *name, *line, num[64];
			size_t row;

			if (isnan(a) || isnan(v))
				continue;
			if (lname)
				name = xstrdup(lname);
			else if (cell->params[0])
				name = xasprintf("%s.%s[%s]", cell->bench, cell->metric,
				    cell->params);
			else
				name = xasprintf("%s.%s", cell->bench, cell->metric);
			line = grew ? grew_line(name, a, v, cell->higher) :
			    report_delta_line(name, a, v, cell->higher);
			fprintf(mem, "%s\n", line);
			row = rgrid_add_row(g);
			rgrid_set(g, row, DC_BASELINE, r->series[b].name, NAN);
			rgrid_set(g, row, DC_SERIES, r->series[s].name, NAN);
			rgrid_set(g, row, DC_METRIC, name, NAN);
			numfmt_fixed(num, sizeof(num), a, 3);
			rgrid_set(g, row, DC_BASE, num, a);
			numfmt_fixed(num, sizeof(num), v, 3);
			rgrid_set(g, row, DC_VALUE, num, v);
			{
				double p = grew ? grew_pct(a, v) : better_pct(a, v, cell->higher);

				if (isnan(p))
					snprintf(num, sizeof(num), "n/a");
				else
					numfmt_change_whole(num, sizeof(num), p);
				rgrid_set(g, row, DC_CHANGE, num, p);
			}
			free(line);
			free(name);
		}
	}
	fclose(mem);
	free(pairs);
	g->text = text;
	rgrids_add(gs, g);
	return 0;
}
