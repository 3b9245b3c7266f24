/*
 * report-kernel.c: the kernel log table: every trial during which the
 * kernel reported trouble (an oops, a BUG, a WARNING, a lockup, an RCU
 * stall, a hung task: the agent counts them, docs/agent.md), with the
 * counts by kind and the first line, and, when runs are compared, the
 * kinds a series shows that its baseline did not: "new" on a nightly
 * report is how a night with a new oops says so.
 *
 * Failed trials count as much as ok ones: a trial that crashed is where
 * a kernel warning matters most.  A trial's kernel member is on each of
 * its lines (one per metric, one per suite member); it is counted once.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report-int.h"
#include "report.h"
#include "strbuf.h"
#include "xmalloc.h"

#define KERNEL_MAX_TRIALS	10000	/* trials listed, at most */

/* "warning 2, soft_lockup 1" from a counts object, in its order. */
static char *
counts_text(const json_t *counts)
{
	struct strbuf sb = STRBUF_INIT;
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)counts, k, v) {
		if (sb.len > 0)
			strbuf_addstr(&sb, ", ");
		strbuf_addf(&sb, "%s %lld", k, (long long)json_integer_value(v));
	}
	return strbuf_detach(&sb, NULL);
}

int
report_kernel_add(struct report *r, size_t s, const char *bench, const char *suite,
    const char *params, long long rep, const char *text, size_t len)
{
	json_t *o = json_loadb(text, len, 0, NULL), *counts, *lines, *v;
	struct rkernel *k;
	const char *point = suite != NULL ? suite : bench;
	const char *pparams = suite != NULL ? "" : params;
	const char *kind;
	size_t i;
	int rc = -1;

	counts = json_object_get(o, "counts");
	lines = json_object_get(o, "lines");
	if (!json_is_object(counts) || json_object_size(counts) == 0 ||
	    (lines != NULL && !json_is_array(lines)))
		goto out;
	json_object_foreach(counts, kind, v)
		if (!json_is_integer(v) || json_integer_value(v) < 1)
			goto out;
	rc = 0;
	/* the same trial's other lines */
	for (i = r->nkernel; i-- > 0;) {
		k = &r->kernel[i];
		if (k->series == s && k->rep == rep && strcmp(k->bench, point) == 0 &&
		    strcmp(k->params, pparams) == 0)
			goto out;
	}
	if (r->nkernel >= KERNEL_MAX_TRIALS)
		goto out;
	xgrow(&r->kernel, &r->cap_kernel, r->nkernel + 1, sizeof(*r->kernel));
	k = &r->kernel[r->nkernel++];
	memset(k, 0, sizeof(*k));
	k->series = s;
	k->bench = xstrdup(point);
	k->params = xstrdup(pparams);
	k->rep = rep;
	k->counts = counts_text(counts);
	json_object_foreach(counts, kind, v)
		(void)strv_push_unique(&k->kinds, kind);
	v = json_array_get(lines, 0);
	k->first = xstrdup(json_is_string(v) ? json_string_value(v) : "");
out:
	json_decref(o);
	return rc;
}

void
report_kernel_release(struct report *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nkernel; i++) {
		free(r->kernel[i].bench);
		free(r->kernel[i].params);
		free(r->kernel[i].counts);
		free(r->kernel[i].first);
		strv_clear(&r->kernel[i].kinds);
	}
	free(r->kernel);
	r->kernel = NULL;
	r->nkernel = r->cap_kernel = 0;
}

int
report_has_kernel(const struct report *r)
{
	return r->nkernel > 0;
}

/* Whether series s showed kind in any trial. */
static int
series_has_kind(const struct report *r, size_t s, const char *kind)
{
	size_t i;

	for (i = 0; i < r->nkernel; i++)
		if (r->kernel[i].series == s && strv_find(r->kernel[i].kinds.v, r->kernel[i].kinds.n, kind) !=
		    (size_t)-1)
			return 1;
	return 0;
}

/* The kinds of k that its series' baseline never showed, "" for none. */
static char *
new_kinds(const struct report *r, const struct rkernel *k, const size_t *pair, size_t base)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, b;

	b = pair != NULL && pair[k->series] != (size_t)-1 ? pair[k->series] : base;
	if (k->series == b || r->nseries < 2)
		return xstrdup("");
	for (i = 0; i < k->kinds.n; i++)
		if (!series_has_kind(r, b, k->kinds.v[i]))
			strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", k->kinds.v[i]);
	return strbuf_detach(&sb, NULL);
}

int
report_table_kernel(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	static const char *const cols[] = {
		"series", "point", "rep", "kernel log", "first line", "new",
	};
	struct rgrid *g;
	size_t i, row, *pair, nnew = 0;
	char *title, *point, *fresh, rep[32];

	(void)o;
	(void)err;
	if (r->nkernel == 0)
		return 0;
	pair = r->nseries > 1 ? report_pairs(r, base, NULL) : NULL;
	/* "new" only means something against a baseline */
	g = rgrid_new("kernel", "", 3, sizeof(cols) / sizeof(cols[0]) - (pair == NULL), cols);
	for (i = 0; i < r->nkernel; i++) {
		const struct rkernel *k = &r->kernel[i];

		row = rgrid_add_row(g);
		point = xasprintf("%s%s%s", k->bench, *k->params ? " " : "", k->params);
		snprintf(rep, sizeof(rep), "%lld", k->rep);
		fresh = new_kinds(r, k, pair, base);
		nnew += *fresh != '\0';
		rgrid_set(g, row, 0, r->series[k->series].name, NAN);
		rgrid_set(g, row, 1, point, NAN);
		rgrid_set(g, row, 2, rep, (double)k->rep);
		rgrid_set(g, row, 3, k->counts, NAN);
		rgrid_set(g, row, 4, k->first, NAN);
		if (pair != NULL)
			rgrid_set(g, row, 5, *fresh ? "NEW" : "", NAN);
		free(point);
		free(fresh);
	}
	title = xasprintf("Kernel log: %zu trial%s during which the kernel reported trouble%s",
	    r->nkernel, r->nkernel == 1 ? "" : "s", nnew > 0 ?
	    "; NEW: a kind the baseline never showed" : "");
	free(g->title);
	g->title = title;
	rgrids_add(gs, g);
	free(pair);
	return 0;
}
