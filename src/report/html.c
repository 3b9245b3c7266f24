/*
 * report-html.c: `--format html` (docs/reports.md): one self-contained page
 * for the engineer who has to say whether a change is good, drawn here, in
 * C, as HTML tables and inline SVG.  From the top:
 *
 *   verdict	a box: how many points got worse, better, could not be
 *		judged (noisy, too few trials, an interval too wide) or are
 *		unchanged, and the regressions by name
 *   changes	the compact compare table: point | base | new | change with
 *		its 95% interval | p | q (Benjamini-Hochberg over the
 *		table's p values) | mark; narrow enough for an 800 px window
 *   forest	per compared series, each point's change and interval
 *		against the threshold band
 *   scaling	small multiples: per (bench, metric, P), P a numeric
 *		parameter swept over at least SWEEP_MIN values, one panel per
 *		combination of the other swept parameters (lines: series),
 *		or one panel with a line per combination for one series
 *   trials	per (bench, metric), a group per point and a box and strip
 *		of the trial values per series; the axis starts at 0, and
 *		outliers (robust.h) that would squash the others are drawn at
 *		the top edge and named in the tooltip
 *   tables	the grids the other formats print, as HTML tables; lmbench
 *		cells as full numbers (not getsummary's `39.K`), matrix grids
 *		heat-coloured with noisy cells hatched
 *   env	the runs, then the hosts' facts per side (hosts/NAME.json)
 *
 * Every number shown is computed through the report's data (report-int.h)
 * and verdict_judge(), the one rule, so the page and the text tables agree.
 * A section with nothing to show is left out, heading and all.
 *
 * Self-contained means: inline CSS, inline SVG, no script, no request of
 * any kind (no fonts, no images, no links to other sites); a
 * Content-Security-Policy meta tag forbids them too.  Every text that came
 * from a file goes through html_text(), which escapes & < > " and '.
 * Charts are <svg data-chart="KIND"> with a <title>, and each mark has a
 * tooltip of its own; colours are Okabe-Ito, with markers, dashes and
 * hatching so that nothing is told by colour alone.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "envdiff.h"
#include "fsutil.h"
#include "html.h"
#include "numfmt.h"
#include "report-int.h"
#include "report.h"
#include "robust.h"
#include "rundir.h"
#include "stats.h"
#include "strv.h"
#include "svg.h"
#include "utf8.h"
#include "verdict.h"
#include "xmalloc.h"

#define PANEL_W		460	/* a small multiple's viewBox width */
#define PLOT_L		64
#define PLOT_R		16
#define PLOT_T		48	/* the title, then the y axis label, above the plot */
#define PLOT_H		220
#define AXIS_B		44	/* below the plot: tick labels and the axis label */
#define WIDE_W		960	/* the widest chart */
#define SLOT_W		26	/* a series' box in a trials chart */
#define MAX_GROUPS	12	/* points per trials chart */
#define STRIP_MAX	60	/* trials drawn as dots; beyond, only the outliers */
#define ABOVE_NAMED	8	/* values off the axis a tooltip names */
#define REGS_LISTED	12	/* regressions the verdict box names */
#define MAX_PANELS	12	/* panels per (bench, metric, P) before lines per combination */
#define SWEEP_MIN	3	/* values of a numeric parameter drawn as a line */
#define LOG_SPAN	20.0
#define FOREST_W	900
#define FOREST_LAB	340	/* the forest plot's label column */
#define FOREST_CHARS	48	/* of a point's name there */
#define FOREST_ROW	18
#define LABEL_MAX	SVG_LABEL_MAX

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
params_of(const char *params, const struct strv *keys, const char *skip)
{
	char *out = xstrdup(""), *v, *t;
	size_t i;

	for (i = 0; i < keys->n; i++) {
		if (skip && strcmp(keys->v[i], skip) == 0)
			continue;
		v = report_param(params, keys->v[i]);
		t = xasprintf("%s%s%s=%s", out, *out ? "," : "", keys->v[i], v ? v : "");
		free(v);
		free(out);
		out = t;
	}
	return out;
}

/* A point's name: "bench params metric". */
static char *
point_name(const struct rcell *c)
{
	return xasprintf("%s%s%s %s", c->bench, *c->params ? " " : "", c->params, c->metric);
}

/* Text cut to max bytes (on a character boundary), with "..." when cut. */
static void
label_cut(FILE *out, const char *s, size_t max)
{
	size_t n = strlen(s), k;
	char *t;

	if (n <= max || max < 4) {
		html_text(out, s);
		return;
	}
	k = utf8_cut(s, max - 3);
	t = xstrndup(s, k);
	html_text(out, t);
	fputs("...", out);
	free(t);
}

