/*
 * run.c: the run engine: one worker per host drives a transport, the
 * agent's serve mode and the host's variants, and writes every finished
 * trial to the journal.  See run.h.  This file holds the API, the pool of
 * threads and a worker's course from start to end; the steps of that
 * course, and the bookkeeping under them, are in src/run/ (run-int.h).
 */
#include <sys/resource.h>

#include <pthread.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "agentproto.h"
#include "autorep.h"
#include "board.h"
#include "clock.h"
#include "fleet.h"
#include "journal.h"
#include "log.h"
#include "pace.h"
#include "plan.h"
#include "progress.h"
#include "run.h"
#include "run/run-int.h"
#include "rundir.h"
#include "strv.h"
#include "transport.h"
#include "trialread.h"
#include "tune.h"
#include "xmalloc.h"

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

/* The host's console, recorded into logs/NAME.console for the whole run. */
static void
console_start(struct worker *w)
{
	char *path = rundir_console_path(journal_dir(w->ctx->c->journal), w->h->name);
	char *err = NULL;

	if (board_console_start(w->h, path, &w->console, &err) != 0) {
		worker_log(w, "%s", err);
		log_warn("%s: the console is not recorded: %s", w->h->name, err);
		free(err);
	} else
		worker_log(w, "console recorded into %s", path);
	free(path);
}

/* The host was lost for good (w->lost): the trials it did not get to fail. */
static void
host_lost(struct worker *w)
{
	char *msg = xasprintf("not run: host lost: %s", w->lost);

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
}

/* Every trial ran: the host is done, its reason what the run went through. */
static void
host_done(struct worker *w)
{
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
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	const struct run_config *c = w->ctx->c;
	char *msg;
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

	if (w->h->console != NULL)
		console_start(w);
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
		host_lost(w);
		goto out;
	}
	if (w->stopped || run_stop_requested()) {
		worker_stop_agent(w, 0);
		goto interrupted;
	}
	worker_stop_agent(w, 1);
	host_done(w);
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
