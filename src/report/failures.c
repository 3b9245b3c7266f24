/*
 * report-failures.c: the failures table, what failed where and why.
 *
 * A line of trials.jsonl that is not ok is never used for a number, but a
 * report still says what it was: one row per (series, bench, point,
 * class) with the first message of that class at that point and how many
 * trials ended so (docs/reports.md, "The failures table").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "xmalloc.h"

struct rfail {
	size_t	 series;
	char	*bench;
	char	*params;
	char	*status;
	char	*message;	/* the first one, or "" */
	size_t	 count;
};

struct rfails {
	struct rfail	*f;
	size_t		 n, cap;
	size_t		 last;	/* the row found last: failures come in runs */
};

static int
same(const struct rfail *f, size_t s, const char *bench, const char *params,
    const char *status)
{
	return f->series == s && strcmp(f->bench, bench) == 0 &&
	    strcmp(f->params, params) == 0 && strcmp(f->status, status) == 0;
}

void
report_failure_add(struct report *r, size_t s, const char *bench, const char *params,
    const char *status, const char *message)
{
	struct rfails *fs;
	struct rfail *f;
	size_t i;

	if (r->fails == NULL)
		r->fails = xcalloc(1, sizeof(*r->fails));
	fs = r->fails;
	bench = bench ? bench : "";
	params = params ? params : "";
	if (fs->n > 0 && same(&fs->f[fs->last], s, bench, params, status)) {
		fs->f[fs->last].count++;
		return;
	}
	for (i = 0; i < fs->n; i++)
		if (same(&fs->f[i], s, bench, params, status)) {
			fs->f[i].count++;
			fs->last = i;
			return;
		}
	xgrow(&fs->f, &fs->cap, fs->n + 1, sizeof(*fs->f));
	f = &fs->f[fs->n];
	f->series = s;
	f->bench = xstrdup(bench);
	f->params = xstrdup(params);
	f->status = xstrdup(status);
	f->message = xstrdup(message ? message : "");
	f->count = 1;
	fs->last = fs->n++;
}

void
report_failures_release(struct report *r)
{
	size_t i;

	if (r == NULL || r->fails == NULL)
		return;
	for (i = 0; i < r->fails->n; i++) {
		free(r->fails->f[i].bench);
		free(r->fails->f[i].params);
		free(r->fails->f[i].status);
		free(r->fails->f[i].message);
	}
	free(r->fails->f);
	free(r->fails);
	r->fails = NULL;
}

int
report_has_failures(const struct report *r)
{
	return r->fails != NULL && r->fails->n > 0;
}

/* The first line of a message, for a table cell. */
static char *
first_line(const char *m)
{
	size_t n = strcspn(m, "\r\n");

	return xstrndup(m, n);
}

char *
report_failure_why(const struct report *r, size_t s, const char *bench, const char *want)
{
	const struct rfail *f;
	char *m, *why;
	size_t i;

	for (i = r->fails ? r->fails->n : 0; i-- > 0;) {
		f = &r->fails->f[i];
		if (f->series != s || strcmp(f->bench, bench) != 0 ||
		    !report_params_match(f->params, want))
			continue;
		m = first_line(f->message);
		why = *m ? xasprintf("%s: %s", f->status, m) : xstrdup(f->status);
		free(m);
		return why;
	}
	return NULL;
}

enum { F_HOST, F_VARIANT, F_BENCH, F_POINT, F_CLASS, F_MESSAGE, F_COUNT, F_NCOLS };

int
report_table_failures(const struct report *r, struct rgrids *gs)
{
	static const char *const cols[F_NCOLS] = {
		"host", "variant", "bench", "point", "class", "first message", "count",
	};
	struct rgrid *g;
	size_t i, row, trials = 0;
	char num[32], *title, *msg;

	if (!report_has_failures(r))
		return -1;
	for (i = 0; i < r->fails->n; i++)
		trials += r->fails->f[i].count;
	title = xasprintf("Failures: %zu trial%s not ok, by host, point and class, with the "
	    "first message (every message is in the run's trials.jsonl and logs/)", trials,
	    trials == 1 ? "" : "s");
	g = rgrid_new("failures", title, F_MESSAGE + 1, F_NCOLS, cols);
	free(title);
	for (i = 0; i < r->fails->n; i++) {
		const struct rfail *f = &r->fails->f[i];
		const struct rseries *s = &r->series[f->series];

		row = rgrid_add_row(g);
		rgrid_set(g, row, F_HOST, s->host, NAN);
		rgrid_set(g, row, F_VARIANT, s->variant ? s->variant : "-", NAN);
		rgrid_set(g, row, F_BENCH, f->bench, NAN);
		rgrid_set(g, row, F_POINT, *f->params ? f->params : "-", NAN);
		rgrid_set(g, row, F_CLASS, f->status, NAN);
		msg = first_line(f->message);
		rgrid_set(g, row, F_MESSAGE, *msg ? msg : "-", NAN);
		free(msg);
		snprintf(num, sizeof(num), "%zu", f->count);
		rgrid_set(g, row, F_COUNT, num, (double)f->count);
	}
	rgrids_add(gs, g);
	return 0;
}
