/*
 * tune.h: tuning profiles: a known, quiet machine for the whole run
 * (docs/environment.md).
 *
 * A profile is a set of items, each a setting of the host: the cpufreq
 * governor, turbo/boost, SMT, ASLR, transparent huge pages, NUMA
 * balancing, irqbalance, the deepest cpuidle state allowed, and dropping
 * the page cache before each trial.  `tune: performance` in a plan (or
 * `run --tune performance`) takes the profile's values; a mapping
 * (`tune: {profile: performance, smt: off, thp: never}`) overrides items,
 * `keep` leaving one alone.
 *
 * Applying it, on an open transport (before the first trial): each item
 * looks for its files on the host, and writes them as a variant's writes
 * are written (variant_write(): old content read and handed to the save
 * hook first, `sudo -n` for a user that is not root, the value read back).
 * Each item ends applied (set, or already so), unavailable (the host has
 * no such setting) or denied (it has it, and the write failed: the reason
 * kept).  Undoing it (after the last trial) writes the old contents back
 * in reverse order, and starts a service that was stopped.
 *
 * Loading a spec (tune-spec.c: tune_item_name(), tune_profiles,
 * tune_spec_*()) needs no transport, so that plan loading links to none;
 * applying it is tune.c.
 *
 * It knows nothing of runs or journals: the caller keeps the old
 * contents (restore.h's restore-tune/HOST) through the save hook, and
 * gives them back to tune_write_back() when a run is resumed after a
 * crash.
 *
 * Errors: 0, or -1 / VARIANT_ELOST (the connection failed) with a new
 * message in *err naming the host.
 */
#ifndef FLEETMARK_TUNE_H
#define FLEETMARK_TUNE_H

#include <stddef.h>

#include <jansson.h>

#include "variant.h"

struct transport;
struct ydoc_node;

enum tune_item {
	TUNE_GOVERNOR,		/* cpuN/cpufreq/scaling_governor */
	TUNE_BOOST,		/* intel_pstate/no_turbo or cpufreq/boost */
	TUNE_SMT,		/* smt/control */
	TUNE_ASLR,		/* kernel.randomize_va_space */
	TUNE_THP,		/* transparent_hugepage/enabled */
	TUNE_NUMA_BALANCING,	/* kernel.numa_balancing */
	TUNE_IRQBALANCE,	/* the irqbalance service */
	TUNE_CSTATES,		/* cpuN/cpuidle/stateM/disable beyond a limit */
	TUNE_DROP_CACHES,	/* vm.drop_caches before each trial */
	TUNE_NITEMS
};

enum tune_outcome {
	TUNE_APPLIED,
	TUNE_UNAVAILABLE,
	TUNE_DENIED,
};

/* What to set.  Owns its strings. */
struct tune_spec {
	char	*profile;		/* "performance" */
	char	*value[TUNE_NITEMS];	/* what to set; NULL: left alone */
	char	*root;			/* prefix of every path: "" on hosts, a
					 * directory in tests */
};

/* One item's outcome. */
struct tune_result {
	enum tune_item		 item;
	enum tune_outcome	 outcome;
	char			*value;		/* what was asked */
	char			*detail;	/* "was powersave", the reason it was
						 * denied or is unavailable */
};

struct tune_state;

/* The names as plans spell them ("governor", "numa-balancing"...), and the
 * outcomes' ("applied", "unavailable", "denied"). */
const char	*tune_item_name(enum tune_item it);
const char	*tune_outcome_name(enum tune_outcome o);

/* The profiles' names, NULL-terminated ("performance", "none"). */
extern const char *const tune_profiles[];

/*
 * A new spec of the named profile; NULL in *out for "none" (no tuning).
 * -1 with *err for an unknown name.  tune_spec_free() releases it.
 */
int	tune_spec_profile(const char *name, struct tune_spec **out, char **err);

/*
 * The `tune:` value of a plan: a profile's name, or a mapping with
 * `profile:` (default performance) and items overriding it.  Errors carry
 * FILE:LINE:COL.  *out as tune_spec_profile().
 */
int	tune_spec_load(const struct ydoc_node *n, struct tune_spec **out, char **err);
void	tune_spec_free(struct tune_spec *s);

/*
 * Apply spec on t.  save (may be NULL) gets each old content before the
 * write, as variant_apply_saving()'s does (a pseudo-path
 * "service:irqbalance" for a stopped service); log (may be NULL) a line
 * per step.  *out gets the state (results, what to undo), also when the
 * host was lost half-way.  Returns 0 (every item has an outcome, denied
 * ones too) or VARIANT_ELOST.
 */
int	tune_apply(struct transport *t, const struct tune_spec *spec, variant_save_fn save,
	    variant_log_fn log, void *arg, struct tune_state **out, char **err);

/* The items' outcomes, in item order; *n of them. */
const struct tune_result *tune_results(const struct tune_state *st, size_t *n);

/* Whether some item changed the host (its facts are then read again). */
int	tune_changed(const struct tune_state *st);

/*
 * run.json's "tune" of a host: {"profile": NAME, "items": [{"item",
 * "state", "value", "detail"}]}, a new reference.
 */
json_t	*tune_state_json(const struct tune_state *st);

/* "aslr applied (0, was 2), governor unavailable (...)": a new string. */
char	*tune_summary(const struct tune_state *st);

/*
 * Before a trial: drop the page cache when the spec asks and the item was
 * applied.  0 (done, or not asked), or -1 / VARIANT_ELOST with *err.
 */
int	tune_before_trial(struct transport *t, const struct tune_state *st, char **err);

/* Whether tune_before_trial() does something (the next trial cannot then be
 * queued at the agent ahead of time). */
int	tune_per_trial(const struct tune_state *st);

/*
 * Undo: old contents back in reverse order, stopped services started.
 * Carries on after a failed step, reports the first failure; timeout_ms
 * as variant_undo()'s.  Frees st (NULL is fine).
 */
int	tune_undo(struct transport *t, struct tune_state *st, int timeout_ms,
	    variant_log_fn log, void *arg, char **err);

/*
 * Put back one saved entry (a file, or "service:NAME" to start again) of
 * a controller that died before it undid its profile.
 */
int	tune_write_back(struct transport *t, const char *path, const char *old,
	    char **err);

void	tune_state_free(struct tune_state *st);

/*
 * Without a profile: what in the env facts (the agent's env line) says
 * the host is not tuned for benchmarking ("governor powersave, boost on,
 * ASLR on"), a new string; NULL when nothing does.
 */
char	*tune_untuned(const json_t *env);

#endif /* FLEETMARK_TUNE_H */
