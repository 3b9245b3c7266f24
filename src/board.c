/*
 * board.c: the serial console recorded for a run, power commands and the
 * boot check (docs/boards.md).  See board.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "board.h"
#include "clock.h"
#include "fleet.h"
#include "fsutil.h"
#include "proc.h"
#include "strbuf.h"
#include "transport.h"
#include "xmalloc.h"

extern char **environ;

#define LINE_MAX_QUOTED	200
#define CONTEXT_LINES	10	/* after a match, where RIP: and Comm: count */

/* --- running a command on the controller --------------------------------------- */

/*
 * /bin/sh -c cmd in a process group of its own, FLEETMARK_HOST=host in its
 * environment, stdin from /dev/null and both outputs into *fd.  The
 * environment is built before fork(): the child only calls async-signal-
 * safe functions.
 */
static int
spawn(const char *cmd, const char *host, pid_t *pid, int *fd, char **err)
{
	char **envp, *hostvar = xasprintf("FLEETMARK_HOST=%s", host);
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)cmd, NULL };
	size_t n = 0, k = 0;
	int p[2], devnull, r = -1;
	pid_t c;

	while (environ[n] != NULL)
		n++;
	envp = xcalloc(n + 2, sizeof(*envp));
	for (n = 0; environ[n] != NULL; n++)
		if (strncmp(environ[n], "FLEETMARK_HOST=", 15) != 0)
			envp[k++] = environ[n];
	envp[k++] = hostvar;
	if (pipe2(p, O_CLOEXEC) != 0) {
		*err = xasprintf("pipe: %s", strerror(errno));
		goto out;
	}
	if ((c = proc_fork_group()) < 0) {
		*err = xasprintf("fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		goto out;
	}
	if (c == 0) {
		devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(p[1]);
	*pid = c;
	*fd = p[0];
	r = 0;
out:
	free(envp);
	free(hostvar);
	return r;
}

/*
 * End a child's process group and reap it: at once (TERM, then KILL) with
 * kill_it, else when the shell has finished; what it left behind goes too.
 */
static int
reap(pid_t pid, int kill_it)
{
	int st = -1;

	proc_group_end(pid, kill_it ? 0 : BOARD_POWER_MS, &st);
	return st;
}

int
board_power(const struct fleet_host *h, const char *which, char **err)
{
	const char *cmd = strcmp(which, "cycle") == 0 ? h->power_cycle :
	    strcmp(which, "off") == 0 ? h->power_off :
	    strcmp(which, "on") == 0 ? h->power_on : NULL;
	long long deadline = clock_mono_ms() + BOARD_POWER_MS, left;
	struct strbuf out;
	struct pollfd pfd;
	char buf[1024];
	ssize_t n;
	pid_t pid;
	int fd, st, timed_out = 0;
	size_t nl;

	if (cmd == NULL)
		return err_set(err, -1, "%s: no power %s command", h->name, which);
	if (spawn(cmd, h->name, &pid, &fd, err) != 0)
		return -1;
	strbuf_init_max(&out, 4096);
	for (;;) {
		left = deadline - clock_mono_ms();
		if (left <= 0) {
			timed_out = 1;
			break;
		}
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, left > 1000 ? 1000 : (int)left) <= 0)
			continue;
		if ((n = read(fd, buf, sizeof(buf))) <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		strbuf_add(&out, buf, (size_t)n);	/* beyond the cap: dropped */
	}
	close(fd);
	st = reap(pid, timed_out);
	if (!timed_out && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		strbuf_release(&out);
		return 0;
	}
	nl = strcspn(out.buf ? out.buf : "", "\n");
	if (timed_out)
		*err = xasprintf("%s: power %s: no end within %d s", h->name, which,
		    BOARD_POWER_MS / 1000);
	else
		*err = xasprintf("%s: power %s: `%s` %s %d%s%.*s", h->name, which, cmd,
		    WIFEXITED(st) ? "exited" : "was killed by signal",
		    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), nl ? ": " : "", (int)nl,
		    out.buf ? out.buf : "");
	strbuf_release(&out);
	return -1;
}

/* --- the console ------------------------------------------------------------ */

struct board_console {
	char		*host;
	pid_t		 pid;
	int		 fd;		/* the command's output */
	int		 file;		/* logs/NAME.console */
	size_t		 written;
	int		 full;		/* BOARD_CONSOLE_MAX reached */
	pthread_t	 th;
	pthread_mutex_t	 mu;
	struct strbuf	 tail;		/* since the last mark */
	volatile int	 stop;
};

