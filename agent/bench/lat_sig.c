/*
 * lat_sig: the cost of signals, lmbench's "sig inst" and "sig hndl"
 * columns (Processor, Processes) and its "Prot Fault" column (File & VM).
 *
 *   install  sigaction() of a handler for SIGUSR1, reading the old action
 *            back, as lmbench does.
 *   catch    kill(getpid(), SIGUSR1) delivered to an empty handler, minus
 *            kill(getpid(), 0) measured in the same trial.  What remains is
 *            the delivery: building the signal frame, running the handler,
 *            sigreturn.  This is lmbench's "Signal handler overhead".
 *   prot     a store to a page mapped read-only and shared from a file
 *            opened read-only: lmbench's `lat_sig prot lat_sig` maps its
 *            own program, and the agent maps its own (/proc/self/exe; a
 *            scratch file, with a note, when that cannot be opened).  The
 *            SIGSEGV handler returns without repairing anything, so the
 *            store faults again, exactly like lmbench's; the last fault of
 *            a batch leaves the handler with siglongjmp() (lmbench's never
 *            leaves: its timing runs inside the handler).  The net catch
 *            cost above is subtracted, as lmbench does: what remains is the
 *            protection fault itself (trap, VMA lookup, access check,
 *            signal posting).
 *
 * By default (sampling=lmbench) they are measured as lmbench's lat_sig
 * measures them: each by benchmp()'s rule (timing_measure()), one after
 * the other, the send, then the catch, then the fault, and the medians
 * subtracted: the catch less the median send, the fault less the median
 * net catch (the median catch less the median send, never below zero, as
 * lmbench's settime(0)).  A note gives the median subtracted.
 * sampling=all is the agent's own way from before: the three calibrated
 * once and sampled in turn (timing_measure_interleaved()), each sample of
 * the catch or the fault less the samples taken with it before the median
 * is taken, so that the load of a shared machine shifts them alike; a
 * note says it is unlike lmbench.  All three report microseconds per
 * operation.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include "bench.h"
#include "timing.h"
#include "wire.h"

#define PROT_FILE	"lat_sig.file"

static void
on_usr1(int sig)
{
	(void)sig;
}

/* State of the prot measurement, shared with the SIGSEGV handler. */
static char *volatile	prot_page;
static size_t		prot_len;
static volatile uint64_t prot_left;
static sigjmp_buf	prot_env;

static void
on_prot(int sig)
{
	(void)sig;
	/* The faulting store is retried when we return: it faults again,
	 * until the last one of the batch, which leaves. */
	if (--prot_left == 0)
		siglongjmp(prot_env, 1);
}

static void
do_install(uint64_t n, void *arg)
{
	struct sigaction sa, old;

	(void)arg;
	while (n--) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_usr1;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = 0;
		(void)sigaction(SIGUSR1, &sa, &old);
	}
}

static void
do_send(uint64_t n, void *arg)
{
	pid_t me = *(pid_t *)arg;

	while (n--)
		(void)kill(me, 0);
}

static void
do_catch(uint64_t n, void *arg)
{
	pid_t me = *(pid_t *)arg;

	while (n--)
		(void)kill(me, SIGUSR1);
}

static void
do_prot(uint64_t n, void *arg)
{
	(void)arg;
	if (n == 0)
		return;
	prot_left = n;
	if (sigsetjmp(prot_env, 1) == 0)
		*(volatile char *)prot_page = 1;	/* faults n times */
}

static int
set_handler(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* as lmbench: no SA_RESTART, no SA_NODEFER */
	return sigaction(sig, &sa, NULL);
}

/*
 * A page of a file mapped read-only and shared, the file opened read-only:
 * the agent's own program, as lmbench maps its own; else a scratch file.
 */
