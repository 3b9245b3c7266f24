/*
 * run-int.h: what the run engine's files share: the run's context, the
 * worker that drives one host, the engine's timings and the functions
 * each part offers the others.  Private to run.c and src/run/.
 *
 *   run.c           the API: workers on a pool of threads, a worker's
 *                   course from start to end, the limits
 *   run/agent.c     speaking to the agent: lines in, requests out, its
 *                   start, env, lease and exit
 *   run/trial.c     trials: the requests, the user's programs, one trial
 *                   run to its end, what a failure says
 *   run/host.c      the host: login, boot check, bring-up, variant groups,
 *                   power-cycle recovery, tuning, what an earlier attempt
 *                   left to put back
 *   run/handover.c  detached runs: the trials handed to the agent
 *                   (RUN_DETACH), collected back (RUN_COLLECT), given up
 *   run/worker.c    the stop flag, and a worker's bookkeeping: its log,
 *                   status, progress and journal lines
 *
 * A part calls only the parts before it in this order, so that there is
 * no cycle: worker.c, agent.c, trial.c, host.c, handover.c, run.c.
 */
#ifndef FLEETMARK_RUN_INT_H
#define FLEETMARK_RUN_INT_H

#include <pthread.h>
#include <stddef.h>

#include <jansson.h>

#include "agentproto.h"
#include "journal.h"
#include "pace.h"
#include "progress.h"
#include "run.h"

struct board_console;
struct deploy_result;
struct plan_trial;
struct transport;

/* worker_next_event() results besides 1 (an event), 0 (end of the stream) and
 * TRANSPORT_E* codes. */
#define RUN_ESTOP	(-100)	/* run_request_stop() was called */
#define RUN_ESILENT	(-101)	/* nothing from the agent for silence_ms */
#define RUN_EDEADLINE	(-102)	/* the caller's deadline passed */
#define RUN_RESTORED	(-103)	/* worker_bring_up(): restored, nothing left to run */

#define KEEPALIVE_MS	5000	/* a blank line to the agent when nothing was sent
				 * for this long (at most a quarter of its idle limit) */

struct run_ctx {
	const struct run_config	*c;
	struct pace		*pace;
	struct pace		*starts;	/* agent starts: deploy to env */
	struct pace		*logins;	/* logins under way (a fixed window) */
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;
	int			 slots;		/* hosts that may still start (-j) */
	char			*journal_error;
	char			*owner;		/* "user@controller" for host leases */
	struct worker		*ws;		/* the hosts, for the pool's threads */
	size_t			 nws, next;	/* how many; the next to start */
	size_t			 untuned;	/* hosts found not tuned */
};

struct worker {
	struct run_ctx		*ctx;
	const struct fleet_host	*h;
	struct run_host		*rh;
	size_t			 pidx;		/* progress index */
	struct plan_schedule	*s;
	unsigned char		*todo;		/* s->ntrials flags: to run now */
	struct autorep		*ar;		/* repeat: auto, or NULL */
	size_t			 k;		/* trials started, for progress */

	struct transport	*t;
	struct tchan		*chan;
	struct agentproto	*ap;
	long long		 silence_ms, last_rx;
	long long		 idle_ms;	/* the agent's idle limit (serve --idle) */
	long long		 keep_ms;	/* speak to it at least this often */
	long long		 last_tx;	/* when the agent was last sent anything */
	char			 buf[16384];
	size_t			 off, len;	/* stdout bytes not yet fed */
	int			 eof;
	char			*lost;		/* why the host was given up, or NULL */
	enum ap_status		 lost_status;	/* agent-lost (in a trial) or connect */
	int			 stopped;
	size_t			 ahead;		/* 1 + the trial already sent, or 0 */
	struct ap_event		 held;		/* read ahead by crash_probe() */
	int			 have_held;
	double			 prev_end;	/* when the previous trial ended */

