/*
 * lat_ctx: context switch time, lmbench's "Context switching" table
 * (2p/0K ... 16p/64K) and the "2p/0K ctxsw" column of the local
 * latencies.
 *
 * `procs` processes form a ring of pipes: the trial process and procs-1
 * children.  A token (one int) goes round the ring; each process, on
 * receiving it, sums its own private working set of `size` KB (allocated
 * and written after the fork, so it is not shared) with lmbench's bread()
 * (every long, ipc_bread()) and passes the token on.  One timed operation
 * is one trip round the ring: procs hand-offs.
 *
 * As lmbench does, the cost of a hand-off without a switch is measured in
 * the trial process alone: a write and a read on one of a set of pipes,
 * taken in turn, plus one sum of the working set (which is then
 * cache-hot).  That overhead is subtracted from the time per hand-off;
 * what remains is the context switch, including the cache and TLB refill
 * a `size` KB working set costs: the metric `latency`, in microseconds.
 * `handoff` is the time per hand-off with nothing subtracted.
 *
 * By default (sampling=lmbench) it is measured as lmbench's lat_ctx
 * measures it: the overhead first, before the ring exists, over 96 pipes
 * (lmbench's summary run, `lat_ctx -s SIZE 2 4 8 16 24 32 64 96`, measures
 * it once over as many pipes as its largest ring; more when the ring is
 * larger), by benchmp()'s rule (timing.c), its median taken; then the
 * ring, by the same rule, its median per hand-off less that overhead.
 * sampling=all is the agent's own way from before: the ring and the
 * overhead (over procs pipes, with the ring's children asleep) each
 * calibrated once, then sampled in turn, every run a sample, so that on a
 * noisy shared host a drift of the summing cost shifts both alike.
 *
 * lmbench's subtraction assumes that summing a working set costs a process
 * of the ring no less than it costs the lone process that measures the
 * overhead.  That does not always hold: on the 2-CPU VM this was written
 * on, with 16 KB and 64 KB working sets, the lone process sometimes sums
 * more slowly than the ring's members do, the overhead comes out above
 * the whole time per hand-off and lmbench's number is zero (lmbench itself
 * prints nothing then).  So `handoff` is reported too, and a note says
 * when the subtraction left nothing.
 *
 * By default (pin=none) the ring runs where the scheduler puts it, as
 * lmbench's does.  On an SMP host with an idle CPU today's scheduler then
 * often wakes the receiver on the other CPU: the hand-off becomes a
 * cross-CPU wakeup (an IPI, an exit from idle) instead of a switch, and
 * the result flips between the two from one run to the next (2 us against
 * 35 us on a 2-CPU VM here, for lmbench and the agent alike).  pin=one
 * pins every process of the ring (and the overhead measurement) to one
 * CPU, the highest one the trial may use, which measures the switch
 * itself, run after run; a note says which was used.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "ipc.h"
#include "timing.h"
#include "wire.h"

#define MAX_PROCS	1024
#define MAX_SIZE_KB	(64 * 1024)
#define LMBENCH_PIPES	96	/* the largest ring of lmbench's summary run */

struct ring {
	int	 procs;
	int	(*p)[2];	/* the ring's pipes; -1 where closed */
	int	(*op)[2];	/* the overhead's pipes, this process only */
	int	 nop;		/* how many */
	pid_t	*pids;		/* children, index 1..procs-1; 0 when none */
	int	*ws;		/* the trial process's working set */
	size_t	 words;		/* ints in a working set */
	int	 err;		/* errno of a failed pipe operation, or EPIPE */
};

static volatile unsigned long sink;

/* Sum the working set as lmbench does: its bread(), every long. */
static unsigned long
sum_ws(const int *ws, size_t words)
{
	return ws != NULL ? ipc_bread(ws, words * sizeof(*ws)) : 0;
}

/*
 * A working set of real private pages.  Not malloc+memset(0): compilers
 * turn that into calloc(), which may leave fresh pages untouched, and a
 * read of those maps the one shared zero page.
 */
static int *
alloc_ws(size_t words)
{
	size_t i;
	int *ws;

	if (words == 0)
		return NULL;
	if ((ws = malloc(words * sizeof(*ws))) != NULL)
		for (i = 0; i < words; i++)
			ws[i] = (int)(i & 0xff) + 1;
	return ws;
}

static int
open_pipes(int (*p)[2], int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (pipe(p[i]) != 0)
			return -1;
	return 0;
}

static void
close_pipes(int (*p)[2], int n)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < 2; j++) {
			if (p[i][j] >= 0)
				close(p[i][j]);
			p[i][j] = -1;
		}
}

