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
 *	  report.txt	the tables, written when the run ends (report.h)
 *	  report.html	the same with charts
 *
 * This module owns the names of those files and the schema of run.json.
 * The journal (journal.h), which writes a run directory as a run goes,
 * keeps run.json as a jansson tree built and changed by the rundir_json_*
 * functions below, and rewrites it with rundir_write_json().
 *
 * Versioning: run.json and every trial line carry "format":
 * RUNDIR_FORMAT.  Members may be added without changing it; readers ignore
 * members they do not know.
 *
 * Crash safety: run.json and hosts/NAME.json are replaced atomically
 * (rundir_write_file(): write a hidden temporary, fsync, rename, fsync
 * the directory), so a reader sees the old file or the new one.
 *
 * Errors: 0, or -1 with a newly allocated message in *err naming the file
 * ("cannot write results/X/.run.json.tmp: No space left on device").
 */
#ifndef FLEETMARK_RUNDIR_H
#define FLEETMARK_RUNDIR_H

#include <stddef.h>
#include <time.h>

#include <jansson.h>

struct fleet;
struct plan;

#define RUNDIR_FORMAT		1
#define RUNDIR_RUN_JSON		"run.json"
#define RUNDIR_TRIALS		"trials.jsonl"
#define RUNDIR_HOSTS		"hosts"		/* hosts/NAME.json */
#define RUNDIR_LOGS		"logs"		/* logs/NAME.log */
#define RUNDIR_RESTORE		"restore"	/* restore/NAME */
#define RUNDIR_REPORT_TXT	"report.txt"
#define RUNDIR_REPORT_HTML	"report.html"

/* --- Writing run.json ------------------------------------------------------- */

/* What run.json records when a run starts (all borrowed for the call). */
struct rundir_start {
	const char		*id;		/* the run id */
	const struct plan	*plan;
	unsigned long long	 seed;		/* the one plan_expand() got */
	const struct fleet	*fleet;
	const unsigned char	*sel;		/* fleet->nhosts flags: the hosts of the
						 * run; NULL: all */
	const char		*label;		/* NULL: none */
	const char		*controller;	/* the controller's version */
	time_t			 start;		/* 0: now */
};

/*
 * A new run.json tree for a run that starts: status "running", the plan
 * as resolved, the fleet without secrets, the controller's version and
 * host name, and no hosts yet (add them with rundir_json_host()).
 */
json_t	*rundir_json_new(const struct rundir_start *s);

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
 * Replace dir/name with data atomically: dir/.name.tmp written and
 * synced, renamed over dir/name, dir synced.
 */
int	rundir_write_file(const char *dir, const char *name, const char *data,
	    size_t len, char **err);

/* rundir_write_file() of o as indented JSON and a newline (run.json,
 * hosts/NAME.json). */
int	rundir_write_json(const char *dir, const char *name, const json_t *o,
	    char **err);

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
