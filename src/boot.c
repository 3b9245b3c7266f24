/*
 * boot.c: the hooks that make a host boot into a kernel, each in a
 * process group of its own ended when it ends, at its deadline or at a
 * stop; how a host boots a named kernel (its `boot:` entries); a boot
 * made and verified; and the wait until the host is back (boot.h), for
 * bisect-run, ab and the nightly's fresh confirmation.
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
#include "bootspec.h"
#include "clock.h"
#include "fleet.h"
#include "hostconn.h"
#include "log.h"
#include "pace.h"
#include "proc.h"
#include "run.h"
#include "shquote.h"
#include "strbuf.h"
#include "transport.h"
#include "xmalloc.h"

#define HOOK_POLL_MS	200	/* how often a hook is looked at while it prints nothing */

int
boot_hook(const char *what, const char *cmd, long long timeout_ms, FILE *echo,
    char **expect, int *status, char **err)
{
	return boot_hook_output(what, cmd, timeout_ms, echo, expect, NULL, status, err);
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

/*
 * /bin/sh -c cmd in a process group of its own (proc.h), stdin from
 * /dev/null, its stdout (and its stderr with both) into a pipe: the pid,
 * and the pipe's end to read in *fd.
 */
static pid_t
hook_spawn(const char *what, const char *cmd, int both, int *fd, char **err)
{
	pid_t pid;
	int p[2], devnull;

	if (pipe2(p, O_CLOEXEC) != 0) {
		*err = xasprintf("%s hook: cannot start it: %s", what, strerror(errno));
		return -1;
	}
	if ((pid = proc_fork_group()) < 0) {
		*err = xasprintf("%s hook: cannot start it: %s", what, strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		if ((devnull = open("/dev/null", O_RDONLY)) >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(p[1], STDOUT_FILENO);
		if (both)
			dup2(p[1], STDERR_FILENO);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	(void)fcntl(p[0], F_SETFL, O_NONBLOCK);
	*fd = p[0];
	return pid;
}

/* Whether the child pid has exited; its zombie is left to proc_group_end(). */
static int
hook_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	    si.si_pid == pid;
}

int
boot_hook_output(const char *what, const char *cmd, long long timeout_ms, FILE *echo,
    char **expect, char **output, int *status, char **err)
{
	struct strbuf out = STRBUF_INIT, part = STRBUF_INIT;
	struct hook_sink k = { echo, expect, output != NULL ? &out : NULL };
	long long deadline = timeout_ms > 0 ? clock_mono_ms() + timeout_ms : 0;
	char buf[4096];
	ssize_t n;
	pid_t pid;
	int fd = -1, st = 0, exited = 0, timed_out = 0;

	log_info("%s hook: %s", what, cmd);
	fflush(stdout);
	if ((pid = hook_spawn(what, cmd, output != NULL, &fd, err)) < 0)
		return -1;
	/*
	 * Until the hook has exited and what it left in the pipe is read: a
	 * process it started in the background may hold the pipe open long
	 * after, and is ended with the hook's group.  A stop (run.h) or the
	 * deadline ends the group at once.
	 */
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		int pr = fd >= 0 ? poll(&pfd, 1, exited ? 0 : HOOK_POLL_MS) :
		    poll(NULL, 0, exited ? 0 : HOOK_POLL_MS);

		if (pr > 0) {
			if ((n = read(fd, buf, sizeof(buf))) > 0) {
				strbuf_add(&part, buf, (size_t)n);
				hook_lines(&k, &part);
				continue;
			}
			if (n < 0 && (errno == EINTR || (errno == EAGAIN && !exited)))
				continue;
			/* the end of its output; the hook may still run */
			close(fd);
			fd = -1;
			continue;
		}
		if (pr < 0 && errno == EINTR)
			continue;
		if (exited)
			break;
		if (hook_exited(pid))
			exited = 1;
		else if (run_stop_requested())
			break;
		else if (deadline > 0 && clock_mono_ms() >= deadline) {
			timed_out = 1;
			break;
		}
	}
	if (part.len > 0)
		hook_line(&k, part.buf, part.len);
	if (echo != NULL)
		fflush(echo);
	if (fd >= 0)
		close(fd);
	/* SIGTERM, then SIGKILL, to what is left of its group; the hook reaped */
	proc_group_end(pid, 0, &st);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	strbuf_release(&part);
	if (timed_out) {
		*err = xasprintf("%s hook: still running after %g s: ended, with what it "
		    "started", what, (double)timeout_ms / 1000);
		strbuf_release(&out);
		return -1;
	}
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

/* Where kexec usually is, when the login shell's PATH lacks the sbins. */
#define KEXEC_PATH	"PATH=\"$PATH:/usr/sbin:/sbin\"; "

/*
 * Run cmdline on h as root (through sudo -n sh -c when the login user is
 * not root: kexec needs root, and root reads the files it will) within
 * timeout_ms; its first line of output (or of its errors) in *said when
 * it exits non-zero.  0 when it exited 0, 1 when it ran and failed, -1
 * with *err when h could not be reached.
 */
static int
run_on(const struct fleet_host *h, const char *cmdline, int timeout_ms, char **said,
    char **err)
{
	struct transport_result res;
	struct transport_opts o;
	struct transport *t = NULL;
	const struct transport_info *ti;
	const char *text;
	char *e = NULL, *cmd;
	int r;

	*said = NULL;
	hostconn_opts(h, NULL, &o);
	if (transport_open(&o, &t, NULL, &e) != 0) {
		*err = xasprintf("%s: %s", h->name, e ? e : "cannot log in");
		free(e);
		return -1;
	}
	memset(&res, 0, sizeof(res));
	ti = transport_get_info(t);
	cmd = ti != NULL && strcmp(ti->user, "root") != 0 ? sh_format("sudo -n sh -c %q",
	    cmdline) : xstrdup(cmdline);
	r = transport_run(t, cmd, NULL, 0, 4096, timeout_ms, &res);
	free(cmd);
	if (r != 0) {
		*err = xasprintf("%s: %s", h->name, transport_error(t));
		transport_result_release(&res);
		transport_close(t);
		return -1;
	}
	r = 0;
	if (res.exit.status != 0) {
		text = res.out != NULL && *res.out ? res.out : res.err != NULL ? res.err : "";
		*said = xstrndup(text, strcspn(text, "\r\n"));
		if (**said == '\0') {
			free(*said);
			*said = xasprintf("it exited %d", res.exit.status);
		}
		r = 1;
	}
	transport_result_release(&res);
	transport_close(t);
	return r;
}

int
boot_kexec_check(const struct fleet_host *h, const struct bootspec *b, char **err)
{
	char *cmd, *said = NULL;
	int r;

	/* The files' names are printed back quoted by the host: they are values. */
	cmd = sh_format(KEXEC_PATH "for f in %q %q; do [ -z \"$f\" ] && continue; "
	    "if [ ! -e \"$f\" ]; then echo \"no file $f\"; exit 1; fi; "
	    "if [ ! -f \"$f\" ] || [ ! -r \"$f\" ]; then echo \"$f is not a readable file\"; "
	    "exit 1; fi; done; command -v kexec >/dev/null 2>&1 || "
	    "{ echo 'no kexec (install kexec-tools)'; exit 1; }", b->kernel,
	    b->initrd != NULL ? b->initrd : "");
	r = run_on(h, cmd, (int)(h->connect_timeout_ms + 30000), &said, err);
	free(cmd);
	if (r == 1) {
		*err = xasprintf("%s: cannot kexec %s: %s on the host", h->name, b->text, said);
		r = -1;
	}
	free(said);
	return r;
}

int
boot_kexec(const struct fleet_host *h, const struct bootspec *b, char **err)
{
	char *cmd, *said = NULL;
	int r;

	cmd = sh_format(KEXEC_PATH "kexec -l %q", b->kernel);
	if (b->initrd != NULL) {
		char *q = sh_quote(b->initrd), *c2 = xasprintf("%s --initrd=%s", cmd, q);

		free(q);
		free(cmd);
		cmd = c2;
	}
	if (b->append != NULL) {
		char *q = sh_quote(b->append), *c2 = xasprintf("%s --append=%s", cmd, q);

		free(q);
		free(cmd);
		cmd = c2;
	}
	{
		/* Fixed text: the new kernel starts once this command has returned. */
		char *c2 = xasprintf("%s 2>&1 && { setsid sh -c 'sleep 1; exec kexec -e' "
		    "</dev/null >/dev/null 2>&1 & }", cmd);

		free(cmd);
		cmd = c2;
	}
	log_info("%s: %s", h->name, cmd);
	r = run_on(h, cmd, BOOT_KEXEC_MS, &said, err);
	free(cmd);
	if (r == 1) {
		*err = xasprintf("%s: kexec -l %s failed: %s", h->name, b->kernel, said);
		r = -1;
	}
	free(said);
	return r;
}

/* What a command printed, as one line: its lines joined by " | ". */
static char *
one_line(const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p, *e;

	for (p = text; *p != '\0'; p = *e ? e + 1 : e) {
		e = p + strcspn(p, "\r\n");
		if (e > p) {
			if (sb.len > 0)
				strbuf_addstr(&sb, " | ");
			strbuf_add(&sb, p, (size_t)(e - p));
		}
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * Wait up to wait_ms for h to answer with a boot id other than old_id: a
 * command may return while the host is still going down.  The boot read
 * last is in *bb either way (board_boot_check() then says the boot id
 * did not change); -1 with *why when the host never answered.
 */
static int
wait_new_boot(const struct fleet_host *h, long long wait_ms, const char *old_id,
    struct board_boot *bb, char **why)
{
	long long deadline = pace_now_ms() + wait_ms;

	for (;;) {
		if (boot_wait_host(h, deadline - pace_now_ms(), bb, why) != 0)
			return -1;
		if (strcmp(bb->boot_id, old_id) != 0 || run_stop_requested() ||
		    pace_now_ms() + BOOT_POLL_MS >= deadline)
			return 0;
		log_verbose("%s: still boot id %s: waiting for the reboot", h->name, old_id);
		board_boot_release(bb);
		memset(bb, 0, sizeof(*bb));
		usleep(BOOT_POLL_MS * 1000);
	}
}

int
boot_cmdline_check(const struct bootspec *b, const struct board_boot *bb, char **err)
{
	if (b->kind != BOOTSPEC_KEXEC || b->append == NULL)
		return 0;
	if (bb->cmdline == NULL || strstr(bb->cmdline, b->append) == NULL) {
		*err = xasprintf("the kexec did not take: the command line is not append=%s: "
		    "/proc/cmdline (%s)", b->append, bb->cmdline ? bb->cmdline : "");
		return -1;
	}
	return 0;
}

int
boot_into(const char *what, const struct fleet_host *h, const struct bootspec *b,
    long long wait_ms, FILE *echo, char **expect, struct board_boot *bb, char **err)
{
	char *old_id = NULL, *output = NULL, *why = NULL;
	int st, r = -1;

	memset(bb, 0, sizeof(*bb));
	/* A host may still be booting (a resumed sequence): up to its boot time. */
	if (boot_wait_host(h, wait_ms, bb, &why) != 0) {
		if (run_stop_requested())
			r = BOOT_INTO_STOPPED;
		else
			*err = xasprintf("%s: no boot id before it: %s", what, why ? why : "?");
		goto out;
	}
	old_id = xstrdup(bb->boot_id);
	board_boot_release(bb);
	memset(bb, 0, sizeof(*bb));
	/* a command may wait for the host to go down, or to come back: its boot time */
	if (b->kind == BOOTSPEC_KEXEC) {
		if (boot_kexec(h, b, err) != 0)
			goto out;
	} else {
		if (boot_hook_output(what, b->command, wait_ms, echo, expect, &output, &st,
		    err) != 0)
			goto out;
		/* a stop ends the command: a stop, not a failing command */
		if (run_stop_requested()) {
			r = BOOT_INTO_STOPPED;
			goto out;
		}
		if (st != 0) {
			char *said = one_line(output);

			*err = xasprintf("%s command exited %d%s%s", what, st, *said ? ": " : "",
			    said);
			free(said);
			goto out;
		}
	}
	if (wait_new_boot(h, wait_ms, old_id, bb, &why) != 0) {
		if (run_stop_requested())
			r = BOOT_INTO_STOPPED;
		else
			*err = xasprintf("did not come back within %.0f s: %s",
			    (double)wait_ms / 1000, why ? why : "?");
		goto out;
	}
	if (run_stop_requested()) {
		r = BOOT_INTO_STOPPED;
		goto out;
	}
	/* Nothing is measured on a kernel other than the one asked for. */
	if (board_boot_check(bb, old_id, expect ? *expect : NULL, err) != 0)
		goto out;
	if (boot_cmdline_check(b, bb, err) != 0)
		goto out;
	r = 0;
 out:
	free(old_id);
	free(output);
	free(why);
	return r;
}

int
boot_spec_for_host(const char *opt, const char *text, const struct fleet_host *h,
    struct bootspec *out, char **err)
{
	const struct fleet_boot *fb;
	struct bootspec b;
	char *e = NULL, *cmd;

	memset(out, 0, sizeof(*out));
	if (bootspec_parse(text, 1, &b, &e) != 0) {
		*err = xasprintf("%s '%s': %s", opt, text, e);
		free(e);
		return -1;
	}
	if (b.kind == BOOTSPEC_ENTRY) {
		if ((fb = fleet_boot_find(h, b.entry)) == NULL) {
			*err = xasprintf("%s %s: host '%s' has no boot: entry '%s' in %s "
			    "(a command of one word is written as a path: ./%s)", opt, text,
			    h->name, b.entry, h->file ? h->file : "the inventory", b.entry);
			bootspec_release(&b);
			return -1;
		}
		bootspec_release(&b);
		/* checked when the inventory was loaded */
		if (bootspec_parse(fb->how, 0, &b, &e) != 0) {
			*err = xasprintf("%s:%d:%d: boot.%s: %s", h->file, fb->line, fb->col,
			    fb->name, e);
			free(e);
			return -1;
		}
	}
	if (b.kind == BOOTSPEC_COMMAND) {
		cmd = bootspec_expand(b.command, h->name);
		free(b.command);
		b.command = cmd;
	}
	if (b.kind == BOOTSPEC_KEXEC && h->transport == FLEET_TRANSPORT_LOCAL) {
		*err = xasprintf("%s %s: host '%s' is this machine (transport: local): a kexec "
		    "side would restart it", opt, text, h->name);
		bootspec_release(&b);
		return -1;
	}
	*out = b;
	return 0;
}
