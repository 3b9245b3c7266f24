/*
 * report-html.c: `--format html` (docs/reports.md): one self-contained page with
 * the same tables as the text report and SVG charts drawn here, in C.
 *
 * Self-contained means: inline CSS, inline SVG, no script, no request of
 * any kind (no fonts, no images, no links to other sites); a
 * Content-Security-Policy meta tag forbids them too, so a page that somehow
 * carried one would still not run or fetch it.  Every text that came from
 * a file (host names, labels, variants, params, units, table cells) goes
 * through html_text(), which escapes & < > " and '.
 *
 * Charts:
 *   scaling	one per (bench, metric, P) where P is a swept parameter: its
 *		values differ between the metric's points and are all
 *		numbers.  x is P (log scale when the values span more than
 *		20x), y the mean (or median) of the trials; one line per
 *		series and per combination of the other swept parameters.
 *   bars	one per (bench, metric) (split every BAR_GROUPS points):
 *		a group per point, a bar per series, mean ± sd of the
 *		trials as an error bar.
 * Lines are told apart by marker and dash and bars by hatching, not by
 * colour alone.  Each chart is an <svg data-chart="scaling|bars"> so tests
 * can count them.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "html.h"
#include "numfmt.h"
#include "report-int.h"
#include "report.h"
#include "rundir.h"
#include "stats.h"
#include "utf8.h"
#include "xmalloc.h"

#define SVG_W		760
#define PLOT_L		84
#define PLOT_R		20
#define PLOT_T		54	/* the title, then the y axis label, above the plot */
#define PLOT_H		260
#define AXIS_B		56	/* below the plot: tick labels and the axis label */
#define LEG_ROW		18
#define BAR_GROUPS	12
#define LOG_SPAN	20.0

/* Okabe-Ito, distinguishable with the common colour blindnesses. */
static const char *const colours[] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
	"#999999",
};
#define NCOLOURS	(sizeof(colours) / sizeof(colours[0]))
static const char *const dashes[] = { "", "7 4", "2 3", "9 3 2 3", "4 2", "12 4 2 4 2 4" };
#define NDASHES		(sizeof(dashes) / sizeof(dashes[0]))
#define NMARKERS	7
#define NHATCH		6

/* --- Params ------------------------------------------------------------------ */

static int
cmp_verstr(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* "k=v,k=v" of the keys in `keys` except `skip`, from params. */
static char *
params_of(const char *params, const struct strs *keys, const char *skip)
{
	char *out = xstrdup(""), *v, *t;
	size_t i;

	for (i = 0; i < keys->n; i++) {
		if (skip && strcmp(keys->s[i], skip) == 0)
			continue;
		v = report_param(params, keys->s[i]);
		t = xasprintf("%s%s%s=%s", out, *out ? "," : "", keys->s[i], v ? v : "");
		free(v);
		free(out);
		out = t;
	}
	return out;
}

/* --- SVG pieces --------------------------------------------------------------- */

static void
marker(FILE *out, int kind, double x, double y, const char *colour)
{
	const double r = 4.2;

	switch (kind % NMARKERS) {
	case 0:
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>", x, y, r,
		    colour);
		break;
	case 1:
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		    "fill=\"%s\"/>", x - r, y - r, 2 * r, 2 * r, colour);
		break;
	case 2:
		fprintf(out, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\"/>", x,
		    y - r * 1.2, x + r * 1.1, y + r * 0.8, x - r * 1.1, y + r * 0.8, colour);
		break;
	case 3:
		fprintf(out, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\"/>",
		    x, y - r * 1.3, x + r * 1.3, y, x, y + r * 1.3, x - r * 1.3, y, colour);
		break;
	case 4:
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"white\" "
		    "stroke=\"%s\" stroke-width=\"2\"/>", x, y, r, colour);
		break;
	case 5:
		fprintf(out, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" stroke=\"%s\" "
		    "stroke-width=\"2.5\"/>", x - r, y - r, x + r, y + r, x - r, y + r, x + r,
		    y - r, colour);
		break;
	default:
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		    "fill=\"white\" stroke=\"%s\" stroke-width=\"2\"/>", x - r, y - r, 2 * r,
		    2 * r, colour);
		break;
	}
}