static void
label_text(FILE *out, const char *s)
{
	label_cut(out, s, LABEL_MAX);
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

/* Hatching pattern i for boxes of colour c, id "h<chart>-<i>": a light
 * tint of the colour with white stripes at the series' own angle. */
static void
hatch_def(FILE *out, int chart, size_t i, const char *c)
{
	static const int angle[NHATCH] = { 0, 45, -45, 0, 90, 45 };

	fprintf(out, "<pattern id=\"h%d-%zu\" width=\"6\" height=\"6\" "
	    "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(%d)\">"
	    "<rect width=\"6\" height=\"6\" fill=\"%s\" fill-opacity=\"0.45\"/>", chart, i,
	    angle[i % NHATCH], c);
	if (i % NHATCH != 0)
		fputs("<path d=\"M0 3H6\" stroke=\"white\" stroke-width=\"1.6\"/>", out);
	if (i % NHATCH == 5)
		fputs("<path d=\"M3 0V6\" stroke=\"white\" stroke-width=\"1.6\"/>", out);
	fputs("</pattern>", out);
}

/* A report chart's frame: its plot area, the y axis from 0 (svg.h). */
static void
frame_init(struct svg_frame *f, int w)
{
	f->w = w;
	f->l = PLOT_L;
	f->r = PLOT_R;
	f->t = PLOT_T;
	f->h = PLOT_H;
	f->axis = SVG_AXIS_ZERO;
	f->ticks = 5;
	f->tick_gap = 5;
	f->tick_rise = 4;
	f->lo = 0;
	f->hi = 1;
	f->step = 1;
}

/* Grid lines, y ticks, the frame and the y label. */
static void
draw_yaxis(FILE *out, const struct svg_frame *f, const char *label)
{
	fputs("<g class=\"axis\">", out);
	svg_yticks(out, f);
	fprintf(out, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>",
	    f->l, f->t, f->w - f->l - f->r, f->h);
	/* above the axis, not along it: a long metric name would not fit there */
	fprintf(out, "<text class=\"label\" x=\"6\" y=\"%d\">", f->t - 14);
	label_cut(out, label, (size_t)(f->w - 12) / 7);
	fputs("</text></g>\n", out);
}

/* The y axis label: "metric (unit), mean of trials". */
static char *
ylabel(const struct rcell *c, const char *what)
{
	return xasprintf("%s%s%s%s, %s", c->metric, *c->unit ? " (" : "", c->unit,
	    *c->unit ? ")" : "", what);
}

static const char *
agg_name(const struct report_opts *o)
{
	return o->aggregate == REPORT_AGG_MEDIAN ? "median" : "mean";
}

/*
 * A chart: <figure class="CLS"><svg data-chart="KIND" ...> with a <title>
 * (its accessible name, aria-labelledby) and the same text on top.
 */
static void
svg_open(FILE *out, const char *cls, const char *kind, const struct rcell *c,
    const char *param, const char *panel, int chart, int w, int h, const char *title)
{
	/* a wide chart grows to its width and a quarter, no more: its text
	 * keeps about the size of the small multiples' */
	if (strstr(cls, "wide"))
		fprintf(out, "<figure class=\"%s\" style=\"max-width:%dpx\">", cls,
		    w + w / 4);
	else
		fprintf(out, "<figure class=\"%s\">", cls);
	fprintf(out, "<svg data-chart=\"%s\"", kind);
	if (c) {
		fputs(" data-bench=\"", out);
		html_text(out, c->bench);
		fputs("\" data-metric=\"", out);
		html_text(out, c->metric);
		fputs("\"", out);
	}
	if (param) {
		fputs(" data-param=\"", out);
		html_text(out, param);
		fputs("\"", out);
	}
	if (panel) {
		fputs(" data-panel=\"", out);
		html_text(out, panel);
		fputs("\"", out);
	}
	fprintf(out, " viewBox=\"0 0 %d %d\" role=\"img\" aria-labelledby=\"c%d\">"
	    "<title id=\"c%d\">", w, h, chart, chart);
	html_text(out, title);
	fputs("</title><text class=\"ctitle\" x=\"6\" y=\"18\">", out);
	label_cut(out, title, (size_t)(w - 12) / 7);
	fputs("</text>\n", out);
}

static void
svg_close(FILE *out)
{
	fputs("</svg></figure>\n", out);
}

/* --- The comparison: every (point, compared series) judged once ------------------ */

enum ckind {
	CK_WORSE,
	CK_BETTER,
	CK_UNJUDGED,	/* noisy, too few trials, a side missing, or an interval too wide */
	CK_SAME,	/* the interval shows no change as large as the threshold */
};

struct crow {
	size_t		 cell, s, b;
	const struct rvals *bv, *v;
	int		 judged;	/* both sides have values, the base mean is not 0 */
	struct verdict	 d;
	int		 noisy;		/* a side is noisy (verdict_noisy()) */
	enum ckind	 kind;
	int		 regression;	/* worse, and the metric counts */
	double		 q;		/* Benjamini-Hochberg over the rows' p, or NAN */
	enum rjudge_state state;	/* report_judge()'s */
	const char	*outcome;	/* a row not marked: "cannot judge", ... or "" */
	char		 why[VERDICT_WHY_MAX];	/* ... and why (verdict_why()) */
};

struct cmp {
	struct crow	*row;
	size_t		 n;
	size_t		 ncompared;	/* series compared with a baseline */
	double		 thr;
	double		 fdr;		/* the level q is held against */
	size_t		 judged;	/* rows in the Benjamini-Hochberg step */
	size_t		 count[4];	/* rows per enum ckind */
	size_t		 regressions;
};

static void
cmp_build(struct cmp *m, const struct report *r, const struct report_opts *o, size_t base)
{
	size_t *pairs = report_pairs(r, base, NULL), s, i;
	struct rjudged j;
	char *err = NULL;

	memset(m, 0, sizeof(*m));
	m->thr = report_threshold(r, o, base);
	for (s = 0; s < r->nseries; s++)
		m->ncompared += pairs[s] != (size_t)-1;
	free(pairs);
	/* the rows as the compare table judges them (report-judge.c): the
	 * same marks, the same q */
	if (report_judge(r, o, base, &j, &err) != 0) {
		free(err);
		return;
	}
	m->thr = j.threshold;
	m->fdr = j.fdr;
	m->judged = j.judged;
	m->row = xcalloc(j.n + 1, sizeof(*m->row));
	for (i = 0; i < j.n; i++) {
		const struct rjudge *x = &j.rows[i];
		struct crow *w = &m->row[m->n++];

		w->cell = x->cell;
		w->s = x->series;
		w->b = x->base;
		w->bv = x->bv;
		w->v = x->v;
		w->state = x->state;
		w->judged = x->state != RJUDGE_NONE;
		w->d = x->d;
		w->q = x->q;
		w->noisy = x->noisy || x->base_noisy;
		w->kind = x->state == RJUDGE_JUDGED && x->mark == RJUDGE_WORSE ? CK_WORSE :
		    x->state == RJUDGE_JUDGED && x->mark == RJUDGE_BETTER ? CK_BETTER :
		    x->state == RJUDGE_JUDGED && x->d.kind == VERDICT_GOOD ? CK_SAME :
		    CK_UNJUDGED;
		w->outcome = x->state != RJUDGE_NONE && (x->state != RJUDGE_JUDGED ||
		    !x->d.tested) ? "cannot judge" : x->d.kind == VERDICT_NOT_SIGNIFICANT ?
		    "not significant" : "";
		report_judge_why(r, x, j.threshold, VERDICT_WHY_SHORT, w->why, sizeof(w->why));
		w->regression = w->kind == CK_WORSE &&
		    report_regression_counts(r, w->s, w->b, &r->cells[w->cell]);
		m->count[w->kind]++;
		m->regressions += w->regression;
	}
	report_judged_release(&j);
}

static void
cmp_release(struct cmp *m)
{
	if (m == NULL)
		return;
	free(m->row);
}

static const char *
ckind_class(const struct crow *w)
{
	return w->kind == CK_WORSE ? "worse" : w->kind == CK_BETTER ? "better" :
	    w->kind == CK_SAME ? "same" : "unjudged";
}

/*
 * Why a row was not judged, shortly: its outcome and the reason
 * (verdict_why()), sep between them when both are there.
 */
static void
unjudged_why(FILE *out, const struct crow *w, const char *sep, const char *end)
{
	if (w->bv == NULL)
		fputs("no baseline values", out);
	else if (w->v == NULL)
		fputs("no values", out);
	else if (!w->judged)
		fputs("baseline mean 0", out);
	else {
		html_text(out, w->outcome);
		if (*w->outcome && *w->why)
			fputs(sep, out);
		html_text(out, w->why);
		if (*w->outcome && *w->why)
			fputs(end, out);
	}
}

/* The 95% interval of d's change, or "" when it has none. */
static void
interval(char *buf, size_t cap, const struct verdict *d)
{
	if (isnan(d->lo) || isnan(d->hi))
		snprintf(buf, cap, "%s", "");
	else
		numfmt_interval(buf, cap, d->lo, d->hi);
}

/* "+10.0%" or "" into buf. */
static void
pct(char *buf, size_t cap, double v)
{
	if (isfinite(v))
		snprintf(buf, cap, "%+.1f%%", fabs(v) < 0.05 ? 0 : v);	/* no "-0.0%" */
	else
		snprintf(buf, cap, "%s", isnan(v) ? "" : v > 0 ? "+inf" : "-inf");
}

/* Text that may break after each '/', ',' and '=' (series names, params). */
static void
wrap_text(FILE *out, const char *s)
{
	size_t len;
	char *t;

	while (*s) {
		len = strcspn(s, "/,=");
		if (s[len])
			len++;
		t = xstrndup(s, len);
		html_text(out, t);
		free(t);
		s += len;
		if (*s)
			fputs("<wbr>", out);
	}
}

/* The point, as a table cell: bench and params, then the metric and unit. */
static void
point_td(FILE *out, const struct rcell *c)
{
	fputs("<td class=\"pt\"><b>", out);
	html_text(out, c->bench);
	fputs("</b> ", out);
	wrap_text(out, c->params);
	fputs(" <span class=\"metric\">", out);
	html_text(out, c->metric);
	if (*c->unit) {
		fputs(" (", out);
		html_text(out, c->unit);
		fputs(")", out);
	}
	fputs("</span></td>", out);
}

/* A side's mean, with n and rsd below it. */
static void
side_td(FILE *out, const struct rvals *v)
{
	char buf[NUMFMT_MAX];
	double rsd;

	if (v == NULL) {
		fputs("<td class=\"n\">-</td>", out);
		return;
	}
	numfmt_fixed(buf, sizeof(buf), stats_mean(v->v, v->n), 4);
	rsd = verdict_rsd(v->v, v->n);
	fprintf(out, "<td class=\"n\" title=\"mean of %zu trials\">%s<small>n=%zu", v->n,
	    buf, v->n);
	if (!isnan(rsd))
		fprintf(out, " ±%.1f%%", rsd);
	fputs("</small></td>", out);
}

/* --- The verdict box ------------------------------------------------------------- */

struct heat;
static void table(FILE *out, const struct rgrid *g, const struct heat *ht);

/*
 * The environment's differences between the sides compared (report-env.c's
 * grid "environment"): in the verdict box, since a change of THP or ASLR
 * between the sides is a verdict's first suspect.  Not among the tables.
 */
static void
env_diff(FILE *out, const struct rgrids *gs, const struct heat *ht)
{
	size_t i;

	for (i = 0; i < gs->n; i++)
		if (strcmp(gs->g[i]->table, "environment") == 0)
			table(out, gs->g[i], ht);
}

static void
verdict_box(FILE *out, const struct report *r, size_t base, const struct cmp *m,
    const struct rgrids *gs, const struct heat *ht)
{
	static const char *const what[4] = {
		[CK_WORSE] = "worse", [CK_BETTER] = "better",
		[CK_UNJUDGED] = "noisy or cannot judge", [CK_SAME] = "unchanged",
	};
	static const char *const cls[4] = {
		[CK_WORSE] = "worse", [CK_BETTER] = "better", [CK_UNJUDGED] = "unjudged",
		[CK_SAME] = "same",
	};
	size_t i, k, *regs, nregs = 0;
	char a[32], iv[NUMFMT_INTERVAL_MAX], p[NUMFMT_MAX];

	/* the box's border says it at a glance: red with a regression, green
	 * when every point was judged and none got worse */
	fprintf(out, "<section id=\"verdict\" class=\"verdict%s\" aria-labelledby=\"verdict-h\">"
	    "<h2 id=\"verdict-h\">Verdict</h2>\n", m->regressions ? " bad" : m->n > 0 &&
	    m->count[CK_WORSE] == 0 && m->count[CK_UNJUDGED] == 0 ? " good" : "");
	if (m->ncompared == 0 || m->n == 0) {
		fprintf(out, "<p>Nothing compared: %s; %zu points.  Give a baseline run, or "
		    "runs with another label, variant or host, to judge a change.</p>\n",
		    r->nseries == 1 ? "one series" : "no series shares a point with its baseline",
		    r->ncells);
		env_diff(out, gs, ht);
		fputs("</section>\n", out);
		return;
	}
	fprintf(out, "<p>%zu points of %zu compared series against <b>", m->n, m->ncompared);
	html_text(out, r->series[base].name);
	fprintf(out, "</b>, threshold %g%%: Welch's t-test p &lt; %.2f and the 95%% interval "
	    "reaching the threshold, q at most %g (Benjamini-Hochberg over the %zu rows "
	    "judged).</p>\n<ul class=\"counts\">", m->thr, VERDICT_ALPHA, m->fdr, m->judged);
	for (k = 0; k < 4; k++)
		fprintf(out, "<li class=\"%s\" data-count=\"%s\"><b>%zu</b> %s</li>", cls[k],
		    cls[k], m->count[k], what[k]);
	fputs("</ul>\n", out);
	env_diff(out, gs, ht);
	if (m->regressions == 0) {
		fprintf(out, "<p class=\"none\">No regression%s.</p></section>\n",
		    m->count[CK_WORSE] ? " (the worse points' metrics are not the plan's "
		    "regression.metrics)" : "");
		return;
	}
	/* the worst first, REGS_LISTED of them: a night of 157 is read in
	 * the changes table */
	regs = xcalloc(m->regressions, sizeof(*regs));
	for (i = 0; i < m->n; i++)
		if (m->row[i].regression) {
			for (k = nregs; k > 0 && m->row[regs[k - 1]].d.worse < m->row[i].d.worse;
			    k--)
				regs[k] = regs[k - 1];
			regs[k] = i;
			nregs++;
		}
	fprintf(out, "<table class=\"regs\" data-table=\"verdict-regressions\"><caption>"
	    "%zu regression%s%s</caption><thead><tr><th>point</th><th>series</th>"
	    "<th class=\"n\">change</th><th class=\"n\">95%% interval</th><th class=\"n\">p"
	    "</th></tr></thead><tbody>\n", m->regressions, m->regressions == 1 ? "" : "s",
	    m->regressions > REGS_LISTED ? ", the worst first" : "");
	for (k = 0; k < nregs && k < REGS_LISTED; k++) {
		const struct crow *w = &m->row[regs[k]];

		fputs("<tr>", out);
		point_td(out, &r->cells[w->cell]);
		fputs("<td>", out);
		html_text(out, r->series[w->s].name);
		pct(a, sizeof(a), w->d.change);
		interval(iv, sizeof(iv), &w->d);
		numfmt_p(p, sizeof(p), w->d.p);
		fprintf(out, "</td><td class=\"n worse\">%s</td><td class=\"n\">%s</td>"
		    "<td class=\"n\">%s</td></tr>\n", a, iv, p);
	}
	if (nregs > REGS_LISTED)
		fprintf(out, "<tr><td colspan=\"5\">and %zu more, marked worse in the "
		    "<a href=\"#changes\">changes</a></td></tr>\n", nregs - REGS_LISTED);
	fputs("</tbody></table></section>\n", out);
	free(regs);
}

/* --- The compact compare table ----------------------------------------------------- */

static void
changes_table(FILE *out, const struct report *r, size_t base, const struct cmp *m)
{
	size_t i;
	int many = m->ncompared > 1;
	char a[32], iv[NUMFMT_INTERVAL_MAX], p[NUMFMT_MAX];

	if (m->n == 0)
		return;
	fputs("<section id=\"changes\"><h2>Changes against ", out);
	html_text(out, r->series[base].name);
	fprintf(out, "</h2>\n<p class=\"note\">base and new: the mean of the trials (n, rsd); "
	    "change of the mean with its 95%% interval; p: Welch's t-test; q: p adjusted "
	    "over the %zu rows judged (Benjamini-Hochberg); mark: the verdict at %g%%.</p>\n"
	    "<table class=\"changes\" data-table=\"changes\"><thead><tr>"
	    "<th data-col=\"point\">point</th>", m->judged, m->thr);
	if (many)
		fputs("<th data-col=\"series\">series</th>", out);
	fputs("<th class=\"n\" data-col=\"base\">base</th><th class=\"n\" data-col=\"new\">new"
	    "</th><th class=\"n\" data-col=\"change\">change</th><th class=\"n\" "
	    "data-col=\"p\">p</th><th class=\"n\" data-col=\"q\">q</th><th "
	    "data-col=\"mark\">mark</th></tr></thead>\n<tbody>\n", out);
	for (i = 0; i < m->n; i++) {
		const struct crow *w = &m->row[i];

		fprintf(out, "<tr class=\"%s\">", ckind_class(w));
		point_td(out, &r->cells[w->cell]);
		if (many) {
			fputs("<td class=\"series\">", out);
			wrap_text(out, r->series[w->s].name);
			fputs("</td>", out);
		}
		side_td(out, w->bv);
		side_td(out, w->v);
		if (w->judged) {
			pct(a, sizeof(a), w->d.change);
			interval(iv, sizeof(iv), &w->d);
			fprintf(out, "<td class=\"n\">%s", a);
			if (*iv)
				fprintf(out, "<small>%s</small>", iv);
			fputs("</td>", out);
		} else
			fputs("<td class=\"n\">-</td>", out);
		numfmt_p(p, sizeof(p), w->judged && w->d.tested ? w->d.p : NAN);
		fprintf(out, "<td class=\"n\">%s</td>", p);
		numfmt_p(p, sizeof(p), w->q);
		fprintf(out, "<td class=\"n\">%s</td>", p);
		switch (w->kind) {
		case CK_WORSE:
			fprintf(out, "<td class=\"worse\">worse%s</td>", w->regression ? "" :
			    "<small>not a plan metric</small>");
			break;
		case CK_BETTER:
			fputs("<td class=\"better\">better</td>", out);
			break;
		case CK_SAME:
			fputs("<td class=\"same\">same</td>", out);
			break;
		case CK_UNJUDGED:
			fputs("<td class=\"noisy\">", out);
			unjudged_why(out, w, "<small>", "</small>");
			fputs("</td>", out);
			break;
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table></section>\n", out);
}

/* --- The forest plot ------------------------------------------------------------- */

/* x of a change v on the forest's axis from xlo (at pl) to xhi (at pr),
 * clamped to it. */
static double
forest_x(double v, double xlo, double xhi, int pl, int pr)
{
	if (v < xlo)
		v = xlo;
	if (v > xhi)
		v = xhi;
	return pl + (v - xlo) / (xhi - xlo) * (pr - pl);
}

/* One forest plot: the rows of series s, change and interval against the
 * threshold band. */
static void
chart_forest(FILE *out, const struct report *r, const struct cmp *m, size_t s, int chart)
{
	double xlo = -m->thr, xhi = m->thr, step, x0, x1;
	size_t i, nrows = 0, k;
	int h, top = 52, pl = FOREST_LAB, pr = FOREST_W - 28;
	char *title, a[32], iv[NUMFMT_INTERVAL_MAX], p[NUMFMT_MAX];
	size_t b = (size_t)-1;

#define FX(v) forest_x(v, xlo, xhi, pl, pr)
	for (i = 0; i < m->n; i++) {
		const struct crow *w = &m->row[i];
		const double e[3] = { w->d.change, w->d.lo, w->d.hi };

		if (w->s != s)
			continue;
		nrows++;
		b = w->b;
		for (k = 0; k < 3 && w->judged; k++)
			if (isfinite(e[k])) {
				if (e[k] < xlo)
					xlo = e[k];
				if (e[k] > xhi)
					xhi = e[k];
			}
	}
	if (nrows == 0)
		return;
	/* an interval of +900% would squash the rest: cut at -100% and +200%,
	 * with an arrow where a row goes on */
	if (xlo < -100)
		xlo = -100;
	if (xhi > 200)
		xhi = 200;
	step = html_nice_step(xhi - xlo, 6);
	xlo = floor(xlo / step) * step;
	xhi = ceil(xhi / step) * step;
	h = top + (int)nrows * FOREST_ROW + 40;
	title = xasprintf("Change of each point with its 95%% interval: %s against %s",
	    r->series[s].name, r->series[b].name);
	svg_open(out, "forest wide", "forest", NULL, NULL, r->series[s].name, chart, FOREST_W, h,
	    title);
	free(title);
	/* every other row shaded, to follow a label to its interval */
	for (k = 0; k < nrows; k += 2)
		fprintf(out, "<rect class=\"zebra\" x=\"0\" y=\"%zu\" width=\"%d\" "
		    "height=\"%d\"/>", top + k * FOREST_ROW, FOREST_W, FOREST_ROW);
	/* the threshold band, 0, ticks */
	fprintf(out, "<rect class=\"band\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%zu\">"
	    "<title>within ±%g%%: no change the verdict calls significant</title></rect>",
	    FX(-m->thr), top - 4, FX(m->thr) - FX(-m->thr), nrows * FOREST_ROW + 8, m->thr);
	fputs("<g class=\"axis\">", out);
	for (x0 = xlo; x0 <= xhi + step / 2; x0 += step) {
		double x = FX(x0);

		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%zu\"/>"
		    "<text x=\"%.1f\" y=\"%zu\" text-anchor=\"middle\">%+g%%</text>", x, x,
		    top - 4, top + nrows * FOREST_ROW + 4, x, top + nrows * FOREST_ROW + 18,
		    fabs(x0) < step / 1e6 ? 0 : x0);
	}
	fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%zu\" stroke=\"#333\"/>",
	    FX(0), FX(0), top - 4, top + nrows * FOREST_ROW + 4);
	fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">change "
	    "(%%; + the value grew), shaded: ±%g%%</text>", (pl + pr) / 2, h - 6, m->thr);
	fprintf(out, "<text class=\"label\" x=\"6\" y=\"%d\">point</text></g>\n", top - 12);
	for (i = 0, k = 0; i < m->n; i++) {
		const struct crow *w = &m->row[i];
		const struct rcell *c = &r->cells[w->cell];
		double y = top + (double)k * FOREST_ROW + FOREST_ROW / 2.0;
		const char *col = w->kind == CK_WORSE ? "#C0392B" : w->kind == CK_BETTER ?
		    "#0072B2" : "#666";
		char *name;

		if (w->s != s)
			continue;
		k++;
		name = point_name(c);
		fprintf(out, "<g class=\"row %s\"><title>", ckind_class(w));
		html_text(out, name);
		if (w->judged) {
			pct(a, sizeof(a), w->d.change);
			interval(iv, sizeof(iv), &w->d);
			fprintf(out, ": %s", a);
			if (*iv)
				fprintf(out, " (95%% interval %s)", iv);
			if (w->d.tested) {
				numfmt_p(p, sizeof(p), w->d.p);
				fprintf(out, ", p=%s", p);
			}
		}
		fputs(", ", out);
		if (w->kind == CK_UNJUDGED)
			unjudged_why(out, w, ": ", "");
		else
			fputs(ckind_class(w), out);
		fputs("</title>", out);
		fprintf(out, "<text x=\"6\" y=\"%.1f\">", y + 4);
		label_cut(out, name, FOREST_CHARS);
		fputs("</text>", out);
		free(name);
		if (!w->judged) {
			fprintf(out, "<text class=\"na\" x=\"%.1f\" y=\"%.1f\">", (double)pl + 4,
			    y + 4);
			unjudged_why(out, w, ": ", "");
			fputs("</text></g>\n", out);
			continue;
		}
		if (isfinite(w->d.lo) && isfinite(w->d.hi)) {
			x0 = FX(w->d.lo);
			x1 = FX(w->d.hi);
			fprintf(out, "<path d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f\" "
			    "stroke=\"%s\" stroke-width=\"2\"/>", x0, y, x1, x0, y - 4, y + 4, x1,
			    y - 4, y + 4, col);
			if (w->d.lo < xlo)
				fprintf(out, "<path d=\"M%.1f %.1fl6 -4v8Z\" fill=\"%s\"/>", x0 - 6, y,
				    col);
			if (w->d.hi > xhi)
				fprintf(out, "<path d=\"M%.1f %.1fl-6 -4v8Z\" fill=\"%s\"/>", x1 + 6, y,
				    col);
		}
		if (isfinite(w->d.change)) {
			x0 = FX(w->d.change);
			if (w->kind == CK_UNJUDGED)
				fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"white\" "
				    "stroke=\"%s\" stroke-width=\"2\"/>", x0, y, col);
			else
				fprintf(out, "<path d=\"M%.1f %.1fl5 5l-5 5l-5 -5Z\" fill=\"%s\"/>",
				    x0, y - 5, col);
		}
		fputs("</g>\n", out);
	}
