/*
 * test-pace.c: the handshake pacer's state machine, driven step by step
 * with explicit durations (no clocks, no sleeps, no timing assertions):
 * slots, additive increase on quick successes only, one multiplicative
 * decrease per generation of failures, bounds, and the retry policy.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "pace.h"
#include "tap.h"

static int
fill(struct pace *p, struct pace_ticket *t, int max)
{
	int n = 0;

	while (n < max && pace_try_acquire(p, &t[n]) == 0)
		n++;
	return n;
}

static void
test_slots(void)
{
	struct pace *p = pace_new(0, 0, 1);
	struct pace_ticket t[64];
	struct pace_stats st;
	int n;

	is_int(pace_slots(p), PACE_INITIAL, "starts with PACE_INITIAL (2) slots");
	n = fill(p, t, 64);
	is_int(n, 2, "only two handshakes at once at first");
	pace_stats(p, &st);
	is_int(st.inflight, 2, "two in flight");
	pace_release(p, &t[0], PACE_NEUTRAL, 100);
	is_int(pace_slots(p), 2, "a neutral outcome (refused, auth, host key) changes nothing");
	n = fill(p, t, 1);
	is_int(n, 1, "a released slot can be taken again");
	pace_release(p, &t[0], PACE_NEUTRAL, 100);
	pace_release(p, &t[1], PACE_NEUTRAL, 100);
	pace_stats(p, &st);
	is_int(st.inflight, 0, "all slots back");
	is_int(st.peak, 2, "peak in flight recorded");
	pace_free(p);
}

static void
test_increase(void)
{
	struct pace *p = pace_new(2, 8, 1);
	struct pace_ticket t;
	struct pace_stats st;
	int i;

	/* The first success sets the baseline (fastest = 200 ms). */
	pace_acquire(p, &t);
	pace_release(p, &t, PACE_OK, 200);
	pace_acquire(p, &t);
	pace_release(p, &t, PACE_OK, 250);
	is_int(pace_slots(p), 3, "two quick successes at window 2 give a third slot");
	/* Within 2 x fastest + slack is quick; beyond is slow and holds. */
	pace_acquire(p, &t);
	pace_release(p, &t, PACE_OK, 2 * 200 + PACE_SLACK_MS + 1);
	pace_stats(p, &st);
	is_int(st.slow, 1, "a handshake slower than 2x the fastest counts as slow");
	is_num(st.window, 3.0, 1e-9, "a slow success does not grow the window");
	for (i = 0; i < 3; i++) {
		pace_acquire(p, &t);
		pace_release(p, &t, PACE_OK, 2 * 200 + PACE_SLACK_MS);
	}
	is_int(pace_slots(p), 4, "three quick successes at window 3 give a fourth slot (+1/window)");
	for (i = 0; i < 100; i++) {
		pace_acquire(p, &t);
		pace_release(p, &t, PACE_OK, 150);
	}
	pace_stats(p, &st);
	is_num(st.window, 8.0, 1e-9, "the window stops at its maximum");
	is_int(st.fastest_ms, 150, "the fastest handshake is tracked");
	pace_free(p);

	p = pace_new(5, 3, 1);
	is_int(pace_slots(p), 3, "an initial window above the maximum is clamped");
	pace_free(p);
}

static void
test_decrease(void)
{
	struct pace *p = pace_new(8, 16, 1);
	struct pace_ticket t[16], late;
	struct pace_stats st;
	int n, i;

	n = fill(p, t, 16);
	is_int(n, 8, "eight slots at window 8");
	/* A burst of eight failures from the same generation: one halving. */
	for (i = 0; i < 8; i++)
		pace_release(p, &t[i], PACE_TRANSIENT, 10000);
	pace_stats(p, &st);
	is_num(st.window, 4.0, 1e-9, "a burst of transient failures halves the window once");
	is_int(st.decreases, 1, "one decrease for one generation");
	is_int(st.transient, 8, "all eight failures counted");
	n = fill(p, t, 16);
	is_int(n, 4, "four slots after the halving");
	/* Failures of handshakes started after the decrease do count. */
	pace_release(p, &t[0], PACE_TRANSIENT, 5000);
	pace_release(p, &t[1], PACE_TRANSIENT, 5000);
	pace_stats(p, &st);
	is_num(st.window, 2.0, 1e-9, "a new generation's failure halves again, once");
	pace_release(p, &t[2], PACE_TRANSIENT, 5000);
	pace_release(p, &t[3], PACE_TRANSIENT, 5000);
	/* Down to the floor. */
	for (i = 0; i < 5; i++) {
		pace_acquire(p, &late);
		pace_release(p, &late, PACE_TRANSIENT, 5000);
	}
	pace_stats(p, &st);
	is_num(st.window, 1.0, 1e-9, "the window never goes below one");
	is_int(pace_slots(p), 1, "one slot at the floor");
	n = fill(p, t, 16);
	is_int(n, 1, "one handshake at a time at the floor");
	pace_release(p, &t[0], PACE_OK, 100);
	pace_stats(p, &st);
	is_num(st.window, 2.0, 1e-9, "and quick successes grow it back (1 + 1/1)");
	pace_free(p);
}

