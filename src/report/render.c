/*
 * render.c: the registry of report tables.  Each table --table can name
 * is one entry of tables[] below: its name, the function that builds its
 * grids, and whether "auto" and "all" take it (when it has data); the
 * entries' order is the order in which a report shows them.  render_grids()
 * (report.c) asks report_tables_build() for the grids and writes them;
 * report_table_parse() reads --table from the same entries.  Adding a
 * table is a builder in its own file and one line here (docs/internals.md,
 * "Recipes": "A table").
 */
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "report.h"
#include "strbuf.h"
#include "strv.h"
#include "xmalloc.h"

/* Whether series set[] (nset of them) has point (bench, params) of cell c. */
static int
side_has(const struct report *r, const size_t *set, size_t nset, size_t c)
{
	size_t i, d;

	for (d = 0; d < r->ncells; d++) {
		if (strcmp(r->cells[d].bench, r->cells[c].bench) != 0 ||
		    strcmp(r->cells[d].params, r->cells[c].params) != 0)
			continue;
		for (i = 0; i < nset; i++)
			if (report_vals(r, set[i], d) != NULL)
				return 1;
	}
	return 0;
}

/*
 * What one side of a compare has, briefly: "lab-03/base (plan
 * tlb-flush-range) has munmap (4 points)", the first benchmarks and how
 * many more.  set[] are the side's series.
 */
static void
side_text(struct strbuf *sb, const struct report *r, const size_t *set, size_t nset)
{
	struct strv benches = STRV_INIT;
	size_t *npoints = NULL, cap = 0, c, d, b, total = 0;
	const struct rseries *first = &r->series[set[0]];

	for (c = 0; c < r->ncells; c++) {
		/* a point counts once, at its first cell */
		for (d = 0; d < c; d++)
			if (strcmp(r->cells[d].bench, r->cells[c].bench) == 0 &&
			    strcmp(r->cells[d].params, r->cells[c].params) == 0)
				break;
		if (d < c || !side_has(r, set, nset, c))
			continue;
		b = strv_push_unique(&benches, r->cells[c].bench);
		if (b >= cap) {
			size_t old = cap;

			xgrow(&npoints, &cap, b + 1, sizeof(*npoints));
			memset(npoints + old, 0, (cap - old) * sizeof(*npoints));
		}
		npoints[b]++;
		total++;
	}
	strbuf_addstr(sb, first->name);
	if (nset > 1)
		strbuf_addf(sb, " and %zu more series", nset - 1);
	strbuf_addf(sb, " (run %s, plan %s) has ", first->run, first->plan ? first->plan :
	    "unknown");
	if (total == 0)
		strbuf_addstr(sb, "no points");
	for (b = 0; b < benches.n && b < 3; b++)
		strbuf_addf(sb, "%s%s (%zu point%s)", b ? ", " : "", benches.v[b], npoints[b],
		    npoints[b] == 1 ? "" : "s");
	if (benches.n > 3)
		strbuf_addf(sb, " and %zu more benchmarks (%zu points in all)", benches.n - 3,
		    total);
	strv_clear(&benches);
	free(npoints);
}

/*
 * Whether the compare table's pairs share a point: some (cell, pair) has
 * values on both sides.  When none does, *err says what each side has.
 */
static int
common_points(const struct report *r, size_t base, char **err)
{
	size_t *pairs = report_pairs(r, base, NULL), *bset, *sset, nb = 0, ns = 0, s, c;
	struct strbuf sb;
	int common = 1;

	/* nothing to compare at all is the compare table's to say */
	for (s = 0; s < r->nseries; s++)
		if (pairs[s] != (size_t)-1)
			common = 0;
	for (s = 0; s < r->nseries && !common; s++)
		for (c = 0; pairs[s] != (size_t)-1 && c < r->ncells && !common; c++)
			common = report_vals(r, pairs[s], c) != NULL && report_vals(r, s, c) != NULL;
	if (common || err == NULL) {
		free(pairs);
		return common;
	}
	bset = xcalloc(r->nseries, sizeof(*bset));
	sset = xcalloc(r->nseries, sizeof(*sset));
	for (s = 0; s < r->nseries; s++) {
		if (pairs[s] == (size_t)-1)
			bset[nb++] = s;
		else
			sset[ns++] = s;
	}
	strbuf_init(&sb, 0);
	strbuf_addstr(&sb, "no points in common: ");
	side_text(&sb, r, bset, nb);
	if (ns > 0) {
		strbuf_addstr(&sb, "; ");
		side_text(&sb, r, sset, ns);
	}
	*err = strbuf_detach(&sb, NULL);
	free(bset);
	free(sset);
	free(pairs);
	return 0;
}

