/*
 * kmsg.c: what the kernel logged during a trial.
 *
 * /dev/kmsg is opened before the trial and set to its end; after the trial
 * every record logged since is read (each read() returns one record,
 * "PRIO,SEQ,USEC,FLAGS;TEXT\n" followed by " KEY=VALUE" lines) and the
 * ones that say the kernel is in trouble are counted by kind: oops, BUG,
 * WARNING, soft and hard lockups, RCU stalls, hung tasks.  When any was
 * seen a "kernel" line goes out before the trial's "end", with the counts
 * and the first lines.  The kernel log is the host's, not the trial's:
 * what another process made the kernel say in that time is counted too,
 * which is what a benchmark run wants to know.
 *
 * A log that cannot be read (dmesg_restrict for a user without
 * CAP_SYSLOG, no /dev/kmsg in a container) is not an error: the env line
 * says why ("kernel_log"), and no kernel line is sent.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "jline.h"

#define KMSG_PATH	"/dev/kmsg"
#define KMSG_RECORD	8192		/* the kernel's own record limit */
#define KMSG_MAX_READ	100000		/* records read after one trial, at most */

/* Most specific first: "BUG: soft lockup" is a lockup, not a BUG. */
static const struct {
	const char	*needle;
	int		 kind;
} patterns[] = {
	{ "soft lockup", KMSG_SOFT_LOCKUP },
	{ "hard LOCKUP", KMSG_HARD_LOCKUP },
	{ "detected stall", KMSG_RCU_STALL },		/* rcu: INFO: rcu_sched detected stalls */
	{ "self-detected stall", KMSG_RCU_STALL },
	{ "blocked for more than", KMSG_HUNG_TASK },	/* INFO: task X:1 blocked for ... */
	{ "Oops", KMSG_OOPS },
	{ "general protection fault", KMSG_OOPS },
	{ "Unable to handle kernel", KMSG_OOPS },
	{ "BUG:", KMSG_BUG },
	{ "kernel BUG at", KMSG_BUG },
	{ "WARNING:", KMSG_WARNING },
};

static const char *const kind_names[KMSG_NKINDS] = {
	"oops", "bug", "warning", "soft_lockup", "hard_lockup", "rcu_stall", "hung_task",
};

const char *
kmsg_kind_name(int kind)
{
	return kind >= 0 && kind < KMSG_NKINDS ? kind_names[kind] : "?";
}

int
kmsg_classify(const char *text)
{
	size_t i;

	for (i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
		if (strstr(text, patterns[i].needle) != NULL)
			return patterns[i].kind;
	return -1;
}

int
kmsg_probe(char *why, size_t size)
{
	int fd = open(KMSG_PATH, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, size, "cannot read %s: %s", KMSG_PATH, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

void
kmsg_begin(struct kmsg *k)
{
	memset(k, 0, sizeof(*k));
	if ((k->fd = open(KMSG_PATH, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return;
	if (lseek(k->fd, 0, SEEK_END) < 0) {
		close(k->fd);
		k->fd = -1;
	}
}

/* Keep the text of one record (after ';', up to the newline), printable. */
static void
keep_line(struct kmsg *k, const char *text, size_t len)
{
	char *d;
	size_t i, n = 0;

	if (k->nlines >= KMSG_MAX_LINES)
		return;
	d = k->lines[k->nlines++];
	for (i = 0; i < len && n < KMSG_LINE_MAX - 1; i++) {
		unsigned char c = (unsigned char)text[i];

		d[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	d[n] = '\0';
}

void
kmsg_record(struct kmsg *k, const char *rec, size_t len)
{
	const char *text, *end;
	char line[KMSG_RECORD];
	size_t n;
	int kind;

	if ((text = memchr(rec, ';', len)) == NULL)
		return;
	text++;
	end = memchr(text, '\n', len - (size_t)(text - rec));
	n = end != NULL ? (size_t)(end - text) : len - (size_t)(text - rec);
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	memcpy(line, text, n);
	line[n] = '\0';
	if ((kind = kmsg_classify(line)) < 0)
		return;
	k->counts[kind]++;
	k->any = 1;
	keep_line(k, line, n);
}

void
kmsg_end(struct kmsg *k, int out_fd, const char *id, const char *bench)
{
	char rec[KMSG_RECORD];
	struct jline j;
	ssize_t n;
	int i, reads = 0;

	if (k->fd < 0)
		return;
	while (reads++ < KMSG_MAX_READ) {
		n = read(k->fd, rec, sizeof(rec));
		if (n > 0) {
			kmsg_record(k, rec, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EPIPE) {
			/* records were overwritten before we read them: go on */
			k->lost = 1;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		break;		/* EAGAIN: nothing more */
	}
	close(k->fd);
	k->fd = -1;
	if (!k->any || out_fd < 0)
		return;
	jl_begin(&j, WIRE_KERNEL, id);
	if (bench != NULL)
		jl_str(&j, "bench", bench);
	jl_obj(&j, "counts");
	for (i = 0; i < KMSG_NKINDS; i++)
		if (k->counts[i] > 0)
			jl_int(&j, kind_names[i], k->counts[i]);
	jl_close(&j);
	jl_arr(&j, "lines");
	for (i = 0; i < k->nlines; i++)
		jl_str(&j, NULL, k->lines[i]);
	jl_close(&j);
	if (k->lost)
		jl_bool(&j, "lost", 1);
	jl_emit(&j, out_fd);
}