/* The overhead: one pipe write+read and one sum per hand-off, no switch. */
static void
do_overhead(uint64_t n, void *arg)
{
	struct ring *r = arg;
	int tok = 1, i = 0;
	unsigned long s = 0;

	while (n-- && r->err == 0) {
		if (write(r->op[i][1], &tok, sizeof(tok)) != (ssize_t)sizeof(tok) ||
		    read(r->op[i][0], &tok, sizeof(tok)) != (ssize_t)sizeof(tok)) {
			r->err = errno ? errno : EPIPE;
			break;
		}
		if (++i == r->nop)
			i = 0;
		s += sum_ws(r->ws, r->words);
	}
	sink = s;
}

/* One trip round the ring per iteration, from the trial process's seat. */
static void
do_ring(uint64_t n, void *arg)
{
	struct ring *r = arg;
	int tok = 1;
	unsigned long s = 0;

	while (n-- && r->err == 0) {
		if (write(r->p[0][1], &tok, sizeof(tok)) != (ssize_t)sizeof(tok) ||
		    read(r->p[r->procs - 1][0], &tok, sizeof(tok)) != (ssize_t)sizeof(tok)) {
			r->err = errno ? errno : EPIPE;
			break;
		}
		s += sum_ws(r->ws, r->words);
	}
	sink = s;
}

/* A child's life: read from its left, sum, write to its right; leave at EOF. */
static void
child(struct ring *r, int me)
{
	int rd = r->p[me - 1][0], wr = r->p[me][1], tok, i;
	unsigned long s = 0;
	int *ws;

	for (i = 0; i < r->procs; i++) {
		if (r->p[i][0] != rd)
			close(r->p[i][0]);
		if (r->p[i][1] != wr)
			close(r->p[i][1]);
	}
	ws = alloc_ws(r->words);
	if (r->words > 0 && ws == NULL)
		_exit(1);	/* the ring breaks; the parent reports it */
	for (;;) {
		if (read(rd, &tok, sizeof(tok)) != (ssize_t)sizeof(tok))
			break;
		s += sum_ws(ws, r->words);
		if (write(wr, &tok, sizeof(tok)) != (ssize_t)sizeof(tok))
			break;
	}
	sink = s;
	_exit(0);
}

/* Kill and reap every child; safe to call more than once. */
static void
reap_children(struct ring *r)
{
	int i;

	for (i = 1; i < r->procs; i++) {
		if (r->pids[i] <= 0)
			continue;
		(void)kill(r->pids[i], SIGKILL);
		while (waitpid(r->pids[i], NULL, 0) < 0 && errno == EINTR)
			;
		r->pids[i] = 0;
	}
}

static int
pipe_error(struct trial *t, const struct ring *r)
{
	return trial_error(t, errno == EMFILE || errno == ENFILE ?
	    WIRE_ERR_UNSUPPORTED : WIRE_ERR_BENCH, "pipe for a ring of %d: %s",
	    r->procs, strerror(errno));
}

/* Fork the ring's children and send the token round once. */
static int
start_ring(struct trial *t, struct ring *r)
{
	int i, tok = 0;
	pid_t pid;

	if (open_pipes(r->p, r->procs) != 0)
		return pipe_error(t, r);
	for (i = 1; i < r->procs; i++) {
		if ((pid = fork()) < 0)
			return trial_error(t, WIRE_ERR_BENCH, "fork child %d of %d: %s",
			    i, r->procs, strerror(errno));
		if (pid == 0)
			child(r, i);
		r->pids[i] = pid;
	}
	/* The trial process keeps only its own two ends. */
	for (i = 0; i < r->procs; i++) {
		if (i != r->procs - 1) {
			close(r->p[i][0]);
			r->p[i][0] = -1;
		}
		if (i != 0) {
			close(r->p[i][1]);
			r->p[i][1] = -1;
		}
	}
	/* Once round: every child is up and the token is in the ring. */
	if (write(r->p[0][1], &tok, sizeof(tok)) != (ssize_t)sizeof(tok) ||
	    read(r->p[r->procs - 1][0], &tok, sizeof(tok)) != (ssize_t)sizeof(tok))
		return trial_error(t, WIRE_ERR_BENCH, "the ring of %d processes is broken: %s",
		    r->procs, errno ? strerror(errno) : "a child exited");
	return 0;
}

/*
 * Pin this process (and so the children it forks) to the highest CPU it
 * may use.  Returns that CPU, or -1 with errno set.
 */
static int
pin_one_cpu(void)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--)
		if (CPU_ISSET(cpu, &set))
			break;
	if (cpu < 0) {
		errno = EINVAL;
		return -1;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0 ? cpu : -1;
}

