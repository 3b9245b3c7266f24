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

#endif /* FLEETMARK_BOOT_H */