	struct board_console	*console;	/* `console:`, or NULL */
	char			*boot_id;	/* when first reached, or NULL */
	int			 cycles;	/* power cycles spent */
	char			*cycled_in;	/* the trial that hung, for run.json */
	char			**prog_path;	/* [plan->nprograms]: what the agent
						 * runs for each program, or NULL */
	json_t			*env;		/* the agent's env facts */
	struct tune_state	*tune;		/* the profile applied, or NULL */
	unsigned char		*point_failed;	/* nvariants x npoints flags: a trial
						 * of the point failed on this host */
	size_t			 points_failed;
	char			*first_failure;	/* the first one's "class: point:
						 * message", or NULL */
	long long		 proto;		/* the agent's protocol (hello) */
	char			*workdir;	/* the work directory there (deploy) */
	long long		 daemon_runs;	/* RUN_COLLECT: the lease is held by this
						 * run's detached agent (its pid, or -1) */
	struct pace_ticket	 start_tk;	/* the start slot, while held */
	int			 start_held;
	int			 start_silent;	/* the last start went silent */
	int			 answer_code;	/* answer()'s last failed next event */
};

/* run/worker.c: the worker's bookkeeping */
enum ap_status run_infra_status(int code, enum ap_status dflt);
void	run_journal_failed(struct run_ctx *ctx, char *err);
void	worker_log(struct worker *w, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	worker_set_status(struct worker *w, enum journal_host_status st,
	    const char *reason);
void	worker_state(struct worker *w, enum progress_state st, const char *detail);
int	worker_record(struct worker *w, const struct plan_trial *pt, double start,
	    enum ap_status st, const char *message, const struct ap_result *res);
void	worker_fail_rest(struct worker *w, size_t from, enum ap_status st,
	    const char *message);
size_t	worker_todo(const struct worker *w, size_t from);

/* run/agent.c: the agent's channel */
void	worker_keepalive(struct worker *w);
int	worker_next_event(struct worker *w, struct ap_event *ev, long long deadline,
	    int watch_stop);
char	*worker_event_error(struct worker *w, int r);
int	worker_send(struct worker *w, json_t *o);
void	worker_start_acquire(struct worker *w);
void	worker_start_release(struct worker *w, enum pace_outcome outcome);
int	worker_take_lease(struct worker *w, enum ap_status *st, char **why);
int	worker_start_agent(struct worker *w, const struct deploy_result *dr,
	    enum ap_status *st, char **why);
int	worker_ask_env(struct worker *w, long long deadline, enum ap_status *st,
	    char **why);
void	worker_stop_agent(struct worker *w, int polite);

/* run/trial.c: trials */
char	*run_trial_what(const struct plan_trial *pt);
json_t	*run_trial_params(const struct plan_trial *pt);
json_t	*worker_trial_request(struct worker *w, size_t i, json_t *params);
void	worker_deploy_programs(struct worker *w, const struct deploy_result *dr);
void	worker_programs_check_proto(struct worker *w);
int	worker_may_recover(const struct worker *w);
char	*worker_point_failure(struct worker *w, const struct plan_trial *tr,
	    enum ap_status st, const char *message);
int	worker_run_trial(struct worker *w, size_t i, size_t next);

/* run/host.c: the host */
void	worker_host_failed(struct worker *w, enum ap_status st, const char *why);
void	worker_run_groups(struct worker *w);
int	worker_dir_left(const struct worker *w);
int	worker_bring_up(struct worker *w, int after_boot);
int	worker_recover(struct worker *w);
int	worker_tune_host(struct worker *w);
int	worker_retune_host(struct worker *w);
void	worker_untune_host(struct worker *w);
int	worker_restore_due(struct worker *w);

/* run/handover.c: detached runs */
void	worker_detach(struct worker *w);
int	worker_collect(struct worker *w);
void	worker_give_up(struct worker *w);

#endif /* FLEETMARK_RUN_INT_H */