/* Hatching pattern i for bars of colour c, id "h<chart>-<i>". */
static void
hatch_def(FILE *out, int chart, size_t i, const char *c)
{
	static const int angle[NHATCH] = { 0, 45, -45, 0, 90, 45 };

	fprintf(out, "<pattern id=\"h%d-%zu\" width=\"6\" height=\"6\" "
	    "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(%d)\">"
	    "<rect width=\"6\" height=\"6\" fill=\"%s\"/>", chart, i, angle[i % NHATCH], c);
	if (i % NHATCH != 0)
		fputs("<path d=\"M0 3H6\" stroke=\"white\" stroke-width=\"1.6\"/>", out);
	if (i % NHATCH == 5)
		fputs("<path d=\"M3 0V6\" stroke=\"white\" stroke-width=\"1.6\"/>", out);
	fputs("</pattern>", out);
}

struct yaxis {
	double	lo, hi, step;
};

static void
yaxis_fit(struct yaxis *a, double lo, double hi)
{
	if (!(lo <= hi)) {
		lo = 0;
		hi = 1;
	}
	if (lo > 0)
		lo = 0;
	if (hi < 0)
		hi = 0;
	if (hi == lo)
		hi = lo + 1;
	a->step = html_nice_step(hi - lo, 5);
	a->lo = floor(lo / a->step) * a->step;
	a->hi = ceil(hi / a->step) * a->step;
}

static double
ymap(const struct yaxis *a, double v)
{
	return PLOT_T + PLOT_H - (v - a->lo) / (a->hi - a->lo) * PLOT_H;
}

/* Grid lines, y ticks and the y label. */
static void
draw_yaxis(FILE *out, const struct yaxis *a, const char *label)
{
	double n = round((a->hi - a->lo) / a->step), i;
	char buf[64];

	fputs("<g class=\"axis\">", out);
	for (i = 0; i <= n && i <= 50; i++) {
		double v = a->lo + i * a->step, y = ymap(a, v);

		numfmt_short(buf, sizeof(buf), fabs(v) < a->step / 1e6 ? 0 : v);
		fprintf(out, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
		    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>", PLOT_L,
		    SVG_W - PLOT_R, y, y, PLOT_L - 6, y + 4, buf);
	}
	fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>", PLOT_L,
	    PLOT_L, PLOT_T, PLOT_T + PLOT_H);
	fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>", PLOT_L,
	    SVG_W - PLOT_R, PLOT_T + PLOT_H, PLOT_T + PLOT_H);
	/* above the axis, not along it: a long metric name would not fit there */
	fprintf(out, "<text class=\"label\" x=\"8\" y=\"%d\">", PLOT_T - 16);
	html_text(out, label);
	fputs("</text></g>\n", out);
}

/* The y axis label: "metric (unit)". */
static char *
ylabel(const struct rcell *c, const struct report_opts *o)
{
	return xasprintf("%s%s%s%s, %s of trials", c->metric, *c->unit ? " (" : "", c->unit,
	    *c->unit ? ")" : "", o->aggregate == REPORT_AGG_MEDIAN ? "median" : "mean");
}

/* Where a chart's legend goes: columns wide enough for the longest entry. */
struct legend {
	int	top;		/* y of the first row */
	int	colw;
	size_t	cols;
};

static void
legend_fit(struct legend *lg, int top, size_t maxlen)
{
	lg->top = top;
	lg->colw = 52 + (int)(maxlen * 7);
	lg->cols = (size_t)((SVG_W - PLOT_L) / lg->colw);
	if (lg->cols == 0)
		lg->cols = 1;
}

static int
legend_height(const struct legend *lg, size_t n)
{
	return (int)((n + lg->cols - 1) / lg->cols) * LEG_ROW + 16;
}

/* Where legend entry i goes. */
static void
legend_start(const struct legend *lg, size_t i, double *x, double *y)
{
	*x = PLOT_L + (double)(i % lg->cols) * lg->colw;
	*y = lg->top + 10 + (double)(i / lg->cols) * LEG_ROW;
}

static void
svg_open(FILE *out, const char *kind, const struct rcell *c, const char *param, int h,
    const char *title)
{
	fprintf(out, "<figure><svg data-chart=\"%s\" data-bench=\"", kind);
	html_text(out, c->bench);
	fputs("\" data-metric=\"", out);
	html_text(out, c->metric);
	if (param) {
		fputs("\" data-param=\"", out);
		html_text(out, param);
	}
	fprintf(out, "\" viewBox=\"0 0 %d %d\" width=\"%d\" role=\"img\">"
	    "<title>", SVG_W, h, SVG_W);
	html_text(out, title);
	fprintf(out, "</title><text class=\"ctitle\" x=\"%d\" y=\"20\">", PLOT_L);
	html_text(out, title);
	fputs("</text>\n", out);
}

