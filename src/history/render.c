/*
 * history-render.c: a history (history.h) as text, Markdown, CSV, JSON or
 * one self-contained HTML page of trend charts.
 *
 * Text and Markdown show a row per segment of each series (or, asked, per
 * night); CSV and JSON a row per (series, night), for other tools.  The
 * page has the change points as a table, then a small SVG chart per
 * series in a grid (small multiples): the nights' values, the segments'
 * means as level lines, the change points as marked verticals, and each
 * night's date, label and value in a <title> on hover.  Like the report's
 * page (report-html.c) it has no script and asks for nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "archive.h"
#include "csv.h"
#include "history.h"
#include "html.h"
#include "jsonout.h"
#include "numfmt.h"
#include "report.h"
#include "rgrid.h"
#include "rundir.h"
#include "strv.h"
#include "svg.h"
#include "utf8.h"
#include "xmalloc.h"

/* --- What the rows say ------------------------------------------------------------ */

static int
any_variant(const struct history *h)
{
	size_t i;

	for (i = 0; i < h->nseries; i++)
		if (h->series[i].key.variant != NULL)
			return 1;
	return 0;
}

static size_t
nhosts(const struct history *h)
{
	size_t i, j, n = 0;

	for (i = 0; i < h->nseries; i++) {
		for (j = 0; j < i && strcmp(h->series[j].key.host, h->series[i].key.host) != 0; j++)
			;
		n += j == i;
	}
	return n;
}

static double
rsd(double mean, double sd)
{
	return isfinite(sd) && mean != 0 ? fabs(sd / mean) * 100 : NAN;
}

/* The date of a run start: its first ten characters ("2001-11-30"). */
static void
fmt_date(char *buf, size_t cap, const char *start)
{
	snprintf(buf, cap, "%.10s", start);
}

static const struct history_run *
night_run(const struct history *h, const struct history_series *s, size_t i)
{
	return &h->runs[s->nights[i].run];
}

/* "LABEL -> LABEL": the nights around change c of s. */
static char *
change_labels(const struct history_series *s, const struct history_change *c)
{
	return xasprintf("%s -> %s", s->nights[c->night - 1].label, s->nights[c->night].label);
}

/* The columns every row of a series starts with. */
static size_t
series_cells(struct rgrid *g, size_t row, const struct history_series *s, int variant)
{
	size_t j = 0;

	rgrid_set(g, row, j++, s->key.host, NAN);
	if (variant)
		rgrid_set(g, row, j++, s->key.variant, NAN);
	rgrid_set(g, row, j++, s->key.bench, NAN);
	rgrid_set(g, row, j++, s->key.params, NAN);
	rgrid_set(g, row, j++, s->key.metric, NAN);
	rgrid_set(g, row, j++, s->key.unit, NAN);
	return j;
}

/* change, p, mark, labels of change c (NULL: blank). */
static size_t
change_cells(struct rgrid *g, size_t row, size_t j, const struct history_series *s,
    const struct history_change *c)
{
	char buf[64], *labels;

	if (c == NULL)
		return j + 4;
	numfmt_change(buf, sizeof(buf), c->pct);
	rgrid_set(g, row, j++, buf, c->pct);
	snprintf(buf, sizeof(buf), "%.3g", c->p);
	rgrid_set(g, row, j++, buf, c->p);
	rgrid_set(g, row, j++, c->worse ? "worse" : "better", NAN);
	labels = change_labels(s, c);
	rgrid_set(g, row, j++, labels, NAN);
	free(labels);
	return j;
}

/* A table's columns: names and their alignment in text and Markdown. */
struct col {
	const char	*name;
	int		 right;		/* right-aligned */
};

static const struct col seg_cols[] = {
	{ "host", 0 }, { "variant", 0 }, { "bench", 0 }, { "params", 0 }, { "metric", 0 },
	{ "unit", 0 }, { "from", 0 }, { "to", 0 }, { "nights", 1 }, { "mean", 1 },
	{ "rsd", 1 }, { "change", 1 }, { "p", 1 }, { "mark", 0 }, { "labels", 0 },
	{ "first run", 0 },
};

static const struct col night_cols[] = {
	{ "host", 0 }, { "variant", 0 }, { "bench", 0 }, { "params", 0 }, { "metric", 0 },
	{ "unit", 0 }, { "date", 0 }, { "run", 0 }, { "label", 0 }, { "value", 1 },
	{ "rsd", 1 }, { "n", 1 }, { "change", 1 }, { "p", 1 }, { "mark", 0 },
	{ "labels", 0 },
};

