/*
 * pace.h: the pacers shared by all host workers: one for SSH handshakes,
 * one for agent starts (src/run/: a deploy and the agent's hello and env).
 *
 * An SSH login is expensive for both ends (on the project's test machine
 * about a second of CPU, client and server together), and a controller
 * that starts every login at once loses hosts to timeouts and dropped
 * connections (32 at once lost 15 of 32 there; two at a time lost none).
 * So logins wait for a slot here.  The number of slots (the window) starts
 * small and adapts the way TCP's congestion control does:
 *
 *   - additive increase: a handshake that succeeds quickly (within twice
 *     the fastest one seen, plus PACE_SLACK_MS) adds 1/window, so the
 *     window grows by about one per window's worth of quick successes;
 *     a slow success leaves it alone (the CPUs are busy: more in flight
 *     would only make every handshake slower);
 *   - multiplicative decrease: a transient failure (connection reset or
 *     closed during the handshake, a handshake timeout) halves it, at
 *     most once per "generation": failures of handshakes that started
 *     before the last decrease do not decrease it again;
 *   - failures that say nothing about load (refused, no route, auth,
 *     host key) change nothing.
 *
 * Transient failures are retried after an exponential backoff with
 * jitter; the others never are.  pace_retry() decides, within the host's
 * own budget (its connect timeout), so the whole open of a host stays
 * bounded by it.  Time spent waiting for a slot is not the host's fault
 * and is not charged to that budget; it is bounded because every slot
 * holder is.
 *
 * Agent starts are paced the same way (run.h, RUN_START_*): a slot is
 * held from the deploy to the agent's env, a start that comes back quickly
 * grows the window, a slow one leaves it, and one that went silent
 * (hello or env not within the silence rule: the hosts' CPUs are
 * overloaded) halves it; "quickly" there also means well within the
 * silence rule (pace_set_quick()), and is retried after a backoff.  A fleet of
 * hundreds needs the window far above its start, so that pacer begins in
 * slow start (pace_set_slow_start()): each quick success adds a whole slot,
 * doubling the window every window's worth of them, until the first slow
 * success or transient failure, after which it is AIMD as above.
 *
 * The window and the counters are observable (pace_stats) so that tests
 * check the state machine without timing.
 *
 * Thread safety: every function may be called from any thread; a struct
 * pace is shared by all workers and freed once they are done.
 */
#ifndef FLEETMARK_PACE_H
#define FLEETMARK_PACE_H

#define PACE_INITIAL		2	/* window at the start */
#define PACE_DEFAULT_MAX	32	/* largest window by default */
#define PACE_SLACK_MS		100	/* "quick" tolerance over 2x the fastest */
#define PACE_BACKOFF_BASE_MS	250	/* first retry after 125..250 ms */
#define PACE_BACKOFF_CAP_MS	4000	/* no single backoff longer than this */
#define PACE_MAX_ATTEMPTS	6	/* tries per open, the first one included */

enum pace_outcome {
	PACE_OK,		/* the handshake completed (auth or key may still fail) */
	PACE_TRANSIENT,		/* reset, closed, timed out: a sign of overload */
	PACE_NEUTRAL,		/* refused, no route, ...: says nothing of load */
};

/* What a caller holds between pace_acquire() and pace_release(). */
struct pace_ticket {
	unsigned long long	gen;	/* the generation it started in */
	long long		t0_ms;	/* when the slot was granted (monotonic) */
};

struct pace_stats {
	double		window;		/* current window (slots = floor) */
	int		inflight;	/* slots held now */
	int		peak;		/* most slots held at once */
	unsigned	ok, slow, transient, neutral;	/* releases by outcome */
	unsigned	decreases;	/* multiplicative decreases done */
	unsigned	retries;	/* retries granted by pace_retry() */
	long long	fastest_ms;	/* fastest successful handshake, -1: none */
	int		slow_start;	/* still in slow start */
	int		waiting;	/* callers waiting in pace_acquire() now */
	long long	waited_ms;	/* time spent there by all callers */
};

struct pace;

/*
 * A new pacer with `initial` slots (PACE_INITIAL when 0) growing to at
 * most `max` (PACE_DEFAULT_MAX when 0).  `seed` seeds the backoff jitter
 * (0: from the clock).  Free with pace_free() (NULL is fine).
 */
struct pace	*pace_new(int initial, int max, unsigned seed);
void		 pace_free(struct pace *p);

/*
 * Take a slot, waiting as long as every slot is held.  Fills *t.
 * p may be NULL: nothing is paced and *t is still filled.
 */
void	pace_acquire(struct pace *p, struct pace_ticket *t);

/*
 * pace_acquire(), waiting at most wait_ms (< 0: as long as it takes):
 * 0 with *t filled, or -1 when every slot was still held then (call it
 * again to go on waiting; the time is counted in waited_ms either way).
 */
int	pace_acquire_wait(struct pace *p, struct pace_ticket *t, long long wait_ms);

/* Take a slot only if one is free now: 0, or -1 when all are held. */
int	pace_try_acquire(struct pace *p, struct pace_ticket *t);

/*
 * Give the slot back with what happened and how long the handshake took
 * (ms; -1 to measure it from the ticket).  Adapts the window as above
 * and wakes a waiter.
 */
void	pace_release(struct pace *p, const struct pace_ticket *t,
	    enum pace_outcome outcome, long long duration_ms);

/*
 * Whether to try again after a failure of this outcome: attempt is the
 * number of attempts made so far (1 after the first), spent_ms what this
 * host has used of its budget_ms.  Returns 1 with the backoff to sleep
 * in *delay_ms (jittered, in [d/2, d] for d = BASE * 2^(attempt-1),
 * capped) when the outcome is transient, attempts remain and
 * spent + delay leaves time for another attempt; 0 otherwise.
 * p may be NULL (a fixed jitter of d*3/4 is used).
 */
int	pace_retry(struct pace *p, enum pace_outcome outcome, int attempt,
	    long long spent_ms, long long budget_ms, long long *delay_ms);

void	pace_stats(struct pace *p, struct pace_stats *st);

/*
 * Slow start (on), or plain AIMD from the start (off, the default): while
 * it lasts a quick success adds a whole slot instead of 1/window; it ends
 * for good at the first slow success or counted transient failure.
 */
void	pace_set_slow_start(struct pace *p, int on);

/*
 * Count a success as quick also when it took at most ms (0: only the rule
 * above).  An agent start is quick by the fastest one's measure or well
 * within the silence rule: its upload and env do not shrink by running
 * fewer at once, so only a start that nears the silence limit is a sign
 * of too many.
 */
void	pace_set_quick(struct pace *p, long long ms);

/* The current number of slots (floor of the window, at least 1). */
int	pace_slots(struct pace *p);

/* Monotonic milliseconds, as the pacer counts them: clock_mono_ms(). */
long long pace_now_ms(void);

#endif /* FLEETMARK_PACE_H */