/* --- Scaling curves --------------------------------------------------------- */

struct line {
	size_t	 series;
	size_t	 combo;
	double	*y, *sd;	/* per x value, NAN when missing */
};

static void
chart_scaling(FILE *out, const struct report *r, const struct report_opts *o,
    const size_t *cells, size_t ncells, const struct strs *swept, const char *P,
    int chart)
{
	const struct rcell *c0 = &r->cells[cells[0]];
	struct strs xs = { 0 }, combos = { 0 };
	struct line *lines = NULL;
	size_t nlines = 0, cap = 0, i, j, s, k, *xi, *ci;
	double xmin, xmax, ylo = INFINITY, yhi = -INFINITY;
	int logx, h;
	struct yaxis ya;
	struct legend lg;
	char *title, *yl, buf[64];

	xi = xcalloc(ncells, sizeof(*xi));
	ci = xcalloc(ncells, sizeof(*ci));
	for (i = 0; i < ncells; i++) {
		char *v = report_param(r->cells[cells[i]].params, P);

		if (v)
			strs_add(&xs, v);
		free(v);
	}
	qsort(xs.s, xs.n, sizeof(*xs.s), strs_cmp_num);
	for (i = 0; i < ncells; i++) {
		char *v = report_param(r->cells[cells[i]].params, P);
		char *rest = params_of(r->cells[cells[i]].params, swept, P);

		xi[i] = v ? strs_find(&xs, v) : (size_t)-1;
		strs_add(&combos, rest);
		free(v);
		free(rest);
	}
	qsort(combos.s, combos.n, sizeof(*combos.s), cmp_verstr);
	for (i = 0; i < ncells; i++) {
		char *rest = params_of(r->cells[cells[i]].params, swept, P);

		ci[i] = strs_find(&combos, rest);
		free(rest);
	}
	for (s = 0; s < r->nseries; s++)
		for (k = 0; k < combos.n; k++) {
			struct line *l;
			int any = 0;

			xgrow(&lines, &cap, nlines + 1, sizeof(*lines));
			l = &lines[nlines];
			l->series = s;
			l->combo = k;
			l->y = xcalloc(xs.n, sizeof(double));
			l->sd = xcalloc(xs.n, sizeof(double));
			for (j = 0; j < xs.n; j++)
				l->y[j] = l->sd[j] = NAN;
			for (i = 0; i < ncells; i++) {
				const struct rvals *v;

				double m;

				if (ci[i] != k || xi[i] == (size_t)-1 ||
				    (v = report_vals(r, s, cells[i])) == NULL)
					continue;
				m = report_agg(v, o->aggregate == REPORT_AGG_MEDIAN ?
				    REPORT_AGG_MEDIAN : REPORT_AGG_MEAN);
				if (!isfinite(m))
					continue;	/* 1e999 in a line: not drawn */
				l->y[xi[i]] = m;
				l->sd[xi[i]] = stats_sd(v->v, v->n);
				if (!isfinite(l->sd[xi[i]]))
					l->sd[xi[i]] = NAN;
				if (l->y[xi[i]] < ylo)
					ylo = l->y[xi[i]];
				if (l->y[xi[i]] > yhi)
					yhi = l->y[xi[i]];
				any = 1;
			}
			if (any)
				nlines++;
			else {
				free(l->y);
				free(l->sd);
			}
		}
	if (nlines == 0)
		goto out;

	xmin = atof(xs.s[0]);
	xmax = atof(xs.s[xs.n - 1]);
	logx = xmin > 0 && xmax / xmin > LOG_SPAN;
	yaxis_fit(&ya, ylo, yhi);
	{
		size_t maxlen = 0, len;

		for (i = 0; i < nlines; i++) {
			len = utf8_width(r->series[lines[i].series].name) + 1 +
			    utf8_width(combos.s[lines[i].combo]);
			if (len > maxlen)
				maxlen = len;
		}
		legend_fit(&lg, PLOT_T + PLOT_H + AXIS_B, maxlen);
	}
	h = PLOT_T + PLOT_H + AXIS_B + legend_height(&lg, nlines);
	title = xasprintf("%s %s over %s", c0->bench, c0->metric, P);
	svg_open(out, "scaling", c0, P, h, title);
	free(title);
	yl = ylabel(c0, o);
	draw_yaxis(out, &ya, yl);
	free(yl);

	/* x: ticks at the measured values */
#define XMAP(v) (PLOT_L + 14 + ((logx ? log(v) - log(xmin) : (v) - xmin) / \
	(logx ? log(xmax) - log(xmin) : xmax - xmin)) * (SVG_W - PLOT_L - PLOT_R - 28))
	fputs("<g class=\"axis\">", out);
	for (j = 0; j < xs.n; j++) {
		double x = XMAP(atof(xs.s[j]));

		/* crowded ticks: every other label */
		if (xs.n > 12 && j % ((xs.n + 11) / 12) != 0 && j != xs.n - 1)
			continue;
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
		    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x, x, PLOT_T + PLOT_H,
		    PLOT_T + PLOT_H + 5, x, PLOT_T + PLOT_H + 18);
		html_text(out, xs.s[j]);
		fputs("</text>", out);
	}
	fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
	    PLOT_L + (SVG_W - PLOT_L - PLOT_R) / 2, PLOT_T + PLOT_H + 40);
	html_text(out, P);
	fputs(logx ? " (log scale)</text></g>\n" : "</text></g>\n", out);

	for (i = 0; i < nlines; i++) {
		const struct line *l = &lines[i];
		size_t style = r->nseries > 1 ? l->series : l->combo;
		const char *colour = colours[style % NCOLOURS], *dash = dashes[l->combo % NDASHES];
		int pen = 0;
		double lx, ly;

		fputs("<g class=\"line\"><title>", out);
		html_text(out, r->series[l->series].name);
		if (*combos.s[l->combo]) {
			fputs(" ", out);
			html_text(out, combos.s[l->combo]);
		}
		fprintf(out, "</title><path fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s "
		    "d=\"", colour, *dash ? " stroke-dasharray=\"" : "", dash, *dash ? "\"" : "");
		for (j = 0; j < xs.n; j++) {
			if (isnan(l->y[j]))
				continue;	/* a missing point: the line goes on to the next */
			fprintf(out, "%s%.1f %.1f", pen ? "L" : "M", XMAP(atof(xs.s[j])),
			    ymap(&ya, l->y[j]));
			pen = 1;
		}
		fputs("\"/>", out);
		for (j = 0; j < xs.n; j++) {
			double x = XMAP(atof(xs.s[j])), y;

			if (isnan(l->y[j]))
				continue;
			y = ymap(&ya, l->y[j]);
			if (!isnan(l->sd[j]) && l->sd[j] > 0)
				fprintf(out, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" "
				    "stroke=\"%s\"/>", x, ymap(&ya, l->y[j] - l->sd[j]),
				    ymap(&ya, l->y[j] + l->sd[j]), x - 3, ymap(&ya, l->y[j] -
				    l->sd[j]), x + 3, x - 3, ymap(&ya, l->y[j] + l->sd[j]), x + 3,
				    colour);
			fputs("<g><title>", out);
			html_text(out, P);
			fputs("=", out);
			html_text(out, xs.s[j]);
			numfmt_short(buf, sizeof(buf), l->y[j]);
			fprintf(out, ": %s", buf);
			if (!isnan(l->sd[j])) {
				numfmt_short(buf, sizeof(buf), l->sd[j]);
				fprintf(out, " ± %s", buf);
			}
			fputs("</title>", out);
			marker(out, (int)style, x, y, colour);
			fputs("</g>", out);
		}
		/* legend */
		legend_start(&lg, i, &lx, &ly);
		fprintf(out, "<path d=\"M%.1f %.1fH%.1f\" stroke=\"%s\" stroke-width=\"2\"%s%s%s/>",
		    lx, ly, lx + 36, colour, *dash ? " stroke-dasharray=\"" : "", dash,
		    *dash ? "\"" : "");
		marker(out, (int)style, lx + 18, ly, colour);
		fprintf(out, "<text class=\"leg\" x=\"%.1f\" y=\"%.1f\">", lx + 42, ly + 4);
		html_text(out, r->series[l->series].name);
		if (*combos.s[l->combo]) {
			fputs(" ", out);
			html_text(out, combos.s[l->combo]);
		}
		fputs("</text></g>\n", out);
	}
