/*
 * agent.h: the agent's internal interfaces between its own modules
 * (benchmarks only need bench.h and timing.h).
 */
#ifndef FLEETMARK_AGENT_H
#define FLEETMARK_AGENT_H

#include <stddef.h>
#include <sys/types.h>

#include "bench.h"
#include "wire.h"

#define AGENT_VERSION		"0.1.0"
#define AGENT_DEFAULT_SAMPLES	11
#define AGENT_MAX_SAMPLES	WIRE_MAX_SAMPLES
#define AGENT_DEFAULT_DEADLINE	300.0		/* seconds */
#define AGENT_HEARTBEAT		2.0		/* seconds between heartbeats */
#define AGENT_MAX_ID		128		/* bytes of a request id */
/* serve: how long the controller may be silent before the agent ends its
 * trial and itself (serve --idle overrides it; 0: never) */
#define AGENT_IDLE_DEFAULT	120.0		/* seconds */
/* after that: seconds left to say goodbye before SIGALRM ends the agent, in
 * case its output is stuck behind a connection that is gone */
#define AGENT_GOODBYE		10
/* argv[1] that makes the agent exit at once: a program for lat_proc to exec */
#define AGENT_EXEC_PROBE	"__exit"

/* --- trial.c: a resolved request and the trial_*() reporting functions --- */

struct param_value {
	const struct bench_param *def;
	char		*str;		/* as given or defaulted (PARAM_CPUS: resolved) */
	long long	 num;		/* PARAM_INT, PARAM_CPUS */
};

struct program;

struct trial {
	const struct bench	*bench;
	struct program		*program;	/* bench: program only (bench/program.c);
						 * freed by trial_release() */
	int			 profile;	/* a perf profile was asked for */
	unsigned		 monitors;	/* MON_* bits asked for */
	struct monitor		*mon;		/* in the trial process: its counters */
	unsigned long long	 ops;		/* operations behind the first metric
						 * with iterations (x samples) */
	char			*id;		/* request id, or NULL */
	int			 samples;
	double			 deadline;	/* timing_now() value */
	char			*tmpdir;
	int			 out_fd;	/* where lines go (the supervisor's pipe) */
	struct param_value	 params[WIRE_MAX_PARAMS];
	int			 nparams;
};

/*
 * Fill t for bench b from nkv "key", "value" pairs; every declared
 * parameter is resolved (given or default) and checked.  On a bad key or
 * value returns -1 with a message in err (suggesting a near key name).
 */
int	trial_init(struct trial *t, const struct bench *b, const char *id,
	    int nkv, char *const *keys, char *const *vals, int samples,
	    double deadline_s, char *err, size_t errlen);
void	trial_release(struct trial *t);

/* An integer parameter's range (bench_param.choices "MIN..MAX"). */
struct param_range {
	int		has_min, has_max;
	long long	min, max;
};

/*
 * The range of d (both ends absent for an enum, a string or an integer
 * without one); -1 when the catalogue's text is malformed.
 */
int	param_range(const struct bench_param *d, struct param_range *r);

/* The range for people: "2 to 1024", "at least 1M", "at most 64", "any". */
void	param_range_text(const struct bench_param *d, char *buf, size_t size);

/* Emit the header line of t (bench, resolved parameters, samples, time). */
void	trial_header(struct trial *t);

/* Emit a line of type `type` (error or note) with class and message. */
void	trial_emit_error(int fd, const char *id, const char *class,
	    const char *message);

/*
 * Exit code for a trial process whose run returned rc (WIRE_EXIT_*): the
 * one that carries the class of the last error it reported.
 * trial_exit_class() reads it back, for the end line: WIRE_STATUS_OK for
 * WIRE_EXIT_OK, the error class for the others trial_exit_code() returns,
 * NULL for any other code.
 */
int	trial_exit_code(int rc);
const char *trial_exit_class(int code);

/* Run t's benchmark (or, for a suite, each member in its own child). */
int	trial_run(struct trial *t);

/* --- supervise.c: one trial in a fresh child process --------------------- */

