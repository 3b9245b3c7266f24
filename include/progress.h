/*
 * progress.h: what the person at the terminal sees while a run goes
 * (docs/guide.md, "Progress and output").
 *
 * On a terminal: one line per host with its state (waiting, connecting,
 * deploying, trial k/N and what it measures, done, failed: reason) and
 * an overall bar with the trials finished and an ETA, redrawn in place
 * with ANSI cursor movement, at most PROGRESS_MAX_FPS times a second,
 * each line cut to the terminal's width.  When there are more hosts than
 * rows, the busy and failed hosts are shown and the rest summed up in one
 * line.  Colour only when the output is a terminal and NO_COLOR is not
 * set.
 *
 * A big fleet (more than PROGRESS_SUMMARY_HOSTS hosts, or the number in
 * FLEETMARK_PROGRESS_SUMMARY; 0 never) is summed up instead: on a
 * terminal, the hosts by state, the five busy hosts furthest behind
 * (fewest of their trials done, then longest in their state), the failed hosts (as many as fit, then "+N more failed") and
 * the bar:
 *
 *	1000 hosts: 120 deploying, 812 running, 64 done, 4 failed
 *	slowest of 932 busy:
 *	lab-0417  deploying waiting to start
 *	...
 *	failed (4):
 *	lab-0086  failed: connect: connection refused
 *	[######.......]  2130/6000 trials, 24 failed   35%  eta 41s
 *
 * and off one, no line per host state or trial start, but a line with
 * the hosts by state and the trials at most once a second while they
 * change; the hosts that fail and the first failure of each point with
 * its message still get their own lines.
 *
 * Off a terminal (a pipe, a file, CI): one plain line per state change,
 * timestamped in UTC, and a last line with the counts:
 *
 *	2026-11-30T04:15:02Z lab-03 trial 4/18 munmap threads=8 pages=16 rep 2
 *	2026-11-30T04:16:40Z 63/114 trials, 2 failed, 51 not run, in 1m38s
 *
 * The counts are of trials, honestly: "63/114" the trials that ended (ran,
 * or were recorded failed without running: a host given up), of those to
 * run; "failed" those of them that did not end ok; "not run" what an
 * interrupted run left for --resume.
 *
 * Text that came from a host (a failure reason) is shown with control
 * characters replaced, so a host cannot drive the terminal.
 *
 * Threads: every function may be called from any thread at the same time
 * (host workers report their own states), except progress_free().
 * Output goes out with one write() per frame or line.
 *
 * Host workers report; the run engine either calls progress_tick() about
 * ten times a second or lets progress_start_ticker() do it, so that a
 * frame skipped by the rate limit is drawn soon after and the ETA counts
 * down.  Log messages printed while a frame is on the screen must go
 * through progress_message(), which prints them above the frame.
 */
#ifndef FLEETMARK_PROGRESS_H
#define FLEETMARK_PROGRESS_H

#include <stddef.h>

#define PROGRESS_MAX_FPS	10
#define PROGRESS_NAME_MAX	24	/* columns of host names, longer ones are cut */
#define PROGRESS_SUMMARY_HOSTS	64	/* more hosts: summed up (see above) */

enum progress_mode {
	PROGRESS_AUTO,		/* TERMINAL when the fd is a terminal (and TERM is
				 * not "dumb"), else PLAIN */
	PROGRESS_TERMINAL,	/* redrawn in place */
	PROGRESS_PLAIN,		/* timestamped lines */
	PROGRESS_QUIET,		/* nothing but progress_message() */
};

enum progress_state {
	PROGRESS_WAITING,	/* not started yet */
	PROGRESS_CONNECTING,
	PROGRESS_DEPLOYING,
	PROGRESS_RUNNING,	/* between trials, or setting a variant up */
	PROGRESS_DONE,
	PROGRESS_FAILED,	/* gave up on the host */
	PROGRESS_INTERRUPTED,	/* stopped (run_request_stop()): the trials it
				 * did not get to are not run */
};

struct progress;

/* Report to fd (not closed by progress_free()). */
struct progress *progress_new(int fd, enum progress_mode mode);
void	progress_free(struct progress *p);

/* The mode AUTO resolved to. */
enum progress_mode progress_mode(const struct progress *p);

/*
 * Add a host that will run ntrials trials; returns its index for the
 * calls below.  Hosts are shown in the order added.  The name is copied.
 */
size_t	progress_add_host(struct progress *p, const char *name, size_t ntrials);

/*
 * A host's state changed.  detail (copied; NULL for none) follows the
 * state's word: "connecting bench@192.0.2.14", "deploying x86_64", and for
 * PROGRESS_FAILED the reason ("failed: connect: connection refused").
 * The trials a host in one of the last three states (done, failed,
 * interrupted) did not finish are "not run".
 */
