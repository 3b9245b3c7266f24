/*
 * test-progress.c: the progress display, with a fake clock: terminal
 * frames rendered into a buffer for given states (host lines, the bar,
 * the ETA, width, colour, NO_COLOR, more hosts than rows, text from a
 * host made harmless), in-place redrawing and its rate limit, messages
 * above the frame, plain timestamped lines, the counts of an interrupted
 * run and of hosts given up, and four threads reporting at once; the one-line status of a transfer on a pseudo-terminal.  No
 * assertion depends on real time.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "progress.h"
#include "tap.h"
#include "xmalloc.h"

#define T0	1007093702.0		/* 2001-11-30T04:15:02Z */

static double fake_now = T0;

static double
clock_fn(void *arg)
{
	(void)arg;
	return fake_now;
}

/* A progress writing to a temporary file, to read back what was drawn. */
static struct progress *
new_progress(enum progress_mode mode, FILE **f)
{
	struct progress *p;

	fake_now = T0;
	*f = tmpfile();
	p = progress_new(fileno(*f), mode);
	progress_set_clock(p, clock_fn, NULL);
	progress_set_size(p, 80, 24);
	return p;
}

static char *
written(FILE *f)
{
	long n;
	char *buf;

	fflush(f);
	n = lseek(fileno(f), 0, SEEK_END);
	buf = xmalloc((size_t)n + 1);
	if (pread(fileno(f), buf, (size_t)n, 0) != n)
		n = 0;
	buf[n] = '\0';
	return buf;
}

static size_t
count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)) != NULL; hay += strlen(needle))
		n++;
	return n;
}

static char frame[16384];

static const char *
render(struct progress *p)
{
	progress_render(p, frame, sizeof(frame));
	return frame;
}

/* The scene most tests draw: six hosts in every state. */
static struct progress *
scene(enum progress_mode mode, FILE **f)
{
	struct progress *p = new_progress(mode, f);
	size_t a, i;

	a = progress_add_host(p, "lab-01", 18);
	progress_add_host(p, "lab-02", 18);
	progress_add_host(p, "lab-03", 18);
	progress_add_host(p, "p690", 18);
	progress_add_host(p, "nhm-ep", 18);
	progress_add_host(p, "tx49-16k", 18);
	fake_now += 5;
	progress_state(p, 1, PROGRESS_CONNECTING, "bench@192.0.2.2");
	progress_state(p, 2, PROGRESS_DEPLOYING, "x86_64");
	/* tx49-16k: unreachable, its 18 trials recorded as connect failures */
	progress_trials_failed(p, 5, 18);
	progress_state(p, 5, PROGRESS_FAILED, "connect: connection refused");
	/* lab-01: three trials in 30 s, one failed, the fourth running */
	for (i = 1; i <= 3; i++) {
		progress_trial(p, a, i, "munmap threads=4 pages=16 rep 1");
		fake_now += 10;
		progress_trial_done(p, a, i == 2 ? "timeout" : NULL);
	}
	progress_trial(p, a, 4, "munmap threads=8 pages=16 rep 2");
	/* nhm-ep: all 18 done, one failed */
	for (i = 1; i <= 18; i++) {
		progress_trial(p, 4, i, "lat_syscall op=null");
		progress_trial_done(p, 4, i == 7 ? "bench: read failed" : NULL);
	}
	progress_state(p, 4, PROGRESS_DONE, NULL);
	return p;
}

static void
test_frame(void)
{
	FILE *f;
	struct progress *p = scene(PROGRESS_TERMINAL, &f);
	const char *want =
	    "lab-01    trial 4/18 (1 failed) munmap threads=8 pages=16 rep 2\n"
	    "lab-02    connecting bench@192.0.2.2\n"
	    "lab-03    deploying x86_64\n"
	    "p690      waiting\n"
	    "nhm-ep    done, 18 trials, 1 failed\n"
	    "tx49-16k  failed: connect: connection refused\n"
	    "[############.......................] 39/108 trials, 20 failed   36%  eta 2m30s\n";

	progress_set_color(p, 0);
	is_str(render(p), want, "a frame: every state, the bar and the ETA of the slowest host");
	/* The ETA: lab-01 ran 3 trials in 30 s and has 15 to go: 150 s.  The
	 * hosts that have not started go at the average pace of those that
	 * have: lab-01's 10 s and nhm-ep's 0 s a trial, so 18 x 5 s = 90 s.
	 * The slowest host decides: 2m30s. */
	progress_free(p);
	fclose(f);
}

