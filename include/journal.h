/*
 * journal.h: the run directory (docs/results.md), written as a run goes so that a
 * run killed at any moment loses at most the trials in flight, and read
 * back by --resume.
 *
 * The layout of a run directory and the schema of run.json are rundir.h's:
 * the journal keeps run.json as a tree in memory and rewrites it whenever
 * the run's or a host's state changes, appends the trial lines to
 * trials.jsonl as each trial finishes, and writes hosts/NAME.json, the
 * host logs (hostlog.h) and restore/NAME (restore.h).  Every field of
 * run.json and of a trial line is described, with an example, in
 * docs/results.md; the format is versioned by a "format" member
 * (JOURNAL_FORMAT) in run.json and in every line.
 *
 * Crash safety: the run directory is built under a hidden temporary name
 * (made with RUNDIR_DIR_MODE less the umask, rundir_mktemp(), so that the
 * group reads it where the umask lets it read the files) and renamed into
 * place, so it exists complete or not at all; run.json
 * and hosts/NAME.json are replaced atomically (write, fsync, rename, fsync
 * the directory); all the lines of one trial go to trials.jsonl in one
 * write() on an O_APPEND descriptor, under a mutex, followed by
 * fdatasync().  A failed or short write (a full disk) is cut back off the
 * file, so the lines before it stay intact, and is reported.  A crash in
 * the middle of a write leaves at most one truncated last line, which
 * reading skips (and resuming removes).  The run directory is locked
 * (flock on trials.jsonl) while a journal has it open.  Space for the
 * last run.json is kept while the run goes (journal_finish()).
 *
 * Reading back is trialread.h's: trial_done_read() gives --resume the
 * trials that are done; trialread_file() reads every trial line fast.
 * Neither needs a struct journal.
 *
 * Threads: every function taking a struct journal may be called from any
 * thread at the same time (host workers), except journal_free().
 *
 * Errors: 0 or -1 with a newly allocated message in *err ("cannot write
 * results/X/trials.jsonl: No space left on device"); outputs are set only
 * on success.
 */
#ifndef FLEETMARK_JOURNAL_H
#define FLEETMARK_JOURNAL_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include <jansson.h>

#include "agentproto.h"

/* The run directory, and the parts of the journal with their own headers. */
#include "hostlog.h"
#include "restore.h"
#include "rundir.h"

struct fleet;
struct trial_done;
struct plan;
struct plan_trial;

#define JOURNAL_FORMAT		RUNDIR_FORMAT	/* of run.json and of every trial line */
#define JOURNAL_TRIALS		RUNDIR_TRIALS	/* the file the journal appends to */
#define JOURNAL_LOG_LINE	4096	/* a host's stderr line is split past this */
#define JOURNAL_BIG_FLEET	64	/* more hosts: run.json's host news held back */
#define JOURNAL_BIG_MS		1000	/* ... for at most this long between writes */

enum journal_host_status {
	JOURNAL_HOST_PENDING,		/* "pending" */
	JOURNAL_HOST_CONNECTING,	/* "connecting" */
	JOURNAL_HOST_DEPLOYING,		/* "deploying" */
	JOURNAL_HOST_RUNNING,		/* "running" */
	JOURNAL_HOST_DONE,		/* "done": every trial ran (some may have failed) */
	JOURNAL_HOST_FAILED,		/* "failed": gave up on the host; see reason */
	JOURNAL_HOST_INTERRUPTED,	/* "interrupted" */
};

const char	*journal_host_status_name(enum journal_host_status st);

struct journal;

/* What run.json records when a run starts.  Nothing is kept after
 * journal_create() returns: every field is copied. */
struct journal_info {
	const char		*results;	/* the parent directory ("results", or -o);
						 * created when missing */
	const char		*run_id;	/* NULL: journal_new_run_id() */
	const struct plan	*plan;
	unsigned long long	 seed;		/* the one plan_expand() got */
	const struct fleet	*fleet;
	const unsigned char	*sel;		/* fleet->nhosts flags: the hosts of this
						 * run; NULL: all */
	const char		*label;		/* --label, or NULL */
	const char		*group;		/* --group (runref_group_valid()), or NULL */
	const char		*commit;	/* --commit or FLEETMARK_COMMIT, or NULL */
	const char		*controller;	/* the controller's version */
	time_t			 start;		/* 0: now */
	int			 detached;	/* run --detach: "detached": true */
	const char		*side;		/* an ab boot's side ("A", "B"), or NULL */
	unsigned		 boot;		/* an ab boot's number, from 1; 0: none */
};

/*
 * "YYYYMMDD-HHMMSS-<plan name>-<4 hex>", the time in UTC, the name with
 * anything outside [A-Za-z0-9._-] made '-' and cut to 64 bytes.  When
 * `when` is the current second the first hex byte is the fraction of it
 * (1/256 s), so that runs of one plan started in one second sort in their
 * order; the rest is random.  A new string.
 */
char	*journal_new_run_id(const char *plan_name, time_t when);

/*
 * Create the run directory info->results/<run id>/ (complete: run.json
 * with status "running" and every selected host "pending", an empty
 * trials.jsonl, hosts/ and logs/) and open it for appending.
 */
int	journal_create(const struct journal_info *info, struct journal **out,
	    char **err);

