/*
 * run/handover.c: the engine's detached modes (detach.h,
 * docs/detached.md): a host's trials handed to its agent (RUN_DETACH),
 * its journal collected back (RUN_COLLECT), a host given up (collect
 * --give-up).
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "agentproto.h"
#include "clock.h"
#include "detach.h"
#include "fleet.h"
#include "journal.h"
#include "log.h"
#include "plan.h"
#include "progress.h"
#include "run.h"
#include "run/run-int.h"
#include "transport.h"
#include "wire.h"
#include "xmalloc.h"

/*
 * Wait for the agent's "detached" answer to the request `id`, skipping
 * other lines; a bad-request answer (error, end) fails.  0, or -1 with *why.
 */
static int
detached_answer(struct worker *w, const char *id, long long deadline, struct ap_event *ev,
    char **why)
{
	char *e, *msg = NULL;
	int r;

	for (;;) {
		if ((r = worker_next_event(w, ev, deadline, 0)) != 1) {
			e = worker_event_error(w, r);
			*why = xasprintf("no answer to %s from the agent: %s", id, e);
			free(e);
			free(msg);
			return -1;
		}
		if (ev->type == AP_DETACHED && ev->id != NULL && strcmp(ev->id, id) == 0)
			break;
		if (ev->type == AP_ERROR && ev->id != NULL && strcmp(ev->id, id) == 0) {
			free(msg);
			msg = xstrdup(ev->u.error.message);
		} else if (ev->type == AP_END && ev->id != NULL && strcmp(ev->id, id) == 0) {
			*why = xasprintf("the agent refused %s: %s", id, msg ? msg : "bad request");
			free(msg);
			return -1;
		}
	}
	free(msg);
	return 0;
}

/* The host's "detached" entry of run.json. */
static void
detach_note(struct worker *w, const char *state, long long pid, const char *dir,
    size_t trials)
{
	json_t *o = detach_state_json(state, pid, dir, trials, w->rh->collected);
	char *err = NULL;

	if (journal_host_detached(w->ctx->c->journal, w->h->name, o, &err) != 0)
		run_journal_failed(w->ctx, err);
	json_decref(o);
}

/* RUN_DETACH: hand the host every trial it has to run, leave its agent. */
void
worker_detach(struct worker *w)
{
	const char *run = journal_run_id(w->ctx->c->journal);
	size_t i, n = worker_todo(w, 0);
	struct ap_event ev;
	char *dir = detach_host_dir(w->workdir, run), *why = NULL;
	long long pid;
	int r;

	if (w->proto < 5) {
		why = xasprintf("the agent there speaks protocol %lld, which runs nothing "
		    "detached (5 or later does)", w->proto);
		worker_host_failed(w, AP_ST_DEPLOY, why);
		goto out;
	}
	worker_state(w, PROGRESS_RUNNING, "detaching");
	r = worker_send(w, json_pack("{s:s, s:s, s:s, s:s, s:I}", "type", WIRE_REQ_DETACH, "id",
	    "detach", "run", run, "dir", dir, "trials", (json_int_t)n));
	for (i = 0; r == 0 && i < w->s->ntrials; i++)
		if (w->todo[i])
			r = worker_send(w, worker_trial_request(w, i,
			    run_trial_params(&w->s->trials[i])));
	if (r != 0) {
		why = xasprintf("cannot send the trial list: %s", transport_error(w->t));
		worker_host_failed(w, AP_ST_AGENT_LOST, why);
		goto out;
	}
	if (detached_answer(w, "detach", clock_mono_ms() + RUN_HELLO_MS, &ev, &why) != 0) {
		worker_host_failed(w, AP_ST_DEPLOY, why);
		goto out;
	}
	pid = ev.u.detached.pid;
	worker_log(w, "detached: agent pid %lld runs %zu trials, journal in %s", pid, n, dir);
	detach_note(w, "running", pid, dir, n);
	worker_stop_agent(w, 1);
	w->rh->status = JOURNAL_HOST_RUNNING;
	w->rh->not_run = n;
	w->rh->reason = xasprintf("detached: agent pid %lld runs %zu trial%s", pid, n,
	    n == 1 ? "" : "s");
	worker_set_status(w, JOURNAL_HOST_RUNNING, w->rh->reason);
	worker_state(w, PROGRESS_DONE, w->rh->reason);
 out:
	free(why);
	free(dir);
}

/* One trial of the host's detached journal into the run directory. */
static void
collect_trial(struct worker *w, size_t i, struct ap_trial *tr, double start)
{
	const struct plan_trial *pt = &w->s->trials[i];
	const struct ap_result *res = ap_trial_result(tr);
	char *what, *failure;

	if (!w->todo[i])
		return;		/* collected before, or finished otherwise */
	w->k++;
	what = run_trial_what(pt);
	if (w->ctx->c->progress != NULL)
		progress_trial(w->ctx->c->progress, w->pidx, w->k, what);
	free(what);
	if (worker_record(w, pt, start > 0 ? start : clock_wall(), res->status, res->message,
	    res) != 0)
		return;
	w->todo[i] = 0;
	w->rh->collected++;
	failure = res->status == AP_ST_OK ? NULL : worker_point_failure(w, pt, res->status,
	    res->message);
	if (w->ctx->c->progress != NULL)
		progress_trial_done(w->ctx->c->progress, w->pidx, failure);
	free(failure);
}

/*
 * RUN_COLLECT: gather the host's detached journal.  Returns 1 when the
 * host is left (its agent runs still, or it was lost), or 0 when the
 * trials not finished are to run here now.
 */
