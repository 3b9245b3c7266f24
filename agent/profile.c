/*
 * profile.c: a system-wide perf profile around one trial.
 *
 * The supervisor starts `perf record -a` in its own process group just
 * before it forks the trial, interrupts it (SIGINT, then SIGKILL after a
 * bounded wait) as soon as the trial has exited, and turns the recording
 * into the top functions with `perf report --stdio --sort sym -n`, read
 * as it streams, bounded in time and bytes.  Everything lives in the
 * trial's scratch directory, which the supervisor removes.  A profile that
 * cannot be made (no perf, not permitted, perf failed) never fails the
 * trial: the profile line says why it is absent.
 *
 * perf is found on PATH and run as it is; the agent links nothing of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "jline.h"
#include "timing.h"

#define PROFILE_EVENT		"cpu-clock"	/* a software event: works in VMs too */
#define PROFILE_FREQ		"999"		/* samples per second and CPU */
#define PROFILE_DATA		"perf.data"
#define PROFILE_ERR		"perf-record.err"
#define PROFILE_REPORT_ERR	"perf-report.err"
#define PROFILE_READY_S		3.0	/* for perf record to start writing */
#define PROFILE_STOP_S		5.0	/* for perf record to finish after SIGINT */
#define PROFILE_REPORT_S	20.0	/* for perf report */
#define PROFILE_REPORT_BYTES	(64L * 1024 * 1024)	/* of perf report output read */
#define PROFILE_LINE		4096	/* longer report lines are cut */