/* Into the file, within BOARD_CONSOLE_MAX (mu held). */
static void
console_write(struct board_console *c, const char *p, size_t n)
{
	static const char dropped[] = "\n=== fleetmark: console log full, the rest is dropped ===\n";

	if (c->full)
		return;
	if (c->written + n > BOARD_CONSOLE_MAX) {
		n = BOARD_CONSOLE_MAX - c->written;
		c->full = 1;
	}
	if (fs_full_write(c->file, p, n) == 0)
		c->written += n;
	if (c->full)
		(void)fs_full_write(c->file, dropped, sizeof(dropped) - 1);
}

/* Keep the last BOARD_TAIL_MAX bytes (mu held). */
static void
tail_add(struct board_console *c, const char *p, size_t n)
{
	size_t keep;

	if (n >= BOARD_TAIL_MAX) {
		p += n - BOARD_TAIL_MAX;
		n = BOARD_TAIL_MAX;
	}
	if (c->tail.len + n > BOARD_TAIL_MAX) {
		keep = BOARD_TAIL_MAX - n;
		memmove(c->tail.buf, c->tail.buf + c->tail.len - keep, keep);
		strbuf_setlen(&c->tail, keep);
	}
	strbuf_add(&c->tail, p, n);
}

static void *
console_main(void *arg)
{
	struct board_console *c = arg;
	struct pollfd pfd;
	char buf[4096];
	ssize_t n;

	while (!c->stop) {
		pfd.fd = c->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		n = read(c->fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		pthread_mutex_lock(&c->mu);
		console_write(c, buf, (size_t)n);
		tail_add(c, buf, (size_t)n);
		pthread_mutex_unlock(&c->mu);
	}
	return NULL;
}

/* What c holds, and c (its command and thread already ended). */
static void
console_free(struct board_console *c)
{
	if (c == NULL)
		return;
	if (c->fd >= 0)
		close(c->fd);
	close(c->file);
	strbuf_release(&c->tail);
	pthread_mutex_destroy(&c->mu);
	free(c->host);
	free(c);
}

int
board_console_start(const struct fleet_host *h, const char *path,
    struct board_console **out, char **err)
{
	struct board_console *c;
	int file;

	if (h->console == NULL)
		return err_set(err, -1, "%s: no console command", h->name);
	if ((file = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666)) < 0)
		return err_set(err, -1, "%s: cannot open %s: %s", h->name, path,
		    strerror(errno));
	c = xcalloc(1, sizeof(*c));
	c->host = xstrdup(h->name);
	c->file = file;
	c->fd = -1;
	pthread_mutex_init(&c->mu, NULL);
	strbuf_init(&c->tail, 4096);
	if (spawn(h->console, h->name, &c->pid, &c->fd, err) != 0)
		goto fail;
	if (pthread_create(&c->th, NULL, console_main, c) != 0) {
		*err = xasprintf("%s: cannot start the console reader", h->name);
		reap(c->pid, 1);
		goto fail;
	}
	*out = c;
	return 0;
fail:
	console_free(c);
	return -1;
}

void
board_console_mark(struct board_console *c, const char *fmt, ...)
{
	char when[64], *text, *line;
	va_list ap;

	if (c == NULL)
		return;
	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	clock_iso8601_now(when, sizeof(when), 0);
	line = xasprintf("\n=== fleetmark %s: %s ===\n", when, text);
	pthread_mutex_lock(&c->mu);
	console_write(c, line, strlen(line));
	strbuf_reset(&c->tail);
	pthread_mutex_unlock(&c->mu);
	free(line);
	free(text);
}

char *
board_console_excerpt(struct board_console *c, int wait_ms)
{
	long long deadline = clock_mono_ms() + wait_ms;
	char *s;

	if (c == NULL)
		return NULL;
	for (;;) {
		pthread_mutex_lock(&c->mu);
		s = board_excerpt(c->tail.buf, c->tail.len);
		pthread_mutex_unlock(&c->mu);
		if (s != NULL || clock_mono_ms() >= deadline)
			return s;
		clock_sleep_ms(100);
	}
}

void
board_console_stop(struct board_console *c)
{
	if (c == NULL)
		return;
	c->stop = 1;
	reap(c->pid, 1);
	pthread_join(c->th, NULL);
	console_free(c);
}

/* --- what explains a lost host --------------------------------------------------- */

