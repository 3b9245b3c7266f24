/*
 * runref.h: what a RUN or REF argument names, as a local run directory
 * (docs/reports.md).  A ref is tried as each of these in turn, and the first that fits wins:
 *
 *   1. a directory with a run.json (a run directory), as given
 *   2. a run id: the run directory of that name in the results directory
 *   3. `latest` (see below)
 *   4. an archive URL `URL/RUNID` or `URL/latest` (the run is pulled into
 *      the local archive cache first, archive.h)
 *   5. a label (run.json "label", `run --label`): the newest run (by run
 *      id) in the results directory with that label.  When the label is
 *      on runs of more than one plan, the context's plan (below) decides;
 *      without one, or when it is none of them, the label is ambiguous:
 *      RUNREF_EAMBIGUOUS, with a message naming the newest run of each
 *      plan.  Labels are looked for locally only, never in an archive.
 *
 * `latest` alone is the newest run (by name) in the results directory, as
 * `fleetmark report latest` has always meant.  With a context (a plan
 * name, and usually the hosts and the current run's id), as `run
 * --baseline latest` and `bisect-run --baseline latest` give, it is the
 * newest earlier run of the same plan and host: run.json's plan name
 * equal, at least one host in common, status "finished", and a run id
 * earlier than the current one (never the current run itself).  `compare
 * A latest` gives A's plan and A itself as `except`, with any status: the
 * newest other run of A's plan, partial or not (reports flag a partial
 * run).  It is looked for in the archive when the context names one (run
 * --push URL), else in the local results directory.  `URL/latest` is the
 * same search in the archive at URL.
 *
 * Run groups.  `run --group ID` records a group id in run.json ("group"):
 * several controllers, each on its own part of the fleet, one id.  A ref
 * `group:ID` names every run of that group in the results directory, and
 * `URL/group:ID` every run of it in the archive at URL (each run.json is
 * read, so every run of the archive is fetched into the cache once).
 * runref_resolve_all() takes those (and any other ref, as one run); the
 * runs of a group must be of one plan and one label (or none) and have no
 * host in common (RUNREF_EGROUP otherwise).  `latest` in a context with a group never
 * names a run of that group (tonight's other controllers).
 *
 * Errors: 0, or RUNREF_ENOTFOUND when `latest` matched no run (a first
 * night: a note for the caller, not a failure), RUNREF_EAMBIGUOUS for a
 * label on runs of several plans (bad input), or -1 for anything else;
 * each with a newly allocated message in *err.  *dir is set only on
 * success.
 */
#ifndef FLEETMARK_RUNREF_H
#define FLEETMARK_RUNREF_H

#include <stddef.h>

#define RUNREF_ENOTFOUND	(-2)
#define RUNREF_EAMBIGUOUS	(-3)
#define RUNREF_EGROUP		(-4)	/* a group that cannot be merged: bad input */

#define RUNREF_GROUP_PREFIX	"group:"
#define RUNREF_GROUP_MAX	64	/* bytes of a group id */

/* What `latest` is relative to.  Every field may be NULL / 0. */
struct runref_ctx {
	const char		*results;	/* local results directory; NULL: "results" */
	const char		*archive;	/* search `latest` in this archive URL */
	const char		*plan;		/* plan name; NULL: any plan (newest run) */
	const char *const	*hosts;		/* a run must have one of these hosts */
	size_t			 nhosts;	/* 0: any host */
	const char		*before;	/* a run id: only runs started earlier,
						 * never this one */
	const char		*except;	/* a run id `latest` never names */
	int			 any_status;	/* with plan: `latest` may be a run of
						 * any status, not only "finished" */
	int			 no_labels;	/* a ref is never a label (step 5) */
	const char		*group;		/* a run group `latest` never names a
						 * run of; NULL: none */
};

/*
 * Resolve ref to a local run directory (a new string in *dir), in the
 * order above: a directory with a run.json, a run id under ctx->results,
 * `latest`, an archive reference URL/RUNID or URL/latest (the run is
 * fetched into the archive cache and that directory is returned), or a
 * label.  ctx may be NULL (no context).
 */
int	runref_resolve(const char *ref, const struct runref_ctx *ctx, char **dir,
	    char **err);

/*
 * Whether run id `id` is an earlier run of plan `plan` than `before`:
 * its name part is the plan's (as journal_new_run_id() writes it) and its
 * time stamp is earlier, or the same second and the id sorts first.  NULL
 * plan or before: that part is not checked.
 */
int	runref_id_matches(const char *id, const char *plan, const char *before);

/*
 * Whether id is a valid group id: 1 to RUNREF_GROUP_MAX bytes of
 * [A-Za-z0-9._-], starting with a letter or digit.
 */
int	runref_group_valid(const char *id);

/*
 * Whether ref names a group: "group:ID" (*url set to NULL) or
 * "URL/group:ID" (*url the archive URL); 1 with *url and *id new strings,
 * 0 when it is not a group ref (nothing set), -1 with *err when it is one
 * with an id that is not valid.
 */
int	runref_group_split(const char *ref, char **url, char **id, char **err);

/*
 * The runs ref names, as local run directories in a new *dirs (*n new
 * strings, strv_free()): for a group ref, every run of the group, by run
 * id (-1 when there is none; RUNREF_EGROUP when they are of several plans
 * or labels or share a host, see runref_group_check()); else the one run
 * runref_resolve() gives, with its errors.
 */
int	runref_resolve_all(const char *ref, const struct runref_ctx *ctx, char ***dirs,
	    size_t *n, char **err);

/*
 * Whether the runs in dirs[0..n) can be one group: 0, or RUNREF_EGROUP
 * when two are of different plans or labels or have a host in common, or -1 when
 * one cannot be read; with *err naming the runs ("group 'rack': host
 * lab-01 is in two runs (A, B)").  group is the id for messages.
 */
int	runref_group_check(const char *group, char *const *dirs, size_t n, char **err);

#endif /* FLEETMARK_RUNREF_H */