/* The control stream (stdin): complete lines, bounded, read without blocking. */
struct input {
	int	fd;
	char	buf[WIRE_MAX_LINE + 1];
	size_t	len;
	int	eof;
	int	toolong;	/* discarding the rest of an over-long line */
	double	idle;		/* ns the controller may be silent; 0: not watched */
	double	heard;		/* timing_now() of the last byte read */
};

/* Set up in for fd; nothing is watched (idle 0) until the caller says so. */
void	input_init(struct input *in, int fd);
/* Read what is available; returns -1 on EOF or error, else 0. */
int	input_fill(struct input *in);
/*
 * Whether the controller has been silent past in->idle: nothing was read
 * for that long and nothing is waiting to be read now.  Always 0 when in
 * is NULL, not watched, or at its end (EOF ends serving anyway).
 */
int	input_silent(struct input *in);
/*
 * Take the next complete line (without its newline, NUL-terminated) into
 * line[0..cap).  Returns its length, 0 when no complete line is buffered,
 * or -1 for a line that was longer than WIRE_MAX_LINE (discarded).
 */
long	input_line(struct input *in, char *line, size_t cap);

/*
 * Run trial t in a freshly forked child with its own process group and
 * scratch directory; forward its lines to out_fd, send heartbeats, enforce
 * the deadline, and end the trial when `in` (may be NULL) reaches EOF or
 * a termination signal arrives.  Emits the trial's "end" line.  Returns
 * the WIRE_EXIT_* code of the outcome.
 */
int	supervise(struct trial *t, struct input *in, int out_fd);

/*
 * In a freshly forked child of the supervisor (a trial, perf): its own
 * process group, killed when the agent dies, default signal handling.
 */
void	supervise_child_init(void);

/* Install SIGTERM/SIGINT/SIGHUP handling; nonzero once one arrived. */
void	supervise_signals(void);
int	supervise_stopping(void);
/*
 * The controller went silent (input_silent()): stop as on a signal, and
 * arm AGENT_GOODBYE seconds of SIGALRM (its default action ends the
 * process) so that output stuck behind a dead connection cannot keep the
 * agent, and the lease, alive.  supervise_silenced() says whether it did.
 */
void	supervise_silence(void);
int	supervise_silenced(void);
/* File descriptor that becomes readable when a signal arrived. */
int	supervise_signal_fd(void);
/* Read what the signal handlers wrote to it, so that it is not readable. */
void	supervise_drain_signals(void);

/* --- profile.c: a system-wide perf profile around a trial ---------------- */

struct profile {
	int		 want;		/* asked for: a profile line will be sent */
	const char	*dir;		/* the trial's scratch directory */
	pid_t		 pid;		/* perf record, leader of its group; 0: none */
	int		 interrupted;	/* SIGINT sent */
	int		 recorded;	/* perf record ended well */
	char		 absent[WIRE_MAX_ABSENT];	/* why there is none; "" */
	char		 event[64];
	unsigned long long total;	/* samples over every function */
	struct {
		char			sym[WIRE_MAX_SYMBOL];
		unsigned long long	hits;
	}		 top[WIRE_PROFILE_TOP];
	int		 ntop;
};

/* want: whether the trial asked for a profile (else every call is a no-op). */
void	profile_init(struct profile *p, int want);
/*
 * Start `perf record -a` in its own process group, writing into tmpdir
 * (which must outlive the profile), and wait (bounded) until it records.
 * Returns 0, or -1 with the reason in p->absent (no perf, not permitted,
 * perf failed): the trial goes on without a profile.
 */
int	profile_start(struct profile *p, const char *tmpdir);
/* The trial has exited: SIGINT to perf record, without waiting. */
void	profile_interrupt(struct profile *p);
/* SIGKILL to perf record's group (a trial killed at its deadline). */
void	profile_kill(struct profile *p);
/*
 * Wait (bounded) for perf record to finish, then SIGKILL its group and
 * reap it.  0 when the recording is usable, else -1 (p->absent says why).
 */
int	profile_stop(struct profile *p);
/*
 * Run perf report on the recording (bounded in time and output, with
 * heartbeats on out_fd) and send the trial's profile line: the top
 * functions, or why there is no profile.  Nothing when none was asked for.
 */
