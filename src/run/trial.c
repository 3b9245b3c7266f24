/*
 * run/trial.c: a host's trials, one at a time: the trial requests (with
 * the user's programs, deployed first), a trial run to its end or to the
 * host's loss, and what progress and run.json say about a failed one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "agentproto.h"
#include "autorep.h"
#include "board.h"
#include "clock.h"
#include "deploy.h"
#include "fleet.h"
#include "log.h"
#include "numfmt.h"
#include "plan.h"
#include "program.h"
#include "progress.h"
#include "run.h"
#include "run/run-int.h"
#include "strbuf.h"
#include "strv.h"
#include "transport.h"
#include "tune.h"
#include "wire.h"
#include "xmalloc.h"

#define STOP_GRACE_MS	10000	/* for the agent to end a cancelled trial */
#define CRASH_PROBE_MS	1000	/* for the agent to show it outlived a crash */
#define CONSOLE_WAIT_MS	2000	/* for the console to explain a lost host */

static long long
margin_ms(const struct run_config *c)
{
	return c->margin_ms > 0 ? c->margin_ms : RUN_MARGIN_MS;
}

/* What progress shows for a trial. */
char *
run_trial_what(const struct plan_trial *pt)
{
	return xasprintf("%s%s%s%s%s rep %d", pt->variant->name ? pt->variant->name : "",
	    pt->variant->name ? ": " : "", pt->point->bench, *pt->point->label ? " " : "",
	    pt->point->label, pt->rep);
}

/* For -v: "munmap threads=8 rep 2: ns_per_munmap 5032 ns, ns_per_access 12.1 ns". */
static char *
trial_values(const struct plan_trial *pt, const struct ap_result *res)
{
	char *what = run_trial_what(pt), *line, v[NUMFMT_MAX];
	struct strbuf s = STRBUF_INIT;
	const char *sep = ":";
	size_t i, j;

	strbuf_addstr(&s, what);
	for (i = 0; i < res->npoints; i++)
		for (j = 0; j < res->points[i].nmetrics; j++) {
			const struct ap_metric *m = &res->points[i].metrics[j];

			numfmt_fixed(v, sizeof(v), m->value, 4);
			strbuf_addf(&s, "%s %s%s%s %s%s%s", sep, res->npoints > 1 ?
			    res->points[i].bench : "", res->npoints > 1 ? "." : "", m->name, v,
			    *m->unit ? " " : "", m->unit);
			sep = ",";
		}
	line = strbuf_detach(&s, NULL);
	free(what);
	return line;
}

/* The parameters of a trial request (a new object). */
json_t *
run_trial_params(const struct plan_trial *pt)
{
	json_t *params = json_object();
	size_t k;

	for (k = 0; k < pt->point->nparams; k++)
		json_object_set_new(params, pt->point->keys[k], json_string(pt->point->vals[k]));
	return params;
}

/* A program's place in the plan's list. */
static size_t
program_index(const struct plan *p, const struct program *prog)
{
	size_t i;

	for (i = 0; i < p->nprograms && p->programs[i] != prog; i++)
		;
	return i;
}

/* The "program" member of a trial request (protocol 4): a new object. */
static json_t *
program_request(const struct worker *w, const struct program *prog)
{
	json_t *args = json_array(), *rules = json_array(), *ms;
	size_t i, j, k = program_index(w->ctx->c->plan, prog);

	for (i = 0; i < prog->nargs; i++)
		json_array_append_new(args, json_string(prog->args[i]));
	for (i = 0; i < prog->nrules; i++) {
		ms = json_array();
		for (j = 0; j < prog->rules[i].nmetrics; j++) {
			const struct program_metric *m = &prog->rules[i].metrics[j];

			json_array_append_new(ms, json_pack("{s:s, s:i, s:s, s:s, s:f}", "name",
			    m->name, "group", m->group, "unit", m->unit, "direction",
			    m->higher_better ? WIRE_HIGHER_BETTER : WIRE_LOWER_BETTER,
			    "scale", m->scale));
		}
		json_array_append_new(rules, json_pack("{s:s, s:o}", "match", prog->rules[i].ere,
		    "metrics", ms));
	}
	return json_pack("{s:s, s:s, s:o, s:o}", "name", prog->name, "path",
	    w->prog_path != NULL && w->prog_path[k] != NULL ? w->prog_path[k] : "",
	    "args", args, "rules", rules);
}