static void
test_eta(void)
{
	FILE *f;
	struct progress *p = new_progress(PROGRESS_TERMINAL, &f);

	progress_set_color(p, 0);
	progress_add_host(p, "a", 10);
	progress_add_host(p, "b", 4);
	ok(strstr(render(p), "0/14 trials    0%  eta --\n") != NULL, "no trial finished: no ETA");
	progress_trial(p, 0, 1, "x");
	progress_trial(p, 1, 1, "y");
	fake_now += 20;
	progress_trial_done(p, 0, NULL);
	progress_trial(p, 0, 2, "x");
	ok(strstr(render(p), "1/14 trials    7%  eta 3m00s\n") != NULL,
	    "a: 20 s a trial, 9 to go; b at a's pace, 4 to go: 3m00s");
	progress_trial_done(p, 1, NULL);
	progress_trial_done(p, 1, NULL);
	progress_trial_done(p, 1, NULL);
	progress_trial_done(p, 1, "bench");
	progress_state(p, 1, PROGRESS_DONE, NULL);
	progress_trial_done(p, 0, "agent-lost");
	progress_trials_failed(p, 0, 8);	/* the rest, recorded as connect */
	progress_state(p, 0, PROGRESS_FAILED, "agent-lost: connection reset");
	ok(strstr(render(p), "14/14 trials, 10 failed  100%  in 20s\n") != NULL,
	    "a lost host's trials recorded as failed are finished, and failed: 100%");
	progress_free(p);
	fclose(f);
}

static void
test_width(void)
{
	FILE *f;
	struct progress *p = scene(PROGRESS_TERMINAL, &f);
	const char *s, *nl;
	int widest = 0, lines = 0;

	progress_set_color(p, 0);
	progress_set_size(p, 40, 24);
	for (s = render(p); (nl = strchr(s, '\n')) != NULL; s = nl + 1) {
		if (nl - s > widest)
			widest = (int)(nl - s);
		lines++;
	}
	is_int(widest, 39, "at 40 columns, lines are cut at 39");
	is_int(lines, 7, "still one line per host and the bar");
	ok(strstr(frame, "lab-01    trial 4/18 (1 failed) munmap \n") != NULL, "a host line cut");
	ok(strstr(frame, "\n[#####...........] 39/108 36% eta 2m30s\n") != NULL,
	    "narrow: the bar and the numbers that matter most");
	progress_set_size(p, 30, 24);
	ok(strstr(render(p), "\n39/108 36% eta 2m30s\n") != NULL, "narrower: the numbers alone");
	progress_set_size(p, 60, 24);
	ok(strstr(render(p), "\n[#####..........] 39/108 trials, 20 failed   36%  eta 2m30s\n"),
	    "a shorter bar at 60 columns");
	progress_free(p);
	fclose(f);

	/* UTF-8 is cut between characters, never inside one. */
	p = new_progress(PROGRESS_TERMINAL, &f);
	progress_set_color(p, 0);
	progress_set_size(p, 24, 24);
	progress_add_host(p, "h", 1);
	progress_trial(p, 0, 1, "exec command=\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\"");
	ok(strstr(render(p), "h  trial 1/1 exec comma\n") != NULL, "cut at 23 columns");

	progress_set_size(p, 34, 24);
	ok(strstr(render(p), "h  trial 1/1 exec command=\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n")
	    != NULL, "two-byte characters count one column each");
	progress_free(p);
	fclose(f);

	p = new_progress(PROGRESS_TERMINAL, &f);
	progress_set_color(p, 0);
	progress_add_host(p, "h", 1);
	progress_add_host(p, "a-host-name-longer-than-24-columns", 1);
	ok(strstr(render(p), "h                         waiting\n"
	    "a-host-name-longer-than-  waiting\n") != NULL,
	    "long host names are cut at PROGRESS_NAME_MAX columns");
	progress_free(p);
	fclose(f);
}

static void
test_color(void)
{
	FILE *f;
	struct progress *p = scene(PROGRESS_TERMINAL, &f);

	unsetenv("NO_COLOR");
	progress_set_color(p, 1);
	ok(strstr(render(p), "\033[32mdone\033[0m, 18 trials, \033[31m1 failed\033[0m") != NULL,
	    "colour: done in green, failures in red");
	ok(strstr(frame, "\033[31mfailed: connect: connection refused\033[0m") != NULL,
	    "a failed host in red");
	ok(strstr(frame, "lab-01    trial 4/18 (\033[31m1 failed\033[0m) munmap threads=8 pages=16 "
	    "rep 2\n") != NULL, "colour sequences do not count as columns");
	setenv("NO_COLOR", "", 1);
	progress_set_color(p, 1);
	ok(strchr(render(p), '\033') == NULL, "never with NO_COLOR, even empty");
	unsetenv("NO_COLOR");
	progress_free(p);
	fclose(f);

	p = new_progress(PROGRESS_TERMINAL, &f);
	ok(strchr(render(p), '\033') == NULL, "no colour when the output is not a terminal");
	progress_free(p);
	fclose(f);
}

