/*
 * run/worker.c: a worker's bookkeeping, under every other part of the
 * engine: the stop flag (run.h), the host's log, status and progress
 * lines, and each trial appended to the journal.
 */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>

#include "agentproto.h"
#include "clock.h"
#include "fleet.h"
#include "journal.h"
#include "log.h"
#include "plan.h"
#include "progress.h"
#include "run.h"
#include "run/run-int.h"
#include "transport.h"
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