static const struct col csv_cols[] = {
	{ "host", 0 }, { "variant", 0 }, { "bench", 0 }, { "params", 0 }, { "metric", 0 },
	{ "unit", 0 }, { "direction", 0 }, { "start", 0 }, { "run", 0 }, { "label", 0 },
	{ "value", 1 }, { "sd", 1 }, { "n", 1 }, { "segment", 1 }, { "segment_mean", 1 },
	{ "change", 1 }, { "change_lo", 1 }, { "change_hi", 1 }, { "p", 1 },
	{ "mark", 0 }, { "label_before", 0 }, { "label_after", 0 },
};

#define NCOLS(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * A grid of the columns, without "variant" when no series has one: a
 * table of its own (no "table" column), its heading written by the caller.
 */
static struct rgrid *
grid_for(const struct col *cols, size_t n, int variant)
{
	const char **names = xcalloc(n, sizeof(*names));
	char *align = xcalloc(n + 1, 1);
	struct rgrid *g;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (variant || strcmp(cols[i].name, "variant") != 0) {
			align[k] = cols[i].right ? 'r' : 'l';
			names[k++] = cols[i].name;
		}
	/* the series' names (host to unit) are the keys */
	g = rgrid_new(NULL, NULL, variant ? 6 : 5, k, names);
	rgrid_align(g, align);
	free(names);
	free(align);
	return g;
}

/* A mean and its rsd as cells j and j + 1; the column after them. */
static size_t
mean_cells(struct rgrid *g, size_t row, size_t j, double mean, double sd)
{
	char buf[64];
	double r = rsd(mean, sd);

	numfmt_mean(buf, sizeof(buf), mean);
	rgrid_set(g, row, j, buf, mean);
	numfmt_rsd(buf, sizeof(buf), r);
	rgrid_set(g, row, j + 1, buf, r);
	return j + 2;
}

/* The date of series s's night k as cell j; the column after it. */
static size_t
date_cell(struct rgrid *g, size_t row, size_t j, const struct history *h,
    const struct history_series *s, size_t k)
{
	char buf[64];

	fmt_date(buf, sizeof(buf), night_run(h, s, k)->start);
	rgrid_set(g, row, j, buf, NAN);
	return j + 1;
}

/* A count as cell j; the column after it. */
static size_t
count_cell(struct rgrid *g, size_t row, size_t j, size_t n)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%zu", n);
	rgrid_set(g, row, j, buf, (double)n);
	return j + 1;
}

static void
segment_rows(const struct history *h, struct rgrid *g, int variant)
{
	size_t i, k, row, j;

	for (i = 0; i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];

		for (k = 0; k < s->nsegments; k++) {
			const struct history_segment *sg = &s->segments[k];

			row = rgrid_add_row(g);
			j = series_cells(g, row, s, variant);
			j = date_cell(g, row, j, h, s, sg->start);
			j = date_cell(g, row, j, h, s, sg->start + sg->n - 1);
			j = count_cell(g, row, j, sg->n);
			j = mean_cells(g, row, j, sg->mean, sg->sd);
			j = change_cells(g, row, j, s, sg->change != HISTORY_NONE ?
			    &s->changes[sg->change] : NULL);
			rgrid_set(g, row, j++, night_run(h, s, sg->start)->id, NAN);
		}
	}
}

static void
night_rows(const struct history *h, struct rgrid *g, int variant)
{
	size_t i, k, row, j;

	for (i = 0; i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];

		for (k = 0; k < s->n; k++) {
			const struct history_night *nt = &s->nights[k];
			const struct history_segment *sg = &s->segments[nt->segment];

			row = rgrid_add_row(g);
			j = series_cells(g, row, s, variant);
			j = date_cell(g, row, j, h, s, k);
			rgrid_set(g, row, j++, night_run(h, s, k)->id, NAN);
			rgrid_set(g, row, j++, nt->label, NAN);
			j = mean_cells(g, row, j, nt->value, nt->sd);
			j = count_cell(g, row, j, nt->n);
			change_cells(g, row, j, s, sg->change != HISTORY_NONE && sg->start == k ?
			    &s->changes[sg->change] : NULL);
		}
	}
}

