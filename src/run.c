/*
 * run.c: the run engine: one worker per host drives a transport, the
 * agent's serve mode and the host's variants, and writes every finished
 * trial to the journal.  See run.h.
 */
#include <sys/resource.h>

#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "agentproto.h"
#include "autorep.h"
#include "board.h"
#include "clock.h"
#include "deploy.h"
#include "detach.h"
#include "program.h"
#include "fleet.h"
#include "hostconn.h"
#include "journal.h"
#include "log.h"
#include "numfmt.h"
#include "pace.h"
#include "plan.h"
#include "progress.h"
#include "run.h"
#include "run/run-int.h"
#include "rundir.h"
#include "shquote.h"
#include "strbuf.h"
#include "strv.h"
#include "transport.h"
#include "trialread.h"
#include "tune.h"
#include "variant.h"
#include "wire.h"
#include "xmalloc.h"

static volatile sig_atomic_t stop_flag;

void
run_request_stop(void)
{
	stop_flag = 1;
}

int
run_stop_requested(void)
{
	return stop_flag != 0;
}

static long long
margin_ms(const struct run_config *c)
{
	return c->margin_ms > 0 ? c->margin_ms : RUN_MARGIN_MS;
}

/*
 * The status of a host that could not be opened or deployed to: the
 * transport's class, a timeout there being the infrastructure's
 * (connect), not a benchmark's.
 */
enum ap_status
run_infra_status(int code, enum ap_status dflt)
{
	int st = ap_status_parse(transport_class(code));

	if (st < 0)
		return dflt;
	if (st == AP_ST_TIMEOUT)
		return AP_ST_CONNECT;
	return (enum ap_status)st;
}

/*
 * The run directory could not be written: results would be lost, so the
 * run stops (as if interrupted) and reports the first such error.
 */
void
run_journal_failed(struct run_ctx *ctx, char *err)
{
	log_debug("%s", err);
	run_request_stop();
	pthread_mutex_lock(&ctx->mu);
	if (ctx->journal_error == NULL) {
		ctx->journal_error = err;
		err = NULL;
	}
	pthread_mutex_unlock(&ctx->mu);
	free(err);
}

void
worker_log(struct worker *w, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	journal_log(w->ctx->c->journal, w->h->name, "%s", s);
	log_debug("%s: %s", w->h->name, s);
	free(s);
}

/* Called between a variant's or a profile's steps: the agent is spoken to
 * meanwhile (each step has its own bound, well within the idle limit). */
static void
variant_logger(void *arg, const char *line)
{
	worker_log(arg, "%s", line);
	worker_keepalive(arg);
}

/* variant_save_fn: an old content into the run directory, before the write. */
static int
variant_saver(void *arg, const char *path, const char *old, char **why)
{
	struct worker *w = arg;

	worker_keepalive(w);
	return journal_restore_save(w->ctx->c->journal, w->h->name, path, old, why);
}

/* variant_save_fn of a tuning profile: restore-tune/HOST. */
static int
tune_saver(void *arg, const char *path, const char *old, char **why)
{
	struct worker *w = arg;

	worker_keepalive(w);
	return journal_restore_save_in(w->ctx->c->journal, JOURNAL_RESTORE_TUNE, w->h->name,
	    path, old, why);
}

void
worker_set_status(struct worker *w, enum journal_host_status st, const char *reason)
{
	char *err = NULL;

	if (journal_host_status(w->ctx->c->journal, w->h->name, st, reason, &err) != 0)
		run_journal_failed(w->ctx, err);
}

void
worker_state(struct worker *w, enum progress_state st, const char *detail)
{
	if (w->ctx->c->progress != NULL)
		progress_state(w->ctx->c->progress, w->pidx, st, detail);
}

/* Append a finished (or never run) trial to the journal; 0 when it is. */
int
worker_record(struct worker *w, const struct plan_trial *pt, double start, enum ap_status st,
    const char *message, const struct ap_result *res)
{
	struct journal_trial jt;
	enum ap_status final = res != NULL ? res->status : st;
	char *err = NULL;

	journal_trial_init(&jt, w->h->name, pt);
	jt.start = start;
	jt.duration = -1;
	jt.status = st;
	jt.message = message;
	jt.result = res;
	if (journal_append(w->ctx->c->journal, &jt, &err) != 0) {
		run_journal_failed(w->ctx, err);
		return -1;	/* not recorded: --resume runs it again */
	}
	if (final == AP_ST_OK)
		w->rh->ok++;
	else
		w->rh->failed++;
	return 0;
}

/*
 * Record every trial still to run from index `from` as failed with st;
 * those recorded are finished and failed for the progress display, the
 * others (a journal that cannot be written) are not run.
 */
void
worker_fail_rest(struct worker *w, size_t from, enum ap_status st, const char *message)
{
	double now = clock_wall();
	size_t i, n = 0;

	for (i = from; i < w->s->ntrials; i++) {
		if (!w->todo[i])
			continue;
		if (worker_record(w, &w->s->trials[i], now, st, message, NULL) == 0) {
			w->todo[i] = 0;
			n++;
		}
	}
	if (n > 0 && w->ctx->c->progress != NULL)
		progress_trials_failed(w->ctx->c->progress, w->pidx, n);
}

size_t
worker_todo(const struct worker *w, size_t from)
{
	size_t i, n = 0;

	for (i = from; i < w->s->ntrials; i++)
		n += w->todo[i];
	return n;
}

/*
 * Speak to the agent when nothing was said to it for keep_ms: a blank
 * line, which every agent ignores.  An agent of protocol 6 that hears
 * nothing for its idle limit ends its trial and itself (a controller cut
 * off by a partition never closes its input), so the worker calls this
 * wherever it waits while an agent serves, however long a trial takes.
 */
void
worker_keepalive(struct worker *w)
{
	long long now = clock_mono_ms();

	if (w->chan == NULL || now - w->last_tx < w->keep_ms)
		return;
	w->last_tx = now;
	/* a broken channel shows itself to the next read */
	(void)tchan_write(w->chan, "\n", 1, WRITE_MS);
}

/*
 * The next line from the agent, within deadline (ms, clock_mono_ms()
 * clock).  What arrives on standard error goes to the host's log.
 */
int
worker_next_event(struct worker *w, struct ap_event *ev, long long deadline, int watch_stop)
{
	long long now, wait;
	ssize_t n;
	size_t used;
	int from = 0;

	if (w->have_held) {
		*ev = w->held;
		w->have_held = 0;
		return 1;
	}
	for (;;) {
		if (agentproto_next(w->ap, ev) > 0)
			return 1;
		if (w->len > 0) {
			used = agentproto_feed(w->ap, w->buf + w->off, w->len);
			if (used == 0)
				used = w->len;	/* cannot happen: the reader takes bytes
						 * whenever no event waits */
			w->off += used;
			w->len -= used;
			continue;
		}
		if (w->eof)
			return 0;
		if (watch_stop && run_stop_requested())
			return RUN_ESTOP;
		worker_keepalive(w);
		now = clock_mono_ms();
		if (now - w->last_rx >= w->silence_ms)
			return RUN_ESILENT;
		if (now >= deadline)
			return RUN_EDEADLINE;
		wait = deadline - now;
		if (w->last_rx + w->silence_ms - now < wait)
			wait = w->last_rx + w->silence_ms - now;
		if (wait > POLL_MS)
			wait = POLL_MS;
		n = tchan_read(w->chan, TCHAN_ANY, &from, w->buf, sizeof(w->buf), (int)wait);
		if (n == TRANSPORT_EAGAIN)
			continue;
		if (n < 0)
			return (int)n;
		if (n == 0) {
			journal_log_flush(w->ctx->c->journal, w->h->name);
			agentproto_eof(w->ap);
			w->eof = 1;
			continue;
		}
		w->last_rx = clock_mono_ms();
		if (from == TCHAN_STDERR) {
			journal_log_output(w->ctx->c->journal, w->h->name, w->buf, (size_t)n);
			continue;
		}
		w->off = 0;
		w->len = (size_t)n;
	}
}