void	profile_emit(struct profile *p, int out_fd, const char *id,
	    const char *bench, double start);

/* --- monitor.c: counter deltas over a trial's measured window ---------- */

#define MON_INTERRUPTS	1u	/* WIRE_MON_INTERRUPTS */
#define MON_VMSTAT	2u	/* WIRE_MON_VMSTAT */
#define MON_PERF_STAT	4u	/* WIRE_MON_PERF_STAT */

/* The MON_* bit of a monitor's wire name into *bit; 0, or -1 for none. */
int	monitor_parse(const char *name, unsigned *bit);
/*
 * In the trial process, before the benchmark runs: set up t->monitors'
 * counters (perf-stat opens its events here, inherited by the threads and
 * children the benchmark makes).  Nothing when none was asked for.
 */
void	monitor_open(struct trial *t);
/*
 * After the benchmark ran (rc: its result): end the window if the
 * benchmark did not, send one monitor line per monitor asked for when rc
 * is 0, and free the counters.
 */
void	monitor_close(struct trial *t, int rc);
/*
 * The interrupts monitor's reading of a file in /proc/interrupts' format
 * (for tests): TLB shootdowns, function call and rescheduling IPIs, every
 * CPU's column summed, into v (have: whether the row was there).  Returns
 * the rows matched, or -1 when the file cannot be read.
 */
int	monitor_read_interrupts(const char *path, unsigned long long v[3], int have[3]);

/* --- kmsg.c: what the kernel logged during a trial ----------------------- */

enum {
	KMSG_OOPS, KMSG_BUG, KMSG_WARNING, KMSG_SOFT_LOCKUP, KMSG_HARD_LOCKUP,
	KMSG_RCU_STALL, KMSG_HUNG_TASK, KMSG_NKINDS
};
#define KMSG_MAX_LINES	WIRE_KERNEL_LINES	/* first lines kept */
#define KMSG_LINE_MAX	WIRE_KERNEL_LINE_MAX	/* bytes of one, cut */

struct kmsg {
	int		fd;		/* /dev/kmsg at its end, or -1 */
	int		any;		/* something was counted */
	int		lost;		/* records overwritten before they were read */
	long long	counts[KMSG_NKINDS];
	char		lines[KMSG_MAX_LINES][KMSG_LINE_MAX];
	int		nlines;
};

/* Open the kernel log at its end (k->fd -1 when it cannot be read). */
void	kmsg_begin(struct kmsg *k);
/* Count one record ("PRIO,SEQ,USEC,FLAGS;TEXT\n..."): kmsg_end() uses it. */
void	kmsg_record(struct kmsg *k, const char *rec, size_t len);
/* Read what was logged since kmsg_begin(), close, and send a "kernel" line
 * to out_fd when anything was counted. */
void	kmsg_end(struct kmsg *k, int out_fd, const char *id, const char *bench);
/* The KMSG_* kind a log text is, or -1; and a kind's wire name ("warning"). */
int	kmsg_classify(const char *text);
const char *kmsg_kind_name(int kind);
/* 0 when the kernel log can be read, else -1 with why. */
int	kmsg_probe(char *why, size_t size);

/* --- lease.c: which run has the host ------------------------------------- */

/* The lease file (FLEETMARK_LEASE_FILE overrides it, for tests). */
#define LEASE_PATH	"/tmp/.fleetmark-lease"

/*
 * Answer a lease request: take the host's lease for (owner, run) and keep
 * it while this process lives, or say who holds it.  Sends one lease line.
 */
void	lease_request(int out_fd, const char *id, const char *owner, const char *run);
/* Give the lease back (serve is ending well). */
void	lease_release(void);
/* In a trial process: close the inherited descriptor, which is not its. */
void	lease_close_inherited(void);
/*
 * The controller was heard: mark the lease file (its modification time, at
 * most once a second), so that a run that finds the lease held can tell a
 * live holder from one whose controller has gone silent.
 */
void	lease_heard(void);
/* The idle limit (seconds, 0: none) the holder line carries from now on. */
void	lease_set_idle(double seconds);
/* In a detached agent (detach.c): the lease, inherited, is its own now;
 * its holder line gets this process's pid and "detached": true. */