/* Every night, with what other tools need: full times, sds, the interval. */
static void
csv_rows(const struct history *h, struct rgrid *g)
{
	char buf[64];
	size_t i, k, row, j;

	for (i = 0; i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];

		for (k = 0; k < s->n; k++) {
			const struct history_night *nt = &s->nights[k];
			const struct history_segment *sg = &s->segments[nt->segment];
			const struct history_change *c = sg->change != HISTORY_NONE &&
			    sg->start == k ? &s->changes[sg->change] : NULL;

			row = rgrid_add_row(g);
			j = series_cells(g, row, s, 1);
			rgrid_set(g, row, j++, s->higher ? "higher" : "lower", NAN);
			rgrid_set(g, row, j++, night_run(h, s, k)->start, NAN);
			rgrid_set(g, row, j++, night_run(h, s, k)->id, NAN);
			rgrid_set(g, row, j++, nt->label, NAN);
			rgrid_set(g, row, j++, NULL, nt->value);
			rgrid_set(g, row, j++, NULL, nt->sd);
			rgrid_set(g, row, j++, NULL, (double)nt->n);
			snprintf(buf, sizeof(buf), "%zu", nt->segment);
			rgrid_set(g, row, j++, buf, NAN);
			rgrid_set(g, row, j++, NULL, sg->mean);
			if (c == NULL)
				continue;
			rgrid_set(g, row, j++, NULL, c->pct);
			rgrid_set(g, row, j++, NULL, c->lo);
			rgrid_set(g, row, j++, NULL, c->hi);
			rgrid_set(g, row, j++, NULL, c->p);
			rgrid_set(g, row, j++, c->worse ? "worse" : "better", NAN);
			rgrid_set(g, row, j++, s->nights[k - 1].label, NAN);
			rgrid_set(g, row, j++, nt->label, NAN);
		}
	}
}

/* " (5 runs: a run group's are one night)" when groups made nights of
 * several runs, else "": in buf. */
static const char *
group_runs(const struct history *h, char *buf, size_t size)
{
	*buf = '\0';
	if (h->nruns != h->nnights)
		snprintf(buf, size, " (%zu runs: a run group's are one night)", h->nruns);
	return buf;
}

/* The lines above a text or Markdown table. */
static void
heading(const struct history *h, const struct history_render_opts *o, FILE *out)
{
	const char *first = h->nruns ? h->runs[0].start : "", *last = h->nruns ?
	    h->runs[h->nruns - 1].start : "";
	char buf[96];

	if (o->format == REPORT_MD)
		fprintf(out, "### History of plan %s\n\n", h->plan);
	fprintf(out, "History of plan '%s' in %s: %zu night%s%s from %.10s to %.10s, %zu "
	    "series on %zu host%s.\n", h->plan, h->source, h->nnights,
	    h->nnights == 1 ? "" : "s", group_runs(h, buf, sizeof(buf)), first, last,
	    h->nseries, nhosts(h), nhosts(h) == 1 ? "" : "s");
	fprintf(out, "Change points (E-divisive means, permutation test p <= 0.05, segments of "
	    "at least 3 nights, changes of at least %g%%): %zu, %zu worse, %zu better.\n",
	    h->threshold, h->nchanges, h->nworse, h->nchanges - h->nworse);
	if (o->nights)
		fputs("A row per night: the mean of its trials and their rsd; change, p and "
		    "mark on the first night of a new segment.\n", out);
	else
		fputs("A row per segment: its nights, their mean and night-to-night rsd; change, "
		    "p and mark where a change point starts it (every night: --nights).\n", out);
}

/*
 * The git bisect lines of each worse change whose night and the night
 * before carry commits (run.json "commit").
 */
static void
bisect_lines(const struct history *h, FILE *out)
{
	size_t i, k;
	int first = 1;

	for (i = 0; i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];

		for (k = 0; k < s->nchanges; k++) {
			const struct history_change *c = &s->changes[k];
			const struct history_run *bad, *good;
			char *ref;

			if (!c->worse || c->night == 0)
				continue;
			bad = night_run(h, s, c->night);
			good = night_run(h, s, c->night - 1);
			if (bad->commit == NULL || good->commit == NULL)
				continue;
			if (first)
				fprintf(out, "\nTo find the commit of a worse change (the night before it "
				    "good, its night bad):\n");
			first = 0;
			ref = archive_is_url(h->source) ? xasprintf("%s/%s", h->source, good->id) :
			    xstrdup(good->dir);
			fprintf(out, "  %s.%s%s%s%s on %s, %s:\n", s->key.bench, s->key.metric,
			    *s->key.params ? "[" : "", s->key.params, *s->key.params ? "]" : "",
			    s->key.host, bad->id);
			fprintf(out, "    git bisect start %s %s\n", bad->commit, good->commit);
			fprintf(out, "    git bisect run fleetmark bisect-run %s -H %s --metric "
			    "'%s.%s%s%s%s' --baseline %s --threshold %g%%\n", bad->plan_file ?
			    bad->plan_file : h->plan, s->key.host, s->key.bench, s->key.metric,
			    *s->key.params ? "[" : "", s->key.params, *s->key.params ? "]" : "", ref,
			    h->threshold);
			free(ref);
		}
	}
}

