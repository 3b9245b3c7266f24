/*
 * boot.c: the hooks that make a host boot into a kernel, and the wait
 * until it is back (boot.h), for bisect-run and ab.
 */
#include <errno.h>
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

int
boot_hook_output(const char *what, const char *cmd, FILE *echo, char **expect,
    char **output, int *status, char **err)
{
	struct strbuf out = STRBUF_INIT;
	const size_t elen = strlen(BOOT_EXPECT_LINE);
	char *line = NULL;
	size_t cap = 0, n;
	ssize_t len;
	FILE *in;
	pid_t pid;
	int p[2], st;

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
	if ((in = fdopen(p[0], "r")) == NULL) {
		*err = xasprintf("%s hook: %s", what, strerror(errno));
		close(p[0]);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		return -1;
	}
	for (;;) {
		errno = 0;
		if ((len = getline(&line, &cap, in)) <= 0) {
			/* a signal (stop, SIGTERM) does not end the hook: read on */
			if (len < 0 && errno == EINTR && !feof(in)) {
				clearerr(in);
				continue;
			}
			break;
		}
		if (echo != NULL)
			fwrite(line, 1, (size_t)len, echo);
		if (output != NULL)
			keep_tail(&out, line, (size_t)len);
		if (expect != NULL && strncmp(line, BOOT_EXPECT_LINE, elen) == 0) {
			n = strcspn(line + elen, "\r\n");
			free(*expect);
			*expect = n > 0 ? xstrndup(line + elen, n) : NULL;
		}
	}
	if (echo != NULL)
		fflush(echo);
	fclose(in);
	free(line);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
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
