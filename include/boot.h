/*
 * boot.h: making a host boot into a kernel from the controller, and
 * telling that it did: the hook commands of `fleetmark bisect-run`
 * (--install, --reboot) and the side commands of `fleetmark ab`, and the
 * wait until the host answers SSH again with its boot id and kernel
 * (board.h has the boot check itself).
 *
 * A hook is a command line run on the controller through /bin/sh -c, with
 * the caller's environment (the callers set FLEETMARK_HOST and their own
 * variables first) and stdin from /dev/null.  A line
 * FLEETMARK_EXPECT_KERNEL=STRING that it prints says what the host's
 * kernel must contain after the boot it asks for.  It runs in a process
 * group of its own (proc.h), which is ended (SIGTERM, then SIGKILL) with
 * everything in it when the hook exits (what it left in the background
 * too: a process meant to outlive it leaves the group, with setsid), when
 * it runs past its timeout, and at a stop (run_request_stop(), run.h: a
 * ^C at the terminal reaches fleetmark, not the hook's group).
 *
 * Errors: 0, or -1 with a newly allocated message in *err (or *why).
 */
#ifndef FLEETMARK_BOOT_H
#define FLEETMARK_BOOT_H

#include <stdio.h>

struct board_boot;
struct bootspec;
struct fleet_host;

#define BOOT_EXPECT_LINE	"FLEETMARK_EXPECT_KERNEL="
#define BOOT_POLL_MS		1000	/* between two tries to reach a host */
#define BOOT_OUTPUT_MAX		2048	/* bytes of a hook's output kept */
#define BOOT_KEXEC_MS		120000	/* kexec -l may take this long */

/*
 * Run the hook cmd (what names it in messages: "install", "side A"...)
 * and wait for it, for timeout_ms at most (0: no limit).  Its standard
 * output is read line by line: each line is written to echo when echo is
 * not NULL, and the last FLEETMARK_EXPECT_KERNEL=STRING line replaces
 * *expect when expect is not NULL (an empty STRING sets it to NULL).
 * *status: its exit status, or 128 + the signal that ended it (SIGTERM
 * for a hook ended at a stop).  Returns 0 when the hook ran, whatever its
 * status, or -1 with *err when it could not be started or ran past its
 * timeout ("WHAT hook: still running after N s: ended, with what it
 * started").
 */
int	boot_hook(const char *what, const char *cmd, long long timeout_ms, FILE *echo,
	    char **expect, int *status, char **err);

/*
 * The same, with its standard error read too when output is not NULL,
 * and the last BOOT_OUTPUT_MAX bytes of both in *output (a new string,
 * "" when it printed nothing): what a failing hook said, for its reason.
 */
int	boot_hook_output(const char *what, const char *cmd, long long timeout_ms,
	    FILE *echo, char **expect, char **output, int *status, char **err);

/*
 * Wait until h answers SSH (connect and log in) or wait_ms have passed,
 * trying every BOOT_POLL_MS, and read its boot id and kernel into *bb
 * when bb is not NULL (board_boot_read()).  Stops early when
 * run_stop_requested() (run.h).  0, or -1 with the last failure in *why.
 */
int	boot_wait_host(const struct fleet_host *h, long long wait_ms,
	    struct board_boot *bb, char **why);

/*
 * h's boot id now, within its connect timeout, as a new string; NULL
 * (warned about) when it cannot be read.  Read before a reboot, to tell
 * afterwards that the host did reboot.
 */
char	*boot_id_before(const struct fleet_host *h);

/*
 * Whether h can kexec into b (a BOOTSPEC_KEXEC, bootspec.h): over SSH,
 * that b's kernel and initrd are readable files on h and that kexec is
 * installed there.  Both functions run their commands as root (through
 * `sudo -n sh -c` when the login user is not root).  Reboots nothing.  0, or -1 with *err naming h and
 * what is missing.
 */
int	boot_kexec_check(const struct fleet_host *h, const struct bootspec *b, char **err);

/*
 * Make h kexec into b: over SSH, `kexec -l KERNEL [--initrd=FILE]
 * [--append=ARGS]` (every value quoted), then `kexec -e` started in the
 * background on h a second later, so that this returns before the
 * connection drops: the caller waits for the new boot (boot_wait_host()).
 * kexec -e starts the new kernel at once, without shutting anything
 * down (as reboot -f).  0 once it is started, or -1 with *err (what
 * kexec -l said when it failed).
 */
int	boot_kexec(const struct fleet_host *h, const struct bootspec *b, char **err);

/*
 * How h boots `text` (bootspec.h: a command, kexec:..., or the name of
 * h's `boot:` entry), named opt in messages ("-A", "-B", "boot"), into
 * *out (bootspec_release() it): never a BOOTSPEC_ENTRY, a command's
 * {host} replaced by h's name.  Refused: bad syntax, an entry name h has
 * no `boot:` entry for, a kexec on a host of the local transport (it
 * would restart this machine).
 */
int	boot_spec_for_host(const char *opt, const char *text, const struct fleet_host *h,
	    struct bootspec *out, char **err);

/*
 * After a boot into b: a kexec's append= must be in the new boot's
 * /proc/cmdline (bb), or the kexec did not take.  0, or -1 with *err.
 */
int	boot_cmdline_check(const struct bootspec *b, const struct board_boot *bb, char **err);

#define BOOT_INTO_STOPPED	1	/* boot_into(): a stop came (run_stop_requested()) */

/*
 * Boot h into b (a command or a kexec resolved for h: never a
 * BOOTSPEC_ENTRY) and tell that it did: h's boot id read first (h may
 * still be booting: up to wait_ms), then the command through
 * boot_hook_output() (what names it: "side A", "confirmation"; echo,
 * expect as there; its exit status must be 0) or boot_kexec(), the wait
 * for another boot id (up to wait_ms from then), and the boot check
 * (board_boot_check() against *expect when expect and *expect are not
 * NULL; a kexec's append= must be in /proc/cmdline).  Nothing is measured
 * on a kernel other than the one asked for: the callers measure only on
 * 0.  *bb: the new boot's facts (board_boot_release() it, whatever the
 * result).  0; BOOT_INTO_STOPPED at a stop; or -1 with *err (the command's
 * status and what it said, no answer in time, the same boot id, another
 * kernel).
 */
int	boot_into(const char *what, const struct fleet_host *h, const struct bootspec *b,
	    long long wait_ms, FILE *echo, char **expect, struct board_boot *bb, char **err);

#endif /* FLEETMARK_BOOT_H */