static void
render_table(const struct history *h, const struct history_render_opts *o, FILE *out)
{
	int variant = any_variant(h);
	struct rgrid *g;
	size_t base = 0;

	if (o->format == REPORT_CSV)
		g = grid_for(csv_cols, NCOLS(csv_cols), 1);
	else if (o->nights)
		g = grid_for(night_cols, NCOLS(night_cols), variant);
	else
		g = grid_for(seg_cols, NCOLS(seg_cols), variant);
	if (o->format == REPORT_CSV)
		csv_rows(h, g);
	else if (o->nights)
		night_rows(h, g, variant);
	else
		segment_rows(h, g, variant);
	if (o->format == REPORT_CSV)
		rgrid_print_csv(g, out);
	else {
		history_env_render(h, o->format, out);
		heading(h, o, out);
		fputc('\n', out);
		if (o->format == REPORT_MD)
			rgrid_print_md(g, out, &base);
		else
			rgrid_print_text(g, out);
		bisect_lines(h, out);
	}
	rgrid_free(g);
}

/* --- JSON ---------------------------------------------------------------------- */

/*
 * Written with printf, not built with jansson: a year of 500 series is
 * 180,000 objects, which jansson takes seconds to build and dump.  What
 * is the same on every night of a series (or run) is dumped once; the
 * strings through jansson, which escapes them.
 */

/* The members every night of s has: {"host":...,"params":{...} without the brace. */
static char *
series_json(const struct history_series *s)
{
	json_t *o = json_object(), *p = json_object();
	char *d;
	size_t i;

	for (i = 0; i < s->nparams; i++)
		rundir_json_set(p, s->pkeys[i], rundir_json_str(s->pvals[i]));
	rundir_json_set(o, "host", rundir_json_str(s->key.host));
	rundir_json_set(o, "variant", rundir_json_str(s->key.variant));
	rundir_json_set(o, "bench", rundir_json_str(s->key.bench));
	rundir_json_set(o, "metric", rundir_json_str(s->key.metric));
	rundir_json_set(o, "unit", rundir_json_str(s->key.unit));
	json_object_set_new(o, "direction", json_string(s->higher ? "higher" : "lower"));
	json_object_set_new(o, "params", p);
	d = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	d[strlen(d) - 1] = '\0';
	return d;
}

static void
render_json(const struct history *h, FILE *out)
{
	char **jid = xcalloc(h->nruns + 1, sizeof(*jid)), **jstart = xcalloc(h->nruns + 1,
	    sizeof(*jstart)), **jgroup = xcalloc(h->nruns + 1, sizeof(*jgroup)), *prefix,
	    *label, *l0, a[NUMFMT_MAX], b[NUMFMT_MAX], c[NUMFMT_MAX], d[NUMFMT_MAX];
	size_t i, k;
	int first = 1;

	for (i = 0; i < h->nruns; i++) {
		jid[i] = jsonout_str(h->runs[i].id);
		jstart[i] = jsonout_str(h->runs[i].start);
		jgroup[i] = jsonout_str(h->runs[i].group);
	}
	for (i = 0; i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];

		prefix = series_json(s);
		for (k = 0; k < s->n; k++) {
			const struct history_night *nt = &s->nights[k];
			const struct history_segment *sg = &s->segments[nt->segment];

			label = jsonout_str(nt->label);
			fprintf(out, "%s%s,\"run\":%s,\"group\":%s,\"start\":%s,\"label\":%s,"
			    "\"value\":%s,\"sd\":%s,\"rsd\":%s,\"n\":%zu,\"segment\":%zu,"
			    "\"segment_mean\":%s,\"change\":", first ? "[\n" : ",\n", prefix,
			    jid[nt->run], jgroup[nt->run], jstart[nt->run], label, jsonout_num(a, nt->value), jsonout_num(b, nt->sd),
			    jsonout_num(c, rsd(nt->value, nt->sd)), nt->n, nt->segment, jsonout_num(d, sg->mean));
			first = 0;
			if (sg->change != HISTORY_NONE && sg->start == k) {
				const struct history_change *ch = &s->changes[sg->change];

				fprintf(out, "{\"pct\":%s,\"lo\":%s,\"hi\":%s,", jsonout_num(a, ch->pct),
				    jsonout_num(b, ch->lo), jsonout_num(c, ch->hi));
				l0 = jsonout_str(s->nights[k - 1].label);
				fprintf(out, "\"p\":%s,\"direction\":\"%s\",", jsonout_num(a, ch->p),
				    ch->worse ? "worse" : "better");
				fprintf(out, "\"before\":%s,\"after\":%s,\"labels\":[%s,%s]}}",
				    jsonout_num(b, ch->before), jsonout_num(c, ch->after), l0, label);
				free(l0);
			} else
				fputs("null}", out);
			free(label);
		}
		free(prefix);
	}
	fputs(first ? "[]\n" : "\n]\n", out);
	for (i = 0; i < h->nruns; i++) {
		free(jid[i]);
		free(jstart[i]);
		free(jgroup[i]);
	}
	free(jid);
	free(jstart);
	free(jgroup);
}

