/*
 * runref.h: what a RUN or REF argument names (docs/guide.md), as a local run
 * directory: a run directory, a run id in the local results directory,
 * `latest`, or an archive URL `URL/RUNID` (pulled into the local archive
 * cache first, archive.h).
 *
 * `latest` alone is the newest run (by name) in the results directory, as
 * `fleetmark report latest` has always meant.  With a context (a plan
 * name, and usually the hosts and the current run's id), as `run
 * --baseline latest` and `bisect-run --baseline latest` give, it is the
 * newest earlier run of the same plan and host: run.json's plan name
 * equal, at least one host in common, status "finished", and a run id
 * earlier than the current one (never the current run itself).  It is
 * looked for in the archive when the context names one (run --push URL),
 * else in the local results directory.  `URL/latest` is the same search
 * in the archive at URL.
 *
 * Errors: 0, or RUNREF_ENOTFOUND when `latest` matched no run (a first
 * night: a note for the caller, not a failure), or -1 for anything else;
 * both with a newly allocated message in *err.  *dir is set only on
 * success.
 */
#ifndef FLEETMARK_RUNREF_H
#define FLEETMARK_RUNREF_H

#include <stddef.h>

#define RUNREF_ENOTFOUND	(-2)

/* What `latest` is relative to.  Every field may be NULL / 0. */
struct runref_ctx {
	const char		*results;	/* local results directory; NULL: "results" */
	const char		*archive;	/* search `latest` in this archive URL */
	const char		*plan;		/* plan name; NULL: any plan (newest run) */
	const char *const	*hosts;		/* a run must have one of these hosts */
	size_t			 nhosts;	/* 0: any host */
	const char		*before;	/* a run id: only runs started earlier,
						 * never this one */
};

/*
 * Resolve ref to a local run directory (a new string in *dir): a
 * directory with a run.json, a run id under ctx->results, `latest` (see
 * above), or an archive reference URL/RUNID or URL/latest (the run is
 * fetched into the archive cache and that directory is returned).  ctx
 * may be NULL (no context).
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

#endif /* FLEETMARK_RUNREF_H */
