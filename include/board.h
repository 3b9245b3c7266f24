/*
 * board.h: hosts that hang and kernels that do not boot (docs/boards.md):
 * the serial console recorded for a run, power commands, and the boot
 * check after a reboot.
 *
 * An inventory host may say how to power-cycle it (`power:`), where its
 * serial console is (`console:`), how long it may take to boot
 * (`boot_timeout:`) and how many power cycles a run may spend on it
 * (`recover:`); fleet.h holds those settings, this module acts on them.
 * Commands run on the controller through /bin/sh with FLEETMARK_HOST set
 * to the host's name.
 *
 * Errors: 0 or -1 with a newly allocated message naming the host in *err.
 */
#ifndef FLEETMARK_BOARD_H
#define FLEETMARK_BOARD_H

#include <stddef.h>

struct fleet_host;
struct transport;

#define BOARD_CONSOLE_MAX	(8u << 20)	/* bytes of logs/NAME.console */
#define BOARD_TAIL_MAX		(64u << 10)	/* console kept since the last mark */
#define BOARD_EXCERPT_LINES	12		/* lines quoted in a failure reason */
#define BOARD_POWER_MS		60000		/* for a power command to end */

/*
 * The console of one host, recorded for the whole run.  A child runs the
 * host's `console:` command in a process group of its own; a thread copies
 * what it prints into `path` (created or appended to; at most
 * BOARD_CONSOLE_MAX bytes, then one line says the rest was dropped) and
 * keeps the text since the last mark for board_console_excerpt().
 * Thread-safe.
 */
struct board_console;

/*
 * Start recording.  Returns 0 with *out (free with board_console_stop()),
 * or -1 with *err when the command cannot be started or the file opened.
 */
int	board_console_start(const struct fleet_host *h, const char *path,
	    struct board_console **out, char **err);

/*
 * Write a marker line into the file ("=== fleetmark TIME: TEXT ===") and
 * start a new excerpt window from it (trial starts, power cycles).
 */
void	board_console_mark(struct board_console *c, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/*
 * The lines since the last mark that explain a lost host (a panic, an
 * oops, a BUG, a hung task, a lockup, an RCU stall), as one new string of
 * at most BOARD_EXCERPT_LINES lines joined by " | ", or NULL when the
 * console said nothing of the kind.  Waits up to wait_ms for such a line
 * when none has arrived yet.
 */
char	*board_console_excerpt(struct board_console *c, int wait_ms);

/* Stop the command (its process group, by pid), end the thread, free c.
 * NULL is fine. */
void	board_console_stop(struct board_console *c);

/*
 * The lines of text[0..len) that explain a lost host, as above (the pure
 * part of board_console_excerpt(), for tests).  Control characters are
 * dropped, each line is cut at 200 bytes.  Returns a new string or NULL.
 */
char	*board_excerpt(const char *text, size_t len);

/*
 * Run one of h's power commands: "cycle", "off" or "on" (off and on only
 * when the inventory gives them), waiting up to BOARD_POWER_MS.  Returns
 * 0 when it exited 0, else -1 with *err (the status and the first line it
 * printed on stderr).
 */
int	board_power(const struct fleet_host *h, const char *which, char **err);

/* What a booted host says about its kernel. */
struct board_boot {
	char	*boot_id;	/* /proc/sys/kernel/random/boot_id */
	char	*release;	/* uname -r */
	char	*version;	/* uname -v */
	char	*cmdline;	/* /proc/cmdline */
};

/* Ask the host over t.  0, or -1 with *err; release with
 * board_boot_release(). */
int	board_boot_read(struct transport *t, struct board_boot *out, char **err);
void	board_boot_release(struct board_boot *b);

/*
 * The boot check: 0 when b's kernel (release, version or command line)
 * contains `want` (NULL: anything) and, when old_id is not NULL, its boot
 * id differs from old_id; else -1 with *err saying which.
 */
int	board_boot_check(const struct board_boot *b, const char *old_id,
	    const char *want, char **err);

#endif /* FLEETMARK_BOARD_H */