/* --- HTML ---------------------------------------------------------------------- */

#define CH_W		360
#define CH_L		58
#define CH_R		12
#define CH_T		54	/* two title lines and the y label above the plot */
#define CH_H		130
#define CH_B		34	/* date ticks and the x label below it */
#define WORSE_COLOUR	"#D55E00"
#define BETTER_COLOUR	"#009E73"
#define LEVEL_COLOUR	"#0072B2"
#define LABEL_ROOM	48	/* pixels a change point's size takes beside it */

struct frame {
	struct svg_frame y;	/* the plot and its fitted y axis (svg.h) */
	size_t	n;		/* nights */
};

static double
fx(const struct frame *f, double i)
{
	double w = CH_W - CH_L - CH_R - 12;

	return CH_L + 6 + (f->n > 1 ? i / (double)(f->n - 1) * w : w / 2);
}

static double
fy(const struct frame *f, double v)
{
	return svg_fy(&f->y, v);
}

/* A y axis for the values of s, not held to 0: a change of 5% must show. */
static void
frame_fit(struct frame *f, const struct history_series *s)
{
	struct svg_frame y = {
		.w = CH_W, .l = CH_L, .r = CH_R, .t = CH_T, .h = CH_H,
		.axis = SVG_AXIS_FITTED, .ticks = 4, .tick_gap = 4, .tick_rise = 3.5,
	};
	double lo = INFINITY, hi = -INFINITY;
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (s->nights[i].value < lo)
			lo = s->nights[i].value;
		if (s->nights[i].value > hi)
			hi = s->nights[i].value;
	}
	svg_frame_fit(&y, lo, hi);
	f->y = y;
	f->n = s->n;
}

static void
chart_axes(FILE *out, const struct history *h, const struct history_series *s,
    const struct frame *f)
{
	char date[16];
	double x;
	size_t i, ticks[3] = { 0, s->n / 2, s->n - 1 };

	fputs("<g class=\"axis\">", out);
	svg_yticks(out, &f->y);
	fprintf(out, "<path d=\"M%d %dV%dH%d\" fill=\"none\" stroke=\"#333\"/>", CH_L, CH_T,
	    CH_T + CH_H, CH_W - CH_R);
	for (i = 0; i < 3; i++) {
		if (i > 0 && ticks[i] == ticks[i - 1])
			continue;
		x = fx(f, (double)ticks[i]);
		fmt_date(date, sizeof(date), night_run(h, s, ticks[i])->start);
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
		    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">", x, x, CH_T + CH_H,
		    CH_T + CH_H + 4, x, CH_T + CH_H + 15, i == 0 ? "start" : i == 2 ? "end" :
		    "middle");
		html_text(out, date);
		fputs("</text>", out);
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">night (run start, UTC), "
	    "%zu in all</text>", CH_L + (CH_W - CH_L - CH_R) / 2, CH_T + CH_H + 29, s->n);
	/* the y label above the plot, as the report's charts have it */
	fprintf(out, "<text class=\"label\" x=\"4\" y=\"%d\">", CH_T - 12);
	html_text(out, s->key.metric);
	if (*s->key.unit) {
		fputs(" (", out);
		html_text(out, s->key.unit);
		fputs(")", out);
	}
	fprintf(out, ", %s is better</text></g>\n", s->higher ? "higher" : "lower");
}