/*
 * Reopen an existing run directory for --resume, in two steps, so that a
 * run that is refused is left exactly as it was (not a byte, not a time
 * stamp changed).
 *
 * journal_resume() reads run.json (journal_run_json()) and trials.jsonl
 * into *done (the trials that have an ok line, see trial_done_read();
 * done may be NULL), checks the layout (rundir_check()) and locks the run
 * (another fleetmark that has it: "... is in use by another fleetmark"),
 * and writes nothing: the caller checks the plan, the fleet and the hosts
 * against it, and journal_free() then leaves the directory untouched.
 * Fails with RUNDIR_ENOTRUN (rundir.h) when rundir has no run.json.
 *
 * journal_resume_start() takes the run up, once everything has been
 * checked: it makes what is missing of the skeleton (rundir_make()),
 * removes a truncated last line of trials.jsonl (a crash while it was
 * written; warned about), marks run.json "running" again with the time
 * added to "resumed", and keeps the spare for the run's last run.json.
 * Until then every function that writes fails; after it, the journal is
 * like one journal_create() made.  On failure run.json is as it was.
 */
int	journal_resume(const char *rundir, struct journal **out,
	    struct trial_done **done, char **err);
int	journal_resume_start(struct journal *j, char **err);

/*
 * Flush what is pending in host logs and close.  Does not change the
 * run's status (journal_finish() does).  Accepts NULL.
 */
void	journal_free(struct journal *j);

const char	*journal_run_id(const struct journal *j);
const char	*journal_dir(const struct journal *j);	/* the run directory */

/*
 * run.json as it stands (borrowed; read-only, and only while no other
 * thread changes it), for --resume to read with rundir_run_new().
 */
const json_t	*journal_run_json(const struct journal *j);

/*
 * Record a host's state in run.json (and rewrite it atomically): status
 * and reason (copied; NULL for none: give one with JOURNAL_HOST_FAILED).
 * The host's counts of ok and failed trials are brought up to date too.
 */
/*
 * Add what happened to a board (docs/boards.md) to run.json's entry for
 * host, under "board": {time, event, trial, reason}; event is "power-cycle",
 * "recovered" or "boot-failed", trial and reason may be NULL.  Rewrites
 * run.json; 0 or -1 with *err.  Thread-safe.
 */
int	journal_host_board(struct journal *j, const char *host, const char *what,
	    const char *trial, const char *reason, char **err);
/*
 * A host's state (and why it failed) into run.json.  In a fleet of more
 * than JOURNAL_BIG_FLEET hosts, this and the two below rewrite run.json at
 * most every JOURNAL_BIG_MS (what is held back goes out with a later
 * change, trial or journal_finish()); in a smaller one at once.
 */
int	journal_host_status(struct journal *j, const char *host,
	    enum journal_host_status st, const char *reason, char **err);

/*
 * Write hosts/NAME.json: the agent's env object without its wire members
 * ("type", "id"), and note the agent's version and arch and the host's
 * kernel release in run.json's entry for the host.
 */
int	journal_host_env(struct journal *j, const char *host, const json_t *env,
	    char **err);

/*
 * Note a host's tuning profile and each item's outcome (tune_state_json(),
 * copied) in run.json's entry for the host, as "tune".
 */
int	journal_host_tune(struct journal *j, const char *host, const json_t *tune,
	    char **err);

/*
 * Note a detached run's state on host (detach.h: {"state", "pid", "dir",
 * "since", "trials", "collected"}, copied) in run.json's entry for the
 * host, as "detached".
 */
int	journal_host_detached(struct journal *j, const char *host, const json_t *state,
	    char **err);

/*
 * Change only the "state" of host's "detached" entry (and its "time" to
 * now), keeping the rest of what the last look noted; an entry is made
 * when there is none.
 */
int	journal_host_detached_state(struct journal *j, const char *host,
	    const char *state, char **err);

/*
 * The run ends: status and end time into run.json.  The run.json that
 * says a run ended (st not JOURNAL_RUNNING) is written into the space
 * journal_create() or journal_resume_start() kept for it (RUNDIR_SPARE,
 * rundir.h), so that a run stopped by a full disk still says "failed";
 * without that space, or when the file outgrew it, as any other rewrite.
 * On failure run.json says what it said before.
 */
int	journal_finish(struct journal *j, enum journal_status st, char **err);

/* --- Trial lines ----------------------------------------------------------- */

/*
 * A finished trial (all pointers borrowed for the call).  With a result,
 * the trial's status and message are the result's (decide them with
 * ap_trial_add() and ap_trial_fail()); without one (the trial never ran:
 * connect, auth, hostkey, deploy, setup...), status and message are.
 */
struct journal_trial {
	const char		*host;
	const char		*variant;	/* NULL: the plan has none */
	const char		*bench;
	size_t			 nparams;	/* the full parameter set of the point, */
	char *const		*keys;		/* as the plan resolved it (text) */
	char *const		*vals;
	int			 rep;		/* 1 .. repeat */
	const char		*key;		/* plan_trial_key() */
	double			 start;		/* controller's clock, epoch seconds */
	double			 duration;	/* seconds; < 0: the result's */
	enum ap_status		 status;	/* used without a result */
	const char		*message;	/* used without a result; NULL for none */
	const struct ap_result	*result;	/* NULL: the trial never ran */
	int			 profile;	/* the plan asked for a profile: an ok
						 * trial without one says it is absent */
	unsigned		 monitors;	/* PLAN_MON_* the plan asked for: an ok
						 * trial without their lines notes it */
};

/* Fill host, variant, bench, params, rep, key and profile from a scheduled
 * trial; the rest is zeroed (duration -1). */
void	journal_trial_init(struct journal_trial *jt, const char *host,
	    const struct plan_trial *pt);

/*
 * Append the trial's lines (one per metric of each point; one line with
 * "metric": null when there is no metric) to trials.jsonl in one write,
 * and fdatasync.  The trial's profile goes on its first line only.  On failure the file is left as it was before the call.
 */
int	journal_append(struct journal *j, const struct journal_trial *t, char **err);

/* The first log write error, or NULL (owned by j). */
const char	*journal_log_error(const struct journal *j);

#endif /* FLEETMARK_JOURNAL_H */