/* Every trial of program k still to run on this host fails: deploy, err. */
static void
program_failed(struct worker *w, size_t k, const char *err)
{
	const struct plan *p = w->ctx->c->plan;
	size_t i, n;

	worker_log(w, "%s", err);
	log_warn("%s", err);
	for (i = 0, n = 0; i < w->s->ntrials; i++) {
		if (!w->todo[i] || w->s->trials[i].point->program != p->programs[k])
			continue;
		if (worker_record(w, &w->s->trials[i], clock_wall(), AP_ST_DEPLOY, err,
		    NULL) == 0) {
			w->todo[i] = 0;
			n++;
		}
	}
	if (n > 0 && w->ctx->c->progress != NULL)
		progress_trials_failed(w->ctx->c->progress, w->pidx, n);
}

/*
 * Put the plan's programs that this host's trials still need on it.  A
 * program that cannot be built or deployed fails its trials (deploy, with
 * the compiler's first lines); the others run.
 */
void
worker_deploy_programs(struct worker *w, const struct deploy_result *dr)
{
	const struct plan *p = w->ctx->c->plan;
	const char *how = NULL, *v = dr->version ? strstr(dr->version, " protocol ") : NULL;
	/*
	 * The protocol of an agent deploy ran (`version`); a cached one's is
	 * known only from its hello, after this: worker_programs_check_proto().
	 */
	long long proto = v != NULL ? atoll(v + 10) : WIRE_PROTO;
	char *err = NULL;
	size_t i, k, n;
	int r;

	if (p->nprograms == 0)
		return;
	if (w->prog_path != NULL)	/* again after a power cycle */
		strv_free(w->prog_path, p->nprograms);
	w->prog_path = xcalloc(p->nprograms, sizeof(*w->prog_path));
	for (k = 0; k < p->nprograms; k++) {
		for (i = 0, n = 0; i < w->s->ntrials; i++)
			n += w->todo[i] && w->s->trials[i].point->program == p->programs[k];
		if (n == 0)
			continue;
		worker_state(w, PROGRESS_DEPLOYING, p->programs[k]->name);
		if (proto < 4)
			r = err_set(&err, -1, "%s: the agent there speaks protocol %lld, which runs "
			    "no programs (4 or later does)", w->h->name, proto);
		else
			r = program_deploy(w->t, p->programs[k], dr->arch, dr->dir,
			    &w->prog_path[k], &how, &err);
		if (r == 0) {
			worker_log(w, "program %s at %s (%s)", p->programs[k]->name,
			    w->prog_path[k], how);
			continue;
		}
		program_failed(w, k, err);
		free(err);
		err = NULL;
	}
}

/*
 * After the hello: an agent found in the cache was not asked its
 * protocol by deploy, so worker_deploy_programs() built the programs for it;
 * one older than protocol 4 runs none of them.
 */
void
worker_programs_check_proto(struct worker *w)
{
	const struct plan *p = w->ctx->c->plan;
	char *err;
	size_t k;

	if (p->nprograms == 0 || w->proto >= 4)
		return;
	err = xasprintf("%s: the agent there speaks protocol %lld, which runs no programs "
	    "(4 or later does)", w->h->name, w->proto);
	for (k = 0; k < p->nprograms; k++)
		program_failed(w, k, err);
	free(err);
}

