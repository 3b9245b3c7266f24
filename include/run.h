/*
 * run.h: the run engine: runs a plan's trials on the selected hosts of a
 * fleet and writes everything into a journal (journal.h).
 *
 * One worker per host, on a pool of at most `jobs` (else RUN_MAX_WORKERS)
 * threads of RUN_STACK_SIZE, each host with one transport for the whole
 * run (one login; handshakes paced by one shared struct pace), which
 * deploys the agent (deploy.h), starts ONE channel
 *	d=WORKDIR/scratch-UID; mkdir -p $d && TMPDIR=$d; exec AGENT serve
 * (the agent's own default, /tmp, when WORKDIR is not writable)
 * reads `hello`, asks for `env` (hosts/NAME.json), then for each variant
 * group of its schedule (plan_expand()): applies the variant (variant.h),
 * sends the group's trials one at a time, each answered by the agent's
 * lines until its `end`, appends every finished trial to the journal, and
 * undoes the variant (also after failures and on interruption).  At the
 * end `exit`, `bye`, close.  The local transport takes the same path.
 *
 * Deploys and agent starts are paced (pace.h): a host holds a start slot
 * from its deploy until the agent sent its env, the window adapting to how
 * quickly starts come back.  A host's silence is counted from when its
 * start was let through, never while it waits for a slot, and any byte
 * from the agent (stdout or stderr) starts it again; a start that goes
 * silent anyway is retried on a new channel within RUN_START_BUDGET_MS
 * (slow hosts), and a connection that is gone fails at once (dead ones).
 *
 * The worker speaks to the agent at least every 5 s (a blank line when it
 * has nothing to say), and the agent ends its trial and itself when it
 * hears nothing for agent_idle_ms: a controller cut off by a partition
 * leaves nothing running on the host, nor the host's lease held, for
 * longer than that.
 *
 * Never two trials at once on a host.  A host that goes silent (no line,
 * not even a heartbeat, for silence_ms), whose connection breaks, or whose
 * trial outlives the plan's timeout plus a margin, is given up: the trial
 * in flight is recorded as agent-lost (or timeout), the trials it did not
 * run as connect, and the other hosts go on.  A host that cannot be
 * reached, logged in to, or deployed to records every trial with that
 * class (connect, auth, hostkey, deploy; a timeout there is connect, an
 * infrastructure failure); a variant that cannot
 * be applied records its trials as setup, and nothing is measured under
 * the wrong setting.
 *
 * Boards (board.h, docs/boards.md): a host with `console:` has its console
 * recorded into logs/NAME.console for the whole run, each trial's start
 * marked, and a lost host's reason quotes the console lines that explain
 * it.  A host with `power:` that is lost in a trial is power-cycled (at
 * most `recover:` times a run) instead of given up: the trial in flight
 * is recorded as hang, the host waited for up to `boot_timeout:`, checked
 * (its boot id changed, and its kernel is expect_kernel when that is
 * set), deployed to again, and its remaining trials run.  A host that
 * does not come back, or with another kernel, fails its remaining trials
 * with class boot.  With expect_kernel, every host's kernel is checked
 * when it is first reached too, and nothing is measured on another.
 *
 * Interruption: run_request_stop() (async-signal-safe; for SIGINT and
 * SIGTERM handlers) makes every worker stop sending trials, close the
 * agent's input (the agent cancels the trial in flight), undo its
 * variant and leave; trials not run are not recorded, so --resume runs
 * them.
 */
#ifndef FLEETMARK_RUN_H
#define FLEETMARK_RUN_H

#include <stddef.h>

#include "journal.h"

struct fleet;
struct trial_done;
struct plan;
struct progress;

#define RUN_SILENCE_MS		30000	/* no line at all for this long: host lost */
#define RUN_MARGIN_MS		30000	/* over the plan's timeout, per trial */
#define RUN_HELLO_MS		30000	/* for the agent's hello and env */
#define RUN_BYE_MS		10000	/* for bye after exit */
#define LEASE_RETRY_MS		2000	/* between lease requests while waiting */
#define LEASE_SELF_MS		15000	/* for an agent of our own user to go */
#define RUN_AGENT_IDLE_MS	120000	/* the agent ends when its controller says
					 * nothing for this long (serve --idle) */