static void
test_hostile_text(void)
{
	FILE *f;
	struct progress *p = new_progress(PROGRESS_TERMINAL, &f);
	char *out;

	progress_set_color(p, 0);
	progress_add_host(p, "lab-01", 1);
	progress_state(p, 0, PROGRESS_FAILED, "setup: \033[2J\033]0;owned\007\r\n\xc2\x9b" "31m\xff");
	ok(strstr(render(p), "lab-01  failed: setup: ?[2J?]0;owned????31m?\n") != NULL,
	    "controls, C1 controls and broken UTF-8 from a host become '?'");
	progress_free(p);
	fclose(f);

	p = new_progress(PROGRESS_PLAIN, &f);
	progress_add_host(p, "lab-01", 1);
	progress_state(p, 0, PROGRESS_FAILED, "x\033[2Jy\nz");
	out = written(f);
	is_str(out, "2001-11-30T04:15:02Z lab-01 failed: x?[2Jy?z\n", "and in plain lines");
	free(out);
	progress_free(p);
	fclose(f);
}

/* -v: a finished trial's values, one line that stays. */
static void
test_trial_values(void)
{
	FILE *f;
	struct progress *p = new_progress(PROGRESS_PLAIN, &f);
	char *out;

	progress_add_host(p, "lab-01", 18);
	progress_trial(p, 0, 4, "munmap threads=8 rep 2");
	progress_trial_done(p, 0, NULL);
	progress_trial_values(p, 0, "munmap threads=8 rep 2: ns_per_munmap 5032 ns\033[2J");
	out = written(f);
	ok(strstr(out, "2001-11-30T04:15:02Z lab-01 trial 4/18 munmap threads=8 rep 2: "
	    "ns_per_munmap 5032 ns?[2J\n") != NULL, "plain: a timestamped line with the values, "
	    "controls replaced");
	free(out);
	progress_free(p);
	fclose(f);

	p = new_progress(PROGRESS_TERMINAL, &f);
	progress_set_color(p, 0);
	progress_add_host(p, "lab-01", 18);
	progress_trial(p, 0, 4, "lat_ctx rep 1");
	progress_tick(p);
	progress_trial_done(p, 0, NULL);
	progress_trial_values(p, 0, "lat_ctx rep 1: latency 1.23 us");
	out = written(f);
	ok(strstr(out, "\033[Jlab-01 trial 4/18 lat_ctx rep 1: latency 1.23 us\n") != NULL &&
	    strstr(strstr(out, "latency 1.23 us\n"), "lab-01") != NULL,
	    "terminal: the line above the frame, which is drawn again below it");
	free(out);
	progress_free(p);
	fclose(f);

	p = new_progress(PROGRESS_QUIET, &f);
	progress_add_host(p, "lab-01", 1);
	progress_trial_values(p, 0, "x: y 1 us");
	out = written(f);
	is_str(out, "", "quiet: nothing");
	free(out);
	progress_free(p);
	fclose(f);
}

/* A failed trial: its message stays as a line on a terminal too. */
static void
test_trial_failure(void)
{
	FILE *f;
	struct progress *p = new_progress(PROGRESS_TERMINAL, &f);
	char *out;

	progress_set_color(p, 0);
	progress_add_host(p, "lab-01", 6);
	progress_trial(p, 0, 2, "lat_ctx procs=5000 rep 1");
	progress_tick(p);
	progress_trial_done(p, 0, "bad-request: parameter procs: 5000 is out of range\033[2J");
	out = written(f);
	ok(strstr(out, "\033[Jlab-01 trial 2/6 failed: bad-request: parameter procs: 5000 is "
	    "out of range?[2J\n") != NULL, "terminal: a failure with its message stays above "
	    "the frame, controls replaced");
	free(out);
	progress_trial(p, 0, 5, "lat_ctx procs=5000 rep 2");
	progress_tick(p);
	progress_trial_done(p, 0, "bad-request, as before");
	out = written(f);
	ok(strstr(out, "as before") == NULL, "terminal: a failure by class alone makes no line");
	free(out);
	progress_free(p);
	fclose(f);

	p = new_progress(PROGRESS_PLAIN, &f);
	progress_add_host(p, "lab-01", 6);
	progress_trial(p, 0, 5, "lat_ctx procs=5000 rep 2");
	progress_trial_done(p, 0, "bad-request, as before");
	out = written(f);
	ok(strstr(out, "lab-01 trial 5/6 failed: bad-request, as before\n") != NULL,
	    "plain: every failure is a line");
	free(out);
	progress_free(p);
	fclose(f);
}

