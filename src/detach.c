/*
 * detach.c: detached runs, the controller's side (detach.h).
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "agentproto.h"
#include "clock.h"
#include "detach.h"
#include "plan.h"
#include "variant.h"
#include "xmalloc.h"

int
detach_plan_check(const struct plan *p, char **err)
{
	size_t i;

	for (i = 0; i < p->nvariants; i++)
		if (!variant_is_empty(&p->variants[i]))
			return err_set(err, -1, "%s: variant %s: a detached run cannot apply "
			    "variants (the controller is not there to undo them); run its "
			    "variants attached", p->file ? p->file : p->name,
			    p->variants[i].name ? p->variants[i].name : "-");
	if (p->tune != NULL)
		return err_set(err, -1, "%s: tune: a detached run cannot tune the hosts (nor "
		    "put them back afterwards)", p->file ? p->file : p->name);
	if (p->repeat_auto)
		return err_set(err, -1, "%s: repeat: auto needs the controller between rounds; "
		    "give a number to run it detached", p->file ? p->file : p->name);
	return 0;
}

char *
detach_host_dir(const char *workdir, const char *run_id)
{
	size_t n = strlen(workdir);

	while (n > 1 && workdir[n - 1] == '/')
		n--;
	return xasprintf("%.*s/%s/%s", (int)n, workdir, DETACH_RUNS_DIR, run_id);
}

int
detach_trial_index(const char *id, size_t ntrials, size_t *idx)
{
	unsigned long long n = 0;
	const char *p;

	if (id == NULL || id[0] != 't' || id[1] < '1' || id[1] > '9')
		return -1;
	for (p = id + 1; *p; p++) {
		if (*p < '0' || *p > '9' || p - id > 19)
			return -1;
		n = n * 10 + (unsigned)(*p - '0');
	}
	if (n == 0 || n > ntrials)
		return -1;
	*idx = (size_t)(n - 1);
	return 0;
}

struct detach_gather {
	struct ap_trial	**trials;	/* by schedule index, NULL: none yet */
	double		 *start;
	unsigned char	 *ended;	/* taken already, or ended */
	size_t		  n;
};

struct detach_gather *
detach_gather_new(size_t ntrials)
{
	struct detach_gather *g = xcalloc(1, sizeof(*g));

	g->n = ntrials;
	g->trials = xcalloc(ntrials + 1, sizeof(*g->trials));
	g->start = xcalloc(ntrials + 1, sizeof(*g->start));
	g->ended = xcalloc(ntrials + 1, 1);
	return g;
}

void
detach_gather_free(struct detach_gather *g)
{
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->n; i++)
		ap_trial_free(g->trials[i]);
	free(g->trials);
	free(g->start);
	free(g->ended);
	free(g);
}

int
detach_gather_add(struct detach_gather *g, const struct ap_event *ev, size_t *idx,
    size_t *foreign)
{
	size_t i;

	switch (ev->type) {
	case AP_HEADER: case AP_METRIC: case AP_NOTE: case AP_ERROR: case AP_END:
	case AP_PROFILE: case AP_MONITOR: case AP_KERNEL:
		break;
	default:
		return 0;	/* the closing detached line, heartbeats, bad output */
	}
	if (detach_trial_index(ev->id, g->n, &i) != 0 || g->ended[i]) {
		if (foreign != NULL)
			(*foreign)++;
		return 0;
	}
	if (g->trials[i] == NULL)
		g->trials[i] = ap_trial_new(ev->id);
	if (ev->type == AP_HEADER && g->start[i] == 0)
		g->start[i] = ev->u.header.time;
	if (ap_trial_add(g->trials[i], ev) != AP_TRIAL_DONE)
		return 0;
	g->ended[i] = 1;
	*idx = i;
	return 1;
}

struct ap_trial *
detach_gather_take(struct detach_gather *g, size_t idx, double *start)
{
	struct ap_trial *t;

	if (idx >= g->n || !g->ended[idx] || g->trials[idx] == NULL)
		return NULL;
	t = g->trials[idx];
	g->trials[idx] = NULL;
	*start = g->start[idx];
	return t;
}

json_t *
detach_state_json(const char *state, long long pid, const char *dir, size_t trials,
    size_t collected)
{
	char when[CLOCK_ISO8601_MAX];
	json_t *o = json_object();

	clock_iso8601_now(when, sizeof(when), 0);
	json_object_set_new(o, "state", json_string(state));
	json_object_set_new(o, "pid", pid > 0 ? json_integer(pid) : json_null());
	json_object_set_new(o, "dir", json_string(dir));
	json_object_set_new(o, "trials", json_integer((json_int_t)trials));
	json_object_set_new(o, "collected", json_integer((json_int_t)collected));
	json_object_set_new(o, "time", json_string(when));
	return o;
}