/* The request of trial i (its id is "t" and i + 1); takes params. */
json_t *
worker_trial_request(struct worker *w, size_t i, json_t *params)
{
	const struct plan *p = w->ctx->c->plan;
	json_t *req;
	char id[32];

	snprintf(id, sizeof(id), "t%zu", i + 1);
	req = json_pack("{s:s, s:s, s:s, s:o, s:i, s:f}", "type", WIRE_REQ_TRIAL,
	    "id", id, "bench", w->s->trials[i].point->program != NULL ? WIRE_BENCH_PROGRAM :
	    w->s->trials[i].point->bench, "params", params, "samples",
	    p->samples, "deadline", (double)p->timeout_ms / 1000.0);
	if (req != NULL && w->s->trials[i].point->program != NULL)
		json_object_set_new(req, "program", program_request(w,
		    w->s->trials[i].point->program));
	if (req != NULL && w->s->trials[i].point->profile == PLAN_PROFILE_PERF)
		json_object_set_new(req, "profile", json_string(WIRE_PROFILE_PERF));
	if (req != NULL && w->s->trials[i].point->monitors != 0) {
		/* an agent older than protocol 4 ignores it (the journal says so) */
		char *mon[PLAN_MON_COUNT];
		size_t k, n = plan_monitor_names(w->s->trials[i].point->monitors, mon);
		json_t *a = json_array();

		for (k = 0; k < n; k++)
			json_array_append_new(a, json_string(mon[k]));
		json_object_set_new(req, "monitor", a);
	}
	return req;
}

/* Send the request of trial i; takes params. */
static int
send_trial(struct worker *w, size_t i, json_t *params)
{
	return worker_send(w, worker_trial_request(w, i, params));
}

/*
 * A trial process killed by a signal can be the first sign of the host
 * going down: a reboot or shutdown kills every process, and the agent may
 * report its benchmark's death before it dies itself.  Before such a trial
 * is recorded as the benchmark's crash, the agent has CRASH_PROBE_MS to
 * show it is still there (its next line, kept for the next trial, or
 * simply no end of its output).  Returns 0 (alive), or 1 with the
 * worker_next_event() code that says it is gone in *code.
 */
static int
crash_probe(struct worker *w, int *code)
{
	int r = worker_next_event(w, &w->held, clock_mono_ms() + CRASH_PROBE_MS, 0);

	if (r == 1)
		w->have_held = 1;
	if (r == 1 || r == RUN_EDEADLINE || r == RUN_ESILENT)
		return 0;
	*code = r;
	return 1;
}

/* Whether a lost host is power-cycled rather than given up. */
int
worker_may_recover(const struct worker *w)
{
	return w->h->power_cycle != NULL && w->cycles < w->h->recover &&
	    !run_stop_requested();
}

/*
 * The host was lost in trial `id` with *why: quote the console lines that
 * explain it into *why, and say which class the trial gets (hang when the
 * host is to be power-cycled, else st).
 */
static enum ap_status
lost_in_trial(struct worker *w, const char *id, enum ap_status st, char **why)
{
	char *ex, *s;

	if ((ex = board_console_excerpt(w->console, CONSOLE_WAIT_MS)) != NULL) {
		s = xasprintf("%s; console: %s", *why, ex);
		free(*why);
		free(ex);
		*why = s;
	}
	if (!worker_may_recover(w))
		return st;
	free(w->cycled_in);
	w->cycled_in = xstrdup(id);
	return AP_ST_HANG;
}

/*
 * What progress shows for a failed trial: the first failure of a point on
 * this host with its message (first line, cut), later ones by class; the
 * host's first failure is kept for its reason.  A new string.
 */
