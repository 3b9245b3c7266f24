/*
 * hostlog.h: the host logs of a run directory, logs/HOST.log: what each
 * host printed on stderr and the controller's events for it, one
 * timestamped line each, written through the run's journal (journal.h)
 * by the host's worker.
 *
 *	2026-11-30T04:15:02.123Z connected as bench@lab-03
 *	2026-11-30T04:15:03.456Z stderr: fleetmark-agent: perf not found
 *
 * A log is opened (created, appended to) on its first line.  Writes are
 * not synced: a log is for people, trials.jsonl is what counts.
 *
 * Threads: any thread, at the same time (the logs have their own lock).
 *
 * Errors: the functions return 0 or -1; the first error is remembered,
 * with its message, for journal_log_error() (journal.h).
 */
#ifndef FLEETMARK_HOSTLOG_H
#define FLEETMARK_HOSTLOG_H

#include <stddef.h>

struct journal;

/*
 * Append a controller event to logs/HOST.log as one timestamped line
 * ("2026-11-30T04:15:02.123Z connected as bench@lab-03").  Control
 * characters are written as \xNN.  Returns 0 or -1 (the error is
 * remembered and reported by journal_log_error()).
 */
int	journal_log(struct journal *j, const char *host, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/*
 * Append what the host printed on stderr: bytes as they come, any
 * chunking; each complete line is written timestamped and marked
 * "stderr: ", a line longer than JOURNAL_LOG_LINE (journal.h) is split.
 */
int	journal_log_output(struct journal *j, const char *host, const void *buf,
	    size_t len);

/* Write out a host's incomplete last stderr line (its stream ended). */
int	journal_log_flush(struct journal *j, const char *host);

/* journal_log_error() (journal.h) gives the first log write error. */

#endif /* FLEETMARK_HOSTLOG_H */
