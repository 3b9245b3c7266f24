/*
 * plan-estimate.c: how long a host's trials take, by a model (plan.h).
 *
 * The estimate is a model, not a measurement (the catalogue says nothing
 * of time): per trial, a start (fork, calibration, warm-up) plus the
 * samples, each lasting the agent's timing target (lmbench's benchmarks,
 * calibrated so that one sample takes about 5 ms) or its `interval_ms`
 * (will-it-scale's, with one warm-up interval), plus perf's own time when
 * the trial is profiled; never more than the plan's timeout.  Benchmarks
 * that fit neither (exec, munmap, ...) are counted apart, with the
 * timeout as their only bound.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "plan.h"
#include "strv.h"

/* The point's value of parameter name, or NULL. */
static const char *
point_value(const struct plan_point *pt, const char *name)
{
	size_t i = strv_find(pt->keys, pt->nparams, name);

	return i == STRV_NONE ? NULL : pt->vals[i];
}

/*
 * Microseconds of the point's parameter name, given or the catalogue's
 * default: 0 when the benchmark has no such parameter, -1 when the value
 * is not a plain number.
 */
static double
point_us(const struct catalog_bench *b, const struct plan_point *pt, const char *name)
{
	const struct catalog_param *cp = catalog_find_param(b, name);
	const char *v = point_value(pt, name);
	long long us;
	char *end;

	if (cp == NULL)
		return 0;
	if (v == NULL)
		v = cp->def;
	errno = 0;
	us = strtoll(v, &end, 10);
	return errno != 0 || *end != '\0' || us < 0 ? -1 : (double)us;
}

/* Seconds one trial of pt takes by the model, or -1 when there is none. */
static double
trial_seconds(const struct catalog *cat, const struct plan *p, const struct plan_point *pt)
{
	const struct catalog_bench *b = catalog_find(cat, pt->bench);
	const char *iv = point_value(pt, "interval_ms");
	double secs;
	char *end;

	if (b == NULL)
		return -1;
	if (iv != NULL && catalog_find_param(b, "interval_ms") != NULL) {
		long long ms;

		errno = 0;
		ms = strtoll(iv, &end, 10);
		if (errno != 0 || *end != '\0' || ms < 0)
			return -1;
		secs = PLAN_EST_WIS_START_S + (double)(p->samples + 1) * (double)ms / 1000;
	} else if (strncmp(b->from, "lmbench ", 8) == 0) {
		/* lmbench's sampling rescales a run to 1.1 of its `interval` */
		double iv_us = point_us(b, pt, "interval"), warm_us = point_us(b, pt, "warmup");

		if (iv_us < 0 || warm_us < 0)
			return -1;
		secs = PLAN_EST_START_S + warm_us / 1e6 +
		    p->samples * (iv_us > 0 ? 1.1 * iv_us / 1e6 : PLAN_EST_SAMPLE_S);
	} else
		return -1;
	if (pt->profile == PLAN_PROFILE_PERF)
		secs += PLAN_EST_PROFILE_S;
	return secs < p->timeout_ms / 1000.0 ? secs : p->timeout_ms / 1000.0;
}

void
plan_estimate_schedule(const struct catalog *cat, const struct plan *p,
    const struct plan_schedule *s, struct plan_estimate *e)
{
	size_t i, j, n;
	double t;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < s->ntrials; i++) {
		if ((t = trial_seconds(cat, p, s->trials[i].point)) >= 0) {
			e->secs += t;
			e->known++;
		} else
			e->unknown++;
	}
	/* the benchmarks without a model, each once, in the plan's order */
	for (i = 0; i < p->npoints; i++) {
		if (trial_seconds(cat, p, &p->points[i]) >= 0)
			continue;
		for (j = 0; j < i; j++)
			if (strcmp(p->points[j].bench, p->points[i].bench) == 0 &&
			    trial_seconds(cat, p, &p->points[j]) < 0)
				break;
		if (j < i)
			continue;
		n = strlen(e->names);
		snprintf(e->names + n, sizeof(e->names) - n, "%s%s", n ? ", " : "",
		    p->points[i].bench);
	}
	e->max = (double)s->ntrials * (double)p->timeout_ms / 1000;
}