void	progress_state(struct progress *p, size_t host, enum progress_state st,
	    const char *detail);

/*
 * n of the host's trials were recorded as failed without running (the
 * host was given up: connect, auth, deploy, lost): they are finished, and
 * failed.
 */
void	progress_trials_failed(struct progress *p, size_t host, size_t n);

/* n trials more for the host than it had (`repeat: auto` added a round). */
void	progress_add_trials(struct progress *p, size_t host, size_t n);

/*
 * Trial k (1-based) of the host's N starts; `what` (copied) says what it
 * measures: "munmap threads=8 pages=16 rep 2".  The host is RUNNING.
 */
void	progress_trial(struct progress *p, size_t host, size_t k, const char *what);

/*
 * The host's current trial finished: failure NULL when ok, else why: its
 * class ("bench", "setup, as before") or "class: message" (copied; from a
 * host, so sanitized when shown).  Off a terminal every failure is a
 * line; on one, a failure with a message (": ") also stays as a line
 * above the frame, "lab-03 trial 2/6 failed: bad-request: ...".
 */
void	progress_trial_done(struct progress *p, size_t host, const char *failure);

/*
 * The values of the host's trial that just finished (for -v), one line
 * that stays: "lab-03 trial 4/18 munmap threads=8 rep 2: ns_per_munmap
 * 5032 ns, ...", above the frame on a terminal, timestamped off one,
 * nothing when quiet.  values (copied) come from a host: control
 * characters are replaced.
 */
void	progress_trial_values(struct progress *p, size_t host, const char *values);

/*
 * A line for the person (a log message, already formatted, without its
 * newline): on a terminal it appears above the frame, which is redrawn
 * below it; otherwise it is written as it is.
 */
void	progress_message(struct progress *p, const char *line);

/* Redraw if a change is waiting or the ETA needs a refresh (terminal). */
void	progress_tick(struct progress *p);

/* A thread that calls progress_tick() every 1/PROGRESS_MAX_FPS s (terminal
 * mode only; does nothing otherwise) until progress_end(). */
int	progress_start_ticker(struct progress *p);

/*
 * The run is over: the last frame is drawn and left on the screen, the
 * cursor below it; nothing is drawn in place after this.
 */
void	progress_end(struct progress *p);

/* --- One status line --------------------------------------------------------- */

/*
 * Whether progress written to fd is drawn in place: fd is a terminal and
 * TERM is not "dumb".  PROGRESS_AUTO resolves by this rule, and so does
 * progress_line_new(); colour takes NO_COLOR unset besides.
 */
int	progress_is_terminal(int fd);

/*
 * One line of status redrawn in place, for a task that is not a run (an
 * archive transfer: "push RUNID: 3/7 files, 1.2 of 4.0 MB").  The line is
 * written as given, after "\r\033[K", with one write() and no newline, so
 * the cursor stays on it.
 *
 * progress_line_new() returns NULL when fd is not a terminal
 * (progress_is_terminal()): the caller then says what it does in plain
 * log lines.  Every function below takes NULL and does nothing.  A line
 * is used from one thread at a time.
 */
struct progress_line;

struct progress_line *progress_line_new(int fd);

/*
 * Set the line to the formatted text and draw it: at once with force,
 * else only when it was last drawn 1/PROGRESS_MAX_FPS s ago or more (a
 * call in between draws nothing; the next one shows the news).
 */
void	progress_line_set(struct progress_line *l, int force, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/*
 * A line for the person (a log message, formatted, without its newline):
 * the status line is cleared, the message written in its place, and the
 * status line drawn again by the next progress_line_set(), whatever the
 * rate.
 */
void	progress_line_message(struct progress_line *l, const char *line);

/* Clear the status line from the screen and free l. */
void	progress_line_end(struct progress_line *l);

/* --- For tests ------------------------------------------------------------- */

/* Replace the clock (seconds since the epoch) used for stamps, ETA and the
 * rate limit. */
void	progress_set_clock(struct progress *p, double (*now)(void *arg), void *arg);
/* Pretend the terminal is cols x rows (0: ask the terminal). */
void	progress_set_size(struct progress *p, int cols, int rows);
void	progress_set_color(struct progress *p, int on);
/* Sum the hosts up when there are more than this many (0: never). */
void	progress_set_summary(struct progress *p, size_t hosts);

/*
 * The terminal frame for the current state, as it would be drawn but
 * without cursor movement: lines ending in "\n".  Writes at most size
 * bytes (NUL included) into buf; returns the length of the whole frame
 * (as snprintf).
 */
size_t	progress_render(struct progress *p, char *buf, size_t size);

#endif /* FLEETMARK_PROGRESS_H */