static void
test_retry(void)
{
	struct pace *p = pace_new(0, 0, 12345);
	long long d = -1, base = PACE_BACKOFF_BASE_MS;
	int i, in_range = 1, capped = 1;

	ok(!pace_retry(p, PACE_NEUTRAL, 1, 0, 10000, &d), "neutral failures are never retried");
	ok(!pace_retry(p, PACE_OK, 1, 0, 10000, &d), "nor successes");
	ok(pace_retry(p, PACE_TRANSIENT, 1, 0, 10000, &d), "a transient failure is retried");
	ok(d >= base / 2 && d <= base, "first backoff within [base/2, base]");
	for (i = 0; i < 200; i++) {
		long long want = base << 2;	/* third attempt: base * 2^2 */

		if (!pace_retry(p, PACE_TRANSIENT, 3, 0, 100000, &d) || d < want / 2 || d > want)
			in_range = 0;
	}
	ok(in_range, "backoff after the third attempt within [2*base, 4*base] (200 draws)");
	for (i = 0; i < 200; i++)
		if (pace_retry(p, PACE_TRANSIENT, PACE_MAX_ATTEMPTS - 1, 0, 1000000, &d) &&
		    d > PACE_BACKOFF_CAP_MS)
			capped = 0;
	ok(capped, "backoff never exceeds PACE_BACKOFF_CAP_MS");
	ok(!pace_retry(p, PACE_TRANSIENT, PACE_MAX_ATTEMPTS, 0, 1000000, &d),
	    "no retry once PACE_MAX_ATTEMPTS attempts were made");
	ok(!pace_retry(p, PACE_TRANSIENT, 1, 9900, 10000, &d),
	    "no retry that would not fit in the host's connect timeout");
	ok(pace_retry(p, PACE_TRANSIENT, 1, 9000, 10000, &d) && 9000 + d <= 10000,
	    "a retry that fits is granted, and fits");
	ok(pace_retry(NULL, PACE_TRANSIENT, 2, 0, 10000, &d) && d == base * 2 * 3 / 4,
	    "without a pacer the jitter is fixed at 3/4");
	{
		struct pace_stats st;

		pace_stats(p, &st);
		ok(st.retries > 0, "granted retries are counted");
	}
	pace_free(p);
}

/* Threads: never more in flight than slots (the counters say so). */
struct worker {
	struct pace	*p;
	int		 n;
};

/*
 * The agent-start pacer (run.c: RUN_START_INITIAL, slow start): quick
 * starts add a whole slot each until the first slow one, after which
 * growth is additive; a silent start (transient) ends slow start too.
 */
static void
test_slow_start(void)
{
	struct pace *p = pace_new(4, 64, 1);
	struct pace_ticket t[64];
	struct pace_stats st;
	int i, n;

	pace_set_slow_start(p, 1);
	pace_stats(p, &st);
	is_int(st.slow_start, 1, "starts: in slow start");
	/* four quick starts (the first sets the baseline): four slots more */
	n = fill(p, t, 64);
	is_int(n, 4, "starts: four at once at first");
	for (i = 0; i < n; i++)
		pace_release(p, &t[i], PACE_OK, 300);
	is_int(pace_slots(p), 8, "starts: a whole slot per quick start, 4 -> 8");
	n = fill(p, t, 64);
	is_int(n, 8, "starts: eight at once then");
	for (i = 0; i < n; i++)
		pace_release(p, &t[i], PACE_OK, 350);
	is_int(pace_slots(p), 16, "starts: doubled again, 8 -> 16");
	/* a slow start (the hosts' CPUs are busy): no growth, slow start over */
	pace_acquire(p, &t[0]);
	pace_release(p, &t[0], PACE_OK, 5000);
	pace_stats(p, &st);
	is_int(st.slow_start, 0, "starts: a slow start ends slow start");
	is_int(pace_slots(p), 16, "starts: ... and leaves the window");
	pace_acquire(p, &t[0]);
	pace_release(p, &t[0], PACE_OK, 300);
	pace_stats(p, &st);
	ok(st.window > 16.06 && st.window < 16.07, "starts: then a quick start adds 1/16");
	pace_free(p);

	/* a silent start halves the window and ends slow start */
	p = pace_new(4, 64, 1);
	pace_set_slow_start(p, 1);
	n = fill(p, t, 64);
	pace_release(p, &t[0], PACE_OK, 300);
	pace_release(p, &t[1], PACE_TRANSIENT, 30000);
	pace_release(p, &t[2], PACE_TRANSIENT, 30000);
	pace_release(p, &t[3], PACE_OK, 300);
	pace_stats(p, &st);
	is_int(st.slow_start, 0, "starts: a silent start ends slow start");
	is_int(st.decreases, 1, "starts: two silent starts of one generation halve once");
	is_int(pace_slots(p), 3, "starts: 5 halved is 2.5, and a quick start adds 1/2: 3");
	pace_free(p);

	/* the window never passes the maximum (the fleet's size) */
	p = pace_new(4, 6, 1);
	pace_set_slow_start(p, 1);
	for (i = 0; i < 20; i++) {
		pace_acquire(p, &t[0]);
		pace_release(p, &t[0], PACE_OK, 300);
	}
	is_int(pace_slots(p), 6, "starts: slow start stops at the maximum");
	pace_free(p);
	pace_set_slow_start(NULL, 1);

	/*
	 * Quick within the silence rule: a start of 3 s after a fastest of
	 * 100 ms still grows the window; one of 9 s, past 30 s / 4, does not.
	 */
	p = pace_new(8, 128, 1);
	pace_set_slow_start(p, 1);
	pace_set_quick(p, 7500);
	pace_acquire(p, &t[0]);
	pace_release(p, &t[0], PACE_OK, 100);
	pace_acquire(p, &t[0]);
	pace_release(p, &t[0], PACE_OK, 3000);
	pace_stats(p, &st);
	is_int(pace_slots(p), 10, "starts: 3 s is quick under a quick limit of 7.5 s");
	is_int(st.slow_start, 1, "starts: ... and slow start goes on");
	pace_acquire(p, &t[0]);
	pace_release(p, &t[0], PACE_OK, 9000);
	pace_stats(p, &st);
	is_int(pace_slots(p), 10, "starts: 9 s is slow: the window stays");
	is_int(st.slow, 1, "starts: ... counted slow");
	is_int(st.slow_start, 0, "starts: ... and slow start is over");
	pace_free(p);
	pace_set_quick(NULL, 1);
}

