/*
 * lat_syscall: the cost of the simplest system calls, lmbench's "null call",
 * "null I/O", "stat" and "open clos" columns.
 *
 *   null   getppid(), a system call that does almost nothing
 *   read   read one byte from /dev/zero
 *   write  write one byte to /dev/null
 *   stat   stat() of a file in the trial's scratch directory
 *   open   open() and close() of that file
 *
 * lmbench's "null I/O" column is the mean of read and write.  The file is
 * named by its absolute path, as lmbench's scripts name theirs
 * ($FSDIR/lmbench, /var/tmp/lmbench by default): the lookup walks every
 * component of it, and a relative name was a quarter cheaper.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "timing.h"
#include "wire.h"

#define SYSCALL_FILE	"lat_syscall.file"

struct ctx {
	int		fd;
	const char	*file;
};

static void
do_null(uint64_t n, void *arg)
{
	(void)arg;
	while (n--)
		(void)getppid();
}

static void
do_read(uint64_t n, void *arg)
{
	struct ctx *c = arg;
	char b;

	while (n--)
		(void)!read(c->fd, &b, 1);
}

static void
do_write(uint64_t n, void *arg)
{
	struct ctx *c = arg;
	char b = 0;

	while (n--)
		(void)!write(c->fd, &b, 1);
}

static void
do_stat(uint64_t n, void *arg)
{
	struct ctx *c = arg;
	struct stat st;

	while (n--)
		(void)stat(c->file, &st);
}

static void
do_open(uint64_t n, void *arg)
{
	struct ctx *c = arg;
	int fd;

	while (n--) {
		if ((fd = open(c->file, O_RDONLY)) >= 0)
			close(fd);
	}
}

static int
run(struct trial *t)
{
	const char *op = trial_str(t, "op");
	struct ctx c = { -1, NULL };
	char path[PATH_MAX], dir[PATH_MAX];
	timing_fn fn = do_null;
	int fd, rc;

	if (strcmp(op, "read") == 0 || strcmp(op, "write") == 0) {
		const char *dev = op[0] == 'r' ? "/dev/zero" : "/dev/null";

		if ((c.fd = open(dev, op[0] == 'r' ? O_RDONLY : O_WRONLY)) < 0)
			return trial_error(t, WIRE_ERR_UNSUPPORTED, "open %s: %s", dev,
			    strerror(errno));
		fn = op[0] == 'r' ? do_read : do_write;
	} else if (strcmp(op, "stat") == 0 || strcmp(op, "open") == 0) {
		/* the scratch directory is the current one */
		if (getcwd(dir, sizeof(dir)) == NULL)
			return trial_error(t, WIRE_ERR_BENCH, "getcwd: %s", strerror(errno));
		if (snprintf(path, sizeof(path), "%s/%s", dir, SYSCALL_FILE) >= (int)sizeof(path))
			return trial_error(t, WIRE_ERR_BENCH, "the scratch directory's path is too long");
		c.file = path;
		if ((fd = open(c.file, O_CREAT | O_WRONLY | O_TRUNC, 0600)) < 0)
			return trial_error(t, WIRE_ERR_BENCH, "create %s: %s", c.file,
			    strerror(errno));
		close(fd);
		fn = op[0] == 's' ? do_stat : do_open;
	}
	rc = timing_report(t, "latency", fn, &c, 1e3);
	if (c.fd >= 0)
		close(c.fd);
	return rc;
}

static const struct bench_param params[] = {
	{ "op", PARAM_ENUM, "null", "which system call", "null|read|write|stat|open" },
	TIMING_SAMPLING_PARAM,
	{ NULL, 0, NULL, NULL, NULL }
};

static const struct bench_metric metrics[] = {
	{ "latency", "us", 0, "time per call" },
	{ NULL, NULL, 0, NULL }
};

BENCH(lat_syscall, "latency of the simplest system calls",
    "lmbench lat_syscall (Processes: null call, null I/O, stat, open clos)", params, metrics, run);
