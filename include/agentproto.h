/*
 * agentproto.h: the controller's reader of what an agent prints, and the
 * per-trial accumulator that turns a trial's lines into its results.
 *
 * The agent speaks JSON lines (docs/agent-protocol.md, include/wire.h).
 * Everything here treats that stream as hostile: it may be cut anywhere,
 * arrive a byte at a time, hold a 100 MB "line", NUL bytes or garbage.
 * Memory stays bounded whatever arrives: one line buffer of
 * WIRE_MAX_LINE + 1 bytes, the parse tree of at most one line, and a
 * sample array of WIRE_MAX_SAMPLES numbers; a longer line is discarded up
 * to its newline without being kept.  Anything that is not a well-formed
 * line of a known type becomes an AP_BAD_OUTPUT event saying why, and the
 * reader carries on at the next line.
 *
 * No I/O, no global state, no logging: a future libFuzzer target.  Memory
 * comes from xmalloc (which ends the process when there is none) and from
 * jansson.
 *
 * Use:
 *
 *	struct agentproto *ap = agentproto_new();
 *	struct ap_event ev;
 *
 *	while ((n = read(fd, buf, sizeof(buf))) > 0) {
 *		const char *p = buf;
 *
 *		while (n > 0) {
 *			size_t used = agentproto_feed(ap, p, n);
 *
 *			p += used;
 *			n -= used;
 *			while (agentproto_next(ap, &ev) > 0)
 *				handle(&ev);
 *		}
 *	}
 *	agentproto_eof(ap);
 *	while (agentproto_next(ap, &ev) > 0)
 *		handle(&ev);
 *	agentproto_free(ap);
 *
 * agentproto_feed() takes bytes up to the end of one line and stops there
 * until that line's event has been taken with agentproto_next(): input is
 * never queued, so a caller that keeps feeding without draining makes no
 * progress rather than using memory.
 *
 * Trial statuses (docs/results.md) live here too, because the accumulator is where
 * a trial's status is decided; the journal writes them and reports read
 * them back with ap_status_parse().
 */
#ifndef FLEETMARK_AGENTPROTO_H
#define FLEETMARK_AGENTPROTO_H

#include <stddef.h>

#include <jansson.h>

#include "wire.h"

#define AP_MAX_ID		128	/* bytes of a request id */
#define AP_MAX_EXCERPT		80	/* bytes of a bad line quoted in its message */

/* --- Statuses -------------------------------------------------------------- */

/*
 * The status of a trial: ok, or why it failed.  The first group is what
 * the agent itself reports (its error classes); bad-output is decided by
 * this module; the last group is decided by the run engine, which never
 * got (or lost) an agent to ask.
 */
enum ap_status {
	AP_ST_OK,
	/* the agent ran the trial and says it failed */
	AP_ST_BENCH,		/* "bench": the benchmark failed */
	AP_ST_UNSUPPORTED,	/* "unsupported": cannot run on this host */
	AP_ST_TIMEOUT,		/* "timeout": deadline reached */
	AP_ST_CRASH,		/* "agent-crash": the trial process died of a signal */
	AP_ST_CANCELLED,	/* "cancelled": input closed or the agent signalled */
	AP_ST_BAD_REQUEST,	/* "bad-request": the agent refused the request */
	/* the agent's output made no sense */
	AP_ST_BAD_OUTPUT,	/* "bad-output" */
	/* infrastructure: the trial could not be run or finished */
	AP_ST_CONNECT,		/* "connect": the host could not be reached */
	AP_ST_AUTH,		/* "auth": login refused */
	AP_ST_HOSTKEY,		/* "hostkey": unknown or changed host key */
	AP_ST_DEPLOY,		/* "deploy": no agent could be installed */
	AP_ST_SETUP,		/* "setup": the variant could not be applied */
	AP_ST_AGENT_LOST,	/* "agent-lost": the agent went away mid-trial */
	AP_ST_HANG,		/* "hang": the host stopped answering and was
				 * power-cycled (docs/boards.md) */
	AP_ST_BOOT,		/* "boot": the host did not boot, or not the
				 * kernel asked for */
	AP_ST_LOCKED,		/* "locked": another run holds the host's lease */
};
#define AP_ST_COUNT	(AP_ST_LOCKED + 1)