#undef FX
	svg_close(out);
}

/* --- Scaling: small multiples ------------------------------------------------------- */

struct line {
	size_t	 series;
	size_t	 combo;
	double	*y, *sd;	/* per x value, NAN when missing */
	size_t	*n;
};

/* Whether P is a numeric sweep among cells: a number in every cell, and at
 * least SWEEP_MIN values (two sizes of lat_fs are two workloads, not a
 * curve: their points are groups of the trials chart). */
static int
is_sweep(const struct report *r, const size_t *cells, size_t ncells, const char *P)
{
	struct strv xs = STRV_INIT;
	size_t i;
	int ok = 1;

	for (i = 0; i < ncells && ok; i++) {
		char *v = report_param(r->cells[cells[i]].params, P);

		ok = v != NULL && report_is_number(v);
		if (ok)
			strv_push_unique(&xs, v);
		free(v);
	}
	ok = ok && xs.n >= SWEEP_MIN;
	strv_clear(&xs);
	return ok;
}

/* One panel: the lines whose (series or combination) is `which`. */
static void
scaling_panel(FILE *out, const struct report *r, const struct report_opts *o,
    const struct rcell *c0, const char *P, const struct strv *xs, const struct strv *combos,
    const struct line *lines, size_t nlines, int by_combo, size_t which, const char *pname,
    const struct svg_frame *fa, int chart)
{
	struct svg_frame f = *fa;
	struct svg_legend lg;
	size_t i, j, k, maxlen = 0, nin = 0;
	double xmin = atof(xs->v[0]), xmax = atof(xs->v[xs->n - 1]);
	int logx = xmin > 0 && xmax / xmin > LOG_SPAN, h;
	char *title, *yl, buf[NUMFMT_MAX];

	for (i = 0; i < nlines; i++) {
		size_t len;

		if ((by_combo ? lines[i].combo : lines[i].series) != which)
			continue;
		nin++;
		len = by_combo ? utf8_width(r->series[lines[i].series].name) :
		    utf8_width(combos->v[lines[i].combo]);
		if (len > maxlen)
			maxlen = len;
	}
	if (nin == 0)
		return;
	svg_legend_fit(&lg, &f, f.t + f.h + AXIS_B, maxlen);
	h = f.t + f.h + AXIS_B + svg_legend_height(&lg, nin);
	title = xasprintf("%s %s over %s%s%s", c0->bench, c0->metric, P, *pname ? ": " : "",
	    pname);
	svg_open(out, "panel", "scaling", c0, P, pname, chart, f.w, h, title);
	free(title);
	yl = ylabel(c0, o->aggregate == REPORT_AGG_MEDIAN ? "median ± sd" : "mean ± sd");
	draw_yaxis(out, &f, yl);
	free(yl);

#define XMAP(v) (f.l + 12 + ((logx ? log(v) - log(xmin) : (v) - xmin) / \
	(xmax > xmin ? (logx ? log(xmax) - log(xmin) : xmax - xmin) : 1)) * \
	(f.w - f.l - f.r - 24))
	fputs("<g class=\"axis\">", out);
	for (j = 0; j < xs->n; j++) {
		double x = XMAP(atof(xs->v[j]));

		if (xs->n > 10 && j % ((xs->n + 9) / 10) != 0 && j != xs->n - 1)
			continue;	/* crowded ticks: some labels */
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
		    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x, x, f.t + f.h,
		    f.t + f.h + 5, x, f.t + f.h + 17);
		html_text(out, xs->v[j]);
		fputs("</text>", out);
	}
	fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
	    f.l + (f.w - f.l - f.r) / 2, f.t + f.h + 34);
	html_text(out, P);
	fputs(logx ? " (log scale)</text></g>\n" : "</text></g>\n", out);

	for (i = 0, k = 0; i < nlines; i++) {
		const struct line *l = &lines[i];
		size_t style = by_combo ? l->series : l->combo;
		const char *colour = colours[style % NCOLOURS], *dash = dashes[k % NDASHES];
		const char *name = by_combo ? r->series[l->series].name : combos->v[l->combo];
		int pen = 0;
		double lx, ly;

		if ((by_combo ? l->combo : l->series) != which)
			continue;
		fputs("<g class=\"line\"><title>", out);
		html_text(out, r->series[l->series].name);
		if (*combos->v[l->combo]) {
			fputs(" ", out);
			html_text(out, combos->v[l->combo]);
		}
		fprintf(out, "</title><path fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s "
		    "d=\"", colour, *dash ? " stroke-dasharray=\"" : "", dash, *dash ? "\"" : "");
		for (j = 0; j < xs->n; j++) {
			if (isnan(l->y[j]))
				continue;	/* a missing point: the line goes on to the next */
			fprintf(out, "%s%.1f %.1f", pen ? "L" : "M", XMAP(atof(xs->v[j])),
			    svg_fy(&f, l->y[j]));
			pen = 1;
		}
		fputs("\"/>", out);
		for (j = 0; j < xs->n; j++) {
			double x = XMAP(atof(xs->v[j])), y;

			if (isnan(l->y[j]))
				continue;
			y = svg_fy(&f, l->y[j]);
			if (!isnan(l->sd[j]) && l->sd[j] > 0)	/* clamped to the frame by svg_fy() */
				fprintf(out, "<path class=\"whisker\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM"
				    "%.1f %.1fH%.1f\" stroke=\"%s\"/>", x, svg_fy(&f, l->y[j] - l->sd[j]),
				    svg_fy(&f, l->y[j] + l->sd[j]), x - 3, svg_fy(&f, l->y[j] - l->sd[j]),
				    x + 3, x - 3, svg_fy(&f, l->y[j] + l->sd[j]), x + 3, colour);
			fputs("<g><title>", out);
			html_text(out, name);
			fputs(" ", out);
			html_text(out, P);
			fputs("=", out);
			html_text(out, xs->v[j]);
			numfmt_short(buf, sizeof(buf), l->y[j]);
			fprintf(out, ": %s", buf);
			if (!isnan(l->sd[j])) {
				numfmt_short(buf, sizeof(buf), l->sd[j]);
				fprintf(out, " ± %s", buf);
			}
			fprintf(out, " (n=%zu)</title>", l->n[j]);
			marker(out, (int)style, x, y, colour);
			fputs("</g>", out);
		}
		svg_legend_at(&lg, k, &lx, &ly);
		fprintf(out, "<path d=\"M%.1f %.1fH%.1f\" stroke=\"%s\" stroke-width=\"2\"%s%s%s/>",
		    lx, ly, lx + 32, colour, *dash ? " stroke-dasharray=\"" : "", dash,
		    *dash ? "\"" : "");
		marker(out, (int)style, lx + 16, ly, colour);
		fprintf(out, "<text class=\"leg\" x=\"%.1f\" y=\"%.1f\">", lx + 38, ly + 4);
		label_text(out, name);
		fputs("</text></g>\n", out);
		k++;
	}
