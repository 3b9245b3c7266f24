/*
 * detach.h: detached runs (docs/detached.md), the controller's side.
 *
 * `fleetmark run --detach` hands each host its whole trial list: the run
 * engine (run.h, RUN_DETACH) connects, deploys and starts the agent as
 * for any run, takes the host's lease, and sends a `detach` request
 * followed by the requests of every trial still to run, in order; the
 * agent keeps them in WORKDIR/runs/RUNID on the host (detach_host_dir())
 * and starts a daemon that runs them, journals each one there, and holds
 * the lease (marked detached) until it is done.  The controller then
 * leaves; run.json says "detached".
 *
 * `fleetmark collect RUNDIR` (RUN_COLLECT) connects again and asks each
 * host for its journal (`collect`): every trial in it that the run
 * directory does not have yet is appended, exactly once (the trials in
 * trials.jsonl are by (host, key): trial_finished_read()).  A host whose
 * daemon still runs stays "running" (the lease is its, and nothing else
 * is run there); a host whose daemon is done, or gone without finishing
 * (a reboot, a kill), has its journal directory removed (`forget`) and
 * the trials no host finished run there, as `run --resume` runs them.
 * The run is finished when every host is.
 *
 * This module holds what the engine needs that is not the engine's: the
 * plan check, the host directory, the trial ids of a list, and the
 * collect answer's trials put together.
 */
#ifndef FLEETMARK_DETACH_H
#define FLEETMARK_DETACH_H

#include <stddef.h>

#include <jansson.h>

struct ap_event;
struct ap_trial;
struct plan;

#define DETACH_RUNS_DIR		"runs"		/* under the host's work directory */
#define DETACH_WAIT_S		30		/* collect --wait: between rounds */
#define DETACH_GIVEN_UP		"given-up"	/* a host's state after collect
						 * --give-up: no collect reaches it */

/*
 * Whether plan p can run detached: nothing in it may need the controller
 * while the trials run (variants other than the empty one, a tuning
 * profile, repeat: auto).  0, or -1 with *err naming what.
 */
int	detach_plan_check(const struct plan *p, char **err);

/* WORKDIR/runs/RUNID, the run's directory on a host (a new string). */
char	*detach_host_dir(const char *workdir, const char *run_id);

/*
 * The index into a host's schedule of the trial request id "tN" (N from 1
 * to ntrials, decimal, no sign or leading zero): 0 and *idx = N - 1, or
 * -1 for anything else.
 */
int	detach_trial_index(const char *id, size_t ntrials, size_t *idx);

/*
 * The trials of a collect answer, put together by request id as their
 * lines come (the daemon journals a trial's lines together, but reading
 * them as a stream costs nothing and survives any order).  ntrials: the
 * host's schedule.
 */
struct detach_gather;

struct detach_gather *detach_gather_new(size_t ntrials);
void	detach_gather_free(struct detach_gather *g);	/* accepts NULL */

/*
 * Take one event of the answer.  Returns 1 when it ended the trial at
 * *idx (take it with detach_gather_take()), 0 when it was taken or is not
 * a trial's (a line of an unknown id is counted in *foreign, may be NULL).
 */
int	detach_gather_add(struct detach_gather *g, const struct ap_event *ev, size_t *idx,
	    size_t *foreign);

/*
 * The trial at idx, ended, and when it started on the host (its first
 * header's time; 0 when it had none); the caller frees it.  NULL when
 * there is none, or it was taken already.
 */
struct ap_trial *detach_gather_take(struct detach_gather *g, size_t idx, double *start);

/*
 * A host's "detached" entry of run.json: state ("running", "done", ...),
 * the daemon's pid (0: none known), the directory, the trials it was
 * given and those collected so far (a new object).
 */
json_t	*detach_state_json(const char *state, long long pid, const char *dir,
	    size_t trials, size_t collected);

#endif /* FLEETMARK_DETACH_H */