#undef XMAP
	fputs("</svg></figure>\n", out);
	(void)chart;
out:
	for (i = 0; i < nlines; i++) {
		free(lines[i].y);
		free(lines[i].sd);
	}
	free(lines);
	free(xi);
	free(ci);
	strs_free(&xs);
	strs_free(&combos);
}

/* --- Bars ---------------------------------------------------------------------- */

/*
 * The bar of series s at cell: its values in *vp, their mean (the median
 * with --aggregate median) in *m and sd in *sd, NaN when they have none.
 * -1 when there are no values or the aggregate is not finite (no bar).
 */
static int
bar_of(const struct report *r, const struct report_opts *o, size_t s, size_t cell,
    const struct rvals **vp, double *m, double *sd)
{
	const struct rvals *v = report_vals(r, s, cell);

	if (v == NULL)
		return -1;
	*m = report_agg(v, o->aggregate == REPORT_AGG_MEDIAN ? REPORT_AGG_MEDIAN :
	    REPORT_AGG_MEAN);
	*sd = stats_sd(v->v, v->n);
	if (!isfinite(*m))
		return -1;
	if (!isfinite(*sd))
		*sd = NAN;
	*vp = v;
	return 0;
}

static void
chart_bars(FILE *out, const struct report *r, const struct report_opts *o,
    const size_t *cells, size_t ncells, const struct strs *swept, size_t part,
    size_t nparts, int chart)
{
	const struct rcell *c0 = &r->cells[cells[0]];
	double ylo = INFINITY, yhi = -INFINITY, gw, bw;
	size_t i, s, nleg = 0;
	struct yaxis ya;
	struct legend lg;
	char *title, *yl, buf[64];
	int h, axis_b, nl = 1;
	size_t maxlen = 0;

	for (i = 0; i < ncells; i++)
		for (s = 0; s < r->nseries; s++) {
			const struct rvals *v;
			double m, sd;

			if (bar_of(r, o, s, cells[i], &v, &m, &sd) != 0)
				continue;
			if (isnan(sd))
				sd = 0;
			if (m - sd < ylo)
				ylo = m - sd;
			if (m + sd > yhi)
				yhi = m + sd;
		}
	if (ylo == INFINITY)
		return;
	yaxis_fit(&ya, ylo, yhi);
	/* group labels: one line per parameter */
	for (i = 0; i < ncells; i++) {
		char *gl = params_of(r->cells[cells[i]].params, swept, NULL);
		int lines = 1;
		const char *p;

		for (p = gl; *p; p++)
			lines += *p == ',';
		if (lines > nl)
			nl = lines;
		free(gl);
	}
	for (s = 0; s < r->nseries; s++)
		if (utf8_width(r->series[s].name) > maxlen)
			maxlen = utf8_width(r->series[s].name);
	axis_b = 30 + 13 * nl + 10;
	legend_fit(&lg, PLOT_T + PLOT_H + axis_b, maxlen);
	h = PLOT_T + PLOT_H + axis_b + legend_height(&lg, r->nseries);
	if (nparts > 1)
		title = xasprintf("%s %s: mean ± sd per series (%zu of %zu)", c0->bench,
		    c0->metric, part + 1, nparts);
	else
		title = xasprintf("%s %s: mean ± sd per series", c0->bench, c0->metric);
	svg_open(out, "bars", c0, NULL, h, title);
	free(title);
	fputs("<defs>", out);
	for (s = 0; s < r->nseries; s++)
		hatch_def(out, chart, s, colours[s % NCOLOURS]);
	fputs("</defs>\n", out);
	yl = ylabel(c0, o);
	draw_yaxis(out, &ya, yl);
	free(yl);

	gw = (double)(SVG_W - PLOT_L - PLOT_R) / (double)ncells;
	bw = gw * 0.8 / (double)r->nseries;
	for (i = 0; i < ncells; i++) {
		const struct rcell *c = &r->cells[cells[i]];
		char *gl = params_of(c->params, swept, NULL);
		double gx = PLOT_L + gw * (double)i + gw * 0.1;

		if (*gl == '\0') {
			free(gl);
			gl = xstrdup(*c->params ? c->params : c->bench);
		}
		{
			double tx = PLOT_L + gw * ((double)i + 0.5);
			const char *p = gl;
			int first = 1;

			fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
			    "class=\"glabel\">", tx, PLOT_T + PLOT_H + 16);
			while (*p || first) {
				size_t len = strcspn(p, ",");
				char *item = xstrndup(p, len);

				fprintf(out, "<tspan x=\"%.1f\" dy=\"%d\">", tx, first ? 0 : 13);
				html_text(out, item);
				fputs("</tspan>", out);
				free(item);
				first = 0;
				p += len;
				if (*p == ',')
					p++;
			}
			fputs("</text>", out);
		}
		for (s = 0; s < r->nseries; s++) {
			const struct rvals *v;
			double m, sd, x = gx + bw * (double)s, y0, y1;

			if (bar_of(r, o, s, cells[i], &v, &m, &sd) != 0)
				continue;
			y0 = ymap(&ya, 0 > ya.lo ? 0 : ya.lo);
			y1 = ymap(&ya, m);
			fputs("<g><title>", out);
			html_text(out, r->series[s].name);
			fputs(" ", out);
			html_text(out, gl);
			numfmt_short(buf, sizeof(buf), m);
			fprintf(out, ": %s", buf);
			if (!isnan(sd)) {
				numfmt_short(buf, sizeof(buf), sd);
				fprintf(out, " ± %s", buf);
			}
			fprintf(out, " (n=%zu)</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\" fill=\"url(#h%d-%zu)\" stroke=\"%s\"/>", v->n, x,
			    y1 < y0 ? y1 : y0, bw > 1.5 ? bw - 1 : bw, fabs(y0 - y1), chart, s,
			    colours[s % NCOLOURS]);
			if (!isnan(sd) && sd > 0)
				fprintf(out, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" "
				    "stroke=\"#000\" stroke-width=\"1.2\"/>", x + bw / 2,
				    ymap(&ya, m - sd), ymap(&ya, m + sd), x + bw / 2 - bw / 4,
				    ymap(&ya, m - sd), x + bw / 2 + bw / 4, x + bw / 2 - bw / 4,
				    ymap(&ya, m + sd), x + bw / 2 + bw / 4);
			fputs("</g>", out);
		}
		free(gl);
	}
	fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">point"
	    "</text>\n", PLOT_L + (SVG_W - PLOT_L - PLOT_R) / 2, PLOT_T + PLOT_H + axis_b - 12);
	for (s = 0; s < r->nseries; s++) {
		double lx, ly;

		legend_start(&lg, nleg++, &lx, &ly);
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"28\" height=\"12\" "
		    "fill=\"url(#h%d-%zu)\" stroke=\"%s\"/><text class=\"leg\" x=\"%.1f\" "
		    "y=\"%.1f\">", lx, ly - 6, chart, s, colours[s % NCOLOURS], lx + 34, ly + 4);
		html_text(out, r->series[s].name);
		fputs("</text>\n", out);
	}
	fputs("</svg></figure>\n", out);
}