static void
test_many_hosts(void)
{
	FILE *f;
	struct progress *p = new_progress(PROGRESS_TERMINAL, &f);
	char name[16];
	const char *s, *nl;
	size_t i;
	int lines = 0;

	progress_set_color(p, 0);
	progress_set_size(p, 80, 10);
	for (i = 0; i < 30; i++) {
		snprintf(name, sizeof(name), "node%02zu", i);
		progress_add_host(p, name, 2);
	}
	for (i = 0; i < 10; i++)
		progress_state(p, i, PROGRESS_DONE, NULL);
	progress_state(p, 12, PROGRESS_FAILED, "auth: permission denied");
	progress_trial(p, 25, 1, "spin");
	progress_state(p, 27, PROGRESS_CONNECTING, NULL);
	for (s = render(p); (nl = strchr(s, '\n')) != NULL; s = nl + 1)
		lines++;
	is_int(lines, 9, "30 hosts in 10 rows: 9 lines");
	ok(strncmp(frame, "node10  waiting\n", 16) == 0 && strstr(frame, "node12  failed") &&
	    strstr(frame, "node25  trial 1/2 spin\n") && strstr(frame, "node27  connecting\n"),
	    "busy and failed hosts are shown first, in order");
	ok(strstr(frame, "node00") == NULL, "done hosts make room");
	ok(strstr(frame, "+23 more: 0 busy, 0 failed, 13 waiting, 10 done\n") != NULL,
	    "the rest counted on one line");
	progress_free(p);
	fclose(f);
}

/*
 * A big fleet is summed up: on a terminal the hosts by state, the slowest
 * busy hosts, the failed ones and the bar, whatever the number of hosts;
 * off one no line per host state or trial, but the hosts by state at most
 * once a second (of the fake clock), and failures still on lines of their
 * own.
 */