/*
 * Failures are of two kinds, kept apart in every table: the benchmark's
 * (the host ran it and it failed: bench, unsupported, timeout,
 * agent-crash, bad-request, bad-output) and the infrastructure's (the
 * host, the login, the agent or the controller stood in the way: connect,
 * auth, hostkey, deploy, setup, agent-lost, hang, boot, locked, cancelled).
 */
enum ap_kind {
	AP_KIND_OK,		/* "ok" */
	AP_KIND_BENCHMARK,	/* "benchmark" */
	AP_KIND_INFRA,		/* "infrastructure" */
};

/* The status's name on the wire and on disk ("agent-crash"); never NULL. */
const char	*ap_status_name(enum ap_status st);
/* The status named s, or -1 when there is none. */
int		 ap_status_parse(const char *s);
/*
 * A status class as the agent sends it in "error" and "end" lines: its
 * status, or AP_ST_BENCH for a class this controller does not know (a
 * failure all the same) and for NULL.  "ok" is AP_ST_OK.
 */
enum ap_status	 ap_status_from_wire(const char *cls);
enum ap_kind	 ap_status_kind(enum ap_status st);
const char	*ap_kind_name(enum ap_kind k);

/* --- Events ---------------------------------------------------------------- */

enum ap_type {
	AP_HELLO = 1,		/* first line of serve mode */
	AP_UNKNOWN_PROTO,	/* a hello with a protocol this controller does not
				 * speak: refuse the agent (u.hello is filled as far
				 * as the line allows) */
	AP_HEADER,
	AP_METRIC,
	AP_NOTE,
	AP_HEARTBEAT,
	AP_ERROR,
	AP_END,
	AP_ENV,
	AP_BENCH,
	AP_BYE,
	AP_BAD_OUTPUT,		/* a line that could not be understood */
	AP_PROFILE,		/* a trial's profile, or why it has none (proto 2) */
	AP_MONITOR,		/* a point's counter deltas, or why none (proto 4) */
	AP_KERNEL,		/* kernel log trouble during a trial (proto 3) */
	AP_LEASE,		/* the answer to a lease request (proto 3) */
	AP_DETACHED,		/* a detached run's state (proto 5) */
};

/* Why a line was bad output. */
enum ap_bad {
	AP_BAD_TOO_LONG = 1,	/* over WIRE_MAX_LINE bytes: discarded unread */
	AP_BAD_PARTIAL,		/* the stream ended inside a line */
	AP_BAD_JSON,		/* not JSON (or not UTF-8, NUL bytes, duplicate keys) */
	AP_BAD_NOT_OBJECT,	/* JSON, but not an object */
	AP_BAD_MEMBER,		/* a member missing, of the wrong type or out of range */
	AP_BAD_TYPE,		/* "type" is not one this controller knows */
	AP_BAD_SAMPLES,		/* a metric with too many (or no) samples */
	AP_BAD_NUMBER,		/* a number that is not finite (sent as null) */
};

/*
 * One line of agent output.  Every pointer in it is borrowed from the
 * reader and stays valid until the next agentproto_next(),
 * agentproto_feed() or agentproto_free() on that reader; copy (strings)
 * or json_deep_copy() (objects) what must live longer.  Strings are
 * NUL-terminated, valid UTF-8 without NUL bytes; numbers are finite.
 */
