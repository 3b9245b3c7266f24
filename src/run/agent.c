/*
 * run/agent.c: the run engine's side of the agent's serve mode: its lines
 * read within a deadline and a silence limit, requests written (with the
 * keep-alives that hold its idle limit off), its start (paced), env and
 * lease, and its exit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "agentproto.h"
#include "clock.h"
#include "deploy.h"
#include "fleet.h"
#include "journal.h"
#include "log.h"
#include "pace.h"
#include "plan.h"
#include "progress.h"
#include "run.h"
#include "run/run-int.h"
#include "strv.h"
#include "transport.h"
#include "wire.h"
#include "xmalloc.h"

#define CHAN_OPEN_MS	30000
#define WRITE_MS	30000
#define POLL_MS		250	/* longest blocking read: how soon a stop is seen */
#define START_WAIT_MS	5000	/* keepalives while waiting for a start slot */

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
	long long own_until = clock_mono_ms() + (c->lease_self_ms > 0 ? c->lease_self_ms :
	    LEASE_SELF_MS), deadline, left;
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