int
worker_collect(struct worker *w)
{
	const char *run = journal_run_id(w->ctx->c->journal);
	struct detach_gather *g = NULL;
	struct ap_trial *tr;
	struct ap_event ev;
	enum ap_status st;
	char *dir = detach_host_dir(w->workdir, run), *why = NULL, *state = NULL;
	size_t idx, foreign = 0;
	long long pid = 0, trials = 0;
	double start;
	int r, left = 1;

	if (w->proto < 5) {
		left = 0;	/* no agent of this kind ran there: run the rest */
		goto out;
	}
	worker_state(w, PROGRESS_RUNNING, "collecting");
	if (worker_send(w, json_pack("{s:s, s:s, s:s}", "type", WIRE_REQ_COLLECT, "id",
	    "collect", "dir", dir)) != 0) {
		why = xasprintf("cannot ask for the journal: %s", transport_error(w->t));
		goto lost;
	}
	g = detach_gather_new(w->s->ntrials);
	for (;;) {
		/* no deadline but silence: a journal takes as long as it takes */
		if ((r = worker_next_event(w, &ev, clock_mono_ms() + 86400000LL, 0)) != 1) {
			char *e = worker_event_error(w, r);

			why = xasprintf("the journal did not come whole: %s", e);
			free(e);
			goto lost;
		}
		if (ev.type == AP_DETACHED && ev.id != NULL && strcmp(ev.id, "collect") == 0)
			break;
		if (detach_gather_add(g, &ev, &idx, &foreign) == 1 &&
		    (tr = detach_gather_take(g, idx, &start)) != NULL) {
			collect_trial(w, idx, tr, start);
			ap_trial_free(tr);
		}
	}
	state = xstrdup(ev.u.detached.state);
	pid = ev.u.detached.pid > 0 ? ev.u.detached.pid : w->daemon_runs;
	trials = ev.u.detached.trials;
	if (foreign > 0)
		worker_log(w, "%zu journal line%s of no trial of this run ignored", foreign,
		    foreign == 1 ? "" : "s");
	worker_log(w, "collected %zu trial%s from %s (its agent: %s)", w->rh->collected,
	    w->rh->collected == 1 ? "" : "s", dir, state);
	if (strcmp(state, "running") == 0) {
		detach_note(w, state, pid, dir, trials > 0 ? (size_t)trials : 0);
		worker_stop_agent(w, 1);
		w->rh->status = JOURNAL_HOST_RUNNING;
		w->rh->not_run = worker_todo(w, 0);
		w->rh->reason = xasprintf("detached: still running, %zu trial%s to go",
		    w->rh->not_run, w->rh->not_run == 1 ? "" : "s");
		worker_set_status(w, JOURNAL_HOST_RUNNING, w->rh->reason);
		worker_state(w, PROGRESS_DONE, w->rh->reason);
		goto out;
	}
	/* Done or gone: what it journaled is here now; the rest runs attached. */
	if (strcmp(state, "missing") != 0) {
		if (worker_send(w, json_pack("{s:s, s:s, s:s}", "type", WIRE_REQ_FORGET, "id",
		    "forget", "dir", dir)) != 0 ||
		    detached_answer(w, "forget", clock_mono_ms() + RUN_HELLO_MS, &ev, &why) != 0) {
			if (why == NULL)
				why = xasprintf("cannot ask to forget: %s", transport_error(w->t));
			goto lost;
		}
	}
	detach_note(w, state, 0, dir, trials > 0 ? (size_t)trials : 0);
	if (worker_todo(w, 0) > 0) {
		worker_log(w, "%zu trial%s no agent finished: running %s here", worker_todo(w, 0),
		    worker_todo(w, 0) == 1 ? "" : "s", worker_todo(w, 0) == 1 ? "it" : "them");
		log_warn("%s: its detached agent is %s: running the %zu trial%s it did not "
		    "finish", w->h->name, state, worker_todo(w, 0), worker_todo(w, 0) == 1 ? "" :
		    "s");
	}
	if (w->daemon_runs && worker_todo(w, 0) > 0) {
		/* it finished meanwhile: the lease is free now */
		w->daemon_runs = 0;
		if (worker_take_lease(w, &st, &why) != 0) {
			worker_host_failed(w, st, why);
			goto out;
		}
	}
	left = 0;
	goto out;
 lost:
	worker_host_failed(w, AP_ST_CONNECT, why);
 out:
	detach_gather_free(g);
	free(state);
	free(why);
	free(dir);
	return left;
}

/*
 * RUN_COLLECT with --give-up: the host is not reached, and every trial of
 * its that no one finished fails as agent-lost, so that the run can end.
 */
void
worker_give_up(struct worker *w)
{
	const char *why = "given up (collect --give-up): its detached agent's "
	    "journal was not collected";
	char *err = NULL;

	worker_log(w, "given up: %zu trial%s no agent finished are recorded as lost",
	    worker_todo(w, 0), worker_todo(w, 0) == 1 ? "" : "s");
	worker_fail_rest(w, 0, AP_ST_AGENT_LOST, why);
	if (journal_host_detached_state(w->ctx->c->journal, w->h->name, DETACH_GIVEN_UP,
	    &err) != 0)
		run_journal_failed(w->ctx, err);
	w->rh->given_up = 1;
	w->rh->not_run = worker_todo(w, 0);
	w->rh->status = JOURNAL_HOST_FAILED;
	w->rh->reason = xasprintf("%s: %s", ap_status_name(AP_ST_AGENT_LOST), why);
	worker_set_status(w, JOURNAL_HOST_FAILED, w->rh->reason);
	worker_state(w, PROGRESS_FAILED, w->rh->reason);
}