/* Why worker_next_event() failed, for people. */
char *
worker_event_error(struct worker *w, int r)
{
	const struct tchan_exit *ex;

	switch (r) {
	case 0:
		ex = tchan_exit_info(w->chan);
		if (ex->exited && ex->signal[0] != '\0')
			return xasprintf("the agent was killed by signal %s", ex->signal);
		if (ex->exited && ex->status >= 0)
			return xasprintf("the agent exited with status %d", ex->status);
		return xstrdup("the agent's output ended (connection closed)");
	case RUN_ESILENT:
		return xasprintf("nothing from the agent for %lld s: host hung or unreachable",
		    w->silence_ms / 1000);
	case RUN_EDEADLINE:
		return xstrdup("no answer from the agent in time");
	case RUN_ESTOP:
		return xstrdup("interrupted");
	default:
		/* The transport's message names the host and says what broke. */
		return xstrdup(*transport_error(w->t) ? transport_error(w->t) :
		    "connection lost");
	}
}

int
worker_send(struct worker *w, json_t *o)
{
	char *text = json_dumps(o, JSON_COMPACT), *line;
	int r;

	json_decref(o);
	if (text == NULL)
		return TRANSPORT_ELOCAL;
	line = xasprintf("%s\n", text);
	free(text);
	r = tchan_write(w->chan, line, strlen(line), WRITE_MS);
	free(line);
	if (r == 0)
		w->last_tx = clock_mono_ms();
	return r;
}

/*
 * The agent-start pacer's slot (run.h, RUN_START_*): taken before the
 * deploy, given back once the agent sent its env (or the start failed).
 * Waiting for it is the controller holding the host back: shown as
 * "deploying: waiting to start", and no silence is counted meanwhile.
 */
void
worker_start_acquire(struct worker *w)
{
	if (w->start_held)
		return;
	if (pace_try_acquire(w->ctx->starts, &w->start_tk) != 0) {
		worker_state(w, PROGRESS_DEPLOYING, "waiting to start");
		/*
		 * The login stays idle meanwhile, for minutes in a big fleet:
		 * keep it alive, so that neither the host's server
		 * (ClientAliveInterval) nor a firewall between drops a host
		 * the controller is holding back.
		 */
		while (pace_acquire_wait(w->ctx->starts, &w->start_tk, START_WAIT_MS) != 0)
			(void)transport_keepalive(w->t);
	}
	w->start_held = 1;
}

void
worker_start_release(struct worker *w, enum pace_outcome outcome)
{
	if (!w->start_held)
		return;
	w->start_held = 0;
	pace_release(w->ctx->starts, &w->start_tk, outcome, -1);
}
/* Points that run more tasks at once than the host has CPUs (env's cpus). */
static void
warn_cpus(struct worker *w, const json_t *cpus)
{
	char **msgs;
	size_t i, n;

	if (!json_is_integer(cpus))
		return;
	n = plan_cpu_warnings(w->ctx->c->plan, w->h->name, (long)json_integer_value(cpus),
	    &msgs);
	for (i = 0; i < n; i++) {
		worker_log(w, "warning: %s", msgs[i]);
		log_warn("%s", msgs[i]);
	}
	strv_free(msgs, n);
}

/*
 * Read the agent's answer of type `want` to a request, skipping anything
 * else, until deadline.  0, or -1 with *st and *why ("no env from the
 * agent: ...").
 */
static int
answer(struct worker *w, enum ap_type want, long long deadline, const char *what,
    struct ap_event *ev, enum ap_status *st, char **why)
{
	char *e;
	int r;

	for (;;) {
		if ((r = worker_next_event(w, ev, deadline, 0)) != 1) {
			w->answer_code = r;
			e = worker_event_error(w, r);
			*st = r == RUN_ESTOP ? AP_ST_CANCELLED : AP_ST_AGENT_LOST;
			*why = xasprintf("no %s from the agent: %s", what, e);
			free(e);
			return -1;
		}
		if (ev->type == want)
			return 0;
		worker_log(w, "ignored a %s line before %s", ap_type_name(ev->type), what);
	}
}

