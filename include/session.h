/*
 * session.h: one run of a plan, from its run directory to its report, as
 * `fleetmark run` and `fleetmark bisect-run` both make it:
 *
 *	session_create()	a new run directory (journal_create()), or
 *	session_resume()	an existing one taken up again (journal_resume())
 *	session_resume_check()	and the hosts it has left to run
 *	session_run()		the progress display, the run engine
 *				(run_execute()), and journal_finish() with the
 *				final status below
 *	session_report()	report.txt and report.html (report.h)
 *	session_exit()		the command's exit status
 *
 *	struct session *s;
 *	if (session_create("results", &cfg, &s, &err) != 0) ...
 *	if (session_run(s, &cfg, &err) != 0) ...	// could not start
 *	session_report(s, NULL, stdout);
 *	code = session_exit(s);
 *	session_free(s);
 *
 * The final status (run.json's "status", session_status()), one rule:
 *
 *	failed		the run could not start (session_run() returns -1), or
 *			a journal write failed during the run or when it ended;
 *			also when the run was interrupted as well: the run
 *			directory misses results, and that is said first
 *	interrupted	otherwise, when run_request_stop() was called (SIGINT,
 *			SIGTERM): --resume runs the trials not run
 *	finished	otherwise: every host done or given up
 *	detached	instead of finished, with RUN_DETACH or RUN_COLLECT,
 *			while a host is not done: its detached agent runs,
 *			or it was not reached (`fleetmark collect` goes on)
 *
 * The exit status (session_exit()): 1 (CMD_EXIT_ERROR) for failed, 130
 * (CMD_EXIT_INTERRUPTED) for interrupted, 5 (CMD_EXIT_RUNNING) for
 * detached; for finished, 0 when every
 * host is done and no trial failed, else 3 (CMD_EXIT_PARTIAL).  A command
 * may say more (a regression, a failed push).
 *
 * Messages go through log.h: "run DIR" when the run starts, each journal
 * error when it ends, a host log error as a warning; while the progress
 * display is drawn on a terminal, log lines are printed above it.
 * FLEETMARK_SILENCE_MS (tests only) replaces the 30 s after which a host
 * that sends nothing is given up, FLEETMARK_AGENT_IDLE_MS the 120 s after
 * which an agent whose controller says nothing ends, and
 * FLEETMARK_LEASE_SELF_MS the 15 s a lease of this controller's own user
 * is given to go.
 *
 * Errors: 0, or -1 with a newly allocated message in *err.
 */
#ifndef FLEETMARK_SESSION_H
#define FLEETMARK_SESSION_H

#include <stdio.h>

#include "journal.h"
#include "run.h"

struct fleet;
struct trial_done;
struct plan;
struct run_summary;
struct rundir_run;

/* What is run; borrowed, and must outlive the session. */
struct session_config {
	const struct plan	*plan;
	const struct fleet	*fleet;
	const unsigned char	*sel;		/* fleet->nhosts flags: the hosts to run on */
	unsigned long long	 seed;		/* for plan_expand() */
	const char		*label;		/* session_create(): --label, or NULL */
	const char		*group;		/* session_create(): --group, or NULL */
	const char		*commit;	/* session_create(): the commit, or NULL */
	int			 jobs;		/* hosts at once; <= 0: all */
	int			 quiet;		/* no progress display */
	const char		*expect_kernel;	/* the boot check (board.h), or NULL */
	long long		 wait_lock_ms;	/* --wait-lock: for a host another
						 * run holds; 0: fail it at once */
	enum run_mode		 mode;		/* run.h: RUN_DETACH (run --detach),
						 * RUN_COLLECT (collect), else attached */
	const unsigned char	*give_up;	/* RUN_COLLECT: fleet->nhosts flags,
						 * collect --give-up; or NULL */
	const char		*run_id;	/* session_create(): the run id (and the
						 * directory's name), or NULL: a new one */
	const char		*side;		/* session_create(): an ab boot's side
						 * ("A", "B") on every trial line, or NULL */
	unsigned		 boot;		/* ... and its boot number (from 1); 0 */
};

struct session;

/*
 * Create the run directory results/<run id>/ for c (plan, fleet, sel,
 * seed and label), with this controller's version in run.json.
 */
int	session_create(const char *results, const struct session_config *c,
	    struct session **out, char **err);

