/*
 * report-group.c: run groups in a report (`run --group`, runref.h): the
 * runs of one group are one run to the pairing of series, so that a group
 * reads as a single run over all its hosts; and the facts that differ
 * between its runs (hosts, controller, start) in a table of their own at
 * the top, a row per run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "rundir.h"
#include "strbuf.h"
#include "xmalloc.h"

void
report_group_run(struct rrun *rr, const struct rundir_run *run)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	rr->group = xstrdup_null(run->group);
	rr->start = xstrdup_null(run->start);
	rr->controller = xstrdup_null(run->controller_host);
	for (i = 0; i < run->nhosts; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", run->hosts[i].name);
	rr->hosts = strbuf_detach(&sb, NULL);
}

int
report_same_run(const struct rseries *a, const struct rseries *b)
{
	if (a->group != NULL && b->group != NULL)
		return strcmp(a->group, b->group) == 0;
	return strcmp(a->run, b->run) == 0;
}

struct rgrid *
report_group_grid(const struct report *r)
{
	static const char *const cols[] = { "group", "run", "hosts", "controller", "start" };
	struct rgrid *g = NULL;
	size_t i, j, row, ngroups = 0;

	for (i = 0; i < r->nruns; i++) {
		const struct rrun *rr = &r->runs[i];

		if (rr->group == NULL)
			continue;
		for (j = 0; j < i && (r->runs[j].group == NULL ||
		    strcmp(r->runs[j].group, rr->group) != 0); j++)
			;
		ngroups += j == i;
		if (g == NULL)
			g = rgrid_new("group", "", 4, 5, cols);
		row = rgrid_add_row(g);
		rgrid_set(g, row, 0, rr->group, NAN);
		rgrid_set(g, row, 1, rr->id, NAN);
		rgrid_set(g, row, 2, rr->hosts, NAN);
		rgrid_set(g, row, 3, rr->controller ? rr->controller : "-", NAN);
		rgrid_set(g, row, 4, rr->start ? rr->start : "-", NAN);
	}
	if (g != NULL) {
		free(g->title);
		g->title = xasprintf("Run group%s: the runs merged, each with its hosts, "
		    "controller and start", ngroups == 1 ? "" : "s");
		g->left_last = 1;
	}
	return g;
}