static void
test_summary(void)
{
	FILE *f;
	struct progress *p = new_progress(PROGRESS_TERMINAL, &f);
	char name[16], *out;
	const char *s, *nl;
	size_t i, k;
	int lines = 0;

	progress_set_color(p, 0);
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "lab-%04zu", i + 1);
		progress_add_host(p, name, 4);
	}
	/* 900 running (trial 2 or 3 of 4; lab-0500 still on trial 1, and
	 * lab-0007 on its first since longest), 80 done, 12 failed, the rest
	 * deploying */
	for (i = 0; i < 900; i++) {
		fake_now += i == 6 ? 0 : 0.001;
		progress_trial(p, i, 1, "spin");
		if (i == 6 || i == 499)
			continue;
		progress_trial_done(p, i, NULL);
		progress_trial(p, i, 2, "spin");
		if (i % 2)
			continue;
		progress_trial_done(p, i, NULL);
		progress_trial(p, i, 3, "spin");
	}
	for (i = 900; i < 980; i++) {
		for (k = 1; k <= 4; k++) {
			progress_trial(p, i, k, "spin");
			progress_trial_done(p, i, NULL);
		}
		progress_state(p, i, PROGRESS_DONE, NULL);
	}
	for (i = 980; i < 992; i++) {
		progress_trials_failed(p, i, 4);
		progress_state(p, i, PROGRESS_FAILED, "connect: connection refused");
	}
	for (i = 992; i < 1000; i++)
		progress_state(p, i, PROGRESS_DEPLOYING, "waiting to start");
	for (s = render(p); (nl = strchr(s, '\n')) != NULL; s = nl + 1)
		lines++;
	ok(lines <= 23, "1000 hosts on 24 rows: at most 23 lines");
	ok(strncmp(frame, "1000 hosts: 8 deploying, 900 running, 80 done, 12 failed\n"
	    "slowest of 908 busy:\n", 78) == 0, "the hosts by state first, then the slowest");
	if (strncmp(frame, "1000 hosts", 10) != 0)
		printf("# got:\n%s", frame);
	s = strstr(frame, "busy:\n");
	ok(s != NULL && strncmp(s + 6, "lab-0007  trial 1/4 spin\nlab-0500  trial 1/4 spin\n",
	    50) == 0, "slowest: the fewest trials done, the longest at it first");
	ok(strstr(frame, "lab-0993  deploying waiting to start\n") != NULL,
	    "then the hosts not started");
	ok(strstr(frame, "failed (12):\nlab-0981  failed: connect: connection refused\n") != NULL,
	    "the failed hosts");
	ok(strstr(frame, "more failed") == NULL, "24 rows: every failed host fits");
	ok(strstr(frame, "lab-0901") == NULL, "no done host");
	ok(strstr(frame, "trials, 48 failed") != NULL, "and the bar");
	progress_set_size(p, 80, 10);
	render(p);
	for (lines = 0, s = frame; (nl = strchr(s, '\n')) != NULL; s = nl + 1)
		lines++;
	ok(lines <= 9, "10 rows: 9 lines at most");
	ok(strstr(frame, "failed (12):\nlab-0981  failed") != NULL &&
	    strstr(frame, "\n+10 more failed\n") != NULL && strstr(frame, "busy:\nlab-0007  trial 1/4 spin\n"
	    "lab-0500  trial 1/4 spin\nfailed") != NULL,
	    "those that do not fit counted, the slowest in half the rows");
	progress_set_summary(p, 0);
	render(p);
	ok(strstr(frame, "+993 more: ") != NULL, "summary 0: never summed up");
	progress_free(p);
	fclose(f);

	/* off a terminal */
	p = new_progress(PROGRESS_PLAIN, &f);
	progress_set_summary(p, 3);
	for (i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "h%zu", i);
		progress_add_host(p, name, 2);
	}
	for (i = 0; i < 5; i++)
		progress_state(p, i, PROGRESS_CONNECTING, "x");
	fake_now += 0.5;
	for (i = 0; i < 5; i++)
		progress_trial(p, i, 1, "spin");
	fake_now += 1;
	progress_trial_done(p, 0, NULL);
	progress_trial_done(p, 1, "bench: it broke");
	progress_trial_done(p, 2, "bench, as before");
	progress_trials_failed(p, 3, 2);
	progress_state(p, 3, PROGRESS_FAILED, "connect: refused");
	progress_end(p);
	out = written(f);
	is_str(out,
	    "2001-11-30T04:15:02Z 5 hosts: 4 waiting, 1 connecting; 0/10 trials, 0 failed\n"
	    "2001-11-30T04:15:03Z 5 hosts: 5 running; 1/10 trials, 0 failed\n"
	    "2001-11-30T04:15:03Z h1 trial 1/2 failed: bench: it broke\n"
	    "2001-11-30T04:15:03Z h3 failed: connect: refused\n"
	    "2001-11-30T04:15:03Z 5 hosts: 4 running, 1 failed; 5/10 trials, 4 failed\n"
	    "2001-11-30T04:15:03Z 5/10 trials, 4 failed, in 2s\n",
	    "plain: the hosts by state once a second, failures on their own lines");
	free(out);
	progress_free(p);
	fclose(f);
}

static void
test_redraw(void)
{
	FILE *f;
	struct progress *p = new_progress(PROGRESS_TERMINAL, &f);
	char *out;
	int i;

	progress_set_color(p, 0);
	progress_add_host(p, "lab-01", 5);
	progress_add_host(p, "lab-02", 5);
	out = written(f);
	is_int(count(out, "trials"), 1, "the first change is drawn at once");
	ok(strstr(out, "\033[3A") == NULL && strstr(out, "lab-01  waiting\033[K\n"),
	    "the first frame: lines cleared to their end, no cursor movement");
	free(out);
	for (i = 1; i <= 5; i++)
		progress_trial(p, 0, (size_t)i, "spin");
	progress_tick(p);
	out = written(f);
	is_int(count(out, "trials"), 1, "changes within 1/10 s wait (rate limit)");
	free(out);
	fake_now += 0.15;
	progress_tick(p);
	out = written(f);
	is_int(count(out, "trials"), 2, "and are drawn by the next tick");
	ok(strstr(out, "\r\033[2Alab-01  trial 5/5 spin\033[K\n") != NULL,
	    "drawn over the previous frame (of 2 lines, before lab-02 came)");
	free(out);
	progress_tick(p);
	out = written(f);
	is_int(count(out, "trials"), 2, "nothing new: nothing drawn");
	free(out);
	fake_now += 1.0;
	progress_tick(p);
	out = written(f);
	is_int(count(out, "trials"), 3, "but the ETA is refreshed every second");
	free(out);

	fake_now += 0.2;
	progress_message(p, "fleetmark: warning: lab-02: clock skew of 3 s");
	out = written(f);
	ok(strstr(out, "\r\033[3A\033[Jfleetmark: warning: lab-02: clock skew of 3 s\nlab-01  ")
	    != NULL, "a message goes above the frame, which is drawn again below it");
	free(out);

	fake_now += 0.2;
	for (i = 1; i <= 5; i++) {
		progress_trial_done(p, 0, NULL);
		progress_trial(p, 1, (size_t)i, "spin");
		progress_trial_done(p, 1, NULL);
	}
	progress_state(p, 0, PROGRESS_DONE, NULL);
	progress_state(p, 1, PROGRESS_DONE, NULL);
	progress_end(p);
	out = written(f);
	ok(strstr(out, "lab-02  done, 5 trials\033[K\n") != NULL &&
	    strstr(out, "10/10 trials  100%") != NULL, "the last frame is drawn at the end");
	free(out);
	progress_state(p, 0, PROGRESS_FAILED, "late");
	progress_message(p, "after");
	out = written(f);
	ok(strstr(out, "late") == NULL && strcmp(out + strlen(out) - 6, "after\n") == 0,
	    "after the end nothing is drawn in place; messages are plain lines");
	free(out);
	progress_free(p);
	fclose(f);
}

