/*
 * rundir.h: a run directory, what `fleetmark run` leaves behind: its
 * layout, and run.json, the record of the run.  docs/results.md is the
 * contract for every file in it.
 *
 *	results/<run-id>/
 *	  run.json	the plan as resolved, the fleet without secrets, label,
 *			versions, start/end, per-host and run status
 *	  trials.jsonl	one line per (finished trial, metric) (journal.h)
 *	  hosts/NAME.json  the agent's env facts for each host
 *	  logs/NAME.log	what each host printed on stderr, and controller
 *			events for it (hostlog.h)
 *	  restore/NAME	while a variant is applied on NAME: the old contents
 *			to put back (restore.h)
 *	  restore-tune/NAME	the same for a tuning profile (tune.h)
 *	  report.txt	the tables, written when the run ends (report.h)
 *	  report.html	the same with charts
 *
 * This module owns the names of those files (no one else builds their
 * paths) and the schema of run.json, both ways:
 *
 * - Writing: the journal (journal.h), which writes a run directory as a
 *   run goes, keeps run.json as a jansson tree built and changed by the
 *   rundir_json_* functions, and rewrites it with rundir_write_json().
 * - Reading: everyone else (resume, reports, runref.h) reads run.json
 *   into a struct rundir_run with rundir_load(), and hosts/NAME.json with
 *   rundir_load_env().
 *
 *	struct rundir_run *run;
 *	if (rundir_load("results/20261130-...", &run, &err) != 0) ...
 *	printf("%s of plan %s: %s\n", run->id, run->plan, run->status);
 *	rundir_run_free(run);
 *
 * Versioning: run.json and every trial line carry "format":
 * RUNDIR_FORMAT.  Members may be added without changing it; readers ignore
 * members they do not know, and refuse a run.json of another format.
 *
 * Crash safety: run.json and hosts/NAME.json are replaced atomically and
 * durably (rundir_write_json(): write a hidden temporary, fsync, rename,
 * fsync the directory), so a reader sees the old file or the new one.
 * The reports are replaced atomically too, without the fsyncs: they can be
 * made again from the other files.
 *
 * Errors: 0, or -1 with a newly allocated message in *err naming the file
 * ("cannot write results/X/.run.json.tmp: No space left on device").
 */
#ifndef FLEETMARK_RUNDIR_H
#define FLEETMARK_RUNDIR_H

#include <stddef.h>

#include <jansson.h>

struct journal_info;
struct plan;

#define RUNDIR_FORMAT		1
#define RUNDIR_RUN_JSON		"run.json"
#define RUNDIR_TRIALS		"trials.jsonl"
#define RUNDIR_HOSTS		"hosts"		/* hosts/NAME.json */
#define RUNDIR_LOGS		"logs"		/* logs/NAME.log */
#define RUNDIR_RESTORE		"restore"	/* restore/NAME */
#define RUNDIR_RESTORE_TUNE	"restore-tune"	/* restore-tune/NAME */
#define RUNDIR_REPORT_TXT	"report.txt"
#define RUNDIR_REPORT_HTML	"report.html"
#define RUNDIR_SPARE		".run.json.spare"	/* space kept for the last
							 * run.json (hidden) */
#define RUNDIR_MAX_JSON		(64 * 1024 * 1024)	/* bytes of run.json or
							 * hosts/NAME.json read */
#define RUNDIR_ENOTRUN		(-2)	/* rundir_load(): no run.json there */

/*
 * A run's "status" in run.json: the words every reader of a run directory
 * (report, history, runref, archive, collect) compares with, written by
 * the journal.
 */
enum journal_status {
	JOURNAL_RUNNING,	/* "running": in progress, or killed without a word */
	JOURNAL_FINISHED,	/* "finished": every host done or failed */
	JOURNAL_INTERRUPTED,	/* "interrupted": stopped by the user (^C, SIGTERM) */
	JOURNAL_FAILED,		/* "failed": the controller gave up */
	JOURNAL_DETACHED,	/* "detached": the hosts run it, the controller is
				 * away (run --detach; collect gathers it) */
};

/* The status's word in run.json ("running", "finished"...), "unknown" past them. */
const char	*journal_status_name(enum journal_status st);

/* --- Paths --------------------------------------------------------------------- */

/* "DIR/NAME" for a file or directory at the top (RUNDIR_RUN_JSON...).  A
 * new string, as are the paths below. */
char	*rundir_path(const char *dir, const char *name);

/*
 * A host's files.  These are the only way a path is made from a host
 * name, and they return NULL when the name breaks the fleet's name rule
 * (fleet_name_ok(): a name read from a run directory or an archive is
 * anyone's text, and "../../x" would name a file outside the run).
 */