/* A copy of an agent's text with control characters made '?': for terminals. */
static char *
sanitize_text(const char *in)
{
	char *s = xstrdup(in), *p;

	for (p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return s;
}

/*
 * How long the holder of a lease answer ev is still to live, in ms, when
 * its agent has heard nothing from its controller for clearly longer than
 * a controller's keep-alive interval (it ends at its idle limit, protocol
 * 6); -1 when it is not such a holder.
 */
static long long
silent_holder_ms(const struct ap_event *ev)
{
	double keep = ev->u.lease.idle / 4 < KEEPALIVE_MS / 1000.0 ?
	    ev->u.lease.idle / 4 : KEEPALIVE_MS / 1000.0;

	if (ev->u.lease.idle <= 0 || ev->u.lease.silent < 0 || ev->u.lease.detached ||
	    ev->u.lease.silent <= keep + 2)
		return -1;
	if (ev->u.lease.silent >= ev->u.lease.idle)
		return 0;
	return (long long)((ev->u.lease.idle - ev->u.lease.silent) * 1000);
}

/* "locked by ann@laptop (run 20011130-020000-smoke-1a2b, since 2001-11-30T02:00:00Z)" */
static char *
lease_holder(const struct ap_event *ev)
{
	char since[CLOCK_ISO8601_MAX] = "", *s, *t;
	long long left = silent_holder_ms(ev);

	if (ev->u.lease.since > 0)
		clock_iso8601(since, sizeof(since), (time_t)ev->u.lease.since, -1);
	s = xasprintf("locked by %s (%srun %s%s%s)", *ev->u.lease.owner ? ev->u.lease.owner :
	    "another run", ev->u.lease.detached ? "detached " : "", *ev->u.lease.run ?
	    ev->u.lease.run : "unknown", *since ? ", since " : "", since);
	if (left > 0) {
		t = xasprintf("%s; its agent has heard nothing from its controller for %.0f s "
		    "and ends within %lld s", s, ev->u.lease.silent, (left + 999) / 1000);
		free(s);
		s = t;
	} else if (left == 0) {
		t = xasprintf("%s; the lease file was last marked %.0f s ago, past its holder's "
		    "idle limit of %.0f s", s, ev->u.lease.silent, ev->u.lease.idle);
		free(s);
		s = t;
	}
	if (ev->u.lease.file_uid >= 0) {
		t = xasprintf("%s; the lease file belongs to uid %lld, neither root nor the "
		    "login user: who holds it may not be who it says", s, ev->u.lease.file_uid);
		free(s);
		s = t;
	}
	return s;
}

/*
 * Take the host's lease through the agent (protocol 3: older agents keep
 * none).  Held by another run: wait up to --wait-lock, asking again every
 * LEASE_RETRY_MS.  Held by this very run (a resume) or by this controller's
 * own user (an agent left by an earlier run that lost the host, say to a
 * partition, and has not yet seen its input close), wait LEASE_SELF_MS for
 * it to go, or, when the holder says it has heard nothing from its
 * controller for a while (protocol 6), until its idle limit ends it.  0,
 * or -1 with *st and *why (class locked).
 */
int
worker_take_lease(struct worker *w, enum ap_status *st, char **why)
{
	const struct run_config *c = w->ctx->c;
	const char *run = journal_run_id(c->journal);
	long long until = clock_mono_ms() + (c->wait_lock_ms > 0 ? c->wait_lock_ms : 0);
	long long own_until = clock_mono_ms() + LEASE_SELF_MS, deadline, left;
	struct ap_event ev;
	char *holder;
	int r, said = 0, ours;

	if (w->proto < 3)
		return 0;
	for (;;) {
		if ((r = worker_send(w, json_pack("{s:s, s:s, s:s, s:s}", "type", WIRE_REQ_LEASE,
		    "id", "lease", "owner", w->ctx->owner, "run", run ? run : ""))) != 0) {
			*st = AP_ST_AGENT_LOST;
			*why = xasprintf("cannot ask for the lease: %s", transport_error(w->t));
			return -1;
		}
		if (answer(w, AP_LEASE, clock_mono_ms() + RUN_HELLO_MS, "lease", &ev, st, why) != 0)
			return -1;
		if (strcmp(ev.u.lease.status, "ok") == 0 && ev.u.lease.warning != NULL) {
			/* the run goes on unleased (read-only /tmp, a file not to trust) */
			char *s = sanitize_text(ev.u.lease.warning);

			worker_log(w, "no lease kept: %s", s);
			log_warn("%s: no lease kept: %s", w->h->name, s);
			free(s);
			return 0;
		}
		if (strcmp(ev.u.lease.status, "ok") == 0) {
			worker_log(w, "lease taken for %s (run %s)", w->ctx->owner,
			    run ? run : "-");
			return 0;
		}
		if (c->mode == RUN_COLLECT && ev.u.lease.detached && run != NULL &&
		    strcmp(ev.u.lease.run, run) == 0) {
			worker_log(w, "lease held by this run's detached agent, pid %lld",
			    ev.u.lease.pid);
			w->daemon_runs = ev.u.lease.pid > 0 ? ev.u.lease.pid : -1;
			return 0;
		}
		holder = lease_holder(&ev);
		ours = ((run != NULL && strcmp(ev.u.lease.run, run) == 0) ||
		    strcmp(ev.u.lease.owner, w->ctx->owner) == 0) && ev.u.lease.file_uid < 0;
		if (ours && (left = silent_holder_ms(&ev)) >= 0 &&
		    clock_mono_ms() + left + LEASE_RETRY_MS > own_until)
			own_until = clock_mono_ms() + left + LEASE_RETRY_MS;
		/* a detached agent of our own does not go in seconds */
		if (!(clock_mono_ms() < until || (ours && !ev.u.lease.detached &&
		    clock_mono_ms() < own_until))) {
			*st = AP_ST_LOCKED;
			*why = holder;
			return -1;
		}
		if (!said++) {
			worker_log(w, "%s: waiting", holder);
			worker_state(w, PROGRESS_CONNECTING, holder);
		}
		free(holder);
		deadline = clock_mono_ms() + LEASE_RETRY_MS;
		while (clock_mono_ms() < deadline) {
			if (run_stop_requested()) {
				*st = AP_ST_CANCELLED;
				*why = xstrdup("interrupted while waiting for the host's lease");
				return -1;
			}
			worker_keepalive(w);
			clock_sleep_ms(POLL_MS);
		}
	}
}

/*
 * Start the agent's serve mode, read its hello and its env.  Returns 0, or
 * -1 with *st and a new *why.
 */
int
worker_start_agent(struct worker *w, const struct deploy_result *dr, enum ap_status *st,
    char **why)
{
	struct ap_event ev;
	char *cmd, *e = NULL, idle[32];
	long long deadline;
	int r;

	/* the agent checked and started in one command (deploy.h) */
	snprintf(idle, sizeof(idle), "%lld.%03lld", w->idle_ms / 1000, w->idle_ms % 1000);
	cmd = deploy_serve_cmd(dr, idle);
	worker_log(w, "scratch directory %s/scratch-UID, starting %s serve --idle %s", dr->dir,
	    dr->path, idle);
	w->start_silent = 0;
	r = tchan_open(w->t, cmd, 0, CHAN_OPEN_MS, &w->chan);
	free(cmd);
	if (r != 0) {
		w->start_silent = r == TRANSPORT_ETIMEOUT;
		*st = run_infra_status(r, AP_ST_DEPLOY);
		*why = xasprintf("cannot start the agent: %s", transport_error(w->t));
		return -1;
	}
	w->ap = agentproto_new();
	/* silence counts from here, the start let through, not from the login */
	w->last_rx = w->last_tx = clock_mono_ms();
	deadline = clock_mono_ms() + RUN_HELLO_MS;
	r = worker_next_event(w, &ev, deadline, 0);
	if (r != 1) {
		w->start_silent = r == RUN_ESILENT || r == RUN_EDEADLINE;
		e = worker_event_error(w, r);
		*st = AP_ST_DEPLOY;
		*why = xasprintf("the agent did not start: %s", e);
		free(e);
		return -1;
	}
	if (ev.type == AP_UNKNOWN_PROTO) {
		*st = AP_ST_DEPLOY;
		*why = xasprintf("the agent speaks protocol %lld, this controller %d",
		    ev.u.hello.proto, WIRE_PROTO);
		return -1;
	}
	if (ev.type != AP_HELLO) {
		*st = AP_ST_DEPLOY;
		*why = xasprintf("the agent did not say hello: %s",
		    ev.type == AP_BAD_OUTPUT ? ev.u.bad.message : ap_type_name(ev.type));
		return -1;
	}
	worker_log(w, "agent %s (%s) serving, pid %lld", ev.u.hello.agent, ev.u.hello.arch,
	    ev.u.hello.pid);
	w->proto = ev.u.hello.proto;
	/* env within RUN_HELLO_MS of the hello, as the hello of the start */
	if (worker_ask_env(w, clock_mono_ms() + RUN_HELLO_MS, st, why) != 0) {
		w->start_silent = w->answer_code == RUN_ESILENT ||
		    w->answer_code == RUN_EDEADLINE;
		return -1;
	}
	/* started: the slot is free before any wait for the lease */
	worker_start_release(w, PACE_OK);
	warn_cpus(w, json_object_get(w->env, "cpus"));
	return worker_take_lease(w, st, why);
}

/*
 * Ask the agent for its env facts, keep them (w->env) and write them to
 * the journal.  0, or -1 with *st and a new *why.
 */
int
worker_ask_env(struct worker *w, long long deadline, enum ap_status *st, char **why)
{
	struct ap_event ev;
	char *e = NULL;
	int r;

	if ((r = worker_send(w, json_pack("{s:s, s:s}", "type", WIRE_REQ_ENV, "id", "env"))) != 0) {
		*st = AP_ST_AGENT_LOST;
		*why = xasprintf("cannot ask for env: %s", transport_error(w->t));
		return -1;
	}
	if (answer(w, AP_ENV, deadline, "env", &ev, st, why) != 0)
		return -1;
	{
		const json_t *arch = json_object_get(ev.u.env.obj, "arch");

		if (json_is_string(arch)) {
			free(w->rh->arch);	/* again after a power cycle */
			w->rh->arch = xstrdup(json_string_value(arch));
		}
	}
	json_decref(w->env);
	w->env = json_deep_copy(ev.u.env.obj);
	if (journal_host_env(w->ctx->c->journal, w->h->name, ev.u.env.obj, &e) != 0)
		run_journal_failed(w->ctx, e);
	return 0;
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

/*
 * Run one trial; `next` is the trial that follows it in the same variant
 * (SIZE_MAX: none), whose request is queued at the agent once this one
 * has started.  Returns 0 (go on), or -1 when the host is lost (w->lost
 * says why) or the run is stopping (w->stopped).
 */
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

/*
 * Put the plan's programs that this host's trials still need on it.  A
 * program that cannot be built or deployed fails its trials (deploy, with
 * the compiler's first lines); the others run.
 */
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

/* exit, bye, close the channel. */
void
worker_stop_agent(struct worker *w, int polite)
{
	struct ap_event ev;
	long long deadline = clock_mono_ms() + RUN_BYE_MS;
	int r;

	if (w->chan == NULL)
		return;
	if (polite && worker_send(w, json_pack("{s:s}", "type", WIRE_REQ_EXIT)) == 0) {
		while ((r = worker_next_event(w, &ev, deadline, 0)) == 1 && ev.type != AP_BYE)
			;
		if (r != 1)
			worker_log(w, "no bye from the agent");
	}
	tchan_close_stdin(w->chan);
	tchan_wait(w->chan, polite ? 2000 : 500, NULL);
	journal_log_flush(w->ctx->c->journal, w->h->name);
	tchan_free(w->chan);
	w->chan = NULL;
}

/* Wait for a -j slot; 0, or -1 when the run is stopped meanwhile. */
static int
take_slot(struct run_ctx *ctx)
{
	struct timespec ts;

	pthread_mutex_lock(&ctx->mu);
	while (ctx->slots == 0 && !run_stop_requested()) {
		clock_deadline(&ts, 200);
		pthread_cond_timedwait(&ctx->cv, &ctx->mu, &ts);
	}
	if (run_stop_requested()) {
		pthread_mutex_unlock(&ctx->mu);
		return -1;
	}
	if (ctx->slots > 0)
		ctx->slots--;
	pthread_mutex_unlock(&ctx->mu);
	return 0;
}

static void
give_slot(struct run_ctx *ctx)
{
	pthread_mutex_lock(&ctx->mu);
	if (ctx->slots >= 0)
		ctx->slots++;
	pthread_cond_signal(&ctx->cv);
	pthread_mutex_unlock(&ctx->mu);
}

/* Give the host up before any trial ran: every trial fails with st. */
void
worker_host_failed(struct worker *w, enum ap_status st, const char *why)
{
	char *reason = xasprintf("%s: %s", ap_status_name(st), why);

	worker_log(w, "failed: %s", reason);
	/* detached: the trials are not lost, collect runs or gathers them */
	if (w->ctx->c->mode == RUN_ATTACHED)
		worker_fail_rest(w, 0, st, why);
	w->rh->not_run = worker_todo(w, 0);	/* what the journal could not take */
	w->rh->status = JOURNAL_HOST_FAILED;
	w->rh->reason = reason;
	worker_set_status(w, JOURNAL_HOST_FAILED, reason);
	worker_state(w, PROGRESS_FAILED, reason);
}

void
worker_run_groups(struct worker *w)
{
	const struct plan_schedule *s = w->s;
	struct variant_state *vs;
	char *err = NULL, *msg;
	size_t v, i, nx, end;
	int r;

	for (v = 0; v < s->nvariants && w->lost == NULL && !w->stopped; v++) {
		const struct plan_variant *pv;

		end = s->variant_start[v + 1];
		if (worker_todo(w, s->variant_start[v]) - worker_todo(w, end) == 0)
			continue;
		if (run_stop_requested()) {
			w->stopped = 1;
			break;
		}
		pv = s->trials[s->variant_start[v]].variant;
		vs = NULL;
		if (!variant_is_empty(pv)) {
			msg = xasprintf("variant %s", pv->name ? pv->name : "-");
			worker_state(w, PROGRESS_RUNNING, msg);
			free(msg);
			worker_log(w, "applying variant %s", pv->name ? pv->name : "-");
		}
		r = variant_apply_saving(w->t, pv, variant_logger, variant_saver, w, &vs, &err);
		if (r == VARIANT_ELOST) {
			/* Not the variant's fault: the host is gone. */
			worker_log(w, "%s", err);
			w->lost = err;
			w->lost_status = AP_ST_CONNECT;
			err = NULL;
		} else if (r != 0) {
			worker_log(w, "%s", err);
			log_warn("%s", err);
			for (i = s->variant_start[v]; i < end; i++) {
				if (!w->todo[i])
					continue;
				if (w->ctx->c->progress != NULL) {
					w->k++;
					progress_trial(w->ctx->c->progress, w->pidx, w->k, "setup");
				}
				if (worker_record(w, &s->trials[i], clock_wall(), AP_ST_SETUP, err,
				    NULL) != 0)
					continue;
				w->todo[i] = 0;
				/* the variant's reason was said once, above */
				free(worker_point_failure(w, &s->trials[i], AP_ST_SETUP, err));
				if (w->ctx->c->progress != NULL)
					progress_trial_done(w->ctx->c->progress, w->pidx, "setup");
			}
			free(err);
			err = NULL;
		} else {
			/* with repeat: auto, rounds more while points cannot decide */
			autorep_reset(w->ar);
			for (i = s->variant_start[v]; ; end = s->variant_start[v + 1]) {
				for (; i < end; i++) {
					if (!w->todo[i])
						continue;
					if (run_stop_requested() && !w->stopped) {
						w->stopped = 1;
						break;
					}
					for (nx = i + 1; nx < end && !w->todo[nx]; nx++)
						;
					if (worker_run_trial(w, i, nx < end ? nx : SIZE_MAX) != 0)
						break;
				}
				if (i < end || w->stopped || (nx = autorep_round(w->ar, w->s, v,
				    &w->todo)) == 0)
					break;
				w->rh->ntrials += nx;
				if (w->ctx->c->progress != NULL)
					progress_add_trials(w->ctx->c->progress, w->pidx, nx);
				worker_log(w, "repeat auto: a round more of %zu point%s", nx,
				    nx == 1 ? "" : "s");
			}
		}
		r = variant_undo(w->t, vs, w->lost != NULL ? LOST_UNDO_MS : 0, variant_logger, w,
		    &err);
		/* Undone: nothing left to restore if this process dies. */
		if (r == 0 && journal_restore_clear(w->ctx->c->journal, w->h->name, &err) != 0)
			r = -1;
		if (r != 0) {
			worker_log(w, "%s", err);
			log_warn("%s", err);
			if (w->rh->reason == NULL)
				w->rh->reason = err;
			else
				free(err);
			err = NULL;
		}
	}
}

/*
 * Put back what a variant of an earlier attempt at this run changed and
 * could not undo (its controller was killed, or the host was lost), before
 * anything is measured.  0, or -1 with the host given up.
 */
static int
restore_left(struct worker *w, enum journal_restore_set set)
{
	struct journal *j = w->ctx->c->journal;
	char **paths, **olds, *err = NULL;
	size_t n, i;
	int r = 0;

	if (journal_restore_list_in(j, set, w->h->name, &paths, &olds, &n, &err) != 0) {
		worker_host_failed(w, AP_ST_SETUP, err);
		free(err);
		return -1;
	}
	for (i = n; i-- > 0; ) {
		r = set == JOURNAL_RESTORE_TUNE ? tune_write_back(w->t, paths[i], olds[i], &err) :
		    variant_write_back(w->t, paths[i], olds[i], &err);
		if (r != 0) {
			worker_host_failed(w, r == VARIANT_ELOST ? AP_ST_CONNECT : AP_ST_SETUP,
			    err);
			free(err);
			err = NULL;
			break;
		}
		worker_log(w, "restored %s, left changed by an earlier attempt at this run",
		    paths[i]);
	}
	if (r == 0 && n > 0 && journal_restore_clear_in(j, set, w->h->name, &err) != 0) {
		worker_log(w, "%s", err);
		free(err);
	}
	strv_free(paths, n);
	strv_free(olds, n);
	return r == 0 ? 0 : -1;
}

/*
 * Log in, within the connect timeout, or (after_boot) again and again until
 * the host's boot_timeout has passed.  0, or a transport code with *err.
 */
static int
connect_host(struct worker *w, int after_boot, struct transport_info *info, char **err)
{
	long long deadline = clock_mono_ms() + w->h->boot_timeout_ms, left;
	struct transport_opts o;
	struct pace_ticket tk;
	int r;

	for (;;) {
		/*
		 * The TCP connect and the server's banner come before the
		 * handshake pacer's slot, and a thousand of them at once (a
		 * thousand ssh servers forking) made the first handshakes miss
		 * their connect timeout: at most RUN_LOGINS_MAX logins are
		 * under way, the wait for one not counted against the host.
		 */
		pace_acquire(w->ctx->logins, &tk);
		hostconn_opts(w->h, w->ctx->pace, &o);
		left = deadline - clock_mono_ms();
		if (after_boot && o.connect_timeout_ms > left)
			o.connect_timeout_ms = left > 100 ? left : 100;
		memset(info, 0, sizeof(*info));
		r = transport_open(&o, &w->t, info, err);
		pace_release(w->ctx->logins, &tk, PACE_NEUTRAL, -1);
		if (r == 0 || !after_boot)
			return r;
		if (run_stop_requested() || clock_mono_ms() + BOOT_POLL_MS >= deadline) {
			char *e = xasprintf("no login within boot_timeout (%lld s) after the "
			    "power cycle: %s", w->h->boot_timeout_ms / 1000,
			    *err ? *err : "cannot connect");

			free(*err);
			*err = e;
			return r;
		}
		free(*err);
		*err = NULL;
		usleep(BOOT_POLL_MS * 1000);
	}
}

/*
 * RUN_COLLECT: whether the host is reached although no trial is left to
 * run there, to remove the journal directory its agent, still running at
 * the last look, left (run_config.dir_left).  A host given up is not.
 */
int
worker_dir_left(const struct worker *w)
{
	const struct run_config *c = w->ctx->c;
	size_t i = (size_t)(w->h - c->fleet->hosts);

	return c->mode == RUN_COLLECT && c->dir_left != NULL && c->dir_left[i] &&
	    (c->give_up == NULL || !c->give_up[i]);
}

/*
 * Connect, check the boot (after a power cycle, or with expect_kernel),
 * put back what an earlier attempt left, deploy and start the agent.
 * Returns 0, RUN_ESTOP, RUN_RESTORED (put back, and nothing left to run),
 * or -1 with the host given up (worker_host_failed()).
 */
int
worker_bring_up(struct worker *w, int after_boot)
{
	const struct run_config *c = w->ctx->c;
	struct transport_info info;
	struct deploy_result dr;
	struct board_boot bb;
	enum ap_status st;
	char *err = NULL;
	long long t0, wait;
	int r, attempt;

	worker_state(w, PROGRESS_CONNECTING, after_boot ? "waiting for the boot" : w->h->address);
	worker_set_status(w, JOURNAL_HOST_CONNECTING, NULL);
	if ((r = connect_host(w, after_boot, &info, &err)) != 0) {
		worker_host_failed(w, after_boot ? AP_ST_BOOT : run_infra_status(r, AP_ST_CONNECT),
		    err ? err : "cannot connect");
		free(err);
		return -1;
	}
	worker_log(w, "connected as %s@%s%s%s (host key %s, %d attempt%s, %lld ms)", info.user,
	    info.host, info.via[0] ? " via " : "", info.via, info.hostkey[0] ? info.hostkey : "-",
	    info.attempts, info.attempts == 1 ? "" : "s", info.open_ms);
	if (run_stop_requested())
		return RUN_ESTOP;
	if (after_boot || c->expect_kernel != NULL || w->h->power_cycle != NULL) {
		if (board_boot_read(w->t, &bb, &err) != 0) {
			worker_host_failed(w, AP_ST_BOOT, err);
			free(err);
			return -1;
		}
		worker_log(w, "boot id %s, kernel %s %s, command line %s", bb.boot_id, bb.release,
		    bb.version, bb.cmdline);
		r = board_boot_check(&bb, after_boot ? w->boot_id : NULL, c->expect_kernel,
		    &err);
		free(w->boot_id);
		w->boot_id = xstrdup(bb.boot_id);
		board_boot_release(&bb);
		if (r != 0) {
			log_warn("%s: %s", w->h->name, err);
			worker_host_failed(w, AP_ST_BOOT, err);
			free(err);
			return -1;
		}
	}
	if (restore_left(w, JOURNAL_RESTORE_VARIANT) != 0 ||
	    restore_left(w, JOURNAL_RESTORE_TUNE) != 0)
		return -1;
	if (worker_todo(w, 0) == 0 && !worker_dir_left(w))
		return RUN_RESTORED;

	worker_set_status(w, JOURNAL_HOST_DEPLOYING, NULL);
	worker_start_acquire(w);
	worker_state(w, PROGRESS_DEPLOYING, NULL);
	t0 = clock_mono_ms();
	memset(&dr, 0, sizeof(dr));
	if ((r = deploy_agent(w->t, w->h->workdir, w->h->agent, &dr, &err)) != 0) {
		worker_start_release(w, r == TRANSPORT_ETIMEOUT ? PACE_TRANSIENT : PACE_NEUTRAL);
		st = r == TRANSPORT_EVERIFY || r == TRANSPORT_EREMOTE ? AP_ST_DEPLOY :
		    run_infra_status(r, AP_ST_DEPLOY);
		worker_host_failed(w, st, err ? err : "cannot deploy");
		free(err);
		deploy_result_release(&dr);
		return -1;
	}
	if (dr.own_dir != NULL) {
		worker_log(w, "the work directory %s is not this user's to use (%s): using %s",
		    w->h->workdir, dr.why, dr.own_dir);
		log_info("%s: the work directory %s is not this user's to use (%s): using %s",
		    w->h->name, w->h->workdir, dr.why, dr.own_dir);
	}
	worker_log(w, "agent for %s %s at %s (%s)", dr.os, dr.arch, dr.path,
	    dr.built ? "built there" : dr.uploaded ? "uploaded" : "already there");
	free(w->workdir);
	w->workdir = xstrdup(dr.dir);
	/*
	 * The user's programs before the agent serves: a build can take
	 * minutes, in which a serving agent would hear nothing and end.  The
	 * start slot is not held meanwhile.
	 */
	if (c->plan->nprograms > 0) {
		worker_start_release(w, PACE_NEUTRAL);
		worker_deploy_programs(w, &dr);
		worker_start_acquire(w);
	}
	for (attempt = 1; (r = worker_start_agent(w, &dr, &st, &err)) != 0; attempt++) {
		/*
		 * A start that went silent is a slow host (its CPUs taken by
		 * the other starts) until a new channel says otherwise: the
		 * window halves, and it is tried again after a backoff.
		 */
		worker_start_release(w, w->start_silent ? PACE_TRANSIENT : PACE_NEUTRAL);
		if (!w->start_silent || run_stop_requested() || !pace_retry(w->ctx->starts,
		    PACE_TRANSIENT, attempt, clock_mono_ms() - t0, RUN_START_BUDGET_MS, &wait))
			break;
		worker_log(w, "slow to start (%s): again in %lld ms", err, wait);
		free(err);
		err = NULL;
		if (w->chan != NULL)
			worker_stop_agent(w, 0);
		agentproto_free(w->ap);
		w->ap = NULL;
		w->off = w->len = 0;
		w->eof = 0;
		w->have_held = 0;
		clock_sleep_ms(wait);
		worker_start_acquire(w);
		worker_state(w, PROGRESS_DEPLOYING, "starting again");
	}
	if (r != 0) {
		deploy_result_release(&dr);
		worker_host_failed(w, st, err);
		free(err);
		return -1;
	}
	worker_programs_check_proto(w);
	deploy_result_release(&dr);
	return 0;
}

/*
 * The host was lost (w->lost): power-cycle it, wait for it and bring it
 * up again.  Returns 0 (its remaining trials can run), RUN_ESTOP, -1
 * with the host given up, or 1 when the power cycle failed (w->lost says
 * why, and no further cycle is tried).
 */
int
worker_recover(struct worker *w)
{
	struct journal *j = w->ctx->c->journal;
	long long t0;
	char *err = NULL, *msg;
	int r;

	w->cycles++;
	log_warn("%s: lost (%s): power-cycling it (%d of %d)", w->h->name, w->lost, w->cycles,
	    w->h->recover);
	worker_log(w, "power cycle %d of %d: %s", w->cycles, w->h->recover, w->lost);
	if (journal_host_board(j, w->h->name, "power-cycle", w->cycled_in, w->lost, &err) != 0)
		run_journal_failed(w->ctx, err);
	err = NULL;
	msg = xasprintf("power cycle %d of %d (%s)", w->cycles, w->h->recover,
	    w->cycled_in ? w->cycled_in : "lost");
	worker_state(w, PROGRESS_CONNECTING, msg);
	free(msg);
	board_console_mark(w->console, "power cycle %d of %d", w->cycles, w->h->recover);

	/* What was left of the old boot. */
	worker_stop_agent(w, 0);
	agentproto_free(w->ap);
	w->ap = NULL;
	transport_close(w->t);
	w->t = NULL;
	w->off = w->len = 0;
	w->eof = 0;
	w->have_held = 0;
	w->ahead = 0;

	t0 = clock_mono_ms();
	if (board_power(w->h, "cycle", &err) != 0) {
		worker_log(w, "%s", err);
		msg = xasprintf("%s; the power cycle failed: %s", w->lost, err);
		free(err);
		free(w->lost);
		w->lost = msg;
		w->lost_status = AP_ST_BOOT;
		w->cycles = w->h->recover;	/* no second try: the worker gives up */
		return 1;
	}
	free(w->lost);
	w->lost = NULL;
	if ((r = worker_bring_up(w, 1)) == RUN_RESTORED)
		r = 0;		/* the trial that hung was the last */
	else if (r != 0) {
		if (journal_host_board(j, w->h->name, "boot-failed", NULL, w->rh->reason,
		    &err) != 0)
			run_journal_failed(w->ctx, err);
		return r;
	}
	msg = xasprintf("back after %.1f s", (double)(clock_mono_ms() - t0) / 1000.0);
	worker_log(w, "%s", msg);
	log_warn("%s: %s, running its remaining %zu trial%s", w->h->name, msg, worker_todo(w, 0),
	    worker_todo(w, 0) == 1 ? "" : "s");
	if (journal_host_board(j, w->h->name, "recovered", NULL, msg, &err) != 0)
		run_journal_failed(w->ctx, err);
	free(msg);
	worker_state(w, PROGRESS_RUNNING, "recovered");
	worker_set_status(w, JOURNAL_HOST_RUNNING, NULL);
	return 0;
}

/*
 * The plan's tuning profile, before the first trial: each item's outcome
 * to the host's log, run.json and the person, and the env facts read
 * again when it changed the host.  Without a profile, a host that is not
 * tuned gets one warning line.  0, or -1 with the host given up (lost
 * while it was applied: what was changed is put back by --resume).
 */
int
worker_tune_host(struct worker *w)
{
	const struct tune_spec *spec = w->ctx->c->plan->tune;
	enum ap_status st;
	char *err = NULL, *e = NULL, *sum;
	json_t *j;
	int r;

	if (spec == NULL) {
		if ((sum = tune_untuned(w->env)) != NULL) {
			size_t k;

			worker_log(w, "not tuned for benchmarking: %s", sum);
			pthread_mutex_lock(&w->ctx->mu);
			k = w->ctx->untuned++;
			pthread_mutex_unlock(&w->ctx->mu);
			/* a big fleet: the first few, the rest counted at the end */
			if (k < RUN_SAY_SAME)
				log_warn("%s: not tuned for benchmarking: %s (tune: performance in "
				    "the plan, or run --tune performance)", w->h->name, sum);
			free(sum);
		}
		return 0;
	}
	worker_state(w, PROGRESS_RUNNING, "tune");
	worker_log(w, "applying tuning profile %s", spec->profile);
	r = tune_apply(w->t, spec, tune_saver, variant_logger, w, &w->tune, &err);
	sum = tune_summary(w->tune);
	log_info("%s: tune %s: %s", w->h->name, spec->profile, sum);
	free(sum);
	j = tune_state_json(w->tune);
	if (journal_host_tune(w->ctx->c->journal, w->h->name, j, &e) != 0)
		run_journal_failed(w->ctx, e);
	json_decref(j);
	if (r != 0) {
		tune_state_free(w->tune);
		w->tune = NULL;
		worker_host_failed(w, AP_ST_CONNECT, err);
		free(err);
		return -1;
	}
	/* The facts the trials are measured under. */
	if (tune_changed(w->tune) &&
	    worker_ask_env(w, clock_mono_ms() + RUN_HELLO_MS, &st, &err) != 0) {
		worker_untune_host(w);
		worker_host_failed(w, st, err);
		free(err);
		return -1;
	}
	return 0;
}

/*
 * After a power cycle the host runs with the settings it boots with: the
 * profile is applied again before its remaining trials, so that none of
 * them is measured untuned.  What the reboot put back needs no undoing,
 * so the old saved values are dropped and the new ones (read again by
 * tune_apply) are what the end of the run restores.  0, or -1 with the
 * host given up.
 */
int
worker_retune_host(struct worker *w)
{
	char *err = NULL;

	tune_state_free(w->tune);
	w->tune = NULL;
	if (journal_restore_clear_in(w->ctx->c->journal, JOURNAL_RESTORE_TUNE, w->h->name,
	    &err) != 0) {
		run_journal_failed(w->ctx, err);
		err = NULL;
	}
	worker_log(w, "power-cycled: the tuning profile again");
	return worker_tune_host(w);
}

/* Undo the tuning profile after the last trial (or when stopping). */
void
worker_untune_host(struct worker *w)
{
	char *err = NULL;
	int r;

	if (w->tune == NULL)
		return;
	r = tune_undo(w->t, w->tune, w->lost != NULL ? LOST_UNDO_MS : 0, variant_logger, w,
	    &err);
	w->tune = NULL;
	/* Undone: nothing left to restore if this process dies. */
	if (r == 0 && journal_restore_clear_in(w->ctx->c->journal, JOURNAL_RESTORE_TUNE,
	    w->h->name, &err) != 0)
		r = -1;
	if (r != 0) {
		worker_log(w, "%s", err);
		log_warn("%s: %s", w->h->name, err);
		if (w->rh->reason == NULL)
			w->rh->reason = err;
		else
			free(err);
	}
}

/* Whether an earlier attempt left something to put back on this host. */
int
worker_restore_due(struct worker *w)
{
	static const enum journal_restore_set sets[] = { JOURNAL_RESTORE_VARIANT,
		JOURNAL_RESTORE_TUNE };
	char **paths, **olds, *err = NULL;
	size_t n, i;
	int due = 0;

	for (i = 0; i < 2 && !due; i++) {
		/* an unreadable file says so once the host is reached */
		if (journal_restore_list_in(w->ctx->c->journal, sets[i], w->h->name, &paths,
		    &olds, &n, &err) != 0) {
			free(err);
			err = NULL;
			due = 1;
			continue;
		}
		due = n > 0;
		strv_free(paths, n);
		strv_free(olds, n);
	}
	return due;
}

/* --- detached runs (detach.h) ---------------------------------------------- */

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

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	const struct run_config *c = w->ctx->c;
	char *err = NULL, *msg;
	int r, slot = 0;

	w->silence_ms = c->silence_ms > 0 ? c->silence_ms : RUN_SILENCE_MS;
	w->idle_ms = c->agent_idle_ms > 0 ? c->agent_idle_ms : RUN_AGENT_IDLE_MS;
	w->keep_ms = w->idle_ms / 4 < KEEPALIVE_MS ? w->idle_ms / 4 : KEEPALIVE_MS;
	if (worker_todo(w, 0) == 0 && !worker_restore_due(w) && !worker_dir_left(w)) {
		w->rh->status = JOURNAL_HOST_DONE;
		worker_set_status(w, JOURNAL_HOST_DONE, NULL);
		worker_state(w, PROGRESS_DONE, "nothing left to run");
		return NULL;
	}
	if (c->mode == RUN_COLLECT && c->give_up != NULL &&
	    c->give_up[w->h - c->fleet->hosts]) {
		worker_give_up(w);
		return NULL;
	}
	if (take_slot(w->ctx) != 0)
		goto interrupted;
	slot = 1;

	if (w->h->console != NULL) {
		char *path = rundir_console_path(journal_dir(c->journal), w->h->name);

		if (board_console_start(w->h, path, &w->console, &err) != 0) {
			worker_log(w, "%s", err);
			log_warn("%s: the console is not recorded: %s", w->h->name, err);
			free(err);
			err = NULL;
		} else
			worker_log(w, "console recorded into %s", path);
		free(path);
	}
	if ((r = worker_bring_up(w, 0)) != 0) {
		if (r == RUN_ESTOP)
			goto interrupted;
		if (r == RUN_RESTORED) {
			/* killed after its last trial, before it undid the host */
			w->rh->status = JOURNAL_HOST_DONE;
			worker_set_status(w, JOURNAL_HOST_DONE, NULL);
			worker_state(w, PROGRESS_DONE, "restored, nothing left to run");
		}
		goto out;
	}
	msg = xasprintf("%s", w->rh->arch ? w->rh->arch : "");
	worker_state(w, PROGRESS_RUNNING, msg);
	free(msg);
	worker_set_status(w, JOURNAL_HOST_RUNNING, NULL);
	if (c->mode == RUN_DETACH) {
		worker_detach(w);
		goto out;
	}
	if (c->mode == RUN_COLLECT && worker_collect(w) != 0)
		goto out;
	if (worker_tune_host(w) != 0)
		goto out;
	worker_run_groups(w);
	while (w->lost != NULL && worker_may_recover(w)) {
		if ((r = worker_recover(w)) == RUN_ESTOP)
			goto interrupted;
		if (r > 0)
			break;		/* not cycled: given up below */
		if (r != 0) {
			/* not back: what the profile changed is put back by --resume */
			tune_state_free(w->tune);
			w->tune = NULL;
			goto out;
		}
		if (w->tune != NULL && worker_retune_host(w) != 0)
			goto out;
		worker_run_groups(w);
	}
	worker_untune_host(w);

	if (w->lost != NULL) {
		/* The trials the host did not get to. */
		msg = xasprintf("not run: host lost: %s", w->lost);
		worker_fail_rest(w, 0, AP_ST_CONNECT, msg);
		free(msg);
		w->rh->not_run = worker_todo(w, 0);
		worker_stop_agent(w, 0);
		w->rh->status = JOURNAL_HOST_FAILED;
		free(w->rh->reason);
		w->rh->reason = xasprintf("%s: %s", ap_status_name(w->lost_status), w->lost);
		worker_log(w, "given up: %s", w->lost);
		worker_set_status(w, JOURNAL_HOST_FAILED, w->rh->reason);
		worker_state(w, PROGRESS_FAILED, w->rh->reason);
		goto out;
	}
	if (w->stopped || run_stop_requested()) {
		worker_stop_agent(w, 0);
		goto interrupted;
	}
	worker_stop_agent(w, 1);
	if (w->cycles > 0 && w->rh->reason == NULL)
		w->rh->reason = xasprintf("recovered by %d power cycle%s", w->cycles,
		    w->cycles == 1 ? "" : "s");
	w->rh->status = JOURNAL_HOST_DONE;
	if (w->rh->reason == NULL && w->first_failure != NULL) {
		/* done, but some points failed: the first one says why */
		if (w->points_failed > 1)
			w->rh->reason = xasprintf("%s (and %zu more point%s failed)",
			    w->first_failure, w->points_failed - 1,
			    w->points_failed == 2 ? "" : "s");
		else
			w->rh->reason = xstrdup(w->first_failure);
	}
	worker_set_status(w, JOURNAL_HOST_DONE, w->rh->reason);
	worker_log(w, "done: %zu ok, %zu failed", w->rh->ok, w->rh->failed);
	worker_state(w, PROGRESS_DONE, NULL);
	goto out;

 interrupted:
	w->rh->status = JOURNAL_HOST_INTERRUPTED;
	w->rh->not_run = worker_todo(w, 0);
	/* stopped by the run directory (a full disk), not by a person: say so */
	pthread_mutex_lock(&w->ctx->mu);
	if (w->ctx->journal_error != NULL && w->rh->reason == NULL)
		w->rh->reason = xasprintf("stopped: %s", w->ctx->journal_error);
	pthread_mutex_unlock(&w->ctx->mu);
	worker_set_status(w, JOURNAL_HOST_INTERRUPTED, w->rh->reason);
	worker_log(w, "interrupted: %zu trials not run", w->rh->not_run);
	worker_state(w, PROGRESS_INTERRUPTED, w->rh->reason);
 out:
	worker_start_release(w, PACE_NEUTRAL);
	if (w->chan != NULL)
		worker_stop_agent(w, 0);
	agentproto_free(w->ap);
	w->ap = NULL;
	transport_close(w->t);
	w->t = NULL;
	free(w->lost);
	w->lost = NULL;
	board_console_stop(w->console);
	w->console = NULL;
	free(w->boot_id);
	w->boot_id = NULL;
	free(w->cycled_in);
	w->cycled_in = NULL;
	if (w->prog_path != NULL)
		strv_free(w->prog_path, w->ctx->c->plan->nprograms);
	w->prog_path = NULL;
	json_decref(w->env);
	w->env = NULL;
	free(w->workdir);
	w->workdir = NULL;
	if (slot)
		give_slot(w->ctx);
	return NULL;
}

/*
 * A pool thread: the hosts one after another, in fleet order, until none
 * is left (at most -j, or RUN_MAX_WORKERS, of these run at once).
 */
static void *
pool_main(void *arg)
{
	struct run_ctx *ctx = arg;
	size_t i;

	for (;;) {
		pthread_mutex_lock(&ctx->mu);
		i = ctx->next < ctx->nws ? ctx->next++ : SIZE_MAX;
		pthread_mutex_unlock(&ctx->mu);
		if (i == SIZE_MAX)
			return NULL;
		worker_main(&ctx->ws[i]);
	}
}

/* Who this run is, on the hosts' leases: "user@controller". */
static char *
lease_owner(void)
{
	struct passwd *pw = getpwuid(getuid());
	char host[256] = "";

	if (gethostname(host, sizeof(host) - 1) != 0 || *host == '\0')
		snprintf(host, sizeof(host), "unknown");
	return xasprintf("%s@%s", pw != NULL && pw->pw_name != NULL ? pw->pw_name : "unknown",
	    host);
}

/* Worker threads for nhosts hosts at -j jobs: the hosts at once. */
static size_t
run_threads(size_t nhosts, int jobs)
{
	size_t t = jobs > 0 ? (size_t)jobs : RUN_MAX_WORKERS;

	return t < nhosts ? t : nhosts;
}

/*
 * Every host holds a few descriptors at once (its socket, its log, a
 * proxy's pipes, the agent's upload), and its log stays open once it is
 * done: the default soft limit of 1,024 open files is too few for a big
 * fleet.  Raise the soft limit towards the hard one; -1 with *need when
 * even that is short.
 */
static int
raise_fd_limit(size_t nhosts, int jobs, unsigned long long *need, unsigned long long *have)
{
	struct rlimit rl;
	size_t busy = run_threads(nhosts, jobs);
	rlim_t want = (rlim_t)busy * RUN_FDS_PER_HOST + (rlim_t)(nhosts - busy) +
	    RUN_FDS_SPARE;

	*need = (unsigned long long)want;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 0;
	*have = (unsigned long long)rl.rlim_cur;
	if (rl.rlim_cur >= want)
		return 0;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
		*have = (unsigned long long)rl.rlim_cur;
	return *have >= want ? 0 : -1;
}

int
run_check_limits(const struct fleet *f, const unsigned char *sel, int jobs, char **err)
{
	unsigned long long need = 0, have = 0;
	char at[48] = "";
	size_t i, n = 0;

	for (i = 0; i < f->nhosts; i++)
		n += sel == NULL || sel[i];
	if (n == 0 || raise_fd_limit(n, jobs, &need, &have) == 0)
		return 0;
	if (jobs > 0 && (size_t)jobs < n)
		snprintf(at, sizeof(at), ", %d at once,", jobs);
	return err_set(err, -1, "%zu host%s%s need %llu open files, and the limit is %llu: "
	    "raise the hard limit (ulimit -Hn, or LimitNOFILE=), run fewer at once (-j), or "
	    "split the fleet between runs (-H)", n, n == 1 ? "" : "s", at, need, have);
}

int
run_execute(const struct run_config *c, struct run_summary *out, char **err)
{
	struct run_ctx ctx;
	struct worker *ws;
	pthread_t *th;
	unsigned char *started;
	pthread_attr_t attr;
	size_t i, n = 0, k, nth;
	unsigned long long need, have;
	struct pace_stats ps;
	int max;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < c->fleet->nhosts; i++)
		n += c->sel == NULL || c->sel[i];
	if (n == 0) {
		*err = xstrdup("no host to run on");
		return -1;
	}
	if (raise_fd_limit(n, c->jobs, &need, &have) != 0)
		log_warn("%zu hosts may need %llu open files, and the limit is %llu: hosts may "
		    "fail to connect (raise the hard limit: ulimit -Hn, or LimitNOFILE=)",
		    n, need, have);
	memset(&ctx, 0, sizeof(ctx));
	ctx.c = c;
	ctx.owner = lease_owner();
	pthread_mutex_init(&ctx.mu, NULL);
	pthread_cond_init(&ctx.cv, NULL);
	ctx.slots = c->jobs > 0 ? c->jobs : -1;
	max = n < PACE_DEFAULT_MAX ? (int)n : PACE_DEFAULT_MAX;
	ctx.pace = pace_new(PACE_INITIAL, max, 0);
	max = n < RUN_START_MAX ? (int)n : RUN_START_MAX;
	ctx.starts = pace_new(RUN_START_INITIAL, max, 0);
	ctx.logins = pace_new(RUN_LOGINS_MAX, RUN_LOGINS_MAX, 0);
	pace_set_slow_start(ctx.starts, 1);
	pace_set_quick(ctx.starts, (c->silence_ms > 0 ? c->silence_ms : RUN_SILENCE_MS) / 4);
	transport_global_init();

	out->hosts = xcalloc(n, sizeof(*out->hosts));
	out->nhosts = n;
	ws = xcalloc(n, sizeof(*ws));
	nth = run_threads(n, c->jobs);
	th = xcalloc(nth, sizeof(*th));
	started = xcalloc(nth, 1);
	for (i = 0, n = 0; i < c->fleet->nhosts; i++) {
		struct worker *w = &ws[n];

		if (c->sel != NULL && !c->sel[i])
			continue;
		w->ctx = &ctx;
		w->h = &c->fleet->hosts[i];
		w->rh = &out->hosts[n];
		w->rh->name = xstrdup(w->h->name);
		w->rh->status = JOURNAL_HOST_PENDING;
		w->s = plan_expand(c->plan, w->h->name, c->seed);
		w->ar = autorep_new(c->plan);
		w->todo = xcalloc(w->s->ntrials ? w->s->ntrials : 1, 1);
		w->point_failed = xcalloc(c->plan->nvariants * c->plan->npoints + 1, 1);
		w->rh->ntrials = w->s->ntrials;
		for (k = 0; k < w->s->ntrials; k++) {
			if (c->done != NULL && trial_done_has(c->done, w->h->name,
			    w->s->trials[k].key))
				w->rh->skipped++;
			else
				w->todo[k] = 1;
		}
		if (c->progress != NULL)
			w->pidx = progress_add_host(c->progress, w->h->name,
			    w->s->ntrials - w->rh->skipped);
		n++;
	}
	ctx.ws = ws;
	ctx.nws = n;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, RUN_STACK_SIZE);
	for (i = 0, k = 0; i < nth; i++)
		if (pthread_create(&th[i], &attr, pool_main, &ctx) == 0) {
			started[i] = 1;
			k++;
		}
	pthread_attr_destroy(&attr);
	if (k == 0)
		pool_main(&ctx);	/* out of threads: run the hosts here */
	for (i = 0; i < nth; i++)
		if (started[i])
			pthread_join(th[i], NULL);
	if (ctx.untuned > RUN_SAY_SAME)
		log_warn("and %zu more hosts not tuned for benchmarking (each one's log says "
		    "how)", ctx.untuned - RUN_SAY_SAME);
	pace_stats(ctx.starts, &ps);
	log_verbose("agent starts: %u quick, %u slow, %u silent (%u retried), at most %d at "
	    "once, %.1f s waited for a start slot in all", ps.ok, ps.slow, ps.transient,
	    ps.retries, ps.peak, (double)ps.waited_ms / 1000.0);

	for (i = 0; i < n; i++) {
		struct run_host *rh = &out->hosts[i];

		out->ok += rh->ok;
		out->failed += rh->failed;
		out->skipped += rh->skipped;
		out->not_run += rh->not_run;
		plan_schedule_free(ws[i].s);
		free(ws[i].todo);
		autorep_free(ws[i].ar);
		free(ws[i].point_failed);
		free(ws[i].first_failure);
	}
	out->interrupted = run_stop_requested();
	out->journal_error = ctx.journal_error;
	pace_free(ctx.pace);
	pace_free(ctx.starts);
	pace_free(ctx.logins);
	free(ctx.owner);
	pthread_mutex_destroy(&ctx.mu);
	pthread_cond_destroy(&ctx.cv);
	free(ws);
	free(th);
	free(started);
	return 0;
}

void
run_summary_release(struct run_summary *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nhosts; i++) {
		free(s->hosts[i].name);
		free(s->hosts[i].reason);
		free(s->hosts[i].arch);
	}
	free(s->hosts);
	free(s->journal_error);
	memset(s, 0, sizeof(*s));
}