static const char *const explaining[] = {
	"Kernel panic", "sysrq: Trigger a crash", "BUG:", "Oops", "general protection fault",
	"blocked for more than", "soft lockup", "hard LOCKUP", "detected stall",
	"self-detected stall", "WARNING: CPU:", "Out of memory: Killed process",
	"end Kernel panic", NULL
};
static const char *const context[] = { "RIP:", "Comm:", NULL };

static int
has_any(const char *line, const char *const *words)
{
	size_t i;

	for (i = 0; words[i] != NULL; i++)
		if (strstr(line, words[i]) != NULL)
			return 1;
	return 0;
}

/* One console line, printable: control characters and ANSI escapes out. */
static char *
clean_line(const char *p, size_t n)
{
	char *s = xmalloc(n + 1);
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];

		if (ch == 0x1b) {	/* ESC [ ... final byte */
			if (i + 1 < n && p[i + 1] == '[')
				for (i += 2; i < n && !(p[i] >= '@' && p[i] <= '~'); i++)
					;
			continue;
		}
		if (ch < 0x20 || ch == 0x7f)
			continue;
		s[k++] = (char)ch;
	}
	while (k > 0 && s[k - 1] == ' ')
		k--;
	if (k > LINE_MAX_QUOTED)
		k = LINE_MAX_QUOTED;
	s[k] = '\0';
	return s;
}

char *
board_excerpt(const char *text, size_t len)
{
	struct strbuf sb;
	const char *p = text, *end = text + len, *nl;
	size_t nlines = 0;
	int since = -1;
	char *line;

	if (text == NULL || len == 0)
		return NULL;
	strbuf_init(&sb, 256);
	while (p < end && nlines < BOARD_EXCERPT_LINES) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		line = clean_line(p, (size_t)(nl - p));
		p = nl + 1;
		if (has_any(line, explaining))
			since = 0;
		else if (since >= 0 && since < CONTEXT_LINES && has_any(line, context))
			;
		else {
			if (since >= 0)
				since++;
			free(line);
			continue;
		}
		if (sb.len > 0)
			strbuf_addstr(&sb, " | ");
		strbuf_addstr(&sb, line);
		nlines++;
		free(line);
	}
	if (sb.len == 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* --- the boot check ------------------------------------------------------------- */

void
board_boot_release(struct board_boot *b)
{
	if (b == NULL)
		return;
	free(b->boot_id);
	free(b->release);
	free(b->version);
	free(b->cmdline);
	memset(b, 0, sizeof(*b));
}

/* The next line of *p, as a new string. */
static char *
next_line(const char **p)
{
	size_t n = strcspn(*p, "\n");
	char *s = xstrndup(*p, n);

	*p += n + (((*p)[n] == '\n') ? 1 : 0);
	return s;
}

int
board_boot_read(struct transport *t, struct board_boot *out, char **err)
{
	struct transport_result res;
	const char *p;
	int r;

	memset(&res, 0, sizeof(res));
	r = transport_run(t, "cat /proc/sys/kernel/random/boot_id; uname -r; uname -v; "
	    "cat /proc/cmdline", NULL, 0, 8192, 30000, &res);
	if (r != 0 || res.exit.status != 0 || res.out == NULL) {
		*err = xasprintf("%s: cannot read the boot id and kernel: %s",
		    transport_name(t), r != 0 ? transport_error(t) : "the command failed");
		transport_result_release(&res);
		return -1;
	}
	p = res.out;
	memset(out, 0, sizeof(*out));
	out->boot_id = next_line(&p);
	out->release = next_line(&p);
	out->version = next_line(&p);
	out->cmdline = next_line(&p);
	transport_result_release(&res);
	if (strlen(out->boot_id) < 8) {
		board_boot_release(out);
		return err_set(err, -1, "%s: no boot id in /proc/sys/kernel/random/boot_id",
		    transport_name(t));
	}
	return 0;
}

int
board_boot_check(const struct board_boot *b, const char *old_id, const char *want,
    char **err)
{
	if (old_id != NULL && strcmp(b->boot_id, old_id) == 0)
		return err_set(err, -1, "the host did not reboot (boot id %s unchanged)",
		    b->boot_id);
	if (want != NULL && *want != '\0' && strstr(b->release, want) == NULL &&
	    strstr(b->version, want) == NULL && strstr(b->cmdline, want) == NULL)
		return err_set(err, -1, "the running kernel is not the one asked for: "
		    "'%s' is not in uname -r (%.64s), uname -v (%.80s) or /proc/cmdline "
		    "(%.120s)", want, b->release, b->version, b->cmdline);
	return 0;
}