char	*rundir_env_path(const char *dir, const char *host);	/* DIR/hosts/HOST.json */
char	*rundir_log_path(const char *dir, const char *host);	/* DIR/logs/HOST.log */
char	*rundir_console_path(const char *dir, const char *host); /* DIR/logs/HOST.console */
char	*rundir_restore_path(const char *dir, const char *host);	/* DIR/restore/HOST */

/* Whether dir is a run directory: it has a run.json. */
int	rundir_exists(const char *dir);

/*
 * Directories follow the umask as files do: a run directory and its
 * subdirectories are made with RUNDIR_DIR_MODE less the umask (0755 under
 * umask 022, 0775 under 002, so that a shared results directory is
 * readable by the group), files with RUNDIR_FILE_MODE less the umask.
 */
#define RUNDIR_DIR_MODE		0777
#define RUNDIR_FILE_MODE	0644

/*
 * A new empty directory under parent, named PREFIX followed by random
 * characters (as mkdtemp(3), but with RUNDIR_DIR_MODE less the umask
 * rather than 0700): the hidden name a run directory is built under
 * before it is renamed into place.  Its path is a new string in *out.
 */
int	rundir_mktemp(const char *parent, const char *prefix, char **out, char **err);

/*
 * Make the skeleton of a run directory in dir, which exists: hosts/,
 * logs/ and an empty trials.jsonl.  again (a resumed run): what is there
 * is kept, and what is missing made.
 */
int	rundir_make(const char *dir, int again, char **err);

/*
 * Whether rundir_make(dir, 1) can take dir up again, without changing
 * anything: hosts/ and logs/ are directories and trials.jsonl a regular
 * file where they exist.  0, or -1 with *err naming what is in the way.
 */
int	rundir_check(const char *dir, char **err);

/* Remove a run directory whose making failed: what rundir_make() and a
 * first run.json made in dir, then dir (when nothing else is in it). */
void	rundir_unmake(const char *dir);

/*
 * The space the last run.json of a run is written into, so that a run
 * stopped by a full disk can still say so: dir/RUNDIR_SPARE, a hidden
 * file (readers, reports and archives skip it) of size bytes allocated
 * (posix_fallocate) while the run goes.  rundir_spare_make() creates or
 * replaces it; rundir_write_json_spare() writes o over it from the start,
 * cuts it to length and renames it over dir/run.json, with the fsyncs of
 * rundir_write_json() (no block is asked of the file system unless o is
 * larger than the spare); the spare is gone afterwards either way.
 * rundir_spare_remove() removes it (a run that ended without needing it).
 */
int	rundir_spare_make(const char *dir, size_t size, char **err);
int	rundir_write_json_spare(const char *dir, const json_t *o, char **err);
void	rundir_spare_remove(const char *dir);

/* --- Reading run.json ----------------------------------------------------------- */

/* A host of the run, from run.json's "hosts" (docs/results.md). */
struct rundir_host {
	char		*name;
	char		*status;	/* a journal_host_status_name(): "pending",
					 * ... "done", "failed"; NULL: none */
	char		*reason;	/* why it failed, or NULL */
	char		*agent;		/* the agent's version, or NULL */
	char		*arch;		/* the agent's arch, or NULL */
	char		*kernel;	/* the host's kernel release, or NULL */
	char		*detached;	/* its "detached" entry's state ("running",
					 * "done", "given-up"...), or NULL */
	long long	 ok, failed;	/* trials, as of the last rewrite */
};

/*
 * run.json as read: what fleetmark's readers use of it, copied.  Strings
 * are NULL when the member is missing or not a string; nothing is checked
 * but the format (rundir_load()).
 */
struct rundir_run {
	char		*id;		/* "run", or NULL */
	char		*status;	/* a journal_status_name(): "running",
					 * "finished", "interrupted", "failed" */
	char		*label;		/* --label, or NULL */
	char		*group;		/* --group, the run group (runref.h), or NULL */
	char		*commit;	/* the commit measured (--commit, FLEETMARK_COMMIT),
					 * or NULL */
	int		 detached;	/* "detached": true (run --detach) */
	char		*start, *end;	/* "2026-11-30T04:15:00Z"; end NULL while
					 * running */
	char		*controller;	/* the controller's version */
	char		*controller_host;	/* the host it ran on, or NULL */
	char		*plan;		/* plan.name */
	char		*plan_file;	/* plan.file */
	unsigned long long seed;	/* plan.seed (0 when missing) */
	char		**points;	/* plan.points[].id; an entry is NULL for a
					 * point without one */
	size_t		 npoints;
	size_t		 nvariants;	/* of plan.variants */
	int		 has_variants;	/* plan.variants is an array */
	double		 threshold;	/* plan.regression.threshold; < 0: none */
	double		 fdr;		/* plan.regression.fdr; < 0: none */
	char		**metrics;	/* plan.regression.metrics (the strings) */
	size_t		 nmetrics;
	char		*fleet;		/* fleet.file */
	struct rundir_host *hosts;	/* "hosts", in the file's order */
	size_t		 nhosts;
};