/* --- Charts of every (bench, metric) ------------------------------------------- */

/* Whether every swept parameter has a number in every cell. */
static int
all_numeric(const struct report *r, const size_t *cells, size_t ncells,
    const struct strs *swept)
{
	size_t i, k;
	int ok = 1;

	for (k = 0; k < swept->n && ok; k++)
		for (i = 0; i < ncells && ok; i++) {
			char *v = report_param(r->cells[cells[i]].params, swept->s[k]);

			ok = v != NULL && strs_is_number(v);
			free(v);
		}
	return ok;
}

static int
cmp_cell_params(const void *a, const void *b, void *arg)
{
	const struct report *r = arg;

	return strverscmp(r->cells[*(const size_t *)a].params,
	    r->cells[*(const size_t *)b].params);
}

static void
charts(FILE *out, const struct report *r, const struct report_opts *o)
{
	unsigned char *done = xcalloc(r->ncells + 1, 1);
	size_t *cells = xcalloc(r->ncells + 1, sizeof(*cells)), ncells, nall, c, i, k, s;
	int chart = 0, pass;

	/* pass 0: scaling curves; pass 1: bars */
	for (pass = 0; pass < 2; pass++) {
		memset(done, 0, r->ncells + 1);
		fprintf(out, "<section id=\"%s\"><h2>%s</h2>\n", pass ? "bars" : "scaling", pass ?
		    "Per point: mean ± sd of the trials per series" :
		    "Scaling: each swept parameter");
		for (c = 0; c < r->ncells; c++) {
			struct strs swept = { 0 };

			if (done[c])
				continue;
			nall = report_metric_cells(r, c, done, cells);
			/* only points with values */
			for (i = ncells = 0; i < nall; i++) {
				for (s = 0; s < r->nseries; s++)
					if (report_vals(r, s, cells[i]) != NULL)
						break;
				if (s < r->nseries)
					cells[ncells++] = cells[i];
			}
			if (ncells == 0)
				continue;
			report_swept(r, cells, ncells, &swept);
			if (pass == 0) {
				for (k = 0; k < swept.n; k++) {
					struct strs one = { &swept.s[k], 1, 1 };

					if (all_numeric(r, cells, ncells, &one))
						chart_scaling(out, r, o, cells, ncells, &swept,
						    swept.s[k], chart++);
				}
			} else {
				size_t nparts = (ncells + BAR_GROUPS - 1) / BAR_GROUPS, p, per;

				/* a numeric sweep in numeric order; else the lines' order */
				if (all_numeric(r, cells, ncells, &swept))
					qsort_r(cells, ncells, sizeof(*cells), cmp_cell_params,
					    (void *)r);
				per = (ncells + nparts - 1) / nparts;
				for (p = 0; p < nparts; p++) {
					size_t n = ncells - p * per;

					chart_bars(out, r, o, cells + p * per, n > per ? per : n,
					    &swept, p, nparts, chart++);
				}
			}
			strs_free(&swept);
		}
		fputs("</section>\n", out);
	}
	free(done);
	free(cells);
}

