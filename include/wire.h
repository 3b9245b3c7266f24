/*
 * wire.h: the agent wire format, shared by the controller and the agent.
 *
 * This is the only header the agent and the controller have in common; it
 * must stay plain C99 with no includes beyond the standard library.  The
 * format is JSON lines, described in docs/agent-protocol.md.  Every change
 * visible on the wire bumps WIRE_PROTO; the controller refuses an agent
 * whose "hello" line carries a version it does not know.
 */
#ifndef FLEETMARK_WIRE_H
#define FLEETMARK_WIRE_H

#define WIRE_PROTO		6		/* protocol version */
#define WIRE_PROTO_MIN		1		/* oldest one the controller still speaks */
#define WIRE_MAX_LINE		(64 * 1024)	/* longest line either side may send */
#define WIRE_MAX_SAMPLES	1000		/* samples per metric line */
#define WIRE_MAX_PARAMS		32		/* parameters per trial request */
#define WIRE_PROFILE_TOP	30		/* functions in a profile line */
#define WIRE_MAX_SYMBOL		256		/* bytes of a function name in a profile */
#define WIRE_MAX_ABSENT		512		/* bytes of a profile's absence reason */
#define WIRE_KERNEL_LINES	8		/* first kernel log lines of a trial */
#define WIRE_KERNEL_LINE_MAX	240		/* bytes of one of them */
#define WIRE_MAX_RE_NODES	1000		/* parts of a program rule's pattern, repetitions unrolled */

/* Line types, the value of the "type" member of every line. */
#define WIRE_HELLO	"hello"		/* agent: first line of serve mode */
#define WIRE_HEADER	"header"	/* agent: a benchmark point starts */
#define WIRE_METRIC	"metric"	/* agent: one metric, raw samples and summary */
#define WIRE_NOTE	"note"		/* agent: a fact that qualifies the results */
#define WIRE_HEARTBEAT	"heartbeat"	/* agent: still alive during a long trial */
#define WIRE_ERROR	"error"		/* agent: the trial (or a request) failed */
#define WIRE_END	"end"		/* agent: last line of a trial */
#define WIRE_ENV	"env"		/* agent: host facts */
#define WIRE_BENCH	"bench"		/* agent: one benchmark of `list` */
#define WIRE_BYE	"bye"		/* agent: serve mode is exiting */
#define WIRE_PROFILE	"profile"	/* agent: the trial's profile (proto 2), before "end" */
#define WIRE_MONITOR	"monitor"	/* agent: a point's counter deltas (proto 4) */
#define WIRE_KERNEL	"kernel"	/* agent: kernel log trouble during a trial (proto 3) */
#define WIRE_LEASE	"lease"		/* agent: the answer to a lease request (proto 3) */
#define WIRE_DETACHED	"detached"	/* agent: a detached run's state (proto 5) */

/* How a note starts that says a trial does not measure what lmbench 3
 * does (a static image forked, a pinned ring): the lmbench report lists them. */
#define WIRE_NOTE_UNLIKE_LMBENCH	"unlike lmbench: "

/* The bench of a trial request that runs the user's own program, described
 * by the request's "program" member (proto 4). */
#define WIRE_BENCH_PROGRAM	"program"

#define WIRE_REQ_TRIAL	"trial"		/* controller: run one trial */
#define WIRE_REQ_ENV	"env"		/* controller: send host facts */
#define WIRE_REQ_LIST	"list"		/* controller: send the benchmark list */
#define WIRE_REQ_EXIT	"exit"		/* controller: stop serving */
#define WIRE_REQ_LEASE	"lease"		/* controller: take the host's lease (proto 3) */
#define WIRE_REQ_DETACH	"detach"	/* controller: run this list detached (proto 5) */
#define WIRE_REQ_COLLECT "collect"	/* controller: a detached run's journal (proto 5) */
#define WIRE_REQ_FORGET	"forget"	/* controller: remove a detached run (proto 5) */

/* Profilers a trial request may ask for in its "profile" member (proto 2). */
#define WIRE_PROFILE_PERF	"perf"		/* perf record -a during the trial */

/* Monitors a trial request may ask for in its "monitor" array (proto 4). */
#define WIRE_MON_INTERRUPTS	"interrupts"	/* /proc/interrupts IPI rows */
#define WIRE_MON_VMSTAT		"vmstat"	/* /proc/vmstat and /proc/stat counters */
#define WIRE_MON_PERF_STAT	"perf-stat"	/* cycles, instructions, dTLB misses */
#define WIRE_MAX_COUNTERS	32		/* counters in one monitor line */

/* Error classes in "error" and "end" lines (status of an end line is
 * WIRE_STATUS_OK or one of these). */
#define WIRE_STATUS_OK		"ok"
#define WIRE_ERR_BENCH		"bench"		/* the benchmark failed */
#define WIRE_ERR_UNSUPPORTED	"unsupported"	/* cannot run on this host */
#define WIRE_ERR_TIMEOUT	"timeout"	/* deadline reached */
#define WIRE_ERR_CRASH		"agent-crash"	/* trial process died by a signal */
#define WIRE_ERR_REQUEST	"bad-request"	/* malformed request or parameter */
#define WIRE_ERR_CANCELLED	"cancelled"	/* standard input closed */
#define WIRE_ERR_BAD_OUTPUT	"bad-output"	/* a program's output did not parse (proto 4) */

/* Metric directions. */
#define WIRE_LOWER_BETTER	"lower"
#define WIRE_HIGHER_BETTER	"higher"

/* Exit codes of `fleetmark-agent run`. */
#define WIRE_EXIT_OK		0
#define WIRE_EXIT_FAILED	1	/* the benchmark failed */
#define WIRE_EXIT_USAGE		2	/* bad command line or parameter */
#define WIRE_EXIT_TIMEOUT	3	/* deadline reached */
#define WIRE_EXIT_CANCELLED	4	/* standard input closed */
#define WIRE_EXIT_UNSUPPORTED	5	/* cannot run on this host */
#define WIRE_EXIT_BAD_OUTPUT	6	/* a program's output did not parse (proto 4) */

/*
 * The size bound of a program rule's pattern, WIRE_MAX_RE_NODES, counted
 * the same way on both sides (agent/bench/program.c, src/program.c): a + b
 * and a * b, held at WIRE_MAX_RE_NODES + 1 so that a product of
 * repetitions never overflows.
 */
static inline unsigned long
wire_re_add(unsigned long a, unsigned long b)
{
	return a + b > WIRE_MAX_RE_NODES ? WIRE_MAX_RE_NODES + 1 : a + b;
}

static inline unsigned long
wire_re_mul(unsigned long a, unsigned long b)
{
	return b != 0 && a > (WIRE_MAX_RE_NODES + 1) / b ? WIRE_MAX_RE_NODES + 1 : a * b;
}

#endif /* FLEETMARK_WIRE_H */