static int
map_prot_page(struct trial *t)
{
	long ps = sysconf(_SC_PAGESIZE);
	char *buf = NULL;
	void *p;
	int fd, r = -1;

	prot_len = ps > 0 ? (size_t)ps : 4096;
	if ((fd = open("/proc/self/exe", O_RDONLY)) >= 0) {
		p = mmap(NULL, prot_len, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		if (p != MAP_FAILED) {
			prot_page = p;
			return 0;
		}
	}
	if ((fd = open(PROT_FILE, O_RDWR | O_CREAT | O_TRUNC, 0600)) < 0)
		return trial_error(t, WIRE_ERR_BENCH, "create %s: %s", PROT_FILE,
		    strerror(errno));
	if ((buf = calloc(1, prot_len)) == NULL) {
		r = trial_error(t, WIRE_ERR_BENCH, "out of memory");
		goto out;
	}
	if (write(fd, buf, prot_len) != (ssize_t)prot_len) {
		r = trial_error(t, WIRE_ERR_BENCH, "write %s: %s", PROT_FILE,
		    strerror(errno));
		goto out;
	}
	close(fd);
	if ((fd = open(PROT_FILE, O_RDONLY)) < 0) {
		r = trial_error(t, WIRE_ERR_BENCH, "open %s: %s", PROT_FILE, strerror(errno));
		goto out;
	}
	if ((p = mmap(NULL, prot_len, PROT_READ, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		r = trial_error(t, WIRE_ERR_UNSUPPORTED, "mmap %s: %s", PROT_FILE,
		    strerror(errno));
		goto out;
	}
	prot_page = p;
	trial_note(t, WIRE_NOTE_UNLIKE_LMBENCH "the faulting page is a scratch file's: "
	    "this agent's own program (/proc/self/exe) could not be mapped");
	r = 0;
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	(void)unlink(PROT_FILE);
	return r;
}

/*
 * sampling=all: the send, the catch and (prot) the fault calibrated once
 * and sampled in turn into s[0], s[1] and s[2] (s[op] is v), each sample
 * of v then less the samples taken with it.  Returns 0, or -1 at the
 * deadline.
 */
static int
measure_all(struct trial *t, int op, double *const *s, double *v, int n, uint64_t *iters)
{
	timing_fn fns[3] = { do_send, do_catch, do_prot };
	pid_t me = getpid();
	void *args[3] = { &me, &me, NULL };
	uint64_t it[3];
	double d;
	int i, k = op == 1 ? 2 : 3;

	trial_note(t, WIRE_NOTE_UNLIKE_LMBENCH "sampling=all: %s calibrated once and "
	    "sampled in turn, each sample less those taken with it", op == 2 ?
	    "the send, the catch and the fault" : "the send and the catch");
	if (timing_measure_interleaved(t, k, fns, args, NULL, s, it, n) != 0)
		return -1;
	/* each sample less its neighbours: what the load did to one did to all */
	for (i = 0; i < n; i++) {
		d = op == 1 ? v[i] - s[0][i] : v[i] - (s[1][i] - s[0][i]);
		v[i] = d > 0 ? d : 0;
	}
	*iters = it[k - 1];
	return 0;
}

/*
 * sampling=lmbench, lmbench's bench_catch() and bench_prot(): the send
 * into s[0], then the catch into s[1], then (prot) the fault, each by
 * benchmp()'s rule (timing_measure()); v (s[op]) less the median send
 * (catch) or the median net catch (prot).  Returns 0, or -1 at the
 * deadline.
 */
static int
measure_lmbench(struct trial *t, int op, double *const *s, double *v, int n,
    uint64_t *iters)
{
	pid_t me = getpid();
	double sub;

	if (timing_measure(t, do_send, &me, NULL, s[0], n) == 0 ||
	    (*iters = timing_measure(t, do_catch, &me, NULL, s[1], n)) == 0)
		return -1;
	sub = samples_median(s[0], n);
	if (op == 2) {
		sub = samples_median(s[1], n) - sub;
		if (sub < 0)
			sub = 0;	/* lmbench's settime(0) */
		if ((*iters = timing_measure(t, do_prot, NULL, NULL, v, n)) == 0)
			return -1;
	}
	samples_subtract(v, n, sub);
	trial_note(t, "%s %.4f us (median, measured before, as lmbench) subtracted",
	    op == 1 ? "kill(pid, 0)" : "the net catch", sub / 1e3);
	return 0;
}

/*
 * Measure into v: install (op 0), catch (1, the catch less the send) or
 * prot (2, the fault less the net catch), as the trial's sampling says.
 * *iters gets the measured operation's count per sample.  Returns 0 or
 * the value of trial_error().
 */
static int
measure(struct trial *t, int op, double *v, int n, uint64_t *iters)
{
	double *s[3] = { NULL, NULL, v };
	int r = 0, all = strcmp(trial_str(t, TIMING_SAMPLING), "all") == 0;

	if (op == 0) {
		if ((*iters = timing_measure(t, do_install, NULL, NULL, v, n)) == 0)
			return trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached while "
			    "measuring sigaction");
		return 0;
	}
	if (set_handler(SIGUSR1, on_usr1) != 0)
		return trial_error(t, WIRE_ERR_BENCH, "sigaction SIGUSR1: %s", strerror(errno));
	s[0] = calloc((size_t)n, sizeof(double));
	s[1] = op == 1 ? v : calloc((size_t)n, sizeof(double));
	if (s[0] == NULL || s[1] == NULL) {
		r = trial_error(t, WIRE_ERR_BENCH, "out of memory");
		goto out;
	}
	if (op == 2) {
		if ((r = map_prot_page(t)) != 0)
			goto out;
		if (set_handler(SIGSEGV, on_prot) != 0 || set_handler(SIGBUS, on_prot) != 0) {
			r = trial_error(t, WIRE_ERR_BENCH, "sigaction SIGSEGV: %s",
			    strerror(errno));
			goto out;
		}
	}
	if ((all ? measure_all(t, op, s, v, n, iters) :
	    measure_lmbench(t, op, s, v, n, iters)) != 0)
		r = trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached while measuring %s",
		    op == 1 ? "signal delivery" : "protection faults");
	if (op == 2) {
		/* A real crash from here on must crash, not spin in on_prot. */
		(void)signal(SIGSEGV, SIG_DFL);
		(void)signal(SIGBUS, SIG_DFL);
	}
out:
	free(s[0]);
	if (s[1] != v)
		free(s[1]);
	if (prot_page != NULL)
		(void)munmap(prot_page, prot_len);
	prot_page = NULL;
	return r;
}

static int
run(struct trial *t)
{
	const char *op = trial_str(t, "op");
	int n = trial_samples(t), i, r;
	uint64_t iters = 0;
	double *v;

	if ((v = calloc((size_t)n, sizeof(*v))) == NULL)
		return trial_error(t, WIRE_ERR_BENCH, "out of memory");
	r = measure(t, strcmp(op, "install") == 0 ? 0 : strcmp(op, "catch") == 0 ? 1 : 2,
	    v, n, &iters);
	if (r == 0) {
		for (i = 0; i < n; i++)
			v[i] /= 1e3;
		trial_metric(t, "latency", v, n, iters);
	}
	free(v);
	return r;
}

static const struct bench_param params[] = {
	{ "op", PARAM_ENUM, "install", "install: sigaction; catch: signal delivery "
	    "to a handler; prot: protection fault caught by SIGSEGV",
	    "install|catch|prot" },
	TIMING_SAMPLING_PARAM,
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "latency", "us", 0, "time per operation, sending (catch) or catching (prot) "
	    "subtracted" },
	{ NULL, NULL, 0, NULL }
};

BENCH(lat_sig, "cost of installing, catching and faulting into signal handlers",
    "lmbench lat_sig (Processes: sig inst, sig hndl; File & VM: Prot Fault)", params, metrics, run);