/* Whether s has a change point worse for its metric. */
static int
has_worse(const struct history_series *s)
{
	size_t k;

	for (k = 0; k < s->nchanges; k++)
		if (s->changes[k].worse)
			return 1;
	return 0;
}

static void
chart(FILE *out, const struct history *h, size_t si)
{
	const struct history_series *s = &h->series[si];
	struct frame f;
	char buf[NUMFMT_MAX], rbuf[32], date[16];
	size_t i, k;

	frame_fit(&f, s);
	fprintf(out, "<figure id=\"s%zu\"%s><svg data-chart=\"history\" data-host=\"", si,
	    has_worse(s) ? " class=\"worse\"" : s->nchanges ? " class=\"better\"" : "");
	html_text(out, s->key.host);
	fputs("\" data-bench=\"", out);
	html_text(out, s->key.bench);
	fputs("\" data-metric=\"", out);
	html_text(out, s->key.metric);
	fputs("\" data-params=\"", out);
	html_text(out, s->key.params);
	fprintf(out, "\" data-changes=\"%zu\" viewBox=\"0 0 %d %d\" role=\"img\"><title>", s->nchanges,
	    CH_W, CH_T + CH_H + CH_B);
	html_text(out, s->key.bench);
	fputs(" ", out);
	html_text(out, s->key.metric);
	fputs(" on ", out);
	html_text(out, s->key.host);
	fprintf(out, ": %zu nights, %zu change point%s</title>\n<text class=\"ctitle\" x=\"4\" "
	    "y=\"13\">", s->n, s->nchanges, s->nchanges == 1 ? "" : "s");
	html_text(out, s->key.bench);
	fputs(" ", out);
	html_text(out, s->key.metric);
	fputs("</text><text x=\"4\" y=\"27\">", out);
	html_text(out, s->key.host);
	if (s->key.variant != NULL) {
		fputs(" / ", out);
		html_text(out, s->key.variant);
	}
	if (*s->key.params) {
		fputs("  ", out);
		html_text(out, s->key.params);
	}
	fputs("</text>\n", out);
	chart_axes(out, h, s, &f);

	/* the segments' levels */
	for (k = 0; k < s->nsegments; k++) {
		const struct history_segment *g = &s->segments[k];
		double x0 = fx(&f, g->start > 0 ? (double)g->start - 0.5 : 0);
		double x1 = fx(&f, g->start + g->n < s->n ? (double)(g->start + g->n) - 0.5 :
		    (double)(s->n - 1));

		numfmt_short(buf, sizeof(buf), g->mean);
		numfmt_rsd(rbuf, sizeof(rbuf), rsd(g->mean, g->sd));
		fprintf(out, "<g class=\"level\"><title>%zu night%s from %.10s to %.10s: mean %s "
		    "%s night to night</title><path d=\"M%.1f %.1fH%.1f\" stroke=\"%s\" "
		    "stroke-width=\"2.5\"/></g>", g->n, g->n == 1 ? "" : "s",
		    night_run(h, s, g->start)->start, night_run(h, s, g->start + g->n - 1)->start,
		    buf, rbuf, x0, fy(&f, g->mean), x1, LEVEL_COLOUR);
	}
	/* the nights */
	fputs("\n<path class=\"trend\" fill=\"none\" stroke=\"#999\" stroke-width=\"1\" d=\"", out);
	for (i = 0; i < s->n; i++)
		fprintf(out, "%s%.1f %.1f", i ? "L" : "M", fx(&f, (double)i),
		    fy(&f, s->nights[i].value));
	fputs("\"/>\n", out);
	for (i = 0; i < s->n; i++) {
		const struct history_night *nt = &s->nights[i];

		fmt_date(date, sizeof(date), night_run(h, s, i)->start);
		numfmt_short(buf, sizeof(buf), nt->value);
		numfmt_rsd(rbuf, sizeof(rbuf), rsd(nt->value, nt->sd));
		fprintf(out, "<g><title>%s ", date);
		html_text(out, nt->label);
		fprintf(out, ": %s", buf);
		if (*s->key.unit) {
			fputs(" ", out);
			html_text(out, s->key.unit);
		}
		fprintf(out, " %s (n=%zu), run ", rbuf, nt->n);
		html_text(out, night_run(h, s, i)->id);
		if (night_run(h, s, i)->group != NULL) {
			fputs(" of group ", out);
			html_text(out, night_run(h, s, i)->group);
		}
		fprintf(out, "</title><circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.2\" fill=\"#333\"/></g>",
		    fx(&f, (double)i), fy(&f, nt->value));
	}
	/*
	 * The change points: a dashed vertical and a triangle, down for worse,
	 * and the size beside it unless another change point is too close for
	 * it (a drift's staircase: the sizes are in the titles).
	 */
	for (k = 0; k < s->nchanges; k++) {
		const struct history_change *c = &s->changes[k];
		const char *colour = c->worse ? WORSE_COLOUR : BETTER_COLOUR;
		double x = fx(&f, (double)c->night - 0.5), t = CH_T + 2;
		char *labels = change_labels(s, c);
		int room = 1;

		for (i = 0; i < s->nchanges; i++)
			if (i != k && fabs(fx(&f, (double)s->changes[i].night - 0.5) - x) < LABEL_ROOM)
				room = 0;

		fprintf(out, "\n<g class=\"change %s\"><title>%+.1f%% %s (p=%.3g) from %.10s: ",
		    c->worse ? "worse" : "better", c->pct, c->worse ? "worse" : "better", c->p,
		    night_run(h, s, c->night)->start);
		html_text(out, labels);
		fprintf(out, "</title><path d=\"M%.1f %dV%d\" stroke=\"%s\" stroke-width=\"1.5\" "
		    "stroke-dasharray=\"4 3\"/><path d=\"", x, CH_T, CH_T + CH_H, colour);
		if (c->worse)
			fprintf(out, "M%.1f %.1fL%.1f %.1fL%.1f %.1fZ", x - 5, t, x + 5, t, x, t + 8);
		else
			fprintf(out, "M%.1f %.1fL%.1f %.1fL%.1f %.1fZ", x - 5, t + 8, x + 5, t + 8, x,
			    t);
		fprintf(out, "\" fill=\"%s\"/>", colour);
		if (room)
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" class=\"cp\" fill=\"%s\" "
			    "text-anchor=\"%s\">%+.1f%%</text>", x + (c->night * 2 < s->n ? 7 : -7),
			    t + 8, colour, c->night * 2 < s->n ? "start" : "end", c->pct);
		fputs("</g>", out);
		free(labels);
	}
	fputs("</svg></figure>\n", out);
}

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#111;background:#fff}"
	"h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.25em;margin-top:1.6em;"
	"border-bottom:1px solid #ccc}.scroll{overflow-x:auto}"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin-bottom:1em}"
	"th,td{border:1px solid #ccc;padding:2px 7px;text-align:left;white-space:nowrap}"
	"th{background:#eee}td.n{text-align:right}"
	"td.worse{font-weight:700;color:#a00}td.worse::before{content:\"\\25BC \"}"
	"td.better{font-weight:700;color:#060}td.better::before{content:\"\\25B2 \"}"
	".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:10px}"
	"figure{margin:0;border:1px solid #ddd;padding:4px}"
	"figure.worse{border:2px solid #D55E00}figure.better{border:2px solid #009E73}"
	"svg{width:100%;height:auto;font:10px system-ui,sans-serif}"
	"svg .grid{stroke:#e6e6e6}svg .label{font-weight:600}"
	"svg .ctitle{font-size:12px;font-weight:600}svg .cp{font-weight:700}";

