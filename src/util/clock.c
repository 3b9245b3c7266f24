/*
 * clock.c: monotonic milliseconds, the wall clock and ISO 8601 UTC
 * timestamps (clock.h).
 */
#include <errno.h>
#include <sys/time.h>

#include <stdio.h>
#include <time.h>

#include "clock.h"

long long
clock_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

double
clock_wall(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

void
clock_iso8601(char *buf, size_t size, time_t sec, int ms)
{
	struct tm tm;
	size_t n;

	if (size == 0)
		return;
	gmtime_r(&sec, &tm);
	n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	if (ms >= 0)
		snprintf(buf + n, size - n, ".%03dZ", ms);
	else
		snprintf(buf + n, size - n, "Z");
}

void
clock_iso8601_now(char *buf, size_t size, int with_ms)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	clock_iso8601(buf, size, tv.tv_sec, with_ms ? (int)(tv.tv_usec / 1000) : -1);
}

void
clock_deadline(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

void
clock_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}