void	lease_detached(void);

/* --- env.c ---------------------------------------------------------------- */

/* Write the env line (host facts) to fd; human text when json is 0. */
void	env_emit(int fd, const char *id, int json);

/* Architecture the agent was compiled for (x86_64, armhf, ppc64, ...). */
const char *agent_arch(void);

/* --- list.c --------------------------------------------------------------- */

/* Describe every benchmark: one JSON line each, or a text table. */
void	list_emit(int fd, const char *id, int json);

/* --- serve.c -------------------------------------------------------------- */

/*
 * Serve requests from in_fd until "exit", end of input, a signal, or
 * idle_s seconds without a byte from the controller (0: no limit).
 */
int	serve(int in_fd, int out_fd, double idle_s);
/*
 * Wait until in's descriptor or the signal pipe is readable; reads what
 * arrived into in and empties the signal pipe.  0, or -1 when poll failed.
 */
int	serve_wait(struct input *in);
/* Answer request id with an error line of class bad-request and its end. */
void	serve_reply_error(int fd, const char *id, const char *msg);

struct jv;
/*
 * Check a parsed trial request (bench, samples, deadline, params) and
 * resolve it into t with trial_init().  Returns 0, or -1 with the message
 * of the bad-request reply in err.
 */
int	serve_trial_init(const struct jv *req, const char *id, struct trial *t,
	    char *err, size_t errlen);
/*
 * Run the trial request req (id: its id) under supervision, its lines to
 * out_fd; a request that cannot be run is answered bad-request.  Returns
 * supervise()'s code, or -1 for a bad request.
 */
int	serve_trial(const struct jv *req, const char *id, struct input *in, int out_fd);

/* --- detach.c: detached runs (docs/detached.md) ------------------------- */

#define DETACH_MAX_JOURNAL	(256LL * 1024 * 1024)	/* bytes of a host's journal */

/*
 * The serve requests of protocol 5.  detach: read the request's "trials"
 * lines that follow it on in, keep them in "dir" (WORKDIR/runs/RUNID),
 * and start a daemon that runs them, journals them there and holds the
 * lease; answers a "detached" line (state running, its pid).  collect:
 * the journal's complete lines, then a "detached" line with the state
 * (running, done, full, failed, gone, missing).  forget: remove the
 * directory unless its daemon runs.  A bad request is answered bad-request.
 */
void	detach_request(const struct jv *req, const char *id, struct input *in, int out_fd);
void	detach_collect(const struct jv *req, const char *id, int out_fd);
void	detach_forget(const struct jv *req, const char *id, int out_fd);
/* Whether dir is an absolute, plain path ending in /runs/RUNID. */
int	detach_dir_valid(const char *dir);

/* --- bench/program.c: the user's own programs (protocol 4) ------------- */

/*
 * The "program" member of trial request req, with its "params": the
 * program, its argv templates and compiled parse rules, and a benchmark
 * (own_program_bench()) whose name, parameters and metrics are the program's.
 * Returns 0 and a new program in *out (own_program_free() it after the trial),
 * or -1 with the bad-request message in err.
 */
int	own_program_from_request(const struct jv *req, struct program **out,
	    char *err, size_t errlen);
const struct bench *own_program_bench(const struct program *p);
void	own_program_free(struct program *p);

/* --- util.c --------------------------------------------------------------- */

/* Online CPUs, at least 1. */
int	ncpus(void);
/* Create a scratch directory for a trial; returns a malloc'd path or NULL. */
char	*scratch_create(void);
/* Remove a directory tree (no symlink is followed); 0 or -1. */
int	remove_tree(const char *path);
/* Remove scratch directories left by agents that no longer run. */
void	scratch_sweep(void);
/* Read a small text file into buf (NUL-terminated, trailing newline cut). */
int	read_text(const char *path, char *buf, size_t cap);
/* Edit distance between two short strings, for "did you mean". */
int	edit_distance(const char *a, const char *b);

#endif /* FLEETMARK_AGENT_H */