struct ap_event {
	enum ap_type	 type;
	size_t		 line;		/* 1-based line number in the stream */
	const char	*id;		/* the request id, or NULL (run mode, hello...) */
	union {
		struct {
			long long	 proto;
			const char	*agent;		/* version ("" if absent) */
			const char	*arch;		/* "" if absent */
			long long	 pid;
			long long	 max_line;	/* 0 if absent */
		} hello;			/* AP_HELLO, AP_UNKNOWN_PROTO */
		struct {
			const char	*bench;
			const json_t	*params;	/* object: name -> string or integer */
			long long	 samples;
			long long	 pid;
			double		 time;		/* host's clock, epoch seconds */
		} header;
		struct {
			const char	*bench;
			const char	*name;
			const char	*unit;
			int		 higher_better;
			double		 value;		/* the median */
			double		 min, max;
			long long	 count;		/* == nsamples */
			long long	 iterations;	/* 0 when absent */
			const double	*samples;	/* in the order taken */
			size_t		 nsamples;	/* 1 .. WIRE_MAX_SAMPLES */
		} metric;
		struct {
			const char	*bench;		/* NULL if absent */
			const char	*text;
		} note;
		struct {
			double		 elapsed;	/* seconds */
		} heartbeat;
		struct {
			const char	*cls;		/* as sent: "timeout" */
			enum ap_status	 status;	/* ap_status_from_wire(cls) */
			const char	*message;
		} error;
		struct {
			const char	*bench;		/* NULL if absent */
			const char	*status_text;	/* as sent: "ok", "timeout" */
			enum ap_status	 status;	/* ap_status_from_wire() */
			double		 duration;	/* seconds; -1 if absent */
		} end;
		struct {
			const json_t	*obj;		/* the whole line */
		} env;
		struct {
			const char	*name;
			const json_t	*obj;		/* the whole line */
		} bench;
		struct {
			const char	*bench;		/* NULL if absent */
			const char	*profiler;	/* "perf" */
			const char	*absent;	/* why there is no profile, or NULL */
			const char	*event;		/* "cpu-clock"; NULL when absent */
			long long	 samples;	/* over every function */
			/* the top functions, checked: 0 .. WIRE_PROFILE_TOP
			 * objects {"sym","hits","pct"}, hits summing to at
			 * most samples, names of 1 .. WIRE_MAX_SYMBOL bytes */
			const json_t	*top;
		} profile;
		struct {
			const char	*bench;		/* NULL if absent */
			const char	*monitor;	/* "interrupts", ... (1 to 64 bytes) */
			double		 seconds;	/* the window; -1 if absent */
			long long	 ops;		/* operations in it; 0 if absent */
			/* NULL, or an object of at most WIRE_MAX_COUNTERS
			 * counter names (1 to 64 bytes) to integers >= 0 */
			const json_t	*counters;
			const char	*absent;	/* why counters are missing, or NULL;
						 * one of the two is there */
		} monitor;
		struct {
			const char	*bench;		/* NULL if absent */
			/* checked: an object of 1 .. 16 kinds ("warning",
			 * "soft_lockup": 1 .. 32 bytes of [a-z_]) to counts
			 * >= 1; an array of 0 .. WIRE_KERNEL_LINES strings of
			 * at most WIRE_KERNEL_LINE_MAX bytes */
			const json_t	*counts;
			const json_t	*lines;
		} kernel;
		struct {
			const char	*status;	/* "ok" (taken) or "held" */
			const char	*owner;		/* the holder's, "" if absent */
			const char	*run;		/* "" if absent */
			double		 since;		/* epoch seconds, 0 if absent */
			long long	 pid;		/* holding agent, 0 if absent */
			int		 detached;	/* held by a detached run (proto 5) */
			double		 idle;		/* the holder's idle limit, seconds;
							 * 0 if absent (proto 6) */
			double		 silent;	/* since the holder last heard its
							 * controller, seconds; -1 if absent */
			const char	*warning;	/* status ok, but no lease could be
							 * kept: why; NULL if absent */
			long long	 file_uid;	/* the lease file's owner when it is
							 * neither root nor the answering
							 * agent's user: its holder line is
							 * not to be believed; -1 if absent */
		} lease;
		struct {
			/* "running", "done", "full", "failed", "gone",
			 * "missing" or "forgotten" */
			const char	*state;
			long long	 pid;		/* the daemon's, 0 if absent */
			long long	 trials;	/* in its list, -1 if absent */
			long long	 lines;		/* journal lines sent, -1 if absent */
		} detached;
		struct {
			enum ap_bad	 reason;
			/* "line 7: metric: 'unit' is missing: {...": with an
			 * excerpt of the line, printable ASCII only (safe for a
			 * terminal or a log) */
			const char	*message;
		} bad;
	} u;
};