#undef XMAP
	svg_close(out);
}

/*
 * The panels of one (bench, metric, P): with several series and several
 * combinations of the other swept parameters, one panel per combination
 * and a line per series (what a change did at each workload); with one
 * series, or too many combinations, a panel per series and a line per
 * combination.  The panels share the y axis.
 */
static void
chart_scaling(FILE *out, const struct report *r, const struct report_opts *o,
    const size_t *cells, size_t ncells, const struct strv *swept, const char *P, int *chart)
{
	const struct rcell *c0 = &r->cells[cells[0]];
	struct strv xs = STRV_INIT, combos = STRV_INIT, used = STRV_INIT;
	struct line *lines = NULL;
	size_t nlines = 0, cap = 0, i, j, s, k, *xi, *ci;
	double ylo = INFINITY, yhi = -INFINITY;
	int by_combo;
	struct svg_frame f;

	xi = xcalloc(ncells, sizeof(*xi));
	ci = xcalloc(ncells, sizeof(*ci));
	for (i = 0; i < ncells; i++) {
		char *v = report_param(r->cells[cells[i]].params, P);

		if (v)
			strv_push_unique(&xs, v);
		free(v);
	}
	qsort(xs.v, xs.n, sizeof(*xs.v), report_cmp_num);
	for (i = 0; i < ncells; i++) {
		char *v = report_param(r->cells[cells[i]].params, P);
		char *rest = params_of(r->cells[cells[i]].params, swept, P);

		xi[i] = v ? strv_find(xs.v, xs.n, v) : (size_t)-1;
		strv_push_unique(&combos, rest);
		free(v);
		free(rest);
	}
	qsort(combos.v, combos.n, sizeof(*combos.v), cmp_verstr);
	for (i = 0; i < ncells; i++) {
		char *rest = params_of(r->cells[cells[i]].params, swept, P);

		ci[i] = strv_find(combos.v, combos.n, rest);
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
			l->n = xcalloc(xs.n, sizeof(size_t));
			for (j = 0; j < xs.n; j++)
				l->y[j] = l->sd[j] = NAN;
			for (i = 0; i < ncells; i++) {
				const struct rvals *v;
				double mv, sd, w;

				if (ci[i] != k || xi[i] == (size_t)-1 ||
				    (v = report_vals(r, s, cells[i])) == NULL)
					continue;
				mv = report_agg(v, o->aggregate == REPORT_AGG_MEDIAN ?
				    REPORT_AGG_MEDIAN : REPORT_AGG_MEAN);
				if (!isfinite(mv))
					continue;	/* 1e999 in a line: not drawn */
				sd = stats_sd(v->v, v->n);
				l->y[xi[i]] = mv;
				l->sd[xi[i]] = isfinite(sd) ? sd : NAN;
				l->n[xi[i]] = v->n;
				if (mv < ylo)
					ylo = mv;
				/* a whisker may reach twice the value, no more: an
				 * outlier's sd would squash the lines (svg_fy() clips it) */
				w = isfinite(sd) ? fmin(sd, fabs(mv)) : 0;
				if (mv + w > yhi)
					yhi = mv + w;
				any = 1;
			}
			if (any)
				nlines++;
			else {
				free(l->y);
				free(l->sd);
				free(l->n);
			}
		}
	if (nlines == 0)
		goto out;
	frame_init(&f, PANEL_W);
	svg_frame_fit(&f, ylo, yhi);
	by_combo = r->nseries > 1 && combos.n > 1 && combos.n <= MAX_PANELS;
	for (i = 0; i < nlines; i++)
		strv_push_unique(&used, by_combo ? combos.v[lines[i].combo] :
		    r->series[lines[i].series].name);
	for (k = 0; k < (by_combo ? combos.n : r->nseries); k++) {
		const char *pname = by_combo ? combos.v[k] : r->nseries > 1 ?
		    r->series[k].name : "";

		if (strv_find(used.v, used.n, by_combo ? combos.v[k] : r->series[k].name) ==
		    (size_t)-1)
			continue;
		scaling_panel(out, r, o, c0, P, &xs, &combos, lines, nlines, by_combo, k, pname,
		    &f, (*chart)++);
	}
out:
	for (i = 0; i < nlines; i++) {
		free(lines[i].y);
		free(lines[i].sd);
		free(lines[i].n);
	}
	free(lines);
	free(xi);
	free(ci);
	strv_clear(&xs);
	strv_clear(&combos);
	strv_clear(&used);
}