/* ns per operation of one run of fn at n, clock and loop overhead removed. */
static double
timed(timing_fn fn, struct ring *r, uint64_t n)
{
	double t0, el;

	t0 = timing_now();
	fn(n, r);
	el = timing_now() - t0 - timing_clock_overhead();
	return el / (double)n - timing_loop_overhead();
}

/*
 * Operations per sample so that one lasts TIMING_TARGET_NS; 0 on error or
 * at the deadline.  timing_measure() trusts a single run at each count, and
 * a first trip round a ring that has just woken up can be so slow that a
 * "sample" becomes one trip; the faster of two runs is what is trusted
 * here.
 */
static uint64_t
calibrate(struct trial *t, timing_fn fn, struct ring *r)
{
	uint64_t n = 1;
	double a, b, el, scaled;

	for (;;) {
		if (trial_expired(t) || r->err != 0)
			return 0;
		a = timed(fn, r, n) * (double)n;
		b = timed(fn, r, n) * (double)n;
		el = a < b ? a : b;
		if (el >= TIMING_TARGET_NS / 10 || n >= (UINT64_C(1) << 40))
			break;
		n *= 2;
	}
	scaled = (double)n * TIMING_TARGET_NS / (el > 1 ? el : 1);
	return scaled < 1 ? 1 : (uint64_t)scaled;
}

static int
measure_error(struct trial *t, const struct ring *r)
{
	if (r->err != 0)
		return trial_error(t, WIRE_ERR_BENCH, "the ring of %d processes broke: %s",
		    r->procs, strerror(r->err));
	return trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached while measuring");
}

/*
 * sampling=all: with the ring running, take n samples of it, time per
 * hand-off, into raw[], each just after a sample of the overhead into
 * ovh[], both at counts calibrated once; v[] is raw[] less the median
 * overhead.  (Subtracting each overhead sample from its neighbour would
 * carry every hiccup of the overhead into a ring sample.)  ns; returns 0
 * or the value of trial_error().
 */
static int
measure_all(struct trial *t, struct ring *r, double *v, double *raw, double *ovh,
    int n, uint64_t *iters)
{
	uint64_t n_ovh, n_ring;
	int i;

	if ((n_ovh = calibrate(t, do_overhead, r)) == 0 ||
	    (n_ring = calibrate(t, do_ring, r)) == 0)
		goto fail;
	for (i = 0; i < n; i++) {
		if (trial_expired(t))
			goto fail;
		ovh[i] = timed(do_overhead, r, n_ovh);
		raw[i] = v[i] = timed(do_ring, r, n_ring) / (double)r->procs;
		if (r->err != 0)
			goto fail;
	}
	samples_subtract(v, n, samples_median(ovh, n));
	*iters = n_ring;
	return 0;
fail:
	return measure_error(t, r);
}

/*
 * sampling=lmbench, lmbench's lat_ctx: before the ring exists, n samples
 * of the overhead over r->nop pipes into ovh[] by benchmp()'s rule
 * (timing_measure()); then the ring is started and n samples of it by the
 * same rule, time per hand-off, into raw[]; v[] is raw[] less the median
 * overhead.  ns; returns 0 or the value of trial_error().
 */
static int
measure_lmbench(struct trial *t, struct ring *r, double *v, double *raw, double *ovh,
    int n, uint64_t *iters)
{
	int i, rc;

	if (open_pipes(r->op, r->nop) != 0)
		return pipe_error(t, r);
	if (timing_measure(t, do_overhead, r, NULL, ovh, n) == 0 || r->err != 0)
		return measure_error(t, r);
	close_pipes(r->op, r->nop);
	if ((rc = start_ring(t, r)) != 0)
		return rc;
	if ((*iters = timing_measure(t, do_ring, r, NULL, raw, n)) == 0 || r->err != 0)
		return measure_error(t, r);
	for (i = 0; i < n; i++)
		v[i] = raw[i] /= (double)r->procs;
	samples_subtract(v, n, samples_median(ovh, n));
	return 0;
}