static void
test_plain(void)
{
	FILE *f;
	struct progress *p = scene(PROGRESS_PLAIN, &f);
	char *out = written(f);
	const char *want_start =
	    "2001-11-30T04:15:07Z lab-02 connecting bench@192.0.2.2\n"
	    "2001-11-30T04:15:07Z lab-03 deploying x86_64\n"
	    "2001-11-30T04:15:07Z tx49-16k failed: connect: connection refused\n"
	    "2001-11-30T04:15:07Z lab-01 trial 1/18 munmap threads=4 pages=16 rep 1\n"
	    "2001-11-30T04:15:17Z lab-01 trial 2/18 munmap threads=4 pages=16 rep 1\n"
	    "2001-11-30T04:15:27Z lab-01 trial 2/18 failed: timeout\n"
	    "2001-11-30T04:15:27Z lab-01 trial 3/18 munmap threads=4 pages=16 rep 1\n"
	    "2001-11-30T04:15:37Z lab-01 trial 4/18 munmap threads=8 pages=16 rep 2\n"
	    "2001-11-30T04:15:37Z nhm-ep trial 1/18 lat_syscall op=null\n";

	ok(strncmp(out, want_start, strlen(want_start)) == 0, "plain lines: a timestamp, the host, "
	    "its state");
	if (strncmp(out, want_start, strlen(want_start)) != 0)
		printf("# got:\n%s", out);
	ok(strstr(out, "2001-11-30T04:15:37Z nhm-ep trial 7/18 failed: bench: read failed\n") &&
	    strstr(out, "2001-11-30T04:15:37Z nhm-ep done, 18 trials, 1 failed\n"),
	    "failures and the end of a host");
	ok(strchr(out, '\033') == NULL && strchr(out, '\r') == NULL, "no terminal sequences");
	free(out);
	progress_end(p);
	out = written(f);
	ok(strstr(out, "2001-11-30T04:15:37Z 39/108 trials, 20 failed, in 35s\n") != NULL,
	    "a summary at the end");
	free(out);
	progress_free(p);
	fclose(f);

	p = new_progress(PROGRESS_QUIET, &f);
	progress_add_host(p, "a", 1);
	progress_state(p, 0, PROGRESS_CONNECTING, NULL);
	progress_message(p, "fleetmark: error: a: cannot connect");
	progress_end(p);
	out = written(f);
	is_str(out, "fleetmark: error: a: cannot connect\n", "quiet: only messages");
	free(out);
	progress_free(p);
	fclose(f);

	f = tmpfile();
	p = progress_new(fileno(f), PROGRESS_AUTO);
	ok(progress_mode(p) == PROGRESS_PLAIN, "auto: plain when not a terminal");
	ok(progress_start_ticker(p) == 0, "no ticker thread off a terminal (and no error)");
	progress_free(p);
	fclose(f);
	progress_free(NULL);
}


/*
 * The counts say what happened: an interrupted run counts the trials that
 * ran and says how many were not run; a host given up before any trial
 * counts its trials (recorded as failed) as failed.
 */