/* --- Trials: box and strip per series and point -------------------------------------- */

/* The finite values of v, sorted, and which are outliers; a new array. */
struct slot {
	double		*x;		/* finite trial values, in the order taken */
	unsigned char	*out;		/* outlier flags (robust_outliers()) */
	size_t		 n, nout;
	double		 lo, hi;	/* of the values that are not outliers */
	double		 q1, med, q3;
};

static int
slot_of(const struct rvals *v, struct slot *sl)
{
	struct robust_outliers ro;
	char *err = NULL;
	size_t i, k = 0;

	memset(sl, 0, sizeof(*sl));
	if (v == NULL)
		return -1;
	sl->x = xcalloc(v->n + 1, sizeof(double));
	sl->out = xcalloc(v->n + 1, 1);
	for (i = 0; i < v->n; i++)
		if (isfinite(v->v[i]))
			sl->x[sl->n++] = v->v[i];
	if (sl->n == 0)
		return -1;
	if (robust_outliers(sl->x, sl->n, sl->out, &ro, &err) != 0) {
		free(err);
		memset(sl->out, 0, sl->n);
		ro.median = robust_quantile(sl->x, sl->n, 0.5);
		ro.q1 = robust_quantile(sl->x, sl->n, 0.25);
		ro.q3 = robust_quantile(sl->x, sl->n, 0.75);
	}
	sl->lo = INFINITY;
	sl->hi = -INFINITY;
	for (i = 0; i < sl->n; i++) {
		if (sl->out[i]) {
			sl->nout++;
			continue;
		}
		k++;
		if (sl->x[i] < sl->lo)
			sl->lo = sl->x[i];
		if (sl->x[i] > sl->hi)
			sl->hi = sl->x[i];
	}
	if (k == 0) {	/* cannot happen with the rules of robust.h; be safe */
		memset(sl->out, 0, sl->n);
		sl->nout = 0;
		sl->lo = sl->hi = sl->x[0];
	}
	sl->q1 = ro.q1;	/* robust_outliers() sorted the trials once for all three */
	sl->med = ro.median;
	sl->q3 = ro.q3;
	return 0;
}

static void
slot_release(struct slot *sl)
{
	if (sl == NULL)
		return;
	free(sl->x);
	free(sl->out);
}

/* Where a trials chart puts things: its series' order, boxes, frame and legend. */
struct trials {
	size_t		*ord;		/* the series, a host's side by side */
	struct slot	*slots;		/* [cell * nseries + series] */
	struct svg_frame f;
	struct svg_legend lg;
	double		 gw;		/* the width of a cell's group of boxes */
	int		 w, h;
};

static void
trials_release(struct trials *t, size_t nslots)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < nslots; i++)
		slot_release(&t->slots[i]);
	free(t->slots);
	free(t->ord);
}

/*
 * The layout of a trials chart of cells: each box's statistics, the y
 * axis through every box and low outlier, the width and the legend.
 * -1 (t still to release) when no series has a trial there.
 */
static int
trials_layout(const struct report *r, const size_t *cells, size_t ncells,
    const struct strv *swept, struct trials *t)
{
	double ylo = INFINITY, yhi = -INFINITY;
	size_t i, s, j, k, maxlen = 0;
	int nl = 1, axis_b;

	/* a host's series side by side: the pairs compared stand together */
	t->ord = xcalloc(r->nseries, sizeof(*t->ord));
	for (s = 0; s < r->nseries; s++) {
		for (k = s; k > 0 && strcmp(r->series[t->ord[k - 1]].host, r->series[s].host) > 0;
		    k--)
			t->ord[k] = t->ord[k - 1];
		t->ord[k] = s;
	}

	/* each box's statistics once: they take sorts of every trial */
	t->slots = xcalloc(ncells * r->nseries, sizeof(*t->slots));
	for (i = 0; i < ncells; i++)
		for (s = 0; s < r->nseries; s++) {
			struct slot *sl = &t->slots[i * r->nseries + s];

			if (slot_of(report_vals(r, s, cells[i]), sl) == 0) {
				if (sl->lo < ylo)
					ylo = sl->lo;
				if (sl->hi > yhi)
					yhi = sl->hi;
				for (j = 0; j < sl->n; j++)	/* low outliers stay in view */
					if (sl->out[j] && sl->x[j] < ylo)
						ylo = sl->x[j];
			} else
				sl->n = 0;
		}
	if (ylo == INFINITY)
		return -1;
	t->gw = (double)(r->nseries * SLOT_W + 18);
	t->w = PLOT_L + PLOT_R + (int)(t->gw * (double)ncells);
	if (t->w < PANEL_W)
		t->w = PANEL_W;
	frame_init(&t->f, t->w);
	svg_frame_fit(&t->f, ylo, yhi + (yhi - (ylo < 0 ? ylo : 0)) * 0.04);
	t->gw = (double)(t->f.w - t->f.l - t->f.r) / (double)ncells;
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
	axis_b = 24 + 13 * nl;
	svg_legend_fit(&t->lg, &t->f, t->f.t + t->f.h + axis_b, maxlen);
	t->h = t->f.t + t->f.h + axis_b + svg_legend_height(&t->lg, r->nseries);
	return 0;
}

/*
 * Series s's box at x = cx (half width hw) for the group labelled gl:
 * its tooltip, whiskers, box, median and the trials as dots; the number
 * of trials above the axis.
 */
