/*
 * log.h: messages for the person at the terminal, on stderr.
 *
 * Levels go from LOG_LEVEL_QUIET (errors only) up to LOG_LEVEL_TRACE; the
 * default is LOG_LEVEL_INFO, `-q` lowers it, each `-v` raises it one step.
 * The level is checked before any formatting happens, so a disabled
 * log_debug() costs a comparison.  Messages are printed as
 * "fleetmark: [error: |warning: ]MESSAGE\n"; the tag is coloured only when
 * stderr is a terminal and NO_COLOR is not set.  The message's controls
 * (newlines included) and bytes that are not UTF-8 are printed as \xNN
 * (utf8_escape()): callers pass text from runs and hosts as it is.
 *
 * These functions never exit: a module reports a failure by returning an
 * error, and only main.c and cmd-*.c decide to end the process.
 */
#ifndef FLEETMARK_LOG_H
#define FLEETMARK_LOG_H

enum log_level {
	LOG_LEVEL_QUIET,	/* errors only (-q) */
	LOG_LEVEL_INFO,		/* errors, warnings and progress (default) */
	LOG_LEVEL_VERBOSE,	/* -v */
	LOG_LEVEL_DEBUG,	/* -vv */
	LOG_LEVEL_TRACE,	/* -vvv and more */
};

/* Set the level (clamped to the range above); returns the previous one. */
int	log_set_level(int level);
int	log_get_level(void);

/*
 * Whether colour is used on stderr: a terminal and no NO_COLOR (even an
 * empty one).  Computed once; log_set_color() overrides it (tests).
 */
int	log_color(void);
void	log_set_color(int on);

/*
 * Send every message to sink(line, arg) instead of stderr (the line has
 * its tag and colour, no newline); NULL restores stderr.  A live progress
 * display installs one so messages print above its frame instead of
 * tearing it.  The sink is called with the log lock held: it must not log.
 */
void	log_set_sink(void (*sink)(const char *line, void *arg), void *arg);

/* Emit unconditionally at `level`, with the level's tag. */
void	log_emit(int level, int is_error, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* An error is always printed, whatever the level. */
#define log_error(...)	log_emit(LOG_LEVEL_QUIET, 1, __VA_ARGS__)
#define log_warn(...)	do { if (log_get_level() >= LOG_LEVEL_INFO) \
	log_emit(LOG_LEVEL_INFO, 2, __VA_ARGS__); } while (0)
#define log_info(...)	do { if (log_get_level() >= LOG_LEVEL_INFO) \
	log_emit(LOG_LEVEL_INFO, 0, __VA_ARGS__); } while (0)
#define log_verbose(...) do { if (log_get_level() >= LOG_LEVEL_VERBOSE) \
	log_emit(LOG_LEVEL_VERBOSE, 0, __VA_ARGS__); } while (0)
#define log_debug(...)	do { if (log_get_level() >= LOG_LEVEL_DEBUG) \
	log_emit(LOG_LEVEL_DEBUG, 0, __VA_ARGS__); } while (0)
#define log_trace(...)	do { if (log_get_level() >= LOG_LEVEL_TRACE) \
	log_emit(LOG_LEVEL_TRACE, 0, __VA_ARGS__); } while (0)

#endif /* FLEETMARK_LOG_H */
