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
 *   prot     a store to a page of a file mapped read-only.  The SIGSEGV
 *            handler returns without repairing anything, so the store
 *            faults again, exactly like lmbench's lat_sig prot; only the
 *            last fault of a batch unprotects the page so the loop can end.
 *            The net catch cost above (measured in the same trial) is
 *            subtracted, as lmbench does: what remains is the protection
 *            fault itself (trap, VMA lookup, access check, signal posting).
 *
 * All three report microseconds per operation.
 */
#include <errno.h>
#include <fcntl.h>
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

static void
on_prot(int sig)
{
	(void)sig;
	/* The faulting store is retried when we return: let the last one
	 * through so the batch ends; the others fault again. */
	if (--prot_left == 0)
		(void)mprotect(prot_page, prot_len, PROT_READ | PROT_WRITE);
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
	*(volatile char *)prot_page = 1;	/* faults n times */
	/* Re-arm for the next batch: one mprotect per batch, amortised. */
	(void)mprotect(prot_page, prot_len, PROT_READ);
}

/* Measure fn into v[0..n); 0 or the value of trial_error(). */
static int
measure(struct trial *t, const char *what, timing_fn fn, void *arg,
    double *v, int n, uint64_t *iters)
{
	uint64_t it;

	if ((it = timing_measure(t, fn, arg, NULL, v, n)) == 0)
		return trial_error(t, WIRE_ERR_TIMEOUT, "deadline reached while measuring %s",
		    what);
	if (iters != NULL)
		*iters = it;
	return 0;
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
 * Net cost of catching a signal: catch samples minus the median of the
 * send-only samples, into v.  Returns 0 or the value of trial_error().
 */
static int
measure_catch(struct trial *t, double *v, int n, uint64_t *iters)
{
	pid_t me = getpid();
	double *send;
	int r;

	if (set_handler(SIGUSR1, on_usr1) != 0)
		return trial_error(t, WIRE_ERR_BENCH, "sigaction SIGUSR1: %s", strerror(errno));
	if ((send = calloc((size_t)n, sizeof(*send))) == NULL)
		return trial_error(t, WIRE_ERR_BENCH, "out of memory");
	if ((r = measure(t, "kill(pid, 0)", do_send, &me, send, n, NULL)) == 0 &&
	    (r = measure(t, "kill(pid, SIGUSR1)", do_catch, &me, v, n, iters)) == 0)
		samples_subtract(v, n, samples_median(send, n));
	free(send);
	return r;
}

/* A one-page file mapped read-only and shared, as lmbench's prot uses. */
static int
map_prot_page(struct trial *t)
{
	long ps = sysconf(_SC_PAGESIZE);
	char *buf = NULL;
	void *p;
	int fd, r = -1;

	prot_len = ps > 0 ? (size_t)ps : 4096;
	if ((fd = open(PROT_FILE, O_RDWR | O_CREAT | O_TRUNC, 0600)) < 0)
		return trial_error(t, WIRE_ERR_BENCH, "create %s: %s", PROT_FILE,
		    strerror(errno));
	(void)unlink(PROT_FILE);	/* the open descriptor keeps it */
	if ((buf = calloc(1, prot_len)) == NULL) {
		r = trial_error(t, WIRE_ERR_BENCH, "out of memory");
		goto out;
	}
	if (write(fd, buf, prot_len) != (ssize_t)prot_len) {
		r = trial_error(t, WIRE_ERR_BENCH, "write %s: %s", PROT_FILE,
		    strerror(errno));
		goto out;
	}
	if ((p = mmap(NULL, prot_len, PROT_READ, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		r = trial_error(t, WIRE_ERR_UNSUPPORTED, "mmap %s: %s", PROT_FILE,
		    strerror(errno));
		goto out;
	}
	prot_page = p;
	r = 0;
out:
	free(buf);
	close(fd);
	return r;
}

static int
run_prot(struct trial *t, double *v, int n, uint64_t *iters)
{
	double *catch_net;
	int r;

	if ((catch_net = calloc((size_t)n, sizeof(*catch_net))) == NULL)
		return trial_error(t, WIRE_ERR_BENCH, "out of memory");
	if ((r = measure_catch(t, catch_net, n, NULL)) != 0)
		goto out;
	if ((r = map_prot_page(t)) != 0)
		goto out;
	if (set_handler(SIGSEGV, on_prot) != 0 || set_handler(SIGBUS, on_prot) != 0) {
		r = trial_error(t, WIRE_ERR_BENCH, "sigaction SIGSEGV: %s", strerror(errno));
		goto out;
	}
	r = measure(t, "protection faults", do_prot, NULL, v, n, iters);
	/* A real crash from here on must crash, not spin in on_prot. */
	(void)signal(SIGSEGV, SIG_DFL);
	(void)signal(SIGBUS, SIG_DFL);
	if (r == 0)
		samples_subtract(v, n, samples_median(catch_net, n));
out:
	if (prot_page != NULL)
		(void)munmap(prot_page, prot_len);
	prot_page = NULL;
	free(catch_net);
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
	if (strcmp(op, "install") == 0)
		r = measure(t, "sigaction", do_install, NULL, v, n, &iters);
	else if (strcmp(op, "catch") == 0)
		r = measure_catch(t, v, n, &iters);
	else
		r = run_prot(t, v, n, &iters);
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
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "latency", "us", 0, "time per operation, sending (catch) or catching (prot) "
	    "subtracted" },
	{ NULL, NULL, 0, NULL }
};

BENCH(lat_sig, "cost of installing, catching and faulting into signal handlers",
    "lmbench lat_sig (Processes: sig inst, sig hndl; File & VM: Prot Fault)", params, metrics, run);
