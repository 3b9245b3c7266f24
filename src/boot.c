/*
 * boot.c: the hooks that make a host boot into a kernel, and the wait
 * until it is back (boot.h), for bisect-run and ab.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "board.h"
#include "boot.h"
#include "fleet.h"
#include "hostconn.h"
#include "log.h"
#include "pace.h"
#include "run.h"
#include "strbuf.h"
#include "transport.h"
#include "xmalloc.h"

#define HOOK_POLL_MS	200	/* how often a hook is looked at while it prints nothing */

int
boot_hook(const char *what, const char *cmd, FILE *echo, char **expect, int *status,
    char **err)
{
	return boot_hook_output(what, cmd, echo, expect, NULL, status, err);
}

/* Keep the last BOOT_OUTPUT_MAX bytes of what a hook printed in sb. */
static void
keep_tail(struct strbuf *sb, const char *line, size_t len)
{
	strbuf_add(sb, line, len);
	if (sb->len > BOOT_OUTPUT_MAX) {
		memmove(sb->buf, sb->buf + sb->len - BOOT_OUTPUT_MAX, BOOT_OUTPUT_MAX);
		strbuf_setlen(sb, BOOT_OUTPUT_MAX);
	}
}

/* Where a hook's lines go (boot_hook_output()'s arguments). */
struct hook_sink {
	FILE		*echo;
	char		**expect;
	struct strbuf	*out;		/* or NULL */
};

/* One line of a hook's output, its newline included when it had one. */
static void
hook_line(const struct hook_sink *k, const char *line, size_t len)
{
	const size_t elen = strlen(BOOT_EXPECT_LINE);
	size_t n;

	if (k->echo != NULL)
		fwrite(line, 1, len, k->echo);
	if (k->out != NULL)
		keep_tail(k->out, line, len);
	if (k->expect != NULL && len >= elen && strncmp(line, BOOT_EXPECT_LINE, elen) == 0) {
		for (n = 0; elen + n < len && line[elen + n] != '\r' &&
		    line[elen + n] != '\n'; n++)
			;
		free(*k->expect);
		*k->expect = n > 0 ? xstrndup(line + elen, n) : NULL;
	}
}

/* The complete lines at the start of sb handed to hook_line(), and removed. */
static void
hook_lines(const struct hook_sink *k, struct strbuf *sb)
{
	size_t at = 0;
	char *nl;

	while ((nl = memchr(sb->buf + at, '\n', sb->len - at)) != NULL) {
		hook_line(k, sb->buf + at, (size_t)(nl - sb->buf - at) + 1);
		at = (size_t)(nl - sb->buf) + 1;
	}
	if (at > 0) {
		memmove(sb->buf, sb->buf + at, sb->len - at);
		strbuf_setlen(sb, sb->len - at);
	}
}

int
boot_hook_output(const char *what, const char *cmd, FILE *echo, char **expect,
    char **output, int *status, char **err)
{
	struct strbuf out = STRBUF_INIT, part = STRBUF_INIT;
	struct hook_sink k = { echo, expect, output != NULL ? &out : NULL };
	char buf[4096];
	ssize_t n;
	pid_t pid;
	int p[2], st = 0, exited = 0;

	log_info("%s hook: %s", what, cmd);
	fflush(stdout);
	if (pipe(p) != 0) {
		*err = xasprintf("%s hook: cannot start it: %s", what, strerror(errno));
		return -1;
	}
	if ((pid = fork()) < 0) {
		*err = xasprintf("%s hook: cannot start it: %s", what, strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		if (output != NULL)
			dup2(p[1], STDERR_FILENO);
		close(p[0]);
		close(p[1]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	(void)fcntl(p[0], F_SETFL, O_NONBLOCK);
	/*
	 * Until the end of the output, or until the hook has exited and what
	 * it left in the pipe is read: a process it started in the background
	 * (a console, a daemon) may hold the pipe open for long after.  A
	 * signal (a stop, SIGTERM) does not end the wait: the hook goes on.
	 */
	for (;;) {
		struct pollfd pfd = { p[0], POLLIN, 0 };
		int pr = poll(&pfd, 1, exited ? 0 : HOOK_POLL_MS);

		if (pr > 0) {
			if ((n = read(p[0], buf, sizeof(buf))) > 0) {
				strbuf_add(&part, buf, (size_t)n);
				hook_lines(&k, &part);
				continue;
			}
			if (n < 0 && (errno == EINTR || (errno == EAGAIN && !exited)))
				continue;
			break;
		}
		if (pr < 0 && errno == EINTR)
			continue;
		if (exited || pr < 0)
			break;
		if (waitpid(pid, &st, WNOHANG) == pid)
			exited = 1;
	}
	if (part.len > 0)
		hook_line(&k, part.buf, part.len);
	if (echo != NULL)
		fflush(echo);
	close(p[0]);
	while (!exited && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	strbuf_release(&part);
	if (output != NULL)
		*output = strbuf_detach(&out, NULL);
	return 0;
}

int
boot_wait_host(const struct fleet_host *h, long long wait_ms, struct board_boot *bb,
    char **why)
{
	long long deadline = pace_now_ms() + wait_ms, left;
	struct transport_opts o;
	struct transport *t;
	char *err = NULL;
	int attempts = 0;

	*why = NULL;
	for (;;) {
		left = deadline - pace_now_ms();
		hostconn_opts(h, NULL, &o);
		if (o.connect_timeout_ms <= 0 || o.connect_timeout_ms > left)
			o.connect_timeout_ms = left > 100 ? left : 100;
		attempts++;
		if (transport_open(&o, &t, NULL, &err) == 0) {
			int r = bb != NULL ? board_boot_read(t, bb, why) : 0;

			transport_close(t);
			if (r != 0)
				return -1;
			free(*why);
			*why = NULL;
			log_info("%s answers SSH (attempt %d)", h->name, attempts);
			return 0;
		}
		log_verbose("%s: %s", h->name, err);
		free(*why);
		*why = err;
		err = NULL;
		if (run_stop_requested() || pace_now_ms() + BOOT_POLL_MS >= deadline)
			return -1;
		usleep(BOOT_POLL_MS * 1000);
	}
}

char *
boot_id_before(const struct fleet_host *h)
{
	struct board_boot bb;
	char *err = NULL, *id = NULL;

	memset(&bb, 0, sizeof(bb));
	if (boot_wait_host(h, h->connect_timeout_ms, &bb, &err) == 0) {
		id = xstrdup(bb.boot_id);
		log_info("%s: boot id %s before the reboot", h->name, id);
	} else
		log_warn("%s: no boot id before the reboot: %s", h->name, err ? err : "?");
	board_boot_release(&bb);
	free(err);
	return id;
}
