/*
 * hostlog.c: the host logs of a run directory, logs/HOST.log: controller
 * events and what each host printed on stderr, timestamped (hostlog.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "fsutil.h"
#include "hostlog.h"
#include "journal-int.h"
#include "rundir.h"
#include "strbuf.h"
#include "utf8.h"
#include "xmalloc.h"

/* Write one log line for h; log_mu held. */
static int
log_line(struct journal *j, struct jhost *h, const char *tag, const char *text, size_t n)
{
	struct strbuf line = STRBUF_INIT;
	char ts[CLOCK_ISO8601_MAX], *path;
	int r = 0;

	if (h->logfd < 0) {
		path = rundir_log_path(j->dir, h->name);
		h->logfd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (h->logfd < 0) {
			if (j->log_err == NULL)
				j->log_err = xasprintf("cannot open %s: %s", path,
				    strerror(errno));
			free(path);
			return -1;
		}
		free(path);
	}
	clock_iso8601_now(ts, sizeof(ts), 1);
	strbuf_addf(&line, "%s %s", ts, tag);
	/* controls and broken bytes as \xNN, tab kept: one line each */
	utf8_escape(&line, text, n, UTF8_KEEP_TAB);
	strbuf_addch(&line, '\n');
	if (fs_full_write(h->logfd, line.buf, line.len) != 0) {
		if (j->log_err == NULL) {
			path = rundir_log_path(j->dir, h->name);
			j->log_err = xasprintf("cannot write %s: %s", path, strerror(errno));
			free(path);
		}
		r = -1;
	}
	strbuf_release(&line);
	return r;
}

int
journal_log(struct journal *j, const char *host, const char *fmt, ...)
{
	struct jhost *h;
	char *text;
	va_list ap;
	int n, r;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	pthread_mutex_lock(&j->log_mu);
	pthread_mutex_lock(&j->run_mu);
	h = journal_host_get(j, host);
	pthread_mutex_unlock(&j->run_mu);
	r = h ? log_line(j, h, "", text, (size_t)n) : -1;
	pthread_mutex_unlock(&j->log_mu);
	free(text);
	return r;
}

int
journal_log_output(struct journal *j, const char *host, const void *buf, size_t len)
{
	const char *p = buf;
	struct jhost *h;
	size_t i;
	int r = 0;

	pthread_mutex_lock(&j->log_mu);
	pthread_mutex_lock(&j->run_mu);
	h = journal_host_get(j, host);
	pthread_mutex_unlock(&j->run_mu);
	if (h == NULL) {
		pthread_mutex_unlock(&j->log_mu);
		return -1;
	}
	if (h->partial == NULL)
		h->partial = xmalloc(JOURNAL_LOG_LINE);
	for (i = 0; i < len; i++) {
		if (p[i] == '\n') {
			size_t n = h->plen;

			if (n > 0 && h->partial[n - 1] == '\r')
				n--;
			if (log_line(j, h, "stderr: ", h->partial, n) != 0)
				r = -1;
			h->plen = 0;
			continue;
		}
		h->partial[h->plen++] = p[i];
		if (h->plen == JOURNAL_LOG_LINE) {
			if (log_line(j, h, "stderr: ", h->partial, h->plen) != 0)
				r = -1;
			h->plen = 0;
		}
	}
	pthread_mutex_unlock(&j->log_mu);
	return r;
}

/* log_mu held (journal-int.h). */
int
hostlog_flush(struct journal *j, struct jhost *h)
{
	int r = 0;

	if (h->plen > 0)
		r = log_line(j, h, "stderr: ", h->partial, h->plen);
	h->plen = 0;
	return r;
}

int
journal_log_flush(struct journal *j, const char *host)
{
	struct jhost *h;
	int r;

	pthread_mutex_lock(&j->log_mu);
	pthread_mutex_lock(&j->run_mu);
	h = journal_host_get(j, host);
	pthread_mutex_unlock(&j->run_mu);
	r = h ? hostlog_flush(j, h) : -1;
	pthread_mutex_unlock(&j->log_mu);
	return r;
}

const char *
journal_log_error(const struct journal *j)
{
	return j->log_err;
}