/*
 * The default tables of runs to compare: the matrix grids of the metrics
 * swept over two parameters, the compact compare of the other points, then
 * the regressions of both.  The number of regressions, or -1.
 */
static int
default_compare(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	unsigned char *in = xcalloc(r->ncells + 1, 1);
	size_t c, nin = report_matrix_cells(r, in);
	int n = -1;

	if (nin > 0 && report_table_matrix(r, o, base, gs, err) < 0)
		goto out;
	if (nin < r->ncells) {
		for (c = 0; c < r->ncells; c++)
			in[c] = !in[c];
		if (report_table_compact(r, o, base, in, gs, err) < 0)
			goto out;
	}
	n = report_table_regressions(r, o, base, NULL, gs, err);
out:
	free(in);
	return n;
}

/* --- The builders -------------------------------------------------------------- */

/*
 * "auto" without lmbench points: runs to compare get default_compare();
 * else a summary of each series (unless nothing was measured: the
 * failures say why) and the matrix of a sweep.
 */
static int
build_auto(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	int fallback;

	if (report_has_lmbench(r))
		return 0;	/* lmbench's own entry */
	free(report_pairs(r, base, &fallback));
	if (r->nseries > 1 && !fallback && common_points(r, base, NULL))
		return default_compare(r, o, base, gs, err);
	if ((r->ncells > 0 || !report_has_failures(r)) &&
	    report_table_summary(r, o, base, gs, err) != 0)
		return -1;
	return report_table_matrix(r, o, base, gs, err) < 0 ? -1 : 0;
}

static int
build_lmbench(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	(void)base;
	return report_table_lmbench(r, o, gs, err) != 0 ? -1 : 0;
}

static int
build_summary(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	return report_table_summary(r, o, base, gs, err) != 0 ? -1 : 0;
}

static int
build_delta(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	/* among the compare and matrix tables, their sign: + the value grew */
	return report_table_delta(r, o, base, o->table == REPORT_TABLE_ALL, gs, err) != 0 ?
	    -1 : 0;
}

static int
build_matrix(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	int n = report_table_matrix(r, o, base, gs, err);

	if (n < 0)
		return -1;
	if (n > 0 && o->table == REPORT_TABLE_MATRIX) {
		*err = xstrdup("no metric was measured over two swept parameters "
		    "(e.g. threads and pages)");
		return -1;
	}
	return 0;
}

static int
build_compare(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	if (o->table == REPORT_TABLE_COMPARE && !common_points(r, base, err))
		return -1;
	return report_table_compare(r, o, base, gs, err);
}

static int
build_compact(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	if (!common_points(r, base, err) ||
	    report_table_compact(r, o, base, NULL, gs, err) < 0)
		return -1;
	return report_table_regressions(r, o, base, NULL, gs, err);
}

static int
build_samples(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	(void)base;
	return report_table_samples(r, o, gs, err) != 0 ? -1 : 0;
}

static int
build_profile(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	return report_table_profile(r, o, base, gs, err) != 0 ? -1 : 0;
}

static int
build_kernel(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	return report_table_kernel(r, o, base, gs, err) != 0 ? -1 : 0;
}

static int
build_failures(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	(void)base;
	if (report_table_failures(r, gs) != 0 && o->table == REPORT_TABLE_FAILURES) {
		*err = xstrdup("no trial failed in the runs given");
		return -1;
	}
	return 0;
}

/* --- Whether a table has data, for "auto", "all" and the tables added to any --- */

static int
has_lmbench(const struct report *r, const struct report_opts *o, size_t base)
{
	(void)o;
	(void)base;
	return report_has_lmbench(r);
}

static int
has_series(const struct report *r, const struct report_opts *o, size_t base)
{
	(void)o;
	(void)base;
	return r->nseries > 1;
}

static int
has_common(const struct report *r, const struct report_opts *o, size_t base)
{
	(void)o;
	return r->nseries > 1 && common_points(r, base, NULL);
}

