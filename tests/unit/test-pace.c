/*
 * test-pace.c: the handshake pacer's state machine, driven step by step
 * with explicit durations (no clocks, no sleeps, no timing assertions):
 * slots, additive increase on quick successes only, one multiplicative
 * decrease per generation of failures, bounds, and the retry policy.
 */
#include <pthread.h>
#include <stdio.h>

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

int
main(void)
{
	test_slots();
	test_increase();
	test_decrease();
	test_retry();
	test_threads();
	pace_free(NULL);
	return tap_done();
}
