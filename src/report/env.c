/*
 * report-env.c: what a report says first about the sides it compares:
 * the env facts that differ between them (envdiff.h), and each host's
 * tuning profile (tune.h) as run.json recorded it.  docs/environment.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "envdiff.h"
#include "report-int.h"
#include "rundir.h"
#include "strbuf.h"
#include "xmalloc.h"

#define SHORT_VALUE	48	/* bytes of a value in the text lines */

/* A pair of sides whose facts were compared. */
struct side_pair {
	size_t		 a, b;		/* series */
	struct envdiff	 d;
};

/* Whether series a and b are the same host of the same run. */
static int
same_side(const struct rseries *a, const struct rseries *b)
{
	return strcmp(a->dir, b->dir) == 0 && strcmp(a->host, b->host) == 0;
}

static void
fact_line(struct strbuf *sb, const struct envdiff_fact *f)
{
	char *a = envdiff_short(f->a, SHORT_VALUE), *b = envdiff_short(f->b, SHORT_VALUE);

	strbuf_addf(sb, "%s %s -> %s", f->key, a, b);
	free(a);
	free(b);
}

struct rgrid *
report_env_grid(const struct report *r, size_t base)
{
	static const char *const cols[] = { "base run", "base host", "run", "host", "fact",
		"base value", "value" };
	struct side_pair *pp = NULL;
	struct strbuf sb;
	struct rgrid *g = NULL;
	size_t *pairs, np = 0, i, j, k, row, nfacts = 0;
	struct strv keys = STRV_INIT;
	char *err = NULL;

	pairs = report_pairs(r, base, NULL);
	for (i = 0; i < r->nseries; i++) {
		const struct rseries *a, *b;

		if (pairs[i] == (size_t)-1)
			continue;
		a = &r->series[pairs[i]];
		b = &r->series[i];
		/* hosts of one run differ as they are meant to: sides are runs */
		if (strcmp(a->dir, b->dir) == 0)
			continue;
		for (j = 0; j < np; j++)
			if (same_side(&r->series[pp[j].a], a) && same_side(&r->series[pp[j].b], b))
				break;
		if (j < np)
			continue;
		pp = xreallocarray(pp, np + 1, sizeof(*pp));
		pp[np].a = pairs[i];
		pp[np].b = i;
		if (envdiff_dirs(a->dir, a->host, b->dir, b->host, &pp[np].d, &err) != 0) {
			free(err);	/* a side without facts: nothing to say */
			err = NULL;
		}
		np++;
	}
	free(pairs);
	for (j = 0; j < np; j++)
		for (k = 0; k < pp[j].d.n; k++)
			strv_push_unique(&keys, pp[j].d.facts[k].key);
	if (keys.n == 0)
		goto out;

	/* the text: each fact once, with how many pairs it differs in; then
	 * each pair's facts */
	strbuf_init(&sb, 0);
	strbuf_addf(&sb, "ENVIRONMENT DIFFERS: %zu fact%s of the hosts (hosts/NAME.json) "
	    "differ%s between the sides\n", keys.n, keys.n == 1 ? "" : "s",
	    keys.n == 1 ? "s" : "");
	for (i = 0; i < keys.n; i++) {
		const struct envdiff_fact *first = NULL;

		for (j = 0, nfacts = 0; j < np; j++)
			for (k = 0; k < pp[j].d.n; k++)
				if (strcmp(pp[j].d.facts[k].key, keys.v[i]) == 0) {
					if (first == NULL)
						first = &pp[j].d.facts[k];
					nfacts++;
				}
		if (first == NULL)
			continue;	/* (every key came from a pair) */
		strbuf_addstr(&sb, "  ");
		fact_line(&sb, first);
		strbuf_addf(&sb, " (%zu of %zu host pair%s)\n", nfacts, np, np == 1 ? "" : "s");
	}
	g = rgrid_new("environment", "Environment: facts that differ between the sides",
	    5, 7, cols);
	for (j = 0; j < np; j++) {
		const struct rseries *a = &r->series[pp[j].a], *b = &r->series[pp[j].b];
		const char *sep = ": ";

		if (pp[j].d.n == 0)
			continue;
		strbuf_addf(&sb, "  %s (%s) vs %s (%s)", a->host, a->run, b->host, b->run);
		for (k = 0; k < pp[j].d.n; k++) {
			const struct envdiff_fact *f = &pp[j].d.facts[k];

			strbuf_addstr(&sb, sep);
			fact_line(&sb, f);
			sep = "; ";
			row = rgrid_add_row(g);
			rgrid_set(g, row, 0, a->run, NAN);
			rgrid_set(g, row, 1, a->host, NAN);
			rgrid_set(g, row, 2, b->run, NAN);
			rgrid_set(g, row, 3, b->host, NAN);
			rgrid_set(g, row, 4, f->key, NAN);
			rgrid_set(g, row, 5, f->a, NAN);
			rgrid_set(g, row, 6, f->b, NAN);
		}
		strbuf_addch(&sb, '\n');
	}
	g->text = strbuf_detach(&sb, NULL);
out:
	for (j = 0; j < np; j++)
		envdiff_release(&pp[j].d);
	free(pp);
	strv_clear(&keys);
	return g;
}

struct rgrid *
report_tune_grid(const struct report *r)
{
	static const char *const cols[] = { "run", "host", "profile", "item", "state", "value",
		"detail" };
	struct rgrid *g = NULL;
	struct strbuf sb;
	size_t i, row, k;
	json_t *run;
	char *err = NULL;

	strbuf_init(&sb, 0);
	for (i = 0; i < r->nruns; i++) {
		const char *host;
		json_t *h, *tune, *it;

		if (rundir_load_json(r->runs[i].dir, &run, &err) != 0) {
			free(err);	/* report_add_run() read it: not now */
			err = NULL;
			continue;
		}
		json_object_foreach(json_object_get(run, "hosts"), host, h) {
			const char *profile;
			const char *sep = ": ";

			tune = json_object_get(h, "tune");
			if ((profile = json_string_value(json_object_get(tune, "profile"))) == NULL)
				continue;
			if (g == NULL)
				g = rgrid_new("tuning", "Tuning: each host's profile, item by item",
				    4, 7, cols);
			strbuf_addf(&sb, "TUNE %s %s %s", r->runs[i].id, host, profile);
			json_array_foreach(json_object_get(tune, "items"), k, it) {
				const char *f[4] = { "item", "state", "value", "detail" };
				const char *v[4];
				size_t c;

				for (c = 0; c < 4; c++) {
					v[c] = json_string_value(json_object_get(it, f[c]));
					if (v[c] == NULL)
						v[c] = "";
				}
				row = rgrid_add_row(g);
				rgrid_set(g, row, 0, r->runs[i].id, NAN);
				rgrid_set(g, row, 1, host, NAN);
				rgrid_set(g, row, 2, profile, NAN);
				for (c = 0; c < 4; c++)
					rgrid_set(g, row, 3 + c, v[c], NAN);
				strbuf_addf(&sb, "%s%s=%s %s%s%s", sep, v[0], v[2], v[1],
				    strcmp(v[1], "applied") == 0 ? "" : *v[3] ? " (" : "",
				    strcmp(v[1], "applied") == 0 ? "" : *v[3] ? v[3] : "");
				if (strcmp(v[1], "applied") != 0 && *v[3])
					strbuf_addch(&sb, ')');
				sep = ", ";
			}
			strbuf_addch(&sb, '\n');
		}
		json_decref(run);
	}
	if (g != NULL)
		g->text = strbuf_detach(&sb, NULL);
	else
		strbuf_release(&sb);
	return g;
}