static void
test_counts(void)
{
	FILE *f;
	struct progress *p;
	char *out;
	size_t i;

	/* SIGINT: a ran 4 of 10 (the 4th cancelled), b all 10. */
	p = new_progress(PROGRESS_TERMINAL, &f);
	progress_set_color(p, 0);
	progress_add_host(p, "a", 10);
	progress_add_host(p, "b", 10);
	for (i = 1; i <= 10; i++) {
		if (i <= 4) {
			progress_trial(p, 0, i, "x");
			progress_trial_done(p, 0, i == 4 ? "cancelled" : NULL);
		}
		progress_trial(p, 1, i, "y");
		fake_now += 2;
		progress_trial_done(p, 1, NULL);
	}
	ok(strstr(render(p), "a  trial 4/10 (1 failed) x\n") != NULL &&
	    strstr(frame, "] 14/20 trials, 1 failed   70%  eta ") != NULL,
	    "while it runs: 14 of 20 finished");
	progress_state(p, 1, PROGRESS_DONE, NULL);
	progress_state(p, 0, PROGRESS_INTERRUPTED, NULL);
	is_str(render(p), "a  interrupted, 4 trials, 1 failed, 6 not run\n"
	    "b  done, 10 trials\n"
	    "[####################.........] 14/20 trials, 1 failed, 6 not run   70%  in 20s\n",
	    "interrupted: the trials that ran, and those not run; not 20/20");
	progress_free(p);
	fclose(f);

	p = new_progress(PROGRESS_PLAIN, &f);
	progress_add_host(p, "a", 10);
	progress_add_host(p, "b", 10);
	for (i = 1; i <= 4; i++) {
		progress_trial(p, 0, i, "x");
		progress_trial_done(p, 0, i == 4 ? "cancelled" : NULL);
	}
	fake_now += 8;
	progress_state(p, 0, PROGRESS_INTERRUPTED, NULL);
	progress_state(p, 1, PROGRESS_INTERRUPTED, NULL);
	progress_end(p);
	out = written(f);
	ok(strstr(out, "2001-11-30T04:15:10Z a interrupted, 4 trials, 1 failed, 6 not run\n") &&
	    strstr(out, "2001-11-30T04:15:10Z b interrupted, 0 trials, 10 not run\n"),
	    "plain: each interrupted host says what it did not run");
	ok(strstr(out, "2001-11-30T04:15:10Z 4/20 trials, 1 failed, 16 not run, in 8s\n") != NULL,
	    "plain: the last line counts what ran and what did not");
	free(out);
	progress_free(p);
	fclose(f);

	/* Unreachable: 6 trials recorded as connect failures. */
	p = new_progress(PROGRESS_PLAIN, &f);
	progress_add_host(p, "dead", 6);
	progress_state(p, 0, PROGRESS_CONNECTING, "198.18.9.9");
	progress_trials_failed(p, 0, 6);
	progress_state(p, 0, PROGRESS_FAILED, "connect: connection refused");
	progress_end(p);
	out = written(f);
	ok(strstr(out, "Z 6/6 trials, 6 failed, in 0s\n") != NULL,
	    "an unreachable host's trials failed: 6/6 trials, 6 failed");
	free(out);
	progress_free(p);
	fclose(f);

	/* More hosts than rows: interrupted ones before done ones, and counted
	 * apart. */
	p = new_progress(PROGRESS_TERMINAL, &f);
	progress_set_color(p, 0);
	progress_set_size(p, 80, 6);
	for (i = 0; i < 8; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%zu", i);
		progress_add_host(p, name, 2);
		progress_state(p, i, i >= 3 ? PROGRESS_INTERRUPTED : PROGRESS_DONE, NULL);
	}
	ok(strncmp(render(p), "n3  interrupted, 0 trials, 2 not run\n", 37) == 0 &&
	    strstr(frame, "+5 more: 0 busy, 0 failed, 0 waiting, 3 done, 2 interrupted\n")
	    != NULL, "the rest: interrupted hosts shown first, not said to be done or failed");
	progress_free(p);
	fclose(f);
}

struct worker {
	struct progress	*p;
	size_t		 host;
};

#define TRIALS	500

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	size_t i;

	for (i = 1; i <= TRIALS; i++) {
		progress_trial(w->p, w->host, i, "lat_syscall op=null rep 1");
		progress_trial_done(w->p, w->host, i % 50 == 0 ? "timeout" : NULL);
	}
	progress_state(w->p, w->host, PROGRESS_DONE, NULL);
	return NULL;
}

