/*
 * log.c: leveled messages on stderr, coloured only on a terminal without
 * NO_COLOR (https://no-color.org), with the controls of their text
 * escaped (utf8.h).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "log.h"
#include "strbuf.h"
#include "utf8.h"

static int level = LOG_LEVEL_INFO;
static int color = -1;		/* -1: not decided yet */

int
log_set_level(int l)
{
	int old = level;

	if (l < LOG_LEVEL_QUIET)
		l = LOG_LEVEL_QUIET;
	if (l > LOG_LEVEL_TRACE)
		l = LOG_LEVEL_TRACE;
	level = l;
	return old;
}

int
log_get_level(void)
{
	return level;
}

int
log_color(void)
{
	if (color < 0)
		color = getenv("NO_COLOR") == NULL && isatty(STDERR_FILENO);
	return color;
}

void
log_set_color(int on)
{
	color = on ? 1 : 0;
}

static void (*log_sink)(const char *, void *);
static void *log_sink_arg;
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;

void
log_set_sink(void (*sink)(const char *line, void *arg), void *arg)
{
	pthread_mutex_lock(&sink_lock);
	log_sink = sink;
	log_sink_arg = arg;
	pthread_mutex_unlock(&sink_lock);
}

void
log_emit(int l, int kind, const char *fmt, ...)
{
	static const char *const debug_tags[] = { "", "", "", "debug: ", "trace: " };
	const char *tag = "", *on = "", *off = "";
	struct strbuf raw = STRBUF_INIT, msg = STRBUF_INIT;
	va_list ap;

	if (kind == 1) {
		tag = "error: ";
		on = "\033[1;31m";
	} else if (kind == 2) {
		tag = "warning: ";
		on = "\033[1;33m";
	} else if (l >= LOG_LEVEL_QUIET && l <= LOG_LEVEL_TRACE) {
		tag = debug_tags[l];
		on = "\033[2m";
	}
	if (*tag == '\0' || !log_color())
		on = "";
	else
		off = "\033[0m";
	/*
	 * The message is formatted once and escaped once, here: its
	 * arguments are often text from a run, an archive or a host, whose
	 * escape sequences must not reach the terminal (utf8_escape()).
	 */
	va_start(ap, fmt);
	strbuf_vaddf(&raw, fmt, ap);
	va_end(ap);
	utf8_escape(&msg, raw.buf, raw.len, UTF8_KEEP_TAB);
	pthread_mutex_lock(&sink_lock);
	if (log_sink == NULL)
		pthread_mutex_unlock(&sink_lock);
	else {
		char line[4096];

		snprintf(line, sizeof(line), "fleetmark: %s%s%s%s", on, tag, off, msg.buf);
		log_sink(line, log_sink_arg);
		pthread_mutex_unlock(&sink_lock);
		goto out;
	}
	/* One fprintf for the whole line: stderr is unbuffered. */
	flockfile(stderr);
	fprintf(stderr, "fleetmark: %s%s%s%s\n", on, tag, off, msg.buf);
	funlockfile(stderr);
out:
	strbuf_release(&raw);
	strbuf_release(&msg);
}