static void
td(FILE *out, const char *cls, const char *s)
{
	if (cls != NULL)
		fprintf(out, "<td class=\"%s\">", cls);
	else
		fputs("<td>", out);
	html_text(out, s);
	fputs("</td>", out);
}

/* A change point of the page's table: series and change. */
struct cref {
	size_t	s, k;
	size_t	run;		/* index of the run it starts on, to sort by */
};

static int
cmp_cref(const void *a, const void *b)
{
	const struct cref *x = a, *y = b;

	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return x->s < y->s ? -1 : x->s > y->s;
}

/* The change points, oldest first, each linked to its chart. */
static void
changes_table(FILE *out, const struct history *h)
{
	struct cref *v;
	char buf[64], date[16];
	size_t i, k, n = 0, j;

	fputs("<h2>Change points</h2>\n", out);
	if (h->nchanges == 0) {
		fputs("<p>None.</p>\n", out);
		return;
	}
	v = xcalloc(h->nchanges + 1, sizeof(*v));
	fputs("<div class=\"scroll\"><table data-table=\"changes\"><thead><tr><th>date</th>"
	    "<th>host</th><th>bench</th><th>params</th><th>metric</th><th>unit</th>"
	    "<th>before</th><th>after</th><th>change</th><th>p</th><th>mark</th>"
	    "<th>labels</th><th>run</th></tr></thead><tbody>\n", out);
	for (i = 0; i < h->nseries; i++)
		for (k = 0; k < h->series[i].nchanges; k++) {
			v[n].s = i;
			v[n].k = k;
			v[n++].run = h->series[i].nights[h->series[i].changes[k].night].run;
		}
	qsort(v, n, sizeof(*v), cmp_cref);
	for (j = 0; j < n; j++) {
		const struct history_series *s = &h->series[v[j].s];
		const struct history_change *c = &s->changes[v[j].k];
		char *labels = change_labels(s, c);

		fmt_date(date, sizeof(date), night_run(h, s, c->night)->start);
		fprintf(out, "<tr><td><a href=\"#s%zu\">%s</a></td>", v[j].s, date);
		td(out, NULL, s->key.host);
		td(out, NULL, s->key.bench);
		td(out, NULL, s->key.params);
		td(out, NULL, s->key.metric);
		td(out, NULL, s->key.unit);
		numfmt_mean(buf, sizeof(buf), c->before);
		td(out, "n", buf);
		numfmt_mean(buf, sizeof(buf), c->after);
		td(out, "n", buf);
		numfmt_change(buf, sizeof(buf), c->pct);
		td(out, "n", buf);
		snprintf(buf, sizeof(buf), "%.3g", c->p);
		td(out, "n", buf);
		td(out, c->worse ? "worse" : "better", c->worse ? "worse" : "better");
		td(out, NULL, labels);
		td(out, NULL, night_run(h, s, c->night)->id);
		fputs("</tr>\n", out);
		free(labels);
	}
	fputs("</tbody></table></div>\n", out);
	free(v);
}