/*
 * Open the run directory rundir to take it up again (journal_resume():
 * read and locked; the trials done are skipped by session_run()).  Fails
 * with RUNDIR_ENOTRUN when rundir has no run.json.  Nothing is written:
 * the caller checks the plan and finds the fleet, hosts and seed in
 * session_rundir(), and a session freed before session_run() leaves the
 * run directory exactly as it was.
 */
int	session_resume(const char *rundir, struct session **out, char **err);

/* What `run --resume` and `collect` say about the hosts to take up. */
struct session_resume_opts {
	const char	*fleet_file;	/* -f, or NULL: the fleet the run recorded */
	const char	*hosts;		/* -H, or NULL: every host of the run */
	const char	*give_up;	/* --give-up, or NULL */
};

#define SESSION_NOTHING_LEFT	1	/* session_resume_check(): nothing to run */

/*
 * After session_resume(), before session_run(): the hosts of the resumed
 * run that c is to run.  c->plan must be set (and be the run's plan,
 * rundir_check_plan()).  Loads the fleet (o->fleet_file, else the one the
 * run recorded), in which every host of the run must be; selects the
 * run's hosts, narrowed by o->hosts, without those a detached run gave up
 * before and with o->give_up's (which must be hosts a detached run that
 * has not finished waits for); and sets c->fleet, c->sel, c->give_up,
 * c->seed, and c->mode to RUN_COLLECT for a detached run not finished.
 * What it sets is the session's, freed with it.  *todo: the trials left to
 * run on the hosts selected.  Returns 0; SESSION_NOTHING_LEFT when the run
 * finished and every trial of those hosts is ok (nothing is to run, and the
 * run is to be left as it is); or -1 with *err, bad input all of it.
 */
int	session_resume_check(struct session *s, struct session_config *c,
	    const struct session_resume_opts *o, size_t *todo, char **err);

/* run.json as session_resume() found it (borrowed), or NULL for a new run. */
const struct rundir_run		*session_rundir(const struct session *s);

/* The trials already done (session_resume()), or NULL (borrowed). */
const struct trial_done		*session_done(const struct session *s);

const char	*session_dir(const struct session *s);	/* the run directory */
const char	*session_id(const struct session *s);	/* the run id */

/*
 * Run c on the session's run directory, and record the final status (see
 * above) in run.json.  A resumed run is taken up first
 * (journal_resume_start()), when c selects a host of it.  Returns 0 when
 * the run took place, whatever its status, or -1 with *err when it could
 * not start (run.json then says failed; a resumed run that could not be
 * taken up is left as it was).  When the final status cannot be written
 * even into the space kept for it, that is said, and run.json still says
 * "running": never "finished".  At most once per session.
 */
int	session_run(struct session *s, const struct session_config *c, char **err);

/*
 * After a finished session_run(): run c (a confirmation round: some
 * points of the plan again, with repetitions after the night's, see
 * plan.h's rep_base) in the same run directory, appending to its trials.
 * The hosts' counts of ok and failed trials in session_summary() grow by
 * the round's; run.json stays finished, its end time that of the round.
 * 0, or -1 with *err when the round could not start or the run had not
 * finished.
 */
int	session_confirm(struct session *s, const struct session_config *c, char **err);

/* After session_run(): the final status, and what happened on each host
 * (borrowed). */
enum journal_status		 session_status(const struct session *s);
const struct run_summary	*session_summary(const struct session *s);

/* Why the status is failed: the first journal error (borrowed), or NULL. */
const char	*session_error(const struct session *s);

/*
 * Write the run's reports, printing the text to out when it is not NULL:
 * against the baseline run basedir when there is one (report.txt and
 * report.html, report_write_baseline()), else, or when that fails, the
 * run's own tables (report_write_run(), report_write_html()).  Failures
 * are warned about; what reading the run has to say (lines not ok,
 * lines skipped) is said once, not once per file written.  Returns the
 * number of significant regressions against basedir (>= 0; 0 without
 * one), or -1 when no report.txt could be written (the caller may print
 * numbers of its own).
 */
int	session_report(struct session *s, const char *basedir, FILE *out);

/* After session_run(): the exit status (see above). */
int	session_exit(const struct session *s);

/* The two rules above, for a run that took place (unit tests). */
enum journal_status	session_final_status(const struct run_summary *sum,
			    int finish_failed);
int			session_exit_status(enum journal_status st,
			    const struct run_summary *sum);

void	session_free(struct session *s);	/* accepts NULL */

#endif /* FLEETMARK_SESSION_H */
