/*
 * test-board.c: the board module: which console lines explain a lost
 * host, the boot check, power commands (FLEETMARK_HOST, exit statuses) and
 * recording a console command's output with marks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include "board.h"
#include "fleet.h"
#include "fsutil.h"
#include "strbuf.h"
#include "tap.h"
#include "xmalloc.h"

static const char panic[] =
	"[   53.801101] random: crng init done\r\n"
	"[   53.831208] sysrq: Trigger a crash\r\n"
	"[   53.832725] Kernel panic - not syncing: sysrq triggered crash\r\n"
	"[   53.833094] CPU: 0 PID: 138 Comm: sh Not tainted 6.1.0-57-amd64 #1\r\n"
	"[   53.833500] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996)\r\n"
	"[   53.834000] Call Trace:\r\n"
	"[   53.948997] ---[ end Kernel panic - not syncing: sysrq triggered crash ]---\r\n";

static const char hung[] =
	"\x1b[0m[  245.100000] INFO: task kworker/0:1:42 blocked for more than 120 seconds.\n"
	"[  245.100100]       Not tainted 6.1.0-57-amd64 #1\n"
	"[  245.100200] \"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.\n";

static void
test_excerpt(void)
{
	char *s, *many;
	struct strbuf sb;
	int i;

	s = board_excerpt(panic, strlen(panic));
	is_str(s, "[   53.831208] sysrq: Trigger a crash | [   53.832725] Kernel panic - not "
	    "syncing: sysrq triggered crash | [   53.833094] CPU: 0 PID: 138 Comm: sh Not "
	    "tainted 6.1.0-57-amd64 #1 | [   53.948997] ---[ end Kernel panic - not syncing: "
	    "sysrq triggered crash ]---", "a panic: the trigger, the panic, the task, the end");
	free(s);
	s = board_excerpt(hung, strlen(hung));
	is_str(s, "[  245.100000] INFO: task kworker/0:1:42 blocked for more than 120 seconds.",
	    "a hung task, escapes dropped");
	free(s);
	ok(board_excerpt("login: \nfleetmark-board: up\n", 29) == NULL,
	    "an ordinary console explains nothing");
	ok(board_excerpt(NULL, 0) == NULL, "nothing at all");

	strbuf_init(&sb, 0);
	for (i = 0; i < 40; i++)
		strbuf_addf(&sb, "[ %d.0] BUG: soft lockup - CPU#0 stuck for 22s! %0300d\n", i, 0);
	many = strbuf_detach(&sb, NULL);
	s = board_excerpt(many, strlen(many));
	ok(s != NULL, "many lines");
	if (s != NULL) {
		size_t bars = 0;
		char *p;

		for (p = s; (p = strstr(p, " | ")) != NULL; p += 3)
			bars++;
		is_int(bars + 1, BOARD_EXCERPT_LINES, "at most BOARD_EXCERPT_LINES lines");
		ok(strlen(s) <= BOARD_EXCERPT_LINES * 203, "each line cut at 200 bytes");
	}
	free(s);
	free(many);
}

static void
test_boot_check(void)
{
	struct board_boot b = {
		.boot_id = (char *)"2d6e0609-f204-49ef-bd7c-3e881b1062ac",
		.release = (char *)"6.1.0-57-amd64",
		.version = (char *)"#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3",
		.cmdline = (char *)"console=ttyS0 fm.commit=0123abcd",
	};
	char *err = NULL;

	is_int(board_boot_check(&b, NULL, NULL, &err), 0, "nothing asked: passes");
	is_int(board_boot_check(&b, "55b5b2d4-d902-45d5-92a7-b4638be333f9", "6.1.0-57", &err), 0,
	    "a new boot id, the release asked for");
	is_int(board_boot_check(&b, NULL, "Debian 6.1.192", &err), 0, "in uname -v");
	is_int(board_boot_check(&b, NULL, "fm.commit=0123abcd", &err), 0, "in /proc/cmdline");
	is_int(board_boot_check(&b, "2d6e0609-f204-49ef-bd7c-3e881b1062ac", NULL, &err), -1,
	    "the same boot id fails");
	ok(err != NULL && strstr(err, "did not reboot (boot id 2d6e0609") != NULL,
	    "and says the host did not reboot");
	free(err);
	err = NULL;
	is_int(board_boot_check(&b, NULL, "6.12", &err), -1, "another kernel fails");
	ok(err != NULL && strstr(err, "'6.12' is not in uname -r (6.1.0-57-amd64)") != NULL,
	    "and says what runs");
	free(err);
}

static void
test_power(const char *dir)
{
	struct fleet_host h;
	char *err = NULL, *data = NULL, *cmd, *path;
	size_t len = 0;

	memset(&h, 0, sizeof(h));
	h.name = (char *)"tx49-16k";
	path = xasprintf("%s/power", dir);
	cmd = xasprintf("printf '%%s cycle' \"$FLEETMARK_HOST\" > %s", path);
	h.power_cycle = cmd;
	h.power_off = (char *)"echo the outlet is stuck >&2; exit 3";
	is_int(board_power(&h, "cycle", &err), 0, "power cycle runs");
	ok(fs_read_file(path, 4096, &data, &len, &err) == 0 && data != NULL &&
	    strcmp(data, "tx49-16k cycle") == 0, "with FLEETMARK_HOST set");
	free(data);
	is_int(board_power(&h, "off", &err), -1, "a failing power command");
	ok(err != NULL && strstr(err, "tx49-16k: power off: `echo the outlet is stuck >&2; "
	    "exit 3` exited 3: the outlet is stuck") != NULL, "says its status and output");
	free(err);
	err = NULL;
	is_int(board_power(&h, "on", &err), -1, "no on: command");
	ok(err != NULL && strstr(err, "no power on command") != NULL, "says so");
	free(err);
	free(cmd);
	free(path);
}

static void
test_console(const char *dir)
{
	struct fleet_host h;
	struct board_console *c = NULL;
	char *err = NULL, *path, *s, *data = NULL, *pidfile, *pid = NULL, *go;
	size_t len;

	memset(&h, 0, sizeof(h));
	h.name = (char *)"board-1";
	path = xasprintf("%s/board-1.console", dir);
	pidfile = xasprintf("%s/console.pid", dir);
	go = xasprintf("%s/go", dir);
	/* The BUG line comes once the test has set its mark. */
	s = xasprintf("echo $$ > %s; echo \"console of $FLEETMARK_HOST\"; "
	    "while [ ! -e %s ]; do sleep 0.05; done; "
	    "echo 'BUG: kernel NULL pointer dereference, address: 0000000000000008'; "
	    "exec sleep 600", pidfile, go);
	h.console = s;
	ok(board_console_start(&h, path, &c, &err) == 0, "the console command starts");
	if (c == NULL) {
		printf("# %s\n", err);
		free(err);
		return;
	}
	board_console_mark(c, "trial t1 lat_syscall");
	if (fs_write_atomic(go, "", 0, 0644, 0, &err) != 0) {
		printf("# %s\n", err);
		free(err);
		err = NULL;
	}
	s = board_console_excerpt(c, 20000);
	is_str(s, "BUG: kernel NULL pointer dereference, address: 0000000000000008",
	    "the excerpt: what came after the mark");
	free(s);
	board_console_mark(c, "power cycle 1 of 2");
	ok(board_console_excerpt(c, 0) == NULL, "a mark starts a new excerpt");
	board_console_stop(c);
	ok(fs_read_file(path, 1 << 20, &data, &len, &err) == 0, "the console file");
	ok(data != NULL && strstr(data, "BUG: kernel NULL pointer") != NULL &&
	    strstr(data, ": trial t1 lat_syscall ===\n") != NULL &&
	    strstr(data, ": power cycle 1 of 2 ===\n") != NULL, "holds the output and the marks");
	free(data);
	if (fs_read_file(pidfile, 64, &pid, &len, &err) == 0 && pid != NULL) {
		ok(kill(atoi(pid), 0) != 0, "the console command is gone after stop");
		free(pid);
	} else
		ok(0, "the console command wrote its pid");
	ok(board_console_start(&h, "/nonexistent/dir/x.console", &c, &err) == -1 && err != NULL &&
	    strstr(err, "board-1: cannot open /nonexistent/dir/x.console") != NULL,
	    "a console file that cannot be made");
	free(err);
	free(h.console);
	free(path);
	free(pidfile);
	free(go);
}

int
main(void)
{
	const char *dir = tap_tmpdir("test-board");

	if (dir == NULL)
		return 1;
	test_excerpt();
	test_boot_check();
	test_power(dir);
	test_console(dir);
	return tap_done();
}