/* Linux capability numbers (capability.h is not needed for two bits). */
#define CAP_SYS_ADMIN_BIT	21
#define CAP_PERFMON_BIT		38

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The first executable `perf` on PATH, into buf. */
static int
find_perf(char *buf, size_t cap)
{
	const char *path = getenv("PATH"), *p;
	size_t n;

	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
	for (p = path; *p; p += n + (p[n] == ':')) {
		n = strcspn(p, ":");
		if (n == 0 || p[0] != '/')
			continue;
		if ((size_t)snprintf(buf, cap, "%.*s/perf", (int)n, p) >= cap)
			continue;
		if (access(buf, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* Whether this process has capability bit `bit` in its effective set. */
static int
has_cap(int bit)
{
	char line[256];
	unsigned long long eff;
	FILE *f = fopen("/proc/self/status", "r");
	int yes = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			yes = (eff >> bit) & 1;
			break;
		}
	fclose(f);
	return yes;
}

/*
 * Why system-wide profiling is not permitted here, into why; 0 when it
 * should be.  The kernel allows CPU-wide events to users without
 * CAP_PERFMON (or CAP_SYS_ADMIN) only with perf_event_paranoid <= 0.
 */
static int
not_permitted(char *why, size_t cap)
{
	char buf[32];
	long level;

	if (read_text("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) != 0) {
		snprintf(why, cap, "no perf events in this kernel "
		    "(no /proc/sys/kernel/perf_event_paranoid)");
		return -1;
	}
	level = strtol(buf, NULL, 10);
	if (level <= 0 || geteuid() == 0 || has_cap(CAP_PERFMON_BIT) ||
	    has_cap(CAP_SYS_ADMIN_BIT))
		return 0;
	snprintf(why, cap, "perf_event_paranoid=%ld: system-wide profiling needs root "
	    "(or perf_event_paranoid <= 0)", level);
	return -1;
}

/* argv[0..] in its own process group with stdout to out_fd (or /dev/null)
 * and stderr to errpath; dies with the agent. */
static pid_t
spawn(char *const *argv, const char *dir, int out_fd, const char *errpath)
{
	pid_t pid;
	int fd;

	if ((pid = fork()) != 0) {
		if (pid > 0)
			setpgid(pid, pid);
		return pid;
	}
	supervise_child_init();
	if ((fd = open("/dev/null", O_RDWR)) >= 0) {
		dup2(fd, 0);
		if (out_fd < 0)
			dup2(fd, 1);
		if (fd > 2)
			close(fd);
	}
	if (out_fd >= 0 && out_fd != 1) {
		dup2(out_fd, 1);
		close(out_fd);
	}
	if ((fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0 && fd != 2) {
		dup2(fd, 2);
		close(fd);
	}
	if (chdir(dir) != 0)
		_exit(127);
	execv(argv[0], argv);
	fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* The first line of a file perf wrote its complaints to, into why. */
static void
first_complaint(const char *dir, const char *name, const char *what, char *why,
    size_t cap)
{
	char path[4096], text[512], *p = text, *nl;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text[0] = '\0';
	read_text(path, text, sizeof(text));
	/* perf's own progress lines ("[ perf record: ...") are not the reason */
	while (*p == '[' || *p == '\n' || *p == ' ') {
		if ((nl = strchr(p, '\n')) == NULL) {
			p += strlen(p);
			break;
		}
		p = nl + 1;
	}
	if ((nl = strchr(p, '\n')) != NULL)
		*nl = '\0';
	snprintf(why, cap, "%s failed%s%s", what, *p ? ": " : "", p);
}

/* Wait for pid at most secs; 1 when it exited (status in *st), else 0. */
static int
wait_for(pid_t pid, double secs, int *st)
{
	double until = timing_now() + secs * 1e9;
	pid_t w;

	for (;;) {
		w = waitpid(pid, st, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			return 1;
		if (timing_now() >= until)
			return 0;
		sleep_ms(5);
	}
}

void
profile_init(struct profile *p, int want)
{
	memset(p, 0, sizeof(*p));
	p->want = want;
}

int
profile_start(struct profile *p, const char *tmpdir)
{
	char perf[1024], data[4096], err[4096];
	char *argv[] = { perf, "record", "-a", "-e", PROFILE_EVENT, "-F", PROFILE_FREQ,
		"-N", "-B", "-o", data, NULL };
	double until;
	struct stat st;
	int status;

	if (!p->want)
		return 0;
	p->dir = tmpdir;
	if (find_perf(perf, sizeof(perf)) != 0) {
		snprintf(p->absent, sizeof(p->absent), "perf not found");
		return -1;
	}
	if (not_permitted(p->absent, sizeof(p->absent)) != 0)
		return -1;
	snprintf(data, sizeof(data), "%s/" PROFILE_DATA, tmpdir);
	snprintf(err, sizeof(err), "%s/" PROFILE_ERR, tmpdir);
	if ((p->pid = spawn(argv, tmpdir, -1, err)) < 0) {
		p->pid = 0;
		snprintf(p->absent, sizeof(p->absent), "cannot start perf: %s",
		    strerror(errno));
		return -1;
	}
	/* perf writes its file header once the events are open */
	until = timing_now() + PROFILE_READY_S * 1e9;
	while (stat(data, &st) != 0 || st.st_size == 0) {
		if (wait_for(p->pid, 0, &status)) {
			p->pid = 0;
			first_complaint(tmpdir, PROFILE_ERR, "perf record", p->absent,
			    sizeof(p->absent));
			return -1;
		}
		if (timing_now() >= until || supervise_stopping())
			break;	/* slow to start: profile what it catches */
		sleep_ms(10);
	}
	return 0;
}

void
profile_kill(struct profile *p)
{
	if (p->pid > 0) {
		kill(-p->pid, SIGKILL);
		kill(p->pid, SIGKILL);
	}
}

void
profile_interrupt(struct profile *p)
{
	if (p->pid > 0 && !p->interrupted) {
		kill(-p->pid, SIGINT);
		p->interrupted = 1;
	}
}

int
profile_stop(struct profile *p)
{
	int status = 0, done;

	if (p->pid <= 0)
		return -1;
	profile_interrupt(p);
	done = wait_for(p->pid, supervise_stopping() ? 0 : PROFILE_STOP_S, &status);
	kill(-p->pid, SIGKILL);		/* whatever perf left in its group */
	if (!done) {
		kill(p->pid, SIGKILL);
		while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
			;
		if (p->absent[0] == '\0')
			snprintf(p->absent, sizeof(p->absent),
			    "perf record did not stop within %.0f s", PROFILE_STOP_S);
		p->pid = 0;
		return -1;
	}
	p->pid = 0;
	/* perf record ends with the status of the SIGINT it was sent */
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) &&
	    !(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) &&
	    !(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGINT)) {
		first_complaint(p->dir, PROFILE_ERR, "perf record", p->absent,
		    sizeof(p->absent));
		return -1;
	}
	p->recorded = 1;
	return 0;
}

/*
 * One line of `perf report --stdio --sort sym -n`:
 *	"    10.50%          1234  [k] clear_page_erms"
 * Header lines start with '#'; "# Samples: 12K of event 'cpu-clock'" names
 * the event.  Returns 1 for an entry, 0 otherwise.
 */
static int
parse_report_line(struct profile *p, char *line, unsigned long long *hits,
    char **sym)
{
	char *s = line, *e, *q;
	size_t n;

	if (*s == '#') {
		if ((s = strstr(line, " of event '")) != NULL && p->event[0] == '\0') {
			s += strlen(" of event '");
			if ((e = strchr(s, '\'')) != NULL && e > s) {
				n = (size_t)(e - s) < sizeof(p->event) - 1 ?
				    (size_t)(e - s) : sizeof(p->event) - 1;
				memcpy(p->event, s, n);
				p->event[n] = '\0';
			}
		}
		return 0;
	}
	while (*s == ' ' || *s == '\t')
		s++;
	strtod(s, &e);
	if (e == s || *e != '%')
		return 0;
	s = e + 1;
	while (*s == ' ' || *s == '\t')
		s++;
	*hits = strtoull(s, &e, 10);
	if (e == s || (*e != ' ' && *e != '\t'))
		return 0;
	s = e;
	while (*s == ' ' || *s == '\t')
		s++;
	/* "[k] ", "[.] ", "[g] "...: where the function is, not its name */
	if (s[0] == '[' && s[1] != '\0' && s[2] == ']' && s[3] == ' ')
		s += 4;
	q = s + strlen(s);
	while (q > s && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\r'))
		*--q = '\0';
	if (*s == '\0')
		return 0;
	*sym = s;
	return 1;
}

static void
take_line(struct profile *p, char *line)
{
	unsigned long long hits = 0;
	char *sym;
	size_t n;

	if (!parse_report_line(p, line, &hits, &sym))
		return;
	p->total += hits;
	if (p->ntop >= WIRE_PROFILE_TOP)
		return;
	n = strlen(sym);
	if (n >= sizeof(p->top[0].sym)) {
		n = sizeof(p->top[0].sym) - 1;
		while (n > 0 && ((unsigned char)sym[n] & 0xc0) == 0x80)
			n--;	/* cut on a UTF-8 boundary */
	}
	memcpy(p->top[p->ntop].sym, sym, n);
	p->top[p->ntop].sym[n] = '\0';
	p->top[p->ntop].hits = hits;
	p->ntop++;
}

/*
 * Run perf report and read its top functions; a heartbeat goes to out_fd
 * every AGENT_HEARTBEAT seconds so the controller knows the trial lives.
 */
static int
report(struct profile *p, int out_fd, const char *id, double start)
{
	char perf[1024], data[4096], err[4096], line[PROFILE_LINE + 1], buf[8192];
	char *argv[] = { perf, "report", "-i", data, "--stdio", "--sort", "sym", "-n",
		NULL };
	double until = timing_now() + PROFILE_REPORT_S * 1e9, beat, now;
	size_t len = 0, i;
	long total_read = 0;
	int fds[2], status = 0, done = 0, cut = 0;
	struct pollfd pfd;
	struct jline j;
	ssize_t n;
	pid_t pid;

	if (find_perf(perf, sizeof(perf)) != 0) {
		snprintf(p->absent, sizeof(p->absent), "perf not found");
		return -1;
	}
	snprintf(data, sizeof(data), "%s/" PROFILE_DATA, p->dir);
	snprintf(err, sizeof(err), "%s/" PROFILE_REPORT_ERR, p->dir);
	if (pipe(fds) != 0 || (pid = spawn(argv, p->dir, fds[1], err)) < 0) {
		snprintf(p->absent, sizeof(p->absent), "cannot start perf report: %s",
		    strerror(errno));
		return -1;
	}
	close(fds[1]);
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	beat = timing_now() + AGENT_HEARTBEAT * 1e9;
	for (;;) {
		now = timing_now();
		if (now >= until || supervise_stopping()) {
			cut = 1;
			break;
		}
		if (now >= beat) {
			jl_begin(&j, WIRE_HEARTBEAT, id);
			jl_num(&j, "elapsed", (now - start) / 1e9);
			jl_emit(&j, out_fd);
			beat = now + AGENT_HEARTBEAT * 1e9;
		}
		pfd.fd = fds[0];
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 500) <= 0)
			continue;
		if ((n = read(fds[0], buf, sizeof(buf))) < 0 && (errno == EINTR ||
		    errno == EAGAIN))
			continue;
		if (n <= 0) {
			done = 1;
			break;
		}
		if ((total_read += n) > PROFILE_REPORT_BYTES) {
			cut = 1;
			break;
		}
		for (i = 0; i < (size_t)n; i++) {
			if (buf[i] != '\n') {
				if (len < PROFILE_LINE)
					line[len++] = buf[i];	/* the rest of a long line is cut */
				continue;
			}
			line[len] = '\0';
			take_line(p, line);
			len = 0;
		}
	}
	close(fds[0]);
	kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (cut) {
		snprintf(p->absent, sizeof(p->absent), "perf report took more than %.0f s "
		    "or %ld MB", PROFILE_REPORT_S, PROFILE_REPORT_BYTES >> 20);
		return -1;
	}
	if (!done || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		first_complaint(p->dir, PROFILE_REPORT_ERR, "perf report", p->absent,
		    sizeof(p->absent));
		return -1;
	}
	if (p->total == 0) {
		snprintf(p->absent, sizeof(p->absent), "perf recorded no samples");
		return -1;
	}
	return 0;
}

void
profile_emit(struct profile *p, int out_fd, const char *id, const char *bench,
    double start)
{
	struct jline j;
	int i;

	if (!p->want)
		return;
	if (p->recorded && p->absent[0] == '\0')
		report(p, out_fd, id, start);
	if (p->absent[0] == '\0' && !p->recorded)
		snprintf(p->absent, sizeof(p->absent), "perf did not record");
	jl_begin(&j, WIRE_PROFILE, id);
	jl_str(&j, "bench", bench);
	jl_str(&j, "profiler", WIRE_PROFILE_PERF);
	if (p->absent[0] != '\0') {
		jl_str(&j, "absent", p->absent);
		jl_emit(&j, out_fd);
		return;
	}
	jl_str(&j, "event", p->event[0] ? p->event : PROFILE_EVENT);
	jl_int(&j, "samples", (long long)p->total);
	jl_arr(&j, "top");
	for (i = 0; i < p->ntop; i++) {
		jl_obj(&j, NULL);
		jl_str(&j, "sym", p->top[i].sym);
		jl_int(&j, "hits", (long long)p->top[i].hits);
		jl_num(&j, "pct", (double)(long long)(p->top[i].hits * 10000.0 / p->total +
		    0.5) / 100);
		jl_close(&j);
	}
	jl_close(&j);
	jl_emit(&j, out_fd);
}
