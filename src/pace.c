/*
 * pace.c: the pacers, an AIMD window over concurrent SSH handshakes or
 * agent starts with jittered exponential backoff for transient failures
 * (see pace.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"
#include "pace.h"
#include "xmalloc.h"

struct pace {
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;
	double			 window;
	int			 max;
	int			 inflight;
	/*
	 * Each decrease starts a new generation; a failure counts only if
	 * its handshake started in the current one.
	 */
	unsigned long long	 gen;
	unsigned		 rng;
	int			 slow_start;
	long long		 quick_ms;	/* quick whatever the fastest, or 0 */
	struct pace_stats	 st;
};

long long
pace_now_ms(void)
{
	return clock_mono_ms();
}

struct pace *
pace_new(int initial, int max, unsigned seed)
{
	struct pace *p = xcalloc(1, sizeof(*p));
	pthread_condattr_t ca;

	if (max <= 0)
		max = PACE_DEFAULT_MAX;
	if (initial <= 0)
		initial = PACE_INITIAL;
	if (initial > max)
		initial = max;
	pthread_mutex_init(&p->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	p->window = initial;
	p->max = max;
	p->gen = 1;
	p->rng = seed != 0 ? seed : (unsigned)clock_mono_ms() ^ 0x9e3779b9u;
	p->st.fastest_ms = -1;
	return p;
}

void
pace_free(struct pace *p)
{
	if (p == NULL)
		return;
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

static int
slots_locked(const struct pace *p)
{
	int n = (int)p->window;

	return n < 1 ? 1 : n;
}

int
pace_slots(struct pace *p)
{
	int n;

	if (p == NULL)
		return 1;
	pthread_mutex_lock(&p->mu);
	n = slots_locked(p);
	pthread_mutex_unlock(&p->mu);
	return n;
}

static void
grant_locked(struct pace *p, struct pace_ticket *t)
{
	p->inflight++;
	if (p->inflight > p->st.peak)
		p->st.peak = p->inflight;
	t->gen = p->gen;
	t->t0_ms = clock_mono_ms();
}

void
pace_set_slow_start(struct pace *p, int on)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->slow_start = on != 0;
	pthread_mutex_unlock(&p->mu);
}

void
pace_set_quick(struct pace *p, long long ms)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->quick_ms = ms > 0 ? ms : 0;
	pthread_mutex_unlock(&p->mu);
}

void
pace_acquire(struct pace *p, struct pace_ticket *t)
{
	(void)pace_acquire_wait(p, t, -1);
}

int
pace_acquire_wait(struct pace *p, struct pace_ticket *t, long long wait_ms)
{
	struct timespec until;
	long long w0, end;
	int r = 0;

	if (p == NULL) {
		t->gen = 0;
		t->t0_ms = clock_mono_ms();
		return 0;
	}
	pthread_mutex_lock(&p->mu);
	if (p->inflight >= slots_locked(p)) {
		w0 = clock_mono_ms();
		end = w0 + (wait_ms > 0 ? wait_ms : 0);
		until.tv_sec = (time_t)(end / 1000);
		until.tv_nsec = (long)(end % 1000) * 1000000L;
		p->st.waiting++;
		while (p->inflight >= slots_locked(p) && r == 0) {
			if (wait_ms < 0)
				pthread_cond_wait(&p->cv, &p->mu);
			else if (pthread_cond_timedwait(&p->cv, &p->mu, &until) != 0)
				r = p->inflight >= slots_locked(p) ? -1 : 0;
		}
		p->st.waiting--;
		p->st.waited_ms += clock_mono_ms() - w0;
	}
	if (r == 0)
		grant_locked(p, t);
	pthread_mutex_unlock(&p->mu);
	return r;
}

int
pace_try_acquire(struct pace *p, struct pace_ticket *t)
{
	int r = -1;

	if (p == NULL) {
		pace_acquire(p, t);
		return 0;
	}
	pthread_mutex_lock(&p->mu);
	if (p->inflight < slots_locked(p)) {
		grant_locked(p, t);
		r = 0;
	}
	pthread_mutex_unlock(&p->mu);
	return r;
}

void
pace_release(struct pace *p, const struct pace_ticket *t, enum pace_outcome outcome,
    long long duration_ms)
{
	if (p == NULL)
		return;
	if (duration_ms < 0)
		duration_ms = clock_mono_ms() - t->t0_ms;
	pthread_mutex_lock(&p->mu);
	if (p->inflight > 0)
		p->inflight--;
	switch (outcome) {
	case PACE_OK:
		if (p->st.fastest_ms < 0 || duration_ms < p->st.fastest_ms)
			p->st.fastest_ms = duration_ms;
		if (duration_ms <= 2 * p->st.fastest_ms + PACE_SLACK_MS ||
		    duration_ms <= p->quick_ms) {
			p->st.ok++;
			p->window += p->slow_start ? 1.0 : 1.0 / slots_locked(p);
			if (p->window > p->max)
				p->window = p->max;
		} else {
			p->st.slow++;
			p->slow_start = 0;
		}
		break;
	case PACE_TRANSIENT:
		p->st.transient++;
		if (t->gen == p->gen) {
			p->slow_start = 0;
			p->window /= 2;
			if (p->window < 1)
				p->window = 1;
			p->gen++;
			p->st.decreases++;
		}
		break;
	case PACE_NEUTRAL:
		p->st.neutral++;
		break;
	}
	/* The window may have grown by more than one slot's worth: wake all. */
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

int
pace_retry(struct pace *p, enum pace_outcome outcome, int attempt, long long spent_ms,
    long long budget_ms, long long *delay_ms)
{
	long long d = PACE_BACKOFF_BASE_MS, jitter;
	int i;

	if (outcome != PACE_TRANSIENT || attempt < 1 || attempt >= PACE_MAX_ATTEMPTS)
		return 0;
	for (i = 1; i < attempt && d < PACE_BACKOFF_CAP_MS; i++)
		d *= 2;
	if (d > PACE_BACKOFF_CAP_MS)
		d = PACE_BACKOFF_CAP_MS;
	if (p == NULL)
		jitter = d / 4;
	else {
		pthread_mutex_lock(&p->mu);
		jitter = (long long)(rand_r(&p->rng) % (unsigned)(d / 2 + 1));
		pthread_mutex_unlock(&p->mu);
	}
	d = d / 2 + jitter;
	/* Another attempt needs time of its own after the sleep: a backoff. */
	if (spent_ms + d + PACE_BACKOFF_BASE_MS > budget_ms)
		return 0;
	if (p != NULL) {
		pthread_mutex_lock(&p->mu);
		p->st.retries++;
		pthread_mutex_unlock(&p->mu);
	}
	*delay_ms = d;
	return 1;
}

void
pace_stats(struct pace *p, struct pace_stats *st)
{
	if (p == NULL) {
		struct pace_stats z = { 0 };

		z.fastest_ms = -1;
		*st = z;
		return;
	}
	pthread_mutex_lock(&p->mu);
	*st = p->st;
	st->window = p->window;
	st->inflight = p->inflight;
	st->slow_start = p->slow_start;
	pthread_mutex_unlock(&p->mu);
}