#define RUN_FDS_PER_HOST	4	/* a socket, a log, a proxy's two pipes */
#define RUN_FDS_SPARE		64	/* the run directory, the terminal, libraries */
#define RUN_MAX_WORKERS		1024	/* hosts at once (threads) without -j */
#define RUN_STACK_SIZE		(512 << 10)	/* bytes of a worker thread's stack */
#define RUN_START_INITIAL	8	/* agent starts at once, at first */
#define RUN_START_MAX		128	/* agent starts at once, at most */
#define RUN_START_BUDGET_MS	120000	/* a slow host's start, retries included */
#define RUN_LOGINS_MAX		64	/* logins under way at once (connect, banner,
					 * handshake; the handshakes paced within) */
#define RUN_SAY_SAME		5	/* hosts that each say the same warning */

/* How the hosts run their trials (detach.h, docs/detached.md). */
enum run_mode {
	RUN_ATTACHED,	/* the controller sends each trial and waits for it */
	RUN_DETACH,	/* each host gets its list and runs it detached */
	RUN_COLLECT,	/* each host's detached journal is gathered, and when
			 * its agent is done or gone the rest run attached; a
			 * host not reached records nothing */
};

struct run_config {
	const struct plan		*plan;
	const struct fleet		*fleet;
	const unsigned char		*sel;		/* fleet->nhosts flags */
	unsigned long long		 seed;		/* for plan_expand() */
	struct journal			*journal;
	const struct trial_done		*done;		/* --resume: trials already ok; NULL */
	struct progress			*progress;	/* NULL: none */
	int				 jobs;		/* hosts at once; <= 0: all */
	long long			 silence_ms;	/* 0: RUN_SILENCE_MS */
	long long			 margin_ms;	/* 0: RUN_MARGIN_MS */
	long long			 agent_idle_ms;	/* 0: RUN_AGENT_IDLE_MS */
	long long			 lease_self_ms;	/* 0: LEASE_SELF_MS */
	const char			*expect_kernel;	/* the boot check, or NULL */
	long long			 wait_lock_ms;	/* how long to wait for a host
							 * another run holds; 0: not */
	enum run_mode			 mode;
	const unsigned char		*give_up;	/* RUN_COLLECT: fleet->nhosts
							 * flags, or NULL: hosts not
							 * reached; what they did not
							 * journal fails agent-lost */
	const unsigned char		*dir_left;	/* RUN_COLLECT: fleet->nhosts
							 * flags, or NULL: hosts whose
							 * journal directory the last
							 * look left (its agent ran):
							 * reached with nothing left
							 * to run, to remove it */
};

/* What happened on one host. */
struct run_host {
	char			*name;
	enum journal_host_status status;	/* DONE, FAILED or INTERRUPTED */
	char			*reason;	/* why it failed, or NULL */
	char			*arch;		/* the agent's, or NULL */
	size_t			 ntrials;	/* in the schedule */
	size_t			 skipped;	/* already ok before (resume) */
	size_t			 ok, failed;	/* recorded this time */
	size_t			 not_run;	/* not recorded: interrupted, or the
						 * journal could not take them */
	size_t			 collected;	/* RUN_COLLECT: taken from the host's
						 * detached journal (of ok, failed) */
	int			 given_up;	/* RUN_COLLECT: run_config.give_up */
};

struct run_summary {
	struct run_host		*hosts;		/* in fleet order */
	size_t			 nhosts;
	size_t			 ok, failed, skipped, not_run;
	int			 interrupted;	/* run_request_stop() was called */
	char			*journal_error;	/* the first failed journal write, or NULL */
};

/*
 * Run.  Returns 0 when the run took place (whatever the trials' fate:
 * see *out), or -1 with a new message in *err when it could not start.
 * Release *out with run_summary_release().
 */
int	run_execute(const struct run_config *c, struct run_summary *out, char **err);
void	run_summary_release(struct run_summary *s);

/*
 * Before anything is written: raise the open-file limit as far as the hard
 * limit allows for the selected hosts (sel: fleet->nhosts flags, NULL: all)
 * at `jobs` at once.  0, or -1 with a new message in *err when even the
 * hard limit cannot hold them (the run should not start).
 */
int	run_check_limits(const struct fleet *f, const unsigned char *sel, int jobs,
	    char **err);

/* Ask every worker to stop (async-signal-safe), and whether it was asked. */
void	run_request_stop(void);
int	run_stop_requested(void);

#endif /* FLEETMARK_RUN_H */