/* --- The reader ------------------------------------------------------------ */

struct agentproto;

struct agentproto *agentproto_new(void);
void	agentproto_free(struct agentproto *ap);

/*
 * Give the reader bytes from the agent.  It takes bytes up to and
 * including the end of the next line (or all of them when no line ends
 * in them) and returns how many it took.  It takes nothing (returns 0)
 * while an event is waiting for agentproto_next().  Bytes of a line that
 * is too long are taken and dropped.  After agentproto_eof(), bytes are
 * taken and dropped.
 */
size_t	agentproto_feed(struct agentproto *ap, const void *buf, size_t len);

/*
 * The stream has ended: a line still incomplete becomes an AP_BAD_OUTPUT
 * event (AP_BAD_PARTIAL), unless it was already reported as too long.
 */
void	agentproto_eof(struct agentproto *ap);

/*
 * Whether the reader is inside a line longer than WIRE_MAX_LINE, dropping
 * it until its newline: a trial whose time runs out then is the agent's
 * protocol violation, not a slow benchmark.
 */
int	agentproto_in_long_line(const struct agentproto *ap);

/*
 * Take the next event into *ev: returns 1 when there was one, 0 when
 * more input is needed (or, after agentproto_eof(), when the stream is
 * over).  Blank lines produce no event.
 */
int	agentproto_next(struct agentproto *ap, struct ap_event *ev);

/* Lines completed so far (blank and bad ones included). */
size_t	agentproto_lines(const struct agentproto *ap);

const char	*ap_type_name(enum ap_type t);

/* --- A trial's results ----------------------------------------------------- */

/* Bounds on what one trial may report; past them it is bad output. */
#define AP_TRIAL_MAX_POINTS	256	/* headers: suite members */
#define AP_TRIAL_MAX_METRICS	1024	/* metric lines, all points together */
#define AP_TRIAL_MAX_SAMPLES	100000	/* samples, all metrics together */
#define AP_TRIAL_MAX_NOTES	32	/* notes kept (later ones are counted) */
#define AP_TRIAL_MAX_TEXT	1024	/* bytes kept of a note or message */

struct ap_metric {
	char		*name;
	char		*unit;
	int		 higher_better;
	double		 value;		/* the median, as the agent computed it */
	double		 min, max;
	long long	 iterations;	/* 0 when the agent did not say */
	double		*samples;	/* every raw sample, in the order taken */
	size_t		 nsamples;
	/* A monitor's counter (a secondary metric, named "MONITOR:COUNTER",
	 * unit "/op", or "/s" without an operation count): NULL otherwise. */
	char		*monitor;
	long long	 delta;		/* the counter's change over the window */
	long long	 ops;		/* operations in the window, 0: unknown */
	double		 seconds;	/* the window's length, -1: unknown */
};

/* One benchmark point of a trial: one header and what followed it. */
struct ap_point {
	char		*bench;
	json_t		*params;	/* the resolved parameters (a private copy) */
	long long	 pid;
	double		 time;		/* when it started, host's clock */
	struct ap_metric *metrics;
	size_t		 nmetrics;
	enum ap_status	 status;	/* AP_ST_OK, or the class of an error line
					 * that came after this header */
	char		*message;	/* that error's message, or NULL */
};