static int
has_samples(const struct report *r, const struct report_opts *o, size_t base)
{
	(void)r;
	(void)base;
	return o->samples;
}

static int
has_profile(const struct report *r, const struct report_opts *o, size_t base)
{
	(void)o;
	(void)base;
	return report_has_profile(r);
}

/* The kernel's trouble beside any table but the profiles. */
static int
has_kernel(const struct report *r, const struct report_opts *o, size_t base)
{
	(void)base;
	return report_has_kernel(r) && o->table != REPORT_TABLE_PROFILE;
}

static int
has_failures(const struct report *r, const struct report_opts *o, size_t base)
{
	(void)o;
	(void)base;
	return report_has_failures(r);
}

/* --- The registry --------------------------------------------------------------- */

#define IN_AUTO	0x1	/* "auto" takes it when has() says it has data */
#define IN_ALL	0x2	/* "all" takes it when has() says so */
#define IN_ANY	0x4	/* any --table takes it when has() says so */

struct report_table_def {
	const char		*name;	/* for --table; NULL: an option's (--samples) */
	enum report_table	 table;
	/* the table's grids into gs: regressions counted, or -1 with *err */
	int			(*build)(const struct report *r, const struct report_opts *o,
				    size_t base, struct rgrids *gs, char **err);
	/* whether it has data, for IN_AUTO, IN_ALL, IN_ANY; NULL: always */
	int			(*has)(const struct report *r, const struct report_opts *o,
				    size_t base);
	unsigned		 in;	/* IN_AUTO, IN_ALL, IN_ANY */
};

/* In the order a report shows them.  "auto" and "all" pick among the others. */
static const struct report_table_def tables[] = {
	{ "auto",	REPORT_TABLE_AUTO,	build_auto,	NULL,		0 },
	{ "all",	REPORT_TABLE_ALL,	NULL,		NULL,		0 },
	{ "lmbench",	REPORT_TABLE_LMBENCH,	build_lmbench,	has_lmbench,	IN_AUTO | IN_ALL },
	{ "summary",	REPORT_TABLE_SUMMARY,	build_summary,	NULL,		IN_ALL },
	{ "delta",	REPORT_TABLE_DELTA,	build_delta,	has_series,	IN_ALL },
	{ "matrix",	REPORT_TABLE_MATRIX,	build_matrix,	NULL,		IN_ALL },
	{ "compare",	REPORT_TABLE_COMPARE,	build_compare,	has_common,	IN_ALL },
	{ "compact",	REPORT_TABLE_COMPACT,	build_compact,	NULL,		0 },
	{ NULL,		REPORT_TABLE_AUTO,	build_samples,	has_samples,	IN_ANY },
	{ "profile",	REPORT_TABLE_PROFILE,	build_profile,	has_profile,	IN_AUTO | IN_ALL },
	{ "kernel",	REPORT_TABLE_KERNEL,	build_kernel,	has_kernel,	IN_ANY },
	{ "failures",	REPORT_TABLE_FAILURES,	build_failures,	has_failures,	IN_AUTO | IN_ALL },
};

#define NTABLES	(sizeof(tables) / sizeof(tables[0]))

int
report_table_parse(const char *s, enum report_table *out)
{
	size_t i;

	for (i = 0; i < NTABLES; i++)
		if (tables[i].name != NULL && strcmp(s, tables[i].name) == 0) {
			*out = tables[i].table;
			return 0;
		}
	return -1;
}

/* Whether entry d is among the tables of --table t. */
static int
wanted(const struct report_table_def *d, const struct report *r,
    const struct report_opts *o, size_t base)
{
	enum report_table t = o->table;

	if (d->name != NULL && d->table == t)
		return 1;
	if (!((d->in & IN_ANY) || ((d->in & IN_AUTO) && t == REPORT_TABLE_AUTO) ||
	    ((d->in & IN_ALL) && t == REPORT_TABLE_ALL)))
		return 0;
	return d->has == NULL || d->has(r, o, base);
}

int
report_tables_build(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	size_t i;
	int regressions = 0, n;

	for (i = 0; i < NTABLES; i++) {
		const struct report_table_def *d = &tables[i];

		if (d->build == NULL || !wanted(d, r, o, base))
			continue;
		if ((n = d->build(r, o, base, gs, err)) < 0)
			return -1;
		regressions += n;
	}
	return regressions;
}
