/*
 * run/host.c: a host from its login to its last undo: the login and boot
 * check, what an earlier attempt left to put back, the agent's deploy,
 * the variant groups, a lost host power-cycled and brought up again, and
 * the tuning profile.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "agentproto.h"
#include "autorep.h"
#include "board.h"
#include "clock.h"
#include "deploy.h"
#include "fleet.h"
#include "hostconn.h"
#include "journal.h"
#include "log.h"
#include "pace.h"
#include "plan.h"
#include "progress.h"
#include "run.h"
#include "run/run-int.h"
#include "strv.h"
#include "transport.h"
#include "tune.h"
#include "variant.h"
#include "xmalloc.h"

#define LOST_UNDO_MS	5000	/* per undo step once the host looks lost */
#define BOOT_POLL_MS	1000	/* between logins while a host boots */

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