/*
 * Read dir/run.json into a new *out.  The file must be a JSON object of
 * RUNDIR_FORMAT at most RUNDIR_MAX_JSON bytes, without duplicate
 * members.  Returns 0, RUNDIR_ENOTRUN when there is no run.json ("X is not
 * a run directory (no run.json)"), or -1; both with *err.
 */
int	rundir_load(const char *dir, struct rundir_run **out, char **err);

/* The same check, for the journal: the tree in *out (a new reference). */
int	rundir_load_json(const char *dir, json_t **out, char **err);

/* A new struct rundir_run of a run.json tree (the journal's, as it stands). */
struct rundir_run *rundir_run_new(const json_t *run);

void	rundir_run_free(struct rundir_run *r);	/* accepts NULL */

/* The host named name in the run, or NULL. */
const struct rundir_host *rundir_run_host(const struct rundir_run *r,
	    const char *name);

/*
 * Whether the run is of plan p as it stands: the same name, the same
 * points in the same order, as many variants.  0, or -1 with *err saying
 * what differs ("plan 'x' has changed since the run started (...)").
 */
int	rundir_check_plan(const struct rundir_run *r, const struct plan *p,
	    char **err);

/*
 * Read dir/hosts/HOST.json (the agent's env facts) into *out (a new
 * reference).  0, or -1 with *err (no such file, not JSON, too big, a
 * host name that breaks the fleet's name rule).
 */
int	rundir_load_env(const char *dir, const char *host, json_t **out, char **err);

/* --- Writing run.json ------------------------------------------------------- */

/*
 * A new run.json tree for the run id of a run that starts, from what
 * journal_create() is given (journal.h: the plan as resolved and its seed,
 * the selected hosts of the fleet without secrets, the label, the
 * controller's version, the start time) and the controller's host name;
 * status "running", and no hosts yet (add them with rundir_json_host()).
 */
json_t	*rundir_json_new(const struct journal_info *info, const char *id);

/* Change the run id (a run directory renamed before it is in place). */
void	rundir_json_set_id(json_t *run, const char *id);

/*
 * The run ends, or goes on: "status" (a journal_status_name()) and "end",
 * the time now when ended, else null.
 */
void	rundir_json_set_status(json_t *run, const char *status, int ended);

/* A resumed run: "running" again, no "end", the time now added to "resumed". */
void	rundir_json_resumed(json_t *run);

/*
 * The entry of host in run.json's "hosts" (borrowed from run), made when
 * missing: status as given (a journal_host_status_name()), reason, agent,
 * arch and kernel null, counts 0.
 */
json_t	*rundir_json_host(json_t *run, const char *host, const char *status);

/* Set a host entry's status and reason (copied; NULL for none). */
void	rundir_json_host_status(json_t *e, const char *status, const char *reason);

/* Set a host entry's agent version, arch and kernel release from the
 * agent's env facts (members it lacks become null). */
void	rundir_json_host_env(json_t *e, const json_t *env);

/* Set a host entry's counts of trials ok and failed. */
void	rundir_json_host_counts(json_t *e, size_t ok, size_t failed);

/*
 * Replace the file at path with o as indented JSON and a newline
 * (run.json, hosts/NAME.json), atomically and synced: fs_write_atomic()
 * (fsutil.h) with its default fsync policy.
 */
int	rundir_write_json(const char *path, const json_t *o, char **err);

/* --- JSON for the files of a run directory ----------------------------------- */

/* A JSON string of s, bytes that are not UTF-8 made U+FFFD; NULL: null. */
json_t	*rundir_json_str(const char *s);

/* Set o's member key to v, taking v's reference; a key that is not UTF-8
 * is made valid as rundir_json_str() does. */
void	rundir_json_set(json_t *o, const char *key, json_t *v);

/* An array of the n strings of v. */
json_t	*rundir_json_strv(char *const *v, size_t n);

/* An object of n parameters: keys[i] to the string vals[i]. */
json_t	*rundir_json_params(size_t n, char *const *keys, char *const *vals);

#endif /* FLEETMARK_RUNDIR_H */
