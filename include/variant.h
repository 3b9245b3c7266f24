/*
 * variant.h: applying a plan variant on a host, and undoing it.
 *
 * A variant (plan.h, docs/plans-and-fleets.md) is a set of files to write (`write: {path:
 * value}`) and shell commands (`setup`, `teardown`).  Applying it, on an
 * open transport:
 *   1. for each write, in the order written: read the file's old content
 *      (`cat PATH`), write the new value (`printf %s VALUE > PATH`) and read
 *      it back to check that it took; with `sudo -n sh -c '...'` when the
 *      login user is not root.  Paths and values are quoted (shquote.h);
 *   2. run the setup commands as given: they are shell command lines
 *      written by the plan's author, run as they are (not quoted).
 * Undoing it runs the teardown commands, then writes the old contents
 * back in reverse order.  A value read back as a sysfs choice list
 * ("always madvise [never]") counts as taken when the bracketed word is
 * the value, and such an old content is restored as its bracketed word.
 *
 * Each step is one exec channel on the transport (no agent involved), so
 * a variant can be undone after the agent went away.  It knows nothing of
 * runs or journals; `log` (may be NULL) receives one line per step for
 * the host's log.
 *
 * Errors: 0, or -1 (the variant cannot be applied: a command failed
 * there) or VARIANT_ELOST (the connection failed: the host is lost), with
 * a new message in *err that names the host and the step ("lab-03:
 * variant tuned: cannot write /sys/...: exit status 1: sudo: a password is
 * required").
 */
#ifndef FLEETMARK_VARIANT_H
#define FLEETMARK_VARIANT_H

#include <stddef.h>

struct plan_variant;
struct transport;
struct transport_result;
struct variant_state;

#define VARIANT_CMD_TIMEOUT_MS	60000	/* per step */
#define VARIANT_ELOST		(-2)	/* variant_apply(): the connection failed */
#define VARIANT_MAX_OLD		65536	/* bytes of an old content kept */
/* Where debugfs is mounted: a file under it that cannot be read or written
 * gets the reason when it is debugfs's (not mounted, refused, no such knob). */
#define VARIANT_DEBUGFS		"/sys/kernel/debug"

/* A line for the host's log ("write /tmp/x: 5 -> 7"). */
typedef void (*variant_log_fn)(void *arg, const char *line);

/*
 * Apply v on t.  *out gets the state to undo it with, also on failure
 * (undo then reverts what was done before the failure); it is NULL only
 * when nothing was done.  Variants without writes or commands (baseline,
 * or a plan without variants) succeed at once without touching the host.
 */
int	variant_apply(struct transport *t, const struct plan_variant *v,
	    variant_log_fn log, void *arg, struct variant_state **out, char **err);

/*
 * Called with each file's old content before the file is written, so that
 * the caller can keep it where it outlives this process (the run
 * directory); non-zero (with a new *why) refuses the write, which then
 * fails the variant.
 */
typedef int (*variant_save_fn)(void *arg, const char *path, const char *old, char **why);

/* variant_apply(), with save (may be NULL) called before each write. */
int	variant_apply_saving(struct transport *t, const struct plan_variant *v,
	    variant_log_fn log, variant_save_fn save, void *arg,
	    struct variant_state **out, char **err);

/*
 * Write an old content saved earlier (by a controller that died before it
 * could undo its variant) back into path, as variant_undo() would.  0, or
 * -1 / VARIANT_ELOST with a new *err naming the host and the path.
 */
int	variant_write_back(struct transport *t, const char *path, const char *old,
	    char **err);

/*
 * One write of a variant, for callers that keep their own list (tune.c,
 * in a struct variant_saves below): read path's old content as root, hand
 * it to save (may be NULL), write value and check it took, as
 * variant_apply() does.  *old gets a new copy
 * of the old content once it is saved, also when the write then failed
 * (undo it with variant_write_back()); NULL when nothing was written.  0,
 * or -1 / VARIANT_ELOST with a new *err naming the host and the path.
 */
int	variant_write(struct transport *t, const char *path, const char *value,
	    variant_save_fn save, void *arg, char **old, char **err);

/*
 * Run the command line inner as root on t (as is for root, else through
 * `sudo -n sh -c`), its output capped at VARIANT_MAX_OLD: transport_run()'s
 * result.  variant_step_error() says why such a step failed (a new
 * string: the transport's error, or the exit status and the first line
 * the command printed).
 */
int	variant_run_root(struct transport *t, const char *inner, int timeout_ms,
	    struct transport_result *res);
char	*variant_step_error(struct transport *t, int r, const struct transport_result *res);

/*
 * Undo: teardown commands, then old contents back in reverse order.
 * Carries on after a failed step and reports the first failure.  Frees
 * st (NULL is fine: nothing to do).  timeout_ms bounds each step (0:
 * VARIANT_CMD_TIMEOUT_MS); once the connection is found lost, the
 * remaining steps are not tried.
 */
int	variant_undo(struct transport *t, struct variant_state *st, int timeout_ms,
	    variant_log_fn log, void *arg, char **err);

/* Free without undoing (NULL is fine). */
void	variant_state_free(struct variant_state *st);

/*
 * The writes done on a host, in the order done: each path with its raw
 * old content, to be written back in reverse (a variant's, and a tuning
 * profile's in tune.c).  Starts zeroed.  variant_saves_add() copies path
 * and takes old (a malloc'd string); variant_saves_release() frees every
 * entry and leaves the list empty.
 */
struct variant_saved {
	char	*path;
	char	*old;
};

struct variant_saves {
	struct variant_saved	*v;
	size_t			 n;
};

void	variant_saves_add(struct variant_saves *s, const char *path, char *old);
void	variant_saves_release(struct variant_saves *s);

/* Whether v changes anything on a host. */
int	variant_is_empty(const struct plan_variant *v);

#endif /* FLEETMARK_VARIANT_H */