/* --- Tables --------------------------------------------------------------------- */

static void
table(FILE *out, const struct rgrid *g)
{
	size_t i, j;

	fputs("<h3>", out);
	html_text(out, g->title);
	fputs("</h3>\n<div class=\"scroll\"><table data-table=\"", out);
	html_text(out, g->table);
	fputs("\"><thead><tr>", out);
	for (j = g->nhidden; j < g->ncols; j++) {
		fputs(j < g->nkeys ? "<th>" : "<th class=\"n\">", out);
		html_text(out, g->cols[j]);
		fputs("</th>", out);
	}
	fputs("</tr></thead>\n<tbody>\n", out);
	for (i = 0; i < g->nrows; i++) {
		fputs("<tr>", out);
		for (j = g->nhidden; j < g->ncols; j++) {
			const char *s = g->cells[i * g->ncols + j];
			const char *cls = j < g->nkeys ? NULL : "n";

			while (*s == ' ')
				s++;
			if (strcmp(s, "worse") == 0)
				cls = "worse";
			else if (strcmp(s, "better") == 0)
				cls = "better";
			else if (strcmp(g->cols[j], "noisy") == 0 && *s)
				cls = "noisy";
			else if (strchr(s, '*') && strcmp(g->table, "matrix") == 0)
				cls = "n sig";
			if (cls)
				fprintf(out, "<td class=\"%s\">", cls);
			else
				fputs("<td>", out);
			html_text(out, s);
			rgrid_notes_html_marks(out, g, i, j);
			if (j + 1 == g->ncols)
				rgrid_notes_html_marks(out, g, i, g->ncols);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table></div>\n", out);
	rgrid_notes_html_list(out, g);
}

/* The environment's differences (report-env.c), at the top of the page. */
static void
env_table(FILE *out, const struct rgrids *gs)
{
	size_t i;

	for (i = 0; i < gs->n; i++)
		if (strcmp(gs->g[i]->table, "environment") == 0)
			table(out, gs->g[i]);
}

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#111;background:#fff}"
	"h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.25em;margin-top:1.6em;"
	"border-bottom:1px solid #ccc}h3{font-size:1em;font-weight:600;margin:1.2em 0 .4em}"
	".scroll{overflow-x:auto}"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin-bottom:1em}"
	"th,td{border:1px solid #ccc;padding:2px 7px;text-align:left;white-space:nowrap}"
	"th{background:#eee}td.n,th.n{text-align:right}"
	"td.worse{font-weight:700;color:#a00}td.worse::before{content:\"\\25BC \"}"
	"td.better{font-weight:700;color:#060}td.better::before{content:\"\\25B2 \"}"
	"td.noisy{font-style:italic;color:#555}td.sig{font-weight:700}"
	"tbody tr:nth-child(even){background:#f7f7f7}"
	"figure{margin:1em 0}svg{max-width:100%;height:auto;font:12px system-ui,sans-serif}"
	"svg .grid{stroke:#e3e3e3}svg .label{font-size:13px;font-weight:600}"
	"svg .ctitle{font-size:14px;font-weight:600}svg .glabel{font-size:11px}"
	".meta td:nth-child(3){white-space:normal}"
	"p.partial{font-weight:700;color:#a00;white-space:pre-line}";

int
report_html(const struct report *r, const struct report_opts *o, size_t base,
    const struct rgrids *gs, FILE *out)
{
	size_t i;
	const struct report_counts *n = &r->counts;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	    "style-src 'unsafe-inline'\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	    "<title>fleetmark report: ", out);
	for (i = 0; i < r->nseries && i < 4; i++) {
		if (i > 0)
			fputs(", ", out);
		html_text(out, r->series[i].name);
	}
	if (r->nseries > 4)
		fprintf(out, " and %zu more", r->nseries - 4);
	fprintf(out, "</title>\n<style>%s</style></head>\n<body>\n<header><h1>fleetmark "
	    "report</h1>\n<p>%zu series; baseline <b>", css, r->nseries);
	html_text(out, r->series[base].name);
	fprintf(out, "</b>.  Lines read: %zu, used %zu; not used: %zu failed (%zu of them "
	    "infrastructure), %zu without a metric, %zu corrupt, %zu truncated, %zu of an "
	    "unknown format.</p>\n", n->lines, n->used, n->failed, n->infra, n->nometric,
	    n->corrupt, n->truncated, n->unknown_format);
	for (i = 0; i < gs->n; i++)	/* the partial runs' lines, first */
		if (strcmp(gs->g[i]->table, "partial") == 0 && gs->g[i]->text != NULL) {
			fputs("<p class=\"partial\">", out);
			html_text(out, gs->g[i]->text);
			fputs("</p>\n", out);
		}
	env_table(out, gs);
	fputs("<div class=\"scroll\"><table class=\"meta\" data-table=\"series\"><thead><tr>"
	    "<th>series</th><th>run</th><th>directory</th><th>label</th><th>host</th>"
	    "<th>variant</th><th class=\"n\">MHz</th><th class=\"n\">lines not used</th>"
	    "</tr></thead><tbody>\n", out);
	for (i = 0; i < r->nseries; i++) {
		const struct rseries *s = &r->series[i];
		const char *f[6] = { s->name, s->run, s->dir, s->label, s->host,
			s->variant ? s->variant : "" };
		size_t j;

		fputs("<tr>", out);
		for (j = 0; j < 6; j++) {
			fputs("<td>", out);
			html_text(out, f[j]);
			fputs("</td>", out);
		}
		if (s->mhz > 0)
			fprintf(out, "<td class=\"n\">%.0f</td>", s->mhz);
		else
			fputs("<td></td>", out);
		fprintf(out, "<td class=\"n\">%zu</td></tr>\n", s->failed + s->nometric);
	}
	fputs("</tbody></table></div></header>\n<section id=\"tables\"><h2>Tables</h2>\n", out);
	for (i = 0; i < gs->n; i++)
		if (strcmp(gs->g[i]->table, "environment") != 0)	/* at the top */
			table(out, gs->g[i]);
	fputs("</section>\n", out);
	charts(out, r, o);
	fputs("<footer><p>Written by fleetmark report; a self-contained page (no scripts, "
	    "no external resources).</p></footer>\n</body></html>\n", out);
	return ferror(out) ? -1 : 0;
}

int
report_write_html(const char *rundir, char **err)
{
	struct report *r = report_new();
	struct report_opts o;
	struct fs_atomic a = { NULL, NULL, -1, 0 };
	char *path = NULL;
	FILE *fp = NULL;
	int ret = -1, bad;

	report_opts_init(&o);
	o.format = REPORT_HTML;
	if (report_add_run(r, rundir, err) != 0)
		goto out;
	if (r->nseries == 0) {
		*err = xasprintf("%s: no trials to report", rundir);
		goto out;
	}
	/* a report can be rendered again from the run: no fsync */
	path = rundir_path(rundir, RUNDIR_REPORT_HTML);
	if (fs_atomic_open(&a, path, 0666, FS_NOSYNC, err) != 0)
		goto out;
	if ((fp = fs_atomic_stream(&a)) == NULL) {
		*err = xasprintf("cannot write %s: %s", a.tmp, strerror(errno));
		goto out;
	}
	if (report_render(r, &o, fp, err) < 0)
		goto out;
	bad = fflush(fp) != 0 || ferror(fp);
	if (fclose(fp) != 0 || bad) {
		fp = NULL;
		*err = xasprintf("cannot write %s: %s", a.tmp, strerror(errno));
		goto out;
	}
	fp = NULL;
	ret = fs_atomic_commit(&a, err);
out:
	if (fp != NULL)
		fclose(fp);
	fs_atomic_abort(&a);
	free(path);
	report_free(r);
	return ret;
}