static size_t
trials_box(FILE *out, const struct report *r, const struct trials *t, size_t s,
    const struct slot *sl, double cx, double hw, const char *gl, int chart)
{
	const struct svg_frame *f = &t->f;
	const char *col = colours[s % NCOLOURS];
	char buf[NUMFMT_MAX];
	double mean, by, bh;
	size_t j, nabove = 0, ndots;

	mean = stats_mean(sl->x, sl->n);
	fputs("<g class=\"slot\"><title>", out);
	html_text(out, r->series[s].name);
	fputs(" ", out);
	html_text(out, gl);
	numfmt_short(buf, sizeof(buf), sl->med);
	fprintf(out, ": median %s", buf);
	numfmt_short(buf, sizeof(buf), mean);
	fprintf(out, ", mean %s", buf);
	if (sl->n > 1) {
		numfmt_short(buf, sizeof(buf), stats_sd(sl->x, sl->n));
		fprintf(out, " ± %s", buf);
	}
	fprintf(out, " (n=%zu)", sl->n);
	for (j = 0; j < sl->n; j++)
		if (sl->x[j] > f->hi)
			nabove++;
	if (nabove > 0) {
		size_t shown = 0;

		fprintf(out, "; above the axis:");
		for (j = 0; j < sl->n && shown < ABOVE_NAMED; j++)
			if (sl->x[j] > f->hi) {
				numfmt_short(buf, sizeof(buf), sl->x[j]);
				fprintf(out, " %s", buf);
				shown++;
			}
		if (nabove > shown)
			fprintf(out, " and %zu more", nabove - shown);
	}
	fputs("</title>", out);
	/* whiskers, box and median: svg_fy() keeps them in the frame */
	fprintf(out, "<path class=\"whisker\" d=\"M%.1f %.1fV%.1fM%.1f %.1fV%.1fM%.1f "
	    "%.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"%s\" stroke-width=\"1.3\"/>", cx,
	    svg_fy(f, sl->hi), svg_fy(f, sl->q3), cx, svg_fy(f, sl->q1), svg_fy(f, sl->lo),
	    cx - hw / 2, svg_fy(f, sl->hi), cx + hw / 2, cx - hw / 2, svg_fy(f, sl->lo),
	    cx + hw / 2, col);
	by = svg_fy(f, sl->q3);
	bh = svg_fy(f, sl->q1) - by;
	if (bh < 1) {	/* a box of equal trials: a line, in the frame */
		bh = 1;
		if (by + bh > f->t + f->h)
			by = f->t + f->h - bh;
	}
	fprintf(out, "<rect class=\"box\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
	    "height=\"%.1f\" fill=\"url(#h%d-%zu)\" stroke=\"%s\"/>", cx - hw, by,
	    2 * hw, bh, chart, s, col);
	fprintf(out, "<path d=\"M%.1f %.1fH%.1f\" stroke=\"%s\" stroke-width=\"2.5\"/>",
	    cx - hw, svg_fy(f, sl->med), cx + hw, col);
	for (j = 0, ndots = 0; j < sl->n && ndots < STRIP_MAX; j++) {
		double dx = cx + hw + 4 + (double)((j * 5) % 7) * 1.1;

		/* many trials: the box says it, and only the outliers
		 * are dots (a million circles is no chart) */
		if (sl->n > STRIP_MAX && !sl->out[j])
			continue;
		ndots++;
		if (sl->x[j] > f->hi)	/* an outlier past the top: a triangle there */
			fprintf(out, "<path class=\"above\" d=\"M%.1f %.1fl4 7h-8Z\" "
			    "fill=\"%s\"/>", dx, (double)f->t + 1, col);
		else
			fprintf(out, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" "
			    "r=\"2.3\" %s=\"%s\"%s/>",
			    dx, svg_fy(f, sl->x[j]), sl->out[j] ? "stroke" : "fill", col,
			    sl->out[j] ? " fill=\"white\"" : "");
	}
	fputs("</g>", out);
	return nabove;
}

/* A cell's group label under the axis: its params, a line each. */
static void
trials_group_label(FILE *out, const struct svg_frame *f, double tx, const char *gl)
{
	const char *p;
	int first = 1;

	fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"glabel\">",
	    tx, f->t + f->h + 15);
	for (p = gl; *p || first;) {
		size_t len = strcspn(p, ",");
		char *item = xstrndup(p, len);

		fprintf(out, "<tspan x=\"%.1f\" dy=\"%d\">", tx, first ? 0 : 13);
		label_text(out, item);
		fputs("</tspan>", out);
		free(item);
		first = 0;
		p += len;
		if (*p == ',')
			p++;
	}
	fputs("</text>", out);
}

/* The trials chart laid out in t: a group of boxes per cell, the legend. */
static void
trials_draw(FILE *out, const struct report *r, const size_t *cells, size_t ncells,
    const struct strv *swept, size_t part, size_t nparts, int chart, const struct trials *t)
{
	const struct rcell *c0 = &r->cells[cells[0]];
	const struct svg_frame *f = &t->f;
	size_t i, s, k, above = 0;
	char *title, *yl;

	if (nparts > 1)
		title = xasprintf("%s %s: the trials per series (%zu of %zu)", c0->bench,
		    c0->metric, part + 1, nparts);
	else
		title = xasprintf("%s %s: the trials per series", c0->bench, c0->metric);
	svg_open(out, t->w > PANEL_W ? "panel wide" : "panel", "trials", c0, NULL, NULL, chart,
	    t->w, t->h, title);
	free(title);
	fputs("<defs>", out);
	for (s = 0; s < r->nseries; s++)
		hatch_def(out, chart, s, colours[s % NCOLOURS]);
	fputs("</defs>\n", out);
	yl = ylabel(c0, "trial values");
	draw_yaxis(out, f, yl);
	free(yl);

	for (i = 0; i < ncells; i++) {
		const struct rcell *c = &r->cells[cells[i]];
		char *gl = params_of(c->params, swept, NULL);
		double gx = f->l + t->gw * (double)i, bw = (t->gw - 12) / (double)r->nseries;

		if (*gl == '\0') {
			free(gl);
			gl = xstrdup(*c->params ? c->params : c->bench);
		}
		if (i > 0)
			fprintf(out, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" "
			    "y2=\"%d\"/>", gx, gx, f->t, f->t + f->h);
		trials_group_label(out, f, gx + t->gw / 2, gl);
		for (k = 0; k < r->nseries; k++) {
			const struct slot *sl = &t->slots[i * r->nseries + t->ord[k]];
			double hw = bw * 0.32;

			if (sl->n == 0)
				continue;
			if (hw > 9)
				hw = 9;
			above += trials_box(out, r, t, t->ord[k], sl,
			    gx + 6 + bw * ((double)k + 0.5), hw, gl, chart);
		}
		free(gl);
	}
	if (above > 0)
		fprintf(out, "<text class=\"note\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%zu "
		    "outlier%s above the axis (triangles)</text>", f->w - f->r - 4, f->t + 20, above,
		    above == 1 ? "" : "s");
	for (k = 0; k < r->nseries; k++) {
		double lx, ly;

		s = t->ord[k];
		svg_legend_at(&t->lg, k, &lx, &ly);
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"26\" height=\"12\" "
		    "fill=\"url(#h%d-%zu)\" stroke=\"%s\"/><text class=\"leg\" x=\"%.1f\" "
		    "y=\"%.1f\">", lx, ly - 6, chart, s, colours[s % NCOLOURS], lx + 32, ly + 4);
		label_text(out, r->series[s].name);
		fputs("</text>\n", out);
	}
	svg_close(out);
}

/* Box and strip plots of every series' trials at each of cells. */
static void
chart_trials(FILE *out, const struct report *r, const size_t *cells, size_t ncells,
    const struct strv *swept, size_t part, size_t nparts, int chart)
{
	struct trials t;

	memset(&t, 0, sizeof(t));
	if (trials_layout(r, cells, ncells, swept, &t) == 0)
		trials_draw(out, r, cells, ncells, swept, part, nparts, chart, &t);
	trials_release(&t, ncells * r->nseries);
}

/* --- Charts of every (bench, metric) ------------------------------------------- */