static void
test_threads(void)
{
	FILE *f;
	struct progress *p = new_progress(PROGRESS_PLAIN, &f);
	struct worker w[4];
	pthread_t th[4];
	char *out, *line, *save = NULL;
	size_t i, lines = 0, wellformed = 0;

	for (i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "lab-0%zu", i + 1);
		w[i].p = p;
		w[i].host = progress_add_host(p, name, TRIALS);
	}
	for (i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, worker_main, &w[i]);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	out = written(f);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lines++;
		wellformed += strncmp(line, "2001-11-30T", 11) == 0 && strlen(line) < 100 &&
		    (strstr(line, " trial ") || strstr(line, " done, 500 trials, 10 failed"));
	}
	is_int(lines, 4 * (TRIALS + TRIALS / 50 + 1), "four threads: every line");
	is_int(wellformed, lines, "none torn or interleaved");
	free(out);

	/* The same on a terminal, with a ticker thread running. */
	fclose(f);
	progress_free(p);
	p = new_progress(PROGRESS_TERMINAL, &f);
	for (i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "lab-0%zu", i + 1);
		w[i].p = p;
		w[i].host = progress_add_host(p, name, TRIALS);
	}
	ok(progress_start_ticker(p) == 0, "a ticker thread");
	for (i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, worker_main, &w[i]);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	progress_end(p);
	out = written(f);
	ok(strstr(out, "2000/2000 trials, 40 failed  100%") != NULL, "the last frame counts everything");
	free(out);
	progress_free(p);
	fclose(f);
}

/* What the pseudo-terminal master has to read (all of it, by now). */
static char *
pty_read(int master)
{
	static char buf[4096];
	ssize_t n;
	size_t got = 0;
	int fl = fcntl(master, F_GETFL);

	fcntl(master, F_SETFL, fl | O_NONBLOCK);
	while (got < sizeof(buf) - 1 && (n = read(master, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)n;
	fcntl(master, F_SETFL, fl);
	buf[got] = '\0';
	return buf;
}

static void
test_status_line(void)
{
	struct progress_line *l;
	struct termios tio;
	int fds[2], master, slave = -1;
	char *name, *term = getenv("TERM") ? xstrdup(getenv("TERM")) : NULL;

	if (pipe(fds) != 0) {
		printf("Bail out! pipe\n");
		exit(1);
	}
	ok(!progress_is_terminal(fds[1]) && progress_line_new(fds[1]) == NULL,
	    "status line: none on a pipe");
	progress_line_set(NULL, 1, "x");
	progress_line_message(NULL, "x");
	progress_line_end(NULL);
	ok(1, "... and NULL is taken by every call");
	close(fds[0]);
	close(fds[1]);

	if ((master = posix_openpt(O_RDWR | O_NOCTTY)) < 0 || grantpt(master) != 0 ||
	    unlockpt(master) != 0 || (name = ptsname(master)) == NULL ||
	    (slave = open(name, O_RDWR | O_NOCTTY)) < 0 || tcgetattr(slave, &tio) != 0) {
		ok(1, "status line on a terminal # SKIP no pseudo-terminal");
		if (slave >= 0)
			close(slave);
		if (master >= 0)
			close(master);
		free(term);
		return;
	}
	cfmakeraw(&tio);
	tcsetattr(slave, TCSANOW, &tio);
	setenv("TERM", "dumb", 1);
	ok(progress_line_new(slave) == NULL, "status line: none with TERM=dumb");
	setenv("TERM", "xterm", 1);
	l = progress_line_new(slave);
	ok(l != NULL, "status line on a terminal");
	progress_line_set(l, 1, "push %s: %d/%d files", "r1", 1, 4);
	progress_line_set(l, 1, "push %s: %d/%d files", "r1", 2, 4);
	is_str(pty_read(master), "\r\033[Kpush r1: 1/4 files\r\033[Kpush r1: 2/4 files",
	    "... redrawn in place, the cursor left on it");
	progress_line_message(l, "fleetmark: a message");
	progress_line_set(l, 0, "push r1: 3/4 files");
	progress_line_end(l);
	is_str(pty_read(master), "\r\033[Kfleetmark: a message\n\r\033[Kpush r1: 3/4 files\r\033[K",
	    "a message in its place, the line drawn again at once, cleared at the end");
	close(slave);
	close(master);
	if (term != NULL)
		setenv("TERM", term, 1);
	else
		unsetenv("TERM");
	free(term);
}

int
main(void)
{
	unsetenv("NO_COLOR");
	unsetenv("FLEETMARK_PROGRESS_SUMMARY");
	test_frame();
	test_eta();
	test_width();
	test_color();
	test_hostile_text();
	test_trial_values();
	test_trial_failure();
	test_many_hosts();
	test_summary();
	test_redraw();
	test_plain();
	test_counts();
	test_threads();
	test_status_line();
	return tap_done();
}
