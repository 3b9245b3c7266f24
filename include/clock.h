/*
 * clock.h: the two clocks the controller reads, and UTC timestamps.
 *
 * Durations, timeouts and deadlines use the monotonic clock (in
 * milliseconds), which no clock step can move; what is recorded or shown
 * as a point in time uses the wall clock.  Timestamps are ISO 8601 in UTC
 * with a Z, as run.json, the host logs and the plain progress lines
 * write them:
 *
 *	2026-11-30T04:15:02Z		clock_iso8601(..., -1)
 *	2026-11-30T04:15:02.123Z	clock_iso8601(..., 123)
 *
 * Nothing here fails or allocates.
 */
#ifndef FLEETMARK_CLOCK_H
#define FLEETMARK_CLOCK_H

#include <stddef.h>
#include <time.h>

/* Room for the longest timestamp below (a four-digit year), with the NUL. */
#define CLOCK_ISO8601_MAX	32

/* Milliseconds of CLOCK_MONOTONIC: for timeouts and durations. */
long long clock_mono_ms(void);

/* Sleep ms milliseconds (restarted after a signal; at most a little more). */
void	clock_sleep_ms(long ms);

/* The wall clock in seconds since the epoch, to the microsecond. */
double	clock_wall(void);

/*
 * sec (seconds since the epoch) as "YYYY-MM-DDTHH:MM:SSZ" into buf (size
 * bytes), with ".mmmZ" for ms >= 0 (0..999) instead of the "Z".
 */
void	clock_iso8601(char *buf, size_t size, time_t sec, int ms);

/* The wall clock now as clock_iso8601() writes it, with milliseconds or not. */
void	clock_iso8601_now(char *buf, size_t size, int with_ms);

/*
 * The CLOCK_REALTIME time ms milliseconds from now, for
 * pthread_cond_timedwait() on a condition variable with the default clock.
 */
void	clock_deadline(struct timespec *ts, long ms);

#endif /* FLEETMARK_CLOCK_H */