/* Whether every swept parameter has a number in every cell. */
static int
all_numeric(const struct report *r, const size_t *cells, size_t ncells,
    const struct strv *swept)
{
	size_t i, k;
	int ok = 1;

	for (k = 0; k < swept->n && ok; k++)
		for (i = 0; i < ncells && ok; i++) {
			char *v = report_param(r->cells[cells[i]].params, swept->v[k]);

			ok = v != NULL && report_is_number(v);
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

/* A section (heading, intro, a grid of figures) when body holds any. */
static void
section(FILE *out, const char *id, const char *heading, const char *intro, char *body,
    size_t len)
{
	if (len > 0)
		fprintf(out, "<section id=\"%s\"><h2>%s</h2>\n<p class=\"note\">%s</p>\n"
		    "<div class=\"grid\">\n%s</div></section>\n", id, heading, intro, body);
	free(body);
}

static int
charts(FILE *out, const struct report *r, const struct report_opts *o,
    const struct cmp *m, int *chart)
{
	unsigned char *done = xcalloc(r->ncells + 1, 1);
	size_t *cells = xcalloc(r->ncells + 1, sizeof(*cells)), ncells, nall, c, i, k, s;
	char *body[3] = { NULL, NULL, NULL };
	size_t len[3] = { 0, 0, 0 };
	FILE *f[3];
	char *intro;

	for (k = 0; k < 3; k++)
		if ((f[k] = open_memstream(&body[k], &len[k])) == NULL) {
			while (k-- > 0) {
				fclose(f[k]);
				free(body[k]);
			}
			free(done);
			free(cells);
			return -1;
		}
	/* forest plots, a figure per compared series */
	for (s = 0; s < r->nseries; s++)
		chart_forest(f[0], r, m, s, (*chart)++);
	for (c = 0; c < r->ncells; c++) {
		struct strv swept = STRV_INIT;
		size_t nparts, p, per, maxg;

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
		for (k = 0; k < swept.n; k++)
			if (is_sweep(r, cells, ncells, swept.v[k]))
				chart_scaling(f[1], r, o, cells, ncells, &swept, swept.v[k], chart);
		/* a numeric sweep in numeric order; else the lines' order */
		if (all_numeric(r, cells, ncells, &swept))
			qsort_r(cells, ncells, sizeof(*cells), cmp_cell_params, (void *)r);
		maxg = (size_t)((WIDE_W - PLOT_L - PLOT_R) / (r->nseries * SLOT_W + 18));
		if (maxg < 1)
			maxg = 1;
		if (maxg > MAX_GROUPS)
			maxg = MAX_GROUPS;
		nparts = (ncells + maxg - 1) / maxg;
		per = (ncells + nparts - 1) / nparts;
		for (p = 0; p < nparts; p++) {
			size_t n = ncells - p * per;

			chart_trials(f[2], r, cells + p * per, n > per ? per : n, &swept, p, nparts,
			    (*chart)++);
		}
		strv_clear(&swept);
	}
	for (k = 0; k < 3; k++)
		fclose(f[k]);
	intro = xasprintf("Each compared point's change of the mean (diamond; hollow when "
	    "it cannot be judged) and its 95%% interval; the band is ±%g%%, the threshold.  "
	    "Red: worse, blue: better.", m->thr);
	section(out, "forest", "Changes and their intervals", intro, body[0], len[0]);
	free(intro);
	intro = xasprintf("For each numeric parameter swept over %d values or more: the %s "
	    "of the trials ± sd, a panel per value of the other swept parameters, a line per "
	    "series.  Panels of one parameter share their y axis.", SWEEP_MIN, agg_name(o));
	section(out, "scaling", "Scaling", intro, body[1], len[1]);
	free(intro);
	intro = xasprintf("Per point, every trial value of each series: a box from the first "
	    "to the third quartile with the median, whiskers to the furthest value that is not "
	    "an outlier (modified z-score), the values as dots (outliers hollow, or triangles "
	    "at the top when off the axis; past %d trials, only the outliers).  Axes start "
	    "at 0.", STRIP_MAX);
	section(out, "trials", "Trial values", intro, body[2], len[2]);
	free(intro);
	free(done);
	free(cells);
	return 0;
}

/* --- Tables --------------------------------------------------------------------- */

/* The index of column `name` among g's, or (size_t)-1 (STRV_NONE). */
static size_t
col_of(const struct rgrid *g, const char *name)
{
	return strv_find(g->cols, g->ncols, name);
}

/*
 * The heat of a matrix cell: the background (a CSS colour) and whether its
 * change is noisy (hatched).  A value grid shades from its smallest value
 * to its largest; a change grid is red for worse and blue for better, the
 * deeper the closer to twice the threshold.  The grid's hidden columns
 * (series, baseline, bench, metric, params and the row parameter) name
 * the cell, whose values give the noise.
 */
struct heat {
	const struct report	*r;
	double			 thr;
	double			 lo, hi;	/* of a value grid's numbers */
};

static void
heat_grid(struct heat *ht, const struct rgrid *g)
{
	size_t i, j;

	ht->lo = INFINITY;
	ht->hi = -INFINITY;
	for (i = 0; i < g->nrows; i++)
		for (j = g->nkeys; j < g->ncols; j++) {
			double v = g->nums[i * g->ncols + j];

			if (isfinite(v) && v < ht->lo)
				ht->lo = v;
			if (isfinite(v) && v > ht->hi)
				ht->hi = v;
		}
}

static void
heat_cell(const struct heat *ht, const struct rgrid *g, size_t row, size_t col, FILE *out)
{
	const char *const *cells = (const char *const *)g->cells + row * g->ncols;
	size_t qc = col_of(g, "quantity"), sc = col_of(g, "series"), bc = col_of(g, "baseline");
	size_t mc = col_of(g, "bench"), tc = col_of(g, "metric"), pc = col_of(g, "params");
	double v = g->nums[row * g->ncols + col], a;
	const struct report *r = ht->r;
	size_t s, b, c;
	char *want;
	int noisy = 0, higher = 0, found = 0;

	if (!isfinite(v) || qc == (size_t)-1 || sc == (size_t)-1 || bc == (size_t)-1 ||
	    mc == (size_t)-1 || tc == (size_t)-1 || pc == (size_t)-1)
		return;
	if (strcmp(cells[qc], "change%") != 0) {
		a = ht->hi > ht->lo ? (v - ht->lo) / (ht->hi - ht->lo) : 0;
		fprintf(out, " style=\"background-color:rgba(230,159,0,%.2f)\"", 0.06 + 0.5 * a);
		return;
	}
	s = report_series_index(r, cells[sc]);
	b = report_series_index(r, cells[bc]);
	want = xasprintf("%s%s%s=%s,%s", cells[pc], *cells[pc] ? "," : "", g->cols[g->nhidden],
	    cells[g->nhidden], g->cols[col]);
	for (c = 0; c < r->ncells && s != (size_t)-1 && b != (size_t)-1; c++) {
		const struct rcell *rc = &r->cells[c];
		const struct rvals *sv, *bv;

		if (strcmp(rc->bench, cells[mc]) != 0 || strcmp(rc->metric, cells[tc]) != 0 ||
		    !report_params_match(rc->params, want))
			continue;
		sv = report_vals(r, s, c);
		bv = report_vals(r, b, c);
		higher = rc->higher;
		found = 1;
		noisy = sv == NULL || bv == NULL ||
		    verdict_noisy(verdict_rsd(sv->v, sv->n), sv->n, ht->thr) ||
		    verdict_noisy(verdict_rsd(bv->v, bv->n), bv->n, ht->thr);
		break;
	}
	free(want);
	if (!found)
		return;
	a = fabs(v) / (2 * ht->thr);
	if (a > 1)
		a = 1;
	fprintf(out, " style=\"background-color:%s%.2f)\"%s title=\"%s%s\"",
	    (v > 0) == !higher ? "rgba(213,94,0," : "rgba(0,114,178,", 0.08 + 0.55 * a,
	    noisy ? " data-noisy=\"1\"" : "", v == 0 ? "no change" : (v > 0) == !higher ?
	    "worse" : "better", noisy ? "; noisy: a side's rsd is above the threshold or it "
	    "has fewer than 3 trials" : "");
}

static void
table(FILE *out, const struct rgrid *g, const struct heat *ht)
{
	int lmbench = strcmp(g->table, "lmbench") == 0;
	int matrix = strcmp(g->table, "matrix") == 0;
	struct heat h = *ht;
	size_t i, j;

	if (matrix)
		heat_grid(&h, g);
	fputs("<h3>", out);
	html_text(out, g->title);
	fputs("</h3>\n<div class=\"scroll\"><table data-table=\"", out);
	html_text(out, g->table);
	fputs(matrix ? "\" class=\"grid-matrix\"><thead><tr>" : "\"><thead><tr>", out);
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
			double num = g->nums[i * g->ncols + j];
			const char *cls = j < g->nkeys ? NULL : "n";
			char buf[NUMFMT_MAX];

			while (*s == ' ')
				s++;
			if (strcmp(s, "worse") == 0)
				cls = "worse";
			else if (strcmp(s, "better") == 0)
				cls = "better";
			else if (strcmp(g->cols[j], "noisy") == 0 && *s)
				cls = "noisy";
			else if (strchr(s, '*') && matrix)
				cls = "n sig";
			if (cls)
				fprintf(out, "<td class=\"%s\"", cls);
			else
				fputs("<td", out);
			if (matrix && j >= g->nkeys)
				heat_cell(&h, g, i, j, out);
			if (lmbench && j >= g->nkeys && *s && isfinite(num)) {
				/* a web page has the room for the whole number; the
				 * mail's cell is the tooltip */
				numfmt_short(buf, sizeof(buf), num);
				fputs(" title=\"lmbench: ", out);
				html_text(out, s);
				fprintf(out, "\">%s", buf);
			} else {
				fputs(">", out);
				html_text(out, s);
			}
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

/* --- The runs and the hosts' environment ---------------------------------------------- */

/* Facts shown first, in this order; the others follow as the files have them. */
static const char *const env_first[] = {
	"uname.release", "uname.version", "arch", "uname.machine", "cpu_model", "cpus",
	"mhz", "numa_nodes", "mem_kb", "page_size", "thp", "governor", "compiler", "agent",
};
#define NENV_FIRST	(sizeof(env_first) / sizeof(env_first[0]))

/* Flatten a hosts/NAME.json object into "a.b" keys (in keys) and the text
 * of their scalar values (vals[side * cap + key], set as keys grow). */
struct envtab {
	struct strv	 keys;
	char		**vals;		/* nsides * cap_keys */
	size_t		 nsides, cap_keys;
};

static void
env_set(struct envtab *e, size_t side, const char *key, const char *val)
{
	size_t k = strv_push_unique(&e->keys, key), i, oldcap = e->cap_keys;

	if (e->keys.n > e->cap_keys) {
		char **nv;

		e->cap_keys = e->keys.n * 2 + 16;
		nv = xcalloc(e->nsides * e->cap_keys, sizeof(*nv));
		for (i = 0; i < e->nsides * oldcap; i++)
			nv[(i / oldcap) * e->cap_keys + i % oldcap] = e->vals[i];
		free(e->vals);
		e->vals = nv;
	}
	free(e->vals[side * e->cap_keys + k]);
	e->vals[side * e->cap_keys + k] = xstrdup(val);
}

/* The facts of side's env object, as envdiff.h says what a fact is. */
static void
env_facts(struct envtab *e, size_t side, const json_t *o)
{
	struct strv keys = STRV_INIT, vals = STRV_INIT;
	size_t i;

	envdiff_flatten(o, &keys, &vals);
	for (i = 0; i < keys.n; i++)
		env_set(e, side, keys.v[i], vals.v[i]);
	strv_clear(&keys);
	strv_clear(&vals);
}

static void
env_section(FILE *out, const struct report *r)
{
	struct envtab e = { { 0 }, NULL, 0, 0 };
	struct strv sides = STRV_INIT;
	size_t *side_series, i, k, s;
	json_t *o;

	/* what differs between the sides is in the verdict box (env_diff()) */
	fputs("<section id=\"env\"><h2>Runs and environment</h2>\n", out);
	fputs("<div class=\"scroll\"><table class=\"meta\" data-table=\"series\"><thead><tr>"
	    "<th>series</th><th>run</th><th>directory</th><th>label</th><th>host</th>"
	    "<th>variant</th><th class=\"n\">MHz</th><th class=\"n\">lines not used</th>"
	    "</tr></thead><tbody>\n", out);
	for (i = 0; i < r->nseries; i++) {
		const struct rseries *sr = &r->series[i];
		const char *f[6] = { sr->name, sr->run, sr->dir, sr->label, sr->host,
			sr->variant ? sr->variant : "" };
		size_t j;

		fputs("<tr>", out);
		for (j = 0; j < 6; j++) {
			fputs("<td>", out);
			html_text(out, f[j]);
			fputs("</td>", out);
		}
		if (sr->mhz > 0)
			fprintf(out, "<td class=\"n\">%.0f</td>", sr->mhz);
		else
			fputs("<td></td>", out);
		fprintf(out, "<td class=\"n\">%zu</td></tr>\n", sr->failed + sr->nometric);
	}
	fputs("</tbody></table></div>\n", out);

	/* a side is a (run directory, host): the variants of a host share it */
	side_series = xcalloc(r->nseries + 1, sizeof(*side_series));
	for (s = 0; s < r->nseries; s++) {
		char *key = xasprintf("%s\x1f%s", r->series[s].dir, r->series[s].host);
		size_t n = sides.n;

		k = strv_push_unique(&sides, key);
		if (k == n)
			side_series[k] = s;
		free(key);
	}
	e.nsides = sides.n;
	for (k = 0; k < sides.n; k++) {
		const struct rseries *sr = &r->series[side_series[k]];
		char *lerr = NULL;

		env_set(&e, k, "run", sr->run);
		if (sr->plan)
			env_set(&e, k, "plan", sr->plan);
		/* through rundir.h, which refuses a host name that is a path */
		if (rundir_load_env(sr->dir, sr->host, &o, &lerr) == 0)
			env_facts(&e, k, o);
		json_decref(o);
		free(lerr);
	}
	fputs("<h3 class=\"env\">Hosts (hosts/NAME.json of each run)</h3>\n"
	    "<div class=\"scroll\"><table class=\"env\" data-table=\"env\"><thead><tr>"
	    "<th>fact</th>", out);
	for (k = 0; k < sides.n; k++) {
		const struct rseries *sr = &r->series[side_series[k]];

		fputs("<th>", out);
		html_text(out, sr->host);
		fputs("<small>", out);
		html_text(out, sr->run);
		fputs("</small></th>", out);
	}
	fputs("</tr></thead><tbody>\n", out);
	for (i = 0; i < NENV_FIRST + e.keys.n; i++) {
		const char *key;

		if (i < NENV_FIRST) {
			key = env_first[i];
			if (strv_find(e.keys.v, e.keys.n, key) == (size_t)-1)
				continue;
		} else {
			size_t j;

			key = e.keys.v[i - NENV_FIRST];
			for (j = 0; j < NENV_FIRST && strcmp(env_first[j], key) != 0; j++)
				;
			if (j < NENV_FIRST)
				continue;	/* shown first */
		}
		k = strv_find(e.keys.v, e.keys.n, key);
		fputs("<tr><th>", out);
		html_text(out, key);
		fputs("</th>", out);
		for (s = 0; s < sides.n; s++) {
			const char *v = e.vals[s * e.cap_keys + k];

			fputs("<td>", out);
			html_text(out, v ? v : "");
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table></div></section>\n", out);
	for (i = 0; i < e.nsides * e.cap_keys; i++)
		free(e.vals[i]);
	free(e.vals);
	strv_clear(&e.keys);
	strv_clear(&sides);
	free(side_series);
}

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1em 1.2em;color:#111;background:#fff}"
	"h1{font-size:1.45em;margin:0 0 .3em}h2{font-size:1.2em;margin:1.4em 0 .4em;"
	"border-bottom:1px solid #ccc}h3{font-size:1em;font-weight:600;margin:1.1em 0 .4em}"
	".scroll{overflow-x:auto}p.note{color:#444;margin:.2em 0 .6em;max-width:60em}"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin-bottom:1em}"
	"th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;white-space:nowrap;"
	"vertical-align:top}"
	"th{background:#eee}td.n,th.n{text-align:right}small{display:block;color:#555;"
	"font-size:.8em}"
	"td.worse{font-weight:700;color:#a00}td.worse::before{content:\"\\25BC \"}"
	"td.better{font-weight:700;color:#06c}td.better::before{content:\"\\25B2 \"}"
	"td.noisy{font-style:italic;color:#555}td.sig{font-weight:700}td.same{color:#555}"
	"tbody tr:nth-child(even){background:#f7f7f7}"
	".verdict{border:2px solid #888;border-radius:6px;padding:.2em 1em .6em;"
	"margin:1em 0;background:#fafafa}.verdict h2{border:0;margin-top:.4em}"
	".verdict.bad{border-color:#a00}.verdict.good{border-color:#2a7}"
	".counts{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.6em}"
	".counts li{border:1px solid #ccc;border-radius:4px;padding:.2em .7em;background:#fff}"
	".counts b{font-size:1.4em;margin-right:.2em}.counts .worse{border-color:#a00;"
	"color:#a00}.counts .better{border-color:#06c;color:#06c}"
	".counts .unjudged{font-style:italic}caption{text-align:left;font-weight:600;"
	"padding:.3em 0}"
	"table.changes{width:100%;max-width:1100px}table.changes td.pt,table.regs td.pt{white-space:normal;"
	"overflow-wrap:anywhere;min-width:8em}td.pt .metric{color:#333;white-space:nowrap}"
	"table.changes td.series{white-space:normal;min-width:8em}"
	"@media (max-width:900px){body{margin:.6em}th,td{padding:2px 4px}}"
	"tr.worse td.pt{border-left:4px solid #a00}tr.better td.pt{border-left:4px solid #06c}"
	".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,360px),1fr));"
	"gap:14px;align-items:start}.grid .wide{grid-column:1/-1;max-width:1100px}"
	"figure{margin:0;border:1px solid #e5e5e5;border-radius:4px;padding:4px;min-width:0}"
	"svg{display:block;width:100%;height:auto;font:12px system-ui,sans-serif}"
	"svg .grid{stroke:#e6e6e6}svg .frame{fill:none;stroke:#555}"
	"svg .label{font-size:12px;font-weight:600}svg .ctitle{font-size:13px;font-weight:600}"
	"svg .glabel{font-size:11px}svg .note,svg .na{font-size:11px;fill:#666;"
	"font-style:italic}svg .band{fill:#e4e4e4;fill-opacity:.7}svg .zebra{fill:#f5f5f5}"
	"svg .leg{font-size:12px}"
	"table.grid-matrix td[data-noisy]{background-image:repeating-linear-gradient(45deg,"
	"rgba(0,0,0,.22) 0 1.5px,transparent 1.5px 6px)}"
	"table.env td{white-space:normal;max-width:36em;overflow-wrap:anywhere}"
	"table[data-table=environment] td{white-space:normal;overflow-wrap:anywhere}"
	"table.env th small{font-weight:400}"
	".meta td:nth-child(3){white-space:normal}"
	"p.partial{font-weight:700;color:#a00;white-space:pre-line}";

int
report_html(const struct report *r, const struct report_opts *o, size_t base,
    const struct rgrids *gs, FILE *out)
{
	const struct report_counts *n = &r->counts;
	struct heat ht;
	struct cmp m;
	size_t i;
	int chart = 0, any_matrix = 0;

	cmp_build(&m, r, o, base);
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
	    "unknown format.  The runs and hosts are at the <a href=\"#env\">end</a>.</p>\n",
	    n->lines, n->used, n->failed, n->infra, n->nometric, n->corrupt, n->truncated,
	    n->unknown_format);
	for (i = 0; i < gs->n; i++)	/* the partial runs' lines, first */
		if (strcmp(gs->g[i]->table, "partial") == 0 && gs->g[i]->text != NULL) {
			fputs("<p class=\"partial\">", out);
			html_text(out, gs->g[i]->text);
			fputs("</p>\n", out);
		}
	fputs("</header>\n", out);
	ht.r = r;
	ht.thr = m.thr;
	ht.lo = ht.hi = NAN;
	verdict_box(out, r, base, &m, gs, &ht);
	changes_table(out, r, base, &m);
	if (charts(out, r, o, &m, &chart) != 0) {
		cmp_release(&m);
		return -1;
	}
	fputs("<section id=\"tables\"><h2>Tables</h2>\n", out);
	for (i = 0; i < gs->n; i++)
		any_matrix |= strcmp(gs->g[i]->table, "matrix") == 0;
	fputs("<p class=\"note\">The tables of the text report.", out);
	if (any_matrix)
		fprintf(out, "  Matrix grids are heat-coloured: values from light to deep as they "
		    "grow; changes red when worse and blue when better, deepest at ±%g%% (twice "
		    "the threshold) and beyond; hatched: noisy (a side's rsd above the "
		    "threshold, or fewer than %d trials).", 2 * m.thr, VERDICT_MIN_TRIALS);
	fputs("</p>\n", out);
	for (i = 0; i < gs->n; i++)
		if (strcmp(gs->g[i]->table, "environment") != 0)	/* in the verdict box */
			table(out, gs->g[i], &ht);
	fputs("</section>\n", out);
	env_section(out, r);
	fputs("<footer><p>Written by fleetmark report; a self-contained page (no scripts, "
	    "no external resources).</p></footer>\n</body></html>\n", out);
	cmp_release(&m);
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