/* One function of a profile. */
struct ap_func {
	char		*sym;
	long long	 hits;		/* samples in it */
	double		 pct;		/* of all samples, 0 .. 100 */
};

/* A trial's profile: its top functions, or why it has none. */
struct ap_profile {
	char		*profiler;	/* "perf" */
	char		*absent;	/* why there is none, or NULL */
	char		*event;		/* NULL when absent */
	long long	 samples;	/* over every function */
	struct ap_func	*top;		/* by hits, largest first */
	size_t		 ntop;
};

struct ap_result {
	char		*id;		/* the request id, or NULL */
	enum ap_status	 status;	/* the trial's, final once done */
	char		*message;	/* why it failed, or NULL when ok */
	double		 duration;	/* the agent's, seconds; -1 when unknown */
	struct ap_point	*points;	/* in the order reported */
	size_t		 npoints;
	size_t		 nmetrics;	/* over all points */
	char		**notes;	/* the agent's notes, in order */
	size_t		 nnotes;
	size_t		 heartbeats;
	double		 elapsed;	/* the last heartbeat's, seconds */
	size_t		 bad_lines;	/* AP_BAD_OUTPUT events taken */
	struct ap_profile *profile;	/* the profile line's, or NULL */
	unsigned	 monitors;	/* bit i: a line of monitor i came
					 * (plan_monitor_name(i) order) */
	json_t		*kernel;	/* {"counts":{...},"lines":[...]} of the
					 * kernel line, or NULL: nothing logged */
};

struct ap_trial;

/*
 * Start accumulating the trial requested with `id` (NULL: lines without
 * ids, `fleetmark-agent run`).
 */
struct ap_trial	*ap_trial_new(const char *id);
void		 ap_trial_free(struct ap_trial *t);

#define AP_TRIAL_MORE		0	/* taken; the trial goes on */
#define AP_TRIAL_DONE		1	/* taken; that was the trial's end */
#define AP_TRIAL_FOREIGN	(-1)	/* not this trial's: another id, a line that
					 * belongs to no trial (hello, env, bench,
					 * bye, unknown proto), or the trial is over */

/*
 * Add an event.  Header, metric, note, heartbeat, profile, error and end lines
 * with this trial's id (or none) are taken, and so is bad output (which
 * carries no id: while a trial runs, it is that trial's).  A trial
 * whose end says ok is still bad-output when a line of it was bad, a
 * metric came without a header, a point reported a metric twice, two
 * profile lines came, the
 * bounds above were passed, or no metric came at all.  A trial that
 * failed keeps the agent's class (a timeout is a timeout even if
 * garbage came first).  The event is copied: it need not outlive the call.
 */
int	ap_trial_add(struct ap_trial *t, const struct ap_event *ev);

/*
 * An event ap_trial_add() said was not t's (AP_TRIAL_FOREIGN) while t
 * runs: an end line of another trial (the agent ends one trial at a time,
 * this one) ends t as bad-output, "end for unknown trial t9999", and
 * returns AP_TRIAL_DONE; anything else (a metric of a trial never asked
 * for, a stray hello) is left to the caller to log, AP_TRIAL_FOREIGN.
 */
int	ap_trial_stray(struct ap_trial *t, const struct ap_event *ev);

/*
 * End the trial from outside, with status st and message (copied; NULL
 * for none): the run engine's own deadline passed (AP_ST_TIMEOUT), the
 * agent's stream ended (AP_ST_AGENT_LOST), the agent was refused...
 * Does nothing to a trial already done.
 */
void	ap_trial_fail(struct ap_trial *t, enum ap_status st, const char *message);

/* Whether the trial has ended (an end line, or ap_trial_fail()). */
int	ap_trial_done(const struct ap_trial *t);

/*
 * The results so far; final once ap_trial_done().  Owned by t, valid
 * until the next call on t.
 */
const struct ap_result *ap_trial_result(const struct ap_trial *t);

#endif /* FLEETMARK_AGENTPROTO_H */