static int
run(struct trial *t)
{
	long long procs = trial_int(t, "procs"), kb = trial_int(t, "size");
	int n = trial_samples(t), all = strcmp(trial_str(t, TIMING_SAMPLING), "all") == 0;
	int i, cpu, rc = -1;
	double *ovh = NULL, *v = NULL, *raw = NULL, o, h;
	struct ring r;
	uint64_t iters = 0;

	if (procs < 2 || procs > MAX_PROCS)
		return trial_error(t, WIRE_ERR_REQUEST, "procs must be 2 to %d", MAX_PROCS);
	if (kb < 0 || kb > MAX_SIZE_KB)
		return trial_error(t, WIRE_ERR_REQUEST, "size must be 0 to %d KB", MAX_SIZE_KB);
	if (strcmp(trial_str(t, "pin"), "one") == 0) {
		if ((cpu = pin_one_cpu()) < 0)
			return trial_error(t, WIRE_ERR_UNSUPPORTED, "cannot pin to one CPU: %s "
			    "(pin=none runs unpinned)", strerror(errno));
		trial_note(t, WIRE_NOTE_UNLIKE_LMBENCH "all %lld processes pinned to CPU %d",
		    procs, cpu);
	} else
		trial_note(t, "processes not pinned: hand-offs may cross CPUs");

	memset(&r, 0, sizeof(r));
	r.procs = (int)procs;
	r.nop = all || r.procs > LMBENCH_PIPES ? r.procs : LMBENCH_PIPES;
	r.words = (size_t)kb * 1024 / sizeof(int);
	r.p = calloc((size_t)r.procs, sizeof(*r.p));
	r.op = calloc((size_t)r.nop, sizeof(*r.op));
	r.pids = calloc((size_t)r.procs, sizeof(*r.pids));
	ovh = calloc((size_t)n, sizeof(*ovh));
	v = calloc((size_t)n, sizeof(*v));
	raw = calloc((size_t)n, sizeof(*raw));
	r.ws = alloc_ws(r.words);
	for (i = 0; r.p != NULL && i < r.procs; i++)
		r.p[i][0] = r.p[i][1] = -1;
	for (i = 0; r.op != NULL && i < r.nop; i++)
		r.op[i][0] = r.op[i][1] = -1;
	if (r.p == NULL || r.op == NULL || r.pids == NULL || ovh == NULL || v == NULL ||
	    raw == NULL || (r.words > 0 && r.ws == NULL)) {
		rc = trial_error(t, WIRE_ERR_BENCH, "out of memory");
		goto out;
	}
	if (all) {
		trial_note(t, WIRE_NOTE_UNLIKE_LMBENCH "sampling=all: the ring and its "
		    "overhead calibrated once and sampled in turn, every run a sample");
		if ((rc = start_ring(t, &r)) != 0)
			goto out;
		/* After the forks: the children need not inherit these. */
		if (open_pipes(r.op, r.nop) != 0) {
			rc = pipe_error(t, &r);
			goto out;
		}
		rc = measure_all(t, &r, v, raw, ovh, n, &iters);
	} else
		rc = measure_lmbench(t, &r, v, raw, ovh, n, &iters);
	if (rc != 0)
		goto out;
	o = samples_median(ovh, n) / 1e3;
	h = samples_median(raw, n) / 1e3;
	if (all)
		trial_note(t, "overhead per hand-off %.3f us (median, over %d pipes, "
		    "sampled in turn with the ring) subtracted", o, r.nop);
	else
		trial_note(t, "overhead per hand-off %.3f us (median, over %d pipes, "
		    "measured before the ring, as lmbench) subtracted", o, r.nop);
	if (o >= h)
		trial_note(t, "the overhead measured in one process (%.3f us) is not below "
		    "the ring's time per hand-off (%.3f us): lmbench's subtraction leaves "
		    "nothing; see handoff", o, h);
	for (i = 0; i < n; i++) {
		v[i] /= 1e3;
		raw[i] /= 1e3;
	}
	trial_metric(t, "latency", v, n, iters);
	trial_metric(t, "handoff", raw, n, iters);
	rc = 0;
out:
	if (r.p != NULL)
		close_pipes(r.p, r.procs);	/* children see EOF and leave ... */
	if (r.op != NULL)
		close_pipes(r.op, r.nop);
	if (r.pids != NULL)
		reap_children(&r);		/* ... or are killed; all are reaped */
	free(r.p);
	free(r.op);
	free(r.pids);
	free(r.ws);
	free(ovh);
	free(v);
	free(raw);
	return rc;
}

static const struct bench_param params[] = {
	{ "procs", PARAM_INT, "2", "processes in the ring", "2..1024" },
	{ "size", PARAM_INT, "0", "KB of private working set each process sums per "
	    "hand-off", "0..65536" },
	{ "pin", PARAM_ENUM, "none", "none: where the scheduler puts the ring, as "
	    "lmbench; one: the whole ring on one CPU", "none|one" },
	TIMING_SAMPLING_PARAM,
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "latency", "us", 0, "time per context switch, pipe and summing overhead "
	    "subtracted (lmbench's number)" },
	{ "handoff", "us", 0, "time per hand-off round the ring, nothing subtracted" },
	{ NULL, NULL, 0, NULL }
};

BENCH(lat_ctx, "context switch time in a ring of processes passing a token",
    "lmbench lat_ctx (Context switching: 2p/0K ... 16p/64K)", params, metrics, run);