char *
worker_point_failure(struct worker *w, const struct plan_trial *tr, enum ap_status st,
    const char *message)
{
	const struct plan *p = w->ctx->c->plan;
	const struct plan_point *pt = tr->point;
	size_t idx = (size_t)(tr->variant - p->variants) * p->npoints +
	    (size_t)(pt - p->points), len;
	const char *nl;
	char *text;

	if (w->point_failed[idx])
		return xasprintf("%s, as before", ap_status_name(st));
	w->point_failed[idx] = 1;
	w->points_failed++;
	if (message == NULL || *message == '\0')
		return xstrdup(ap_status_name(st));
	nl = strchr(message, '\n');
	len = nl ? (size_t)(nl - message) : strlen(message);
	text = xasprintf("%s: %.*s%s", ap_status_name(st), (int)(len > 1000 ? 1000 : len),
	    message, len > 1000 ? "..." : "");
	if (w->first_failure == NULL)
		w->first_failure = xasprintf("%s: %s%s%s%s%s: %s", ap_status_name(st),
		    tr->variant->name ? tr->variant->name : "", tr->variant->name ? ": " : "",
		    pt->bench, *pt->label ? " " : "", pt->label,
		    text + strlen(ap_status_name(st)) + 2);
	return text;
}

/*
 * Run one trial; `next` is the trial that follows it in the same variant
 * (SIZE_MAX: none), whose request is queued at the agent once this one
 * has started.  Returns 0 (go on), or -1 when the host is lost (w->lost
 * says why) or the run is stopping (w->stopped).
 */