struct waiter {
	struct pace		*p;
	struct pace_ticket	 t;
};

static void *
wait_slot(void *arg)
{
	struct waiter *w = arg;

	pace_acquire(w->p, &w->t);
	return NULL;
}

/* Who waits for a slot is counted: the controller holding a host back. */
static void
test_waiting(void)
{
	struct pace *p = pace_new(1, 1, 1);
	struct pace_ticket t;
	struct pace_stats st;
	struct waiter w = { p, { 0, 0 } };
	pthread_t th;
	int i;

	pace_acquire(p, &t);
	pace_stats(p, &st);
	is_int(st.waiting, 0, "waiting: none while a slot was free");
	pthread_create(&th, NULL, wait_slot, &w);
	for (i = 0; i < 10000; i++) {
		pace_stats(p, &st);
		if (st.waiting == 1)
			break;
		sched_yield();
		usleep(1000);
	}
	is_int(st.waiting, 1, "waiting: one caller waits for the only slot");
	pace_release(p, &t, PACE_OK, 100);
	pthread_join(th, NULL);
	pace_stats(p, &st);
	is_int(st.waiting, 0, "waiting: none once it got the slot");
	is_int(st.inflight, 1, "waiting: ... which it holds");
	ok(st.waited_ms >= 0, "waiting: the time waited is summed");
	pace_release(p, &w.t, PACE_OK, 100);
	pace_free(p);
}

static void *
work(void *arg)
{
	struct worker *w = arg;
	struct pace_ticket t;
	int i;

	for (i = 0; i < w->n; i++) {
		pace_acquire(w->p, &t);
		pace_release(w->p, &t, i % 7 == 6 ? PACE_TRANSIENT : PACE_OK, 100 + i % 3);
	}
	return NULL;
}

static void
test_threads(void)
{
	struct pace *p = pace_new(2, 6, 7);
	struct worker w = { p, 300 };
	pthread_t th[8];
	struct pace_stats st;
	int i;

	for (i = 0; i < 8; i++)
		pthread_create(&th[i], NULL, work, &w);
	for (i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	pace_stats(p, &st);
	is_int(st.inflight, 0, "threads: every slot returned");
	ok(st.peak >= 1 && st.peak <= 6, "threads: never more in flight than the maximum window");
	is_int(st.ok + st.slow + st.transient, 2400, "threads: every release counted");
	pace_free(p);
}

/* A bounded wait: -1 while every slot is held, and the caller may try again. */
static void
test_acquire_wait(void)
{
	struct pace *p = pace_new(1, 1, 1);
	struct pace_ticket a, b;
	struct pace_stats st;

	ok(pace_acquire_wait(p, &a, 0) == 0, "a free slot: taken at once");
	ok(pace_acquire_wait(p, &b, 0) == -1, "every slot held: -1 after the wait");
	ok(pace_acquire_wait(p, &b, 1) == -1, "... and again");
	pace_stats(p, &st);
	is_int(st.inflight, 1, "a wait that ran out holds nothing");
	is_int(st.waiting, 0, "and is no longer counted as waiting");
	pace_release(p, &a, PACE_NEUTRAL, -1);
	ok(pace_acquire_wait(p, &b, 0) == 0, "the slot given back: taken");
	pace_release(p, &b, PACE_NEUTRAL, -1);
	ok(pace_acquire_wait(NULL, &b, 0) == 0, "no pacer: never waits");
	pace_free(p);
}

int
main(void)
{
	test_slots();
	test_increase();
	test_decrease();
	test_retry();
	test_threads();
	test_slow_start();
	test_waiting();
	test_acquire_wait();
	pace_free(NULL);
	return tap_done();
}