static void
render_html(const struct history *h, FILE *out)
{
	const char *first = h->nruns ? h->runs[0].start : "", *last = h->nruns ?
	    h->runs[h->nruns - 1].start : "";
	char buf[96];
	size_t i;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	    "style-src 'unsafe-inline'\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	    "<title>fleetmark history: ", out);
	html_text(out, h->plan);
	fprintf(out, "</title>\n<style>%s</style></head>\n<body>\n<header><h1>fleetmark "
	    "history: plan ", css);
	html_text(out, h->plan);
	fputs("</h1>\n<p>", out);
	html_text(out, h->source);
	fprintf(out, ": %zu night%s%s from %.10s to %.10s, %zu series on %zu host%s.  Change "
	    "points: E-divisive means with a permutation test (p &lt;= 0.05), segments of at "
	    "least 3 nights, changes of at least %g%%: <b>%zu</b> (%zu worse, %zu better).  "
	    "Each chart: the nights' means (hover for the date, label and value), the "
	    "segments' means as blue levels, a change point as a dashed line with its "
	    "size (&#9660; worse, &#9650; better).</p></header>\n", h->nnights,
	    h->nnights == 1 ? "" : "s", group_runs(h, buf, sizeof(buf)), first, last,
	    h->nseries, nhosts(h), nhosts(h) == 1 ? "" : "s", h->threshold, h->nchanges, h->nworse,
	    h->nchanges - h->nworse);
	history_env_render(h, REPORT_HTML, out);
	changes_table(out, h);
	fputs("<h2>Series</h2>\n<section class=\"grid\">\n", out);
	for (i = 0; i < h->nseries; i++)
		chart(out, h, i);
	fputs("</section>\n<footer><p>Written by fleetmark history; a self-contained page "
	    "(no scripts, no external resources).</p></footer>\n</body></html>\n", out);
}

struct table_args {
	const struct history			*h;
	const struct history_render_opts	*o;
};

static int
table_into(void *arg, FILE *mem)
{
	struct table_args *a = arg;

	render_table(a->h, a->o, mem);
	return 0;
}

int
history_render(const struct history *h, const struct history_render_opts *o, FILE *out,
    char **err)
{
	struct table_args a = { h, o };

	switch (o->format) {
	case REPORT_JSON:
		render_json(h, out);
		break;
	case REPORT_HTML:
		render_html(h, out);
		break;
	default:
		/* text from the runs (labels, metric names...) made safe for a terminal */
		if (utf8_render_escaped(out, UTF8_KEEP_NL | UTF8_KEEP_TAB, table_into, &a) != 0) {
			*err = xasprintf("cannot write the history");
			return -1;
		}
		break;
	}
	if (ferror(out)) {
		*err = xasprintf("cannot write the history");
		return -1;
	}
	return 0;
}