int
worker_run_trial(struct worker *w, size_t i, size_t next)
{
	const struct plan_trial *pt = &w->s->trials[i];
	const struct plan *p = w->ctx->c->plan;
	struct ap_trial *tr;
	struct ap_event ev;
	const struct ap_result *res;
	json_t *params;
	char id[32], *what, *why;
	enum ap_status st = AP_ST_AGENT_LOST;
	long long deadline;
	double start;
	int r, stopping = 0, lost = 0;

	w->k++;
	what = run_trial_what(pt);
	if (w->ctx->c->progress != NULL)
		progress_trial(w->ctx->c->progress, w->pidx, w->k, what);
	snprintf(id, sizeof(id), "t%zu", i + 1);
	board_console_mark(w->console, "trial %s %s", id, what);
	free(what);
	params = run_trial_params(pt);
	tr = ap_trial_new(id);
	deadline = clock_mono_ms() + p->timeout_ms + margin_ms(w->ctx->c);
	w->last_rx = clock_mono_ms();
	if (w->ahead == i + 1) {
		/* sent while the previous trial ran: it started when that one ended */
		json_decref(params);
		start = w->prev_end;
		r = 0;
	} else {
		if (tune_before_trial(w->t, w->tune, &why) != 0) {
			worker_log(w, "%s", why);
			free(why);
		}
		start = clock_wall();
		r = send_trial(w, i, params);
	}
	w->ahead = 0;
	if (r != 0) {
		why = xasprintf("cannot send the trial: %s", transport_error(w->t));
		st = lost_in_trial(w, id, AP_ST_AGENT_LOST, &why);
		ap_trial_fail(tr, st, why);
		w->lost = why;
		w->lost_status = AP_ST_AGENT_LOST;
		lost = 1;
	}
	while (!lost && !ap_trial_done(tr)) {
		r = worker_next_event(w, &ev, deadline, !stopping);
		if (r == 1) {
			if (ap_trial_add(tr, &ev) == AP_TRIAL_FOREIGN &&
			    ap_trial_stray(tr, &ev) == AP_TRIAL_FOREIGN)
				worker_log(w, "ignored a %s line during trial %s",
				    ap_type_name(ev.type), id);
			/*
			 * Once the trial has started, queue the next one at the
			 * agent, which reads requests while a trial runs: it then
			 * starts without a round trip through the network and this
			 * thread, which on a loaded host costs more than the
			 * agent's own 2 ms between trials.
			 */
			if (ev.type == AP_HEADER && next != SIZE_MAX && w->ahead == 0 &&
			    !tune_per_trial(w->tune) &&
			    !stopping && !run_stop_requested() && !ap_trial_done(tr)) {
				if (send_trial(w, next, run_trial_params(&w->s->trials[next])) == 0)
					w->ahead = next + 1;
			}
			continue;
		}
		if (r == RUN_ESTOP) {
			/* The agent cancels the trial when its input closes. */
			worker_log(w, "interrupted: closing the agent's input");
			tchan_close_stdin(w->chan);
			stopping = 1;
			if (deadline > clock_mono_ms() + STOP_GRACE_MS)
				deadline = clock_mono_ms() + STOP_GRACE_MS;
			continue;
		}
		why = worker_event_error(w, r);
		if (r == RUN_EDEADLINE && !stopping && agentproto_in_long_line(w->ap)) {
			/* not a slow benchmark: the agent broke the protocol */
			free(why);
			why = xasprintf("the agent sent a line longer than %d bytes that did "
			    "not end within the plan's timeout plus %lld s", WIRE_MAX_LINE,
			    margin_ms(w->ctx->c) / 1000);
			ap_trial_fail(tr, AP_ST_BAD_OUTPUT, why);
		} else if (r == RUN_EDEADLINE && !stopping) {
			free(why);
			why = xasprintf("no end within the plan's timeout plus %lld s",
			    margin_ms(w->ctx->c) / 1000);
			ap_trial_fail(tr, AP_ST_TIMEOUT, why);
		} else if (stopping)
			ap_trial_fail(tr, AP_ST_CANCELLED, why);
		else
			st = lost_in_trial(w, id, AP_ST_AGENT_LOST, &why);
		ap_trial_fail(tr, st, why);
		if (!stopping) {
			w->lost = why;
			w->lost_status = ap_trial_result(tr)->status == AP_ST_BAD_OUTPUT ?
			    AP_ST_BAD_OUTPUT : AP_ST_AGENT_LOST;
		} else
			free(why);
		lost = 1;
	}
	res = ap_trial_result(tr);
	if (!lost && !stopping && res->status == AP_ST_CRASH && crash_probe(w, &r)) {
		char *e = worker_event_error(w, r);

		why = xasprintf("%s, and then the agent was lost (host going down?): %s",
		    res->message ? res->message : "the benchmark crashed", e);
		free(e);
		ap_trial_free(tr);
		tr = ap_trial_new(id);
		st = lost_in_trial(w, id, AP_ST_AGENT_LOST, &why);
		ap_trial_fail(tr, st, why);
		w->lost = why;
		w->lost_status = AP_ST_AGENT_LOST;
		lost = 1;
		res = ap_trial_result(tr);
	}
	w->prev_end = clock_wall();
	if (stopping)
		w->stopped = 1;
	autorep_add(w->ar, pt->point, res);
	/* A result the journal could not take is lost: not run, for --resume. */
	if (worker_record(w, pt, start, res->status, res->message, res) == 0) {
		char *failure = res->status == AP_ST_OK ? NULL :
		    worker_point_failure(w, pt, res->status, res->message);

		w->todo[i] = 0;
		if (w->ctx->c->progress != NULL)
			progress_trial_done(w->ctx->c->progress, w->pidx, failure);
		free(failure);
		if (w->ctx->c->progress != NULL && res->status == AP_ST_OK &&
		    log_get_level() >= LOG_LEVEL_VERBOSE) {
			char *v = trial_values(pt, res);

			progress_trial_values(w->ctx->c->progress, w->pidx, v);
			free(v);
		}
	}
	if (res->status != AP_ST_OK)
		worker_log(w, "trial %s %s: %s%s%s", id, pt->key, ap_status_name(res->status),
		    res->message ? ": " : "", res->message ? res->message : "");
	ap_trial_free(tr);
	/* Lost, or stopping: the agent's input is closed and it is leaving. */
	return lost || stopping ? -1 : 0;
}
