/*
 * monitor.c: counter deltas over the measured part of a trial.
 *
 * A trial request may ask for monitors (docs/monitors.md): "interrupts"
 * (rows of /proc/interrupts, every CPU's column summed), "vmstat"
 * (counters of /proc/vmstat and /proc/stat) and "perf-stat" (cycles,
 * instructions and dTLB load misses of the trial's processes, counted as
 * `perf stat` counts them, through perf_event_open(2): no perf binary is
 * needed).  The trial process reads every counter when its measured window
 * begins (trial_measure_begin(), called by timing.c before the first
 * sample) and when it ends (trial_measure_end(), after the last sample); a
 * benchmark that never marks a window is monitored over its whole run.
 * After the benchmark's metrics, one "monitor" line per monitor carries the
 * deltas and the window's operation count (iterations x samples of the
 * point's first metric that has iterations), or why the monitor is absent.
 *
 * Cost: two reads of each file per point, outside the timed samples, and
 * for perf-stat three counters the kernel keeps per task.  Files are read
 * through a fixed buffer, line by line, whatever their size (a machine with
 * 4096 CPUs has /proc/interrupts lines of 45 KB).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#endif

#include "agent.h"
#include "jline.h"
#include "timing.h"

#define MON_READ_MAX	(16L << 20)	/* bytes read of one /proc file, at most */
#define MON_DESC	64		/* bytes kept of an interrupt row's description */

enum mon_src { SRC_INTERRUPTS, SRC_VMSTAT, SRC_STAT, SRC_PERF };

/* Every counter a monitor may report, by monitor. */
static const struct mon_counter {
	unsigned	 monitor;	/* MON_* */
	enum mon_src	 src;
	const char	*name;		/* as reported */
	const char	*key;		/* the row's description, the file's name */
} counters[] = {
	{ MON_INTERRUPTS, SRC_INTERRUPTS, "tlb_shootdowns", "TLB shootdowns" },
	{ MON_INTERRUPTS, SRC_INTERRUPTS, "call_ipis", "Function call interrupts" },
	{ MON_INTERRUPTS, SRC_INTERRUPTS, "resched_ipis", "Rescheduling interrupts" },
	{ MON_VMSTAT, SRC_VMSTAT, "pgfault", "pgfault" },
	{ MON_VMSTAT, SRC_VMSTAT, "pgmajfault", "pgmajfault" },
	{ MON_VMSTAT, SRC_VMSTAT, "nr_tlb_remote_flush", "nr_tlb_remote_flush" },
	{ MON_VMSTAT, SRC_VMSTAT, "nr_tlb_remote_flush_received",
	    "nr_tlb_remote_flush_received" },
	{ MON_VMSTAT, SRC_VMSTAT, "nr_tlb_local_flush_all", "nr_tlb_local_flush_all" },
	{ MON_VMSTAT, SRC_VMSTAT, "nr_tlb_local_flush_one", "nr_tlb_local_flush_one" },
	{ MON_VMSTAT, SRC_VMSTAT, "thp_fault_alloc", "thp_fault_alloc" },
	{ MON_VMSTAT, SRC_STAT, "context_switches", "ctxt" },
	{ MON_VMSTAT, SRC_STAT, "forks", "processes" },
	{ MON_PERF_STAT, SRC_PERF, "cycles", "cycles" },
	{ MON_PERF_STAT, SRC_PERF, "instructions", "instructions" },
	{ MON_PERF_STAT, SRC_PERF, "dTLB-load-misses", "dTLB-load-misses" },
};
#define NCOUNTERS	(sizeof(counters) / sizeof(counters[0]))

struct mon_snap {
	unsigned long long	v[NCOUNTERS];
	unsigned char		have[NCOUNTERS];
};

struct monitor {
	unsigned	 want;		/* MON_* bits */
	int		 begun, ended;
	double		 t0, t1;	/* timing_now() at the window's ends */
	struct mon_snap	 before, after;
	int		 perf_fd[NCOUNTERS];	/* -1: not counting */
	int		 perf_user;	/* counting user space only */
	char		 absent[3][WIRE_MAX_ABSENT];	/* by monitor bit index */
};

static const char *const mon_names[] = {
	WIRE_MON_INTERRUPTS, WIRE_MON_VMSTAT, WIRE_MON_PERF_STAT
};

static int
mon_index(unsigned bit)
{
	return bit == MON_INTERRUPTS ? 0 : bit == MON_VMSTAT ? 1 : 2;
}

int
monitor_parse(const char *name, unsigned *bit)
{
	int i;

	for (i = 0; i < 3; i++)
		if (strcmp(name, mon_names[i]) == 0) {
			*bit = 1u << i;
			return 0;
		}
	return -1;
}

/*
 * Feed a /proc file to fn(buf, len, arg) in pieces as read, bounded in
 * bytes.  -1 with errno when it cannot be opened.
 */
typedef void (*piece_fn)(const char *buf, size_t len, void *arg);

static int
read_pieces(const char *path, piece_fn fn, void *arg)
{
	char buf[8192];
	long total = 0;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while (total < MON_READ_MAX && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		total += n;
		fn(buf, (size_t)n, arg);
	}
	close(fd);
	return 0;
}

/*
 * /proc/interrupts: "LBL:  n  n  n ...  description", read a byte at a
 * time as it streams, so that a line of any length needs no buffer.
 */
struct irq_scan {
	struct mon_snap		*s;
	enum { IRQ_LABEL, IRQ_NUMS, IRQ_DESC } state;
	unsigned long long	 sum, cur;
	char			 desc[MON_DESC];
	size_t			 dlen;
	int			 rows;		/* rows matched */
};

static void
irq_take(struct irq_scan *x)
{
	size_t i, kl;

	for (i = 0; i < NCOUNTERS; i++) {
		if (counters[i].src != SRC_INTERRUPTS)
			continue;
		kl = strlen(counters[i].key);
		if (x->dlen >= kl && memcmp(x->desc, counters[i].key, kl) == 0) {
			x->s->v[i] += x->sum;
			x->s->have[i] = 1;
			x->rows++;
		}
	}
}

static void
irq_piece(const char *buf, size_t len, void *arg)
{
	struct irq_scan *x = arg;
	size_t i;
	char c;

	for (i = 0; i < len; i++) {
		c = buf[i];
		if (c == '\n') {
			if (x->state == IRQ_NUMS)
				x->sum += x->cur;
			if (x->state == IRQ_NUMS || x->state == IRQ_DESC)
				irq_take(x);
			x->state = IRQ_LABEL;
			continue;
		}
		switch (x->state) {
		case IRQ_LABEL:
			if (c == ':') {
				x->state = IRQ_NUMS;
				x->sum = x->cur = 0;
				x->dlen = 0;
			}
			break;
		case IRQ_NUMS:
			if (c >= '0' && c <= '9')
				x->cur = x->cur * 10 + (unsigned long long)(c - '0');
			else if (c == ' ' || c == '\t') {
				x->sum += x->cur;
				x->cur = 0;
			} else {
				x->sum += x->cur;
				x->cur = 0;
				x->state = IRQ_DESC;
				x->desc[x->dlen++] = c;
			}
			break;
		case IRQ_DESC:
			if (x->dlen < sizeof(x->desc))
				x->desc[x->dlen++] = c;
			break;
		}
	}
}

/* "name value" lines (/proc/vmstat, /proc/stat): whole lines are kept in a
 * small buffer; a longer line (no counter of ours) is skipped. */
struct kv_scan {
	struct mon_snap	*s;
	enum mon_src	 src;
	char		 line[256];
	size_t		 len;
	int		 skip;
};

static void
kv_line(struct kv_scan *x)
{
	size_t i, kl;

	x->line[x->len] = '\0';
	for (i = 0; i < NCOUNTERS; i++) {
		if (counters[i].src != x->src)
			continue;
		kl = strlen(counters[i].key);
		if (x->len > kl + 1 && memcmp(x->line, counters[i].key, kl) == 0 &&
		    x->line[kl] == ' ') {
			x->s->v[i] = strtoull(x->line + kl + 1, NULL, 10);
			x->s->have[i] = 1;
		}
	}
}

static void
kv_piece(const char *buf, size_t len, void *arg)
{
	struct kv_scan *x = arg;
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] == '\n') {
			if (!x->skip)
				kv_line(x);
			x->len = 0;
			x->skip = 0;
		} else if (x->len + 1 < sizeof(x->line))
			x->line[x->len++] = buf[i];
		else
			x->skip = 1;
	}
}

#ifdef __NR_perf_event_open
static void
perf_attr(struct perf_event_attr *a, const char *name, int user_only)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->inherit = 1;		/* the benchmark's threads and children too */
	a->exclude_hv = 1;
	a->exclude_kernel = user_only;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (strcmp(name, "dTLB-load-misses") == 0) {
		a->type = PERF_TYPE_HW_CACHE;
		a->config = PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
		    (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	} else {
		a->type = PERF_TYPE_HARDWARE;
		a->config = strcmp(name, "cycles") == 0 ? PERF_COUNT_HW_CPU_CYCLES :
		    PERF_COUNT_HW_INSTRUCTIONS;
	}
}

static int
perf_open(const char *name, int user_only)
{
	struct perf_event_attr a;

	perf_attr(&a, name, user_only);
	return (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}
#endif

/* Why perf_event_open failed with errno e, into why (after the event names). */
static void
perf_why(char *why, size_t cap, int e)
{
	char buf[32] = "?";

	read_text("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf));
	if (e == EACCES || e == EPERM)
		snprintf(why, cap, "not permitted (perf_event_paranoid=%s: counting a "
		    "process needs it at 2 or below, its kernel side at 1 or below, or root)",
		    buf);
	else if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL)
		snprintf(why, cap, "not counted on this host (no such hardware event: "
		    "no PMU, or a virtual machine without one)");
	else if (e == ENOSYS)
		snprintf(why, cap, "no perf events in this kernel (perf_event_open: %s)",
		    strerror(e));
	else
		snprintf(why, cap, "perf_event_open: %s", strerror(e));
}

/* Open the perf-stat events; why the ones that failed did, events with the
 * same reason named together ("cycles, instructions: not permitted ..."). */
static void
perf_setup(struct monitor *m)
{
	char *why = m->absent[mon_index(MON_PERF_STAT)], one[NCOUNTERS][256];
	size_t i, k, n = 0, cap = WIRE_MAX_ABSENT;
	int e, failed[NCOUNTERS] = { 0 };

	for (i = 0; i < NCOUNTERS; i++) {
		if (counters[i].src != SRC_PERF)
			continue;
#ifdef __NR_perf_event_open
		m->perf_fd[i] = perf_open(counters[i].key, m->perf_user);
		if (m->perf_fd[i] < 0 && !m->perf_user && (errno == EACCES || errno == EPERM)) {
			/* perf_event_paranoid=2: user space is still allowed */
			m->perf_user = 1;
			m->perf_fd[i] = perf_open(counters[i].key, 1);
		}
		e = errno;
#else
		m->perf_fd[i] = -1;
		e = ENOSYS;
#endif
		if (m->perf_fd[i] >= 0)
			continue;
		perf_why(one[i], sizeof(one[i]), e);
		failed[i] = 1;
	}
	for (i = 0; i < NCOUNTERS && n < cap; i++) {
		if (failed[i] != 1)
			continue;
		n += (size_t)snprintf(why + n, cap - n, "%s%s", n ? "; " : "", counters[i].key);
		for (k = i + 1; k < NCOUNTERS && n < cap; k++)
			if (failed[k] == 1 && strcmp(one[k], one[i]) == 0) {
				n += (size_t)snprintf(why + n, cap - n, ", %s", counters[k].key);
				failed[k] = 2;
			}
		if (n < cap)
			n += (size_t)snprintf(why + n, cap - n, ": %s", one[i]);
	}
}

static void
perf_read(struct monitor *m, struct mon_snap *s)
{
	unsigned long long v[3];
	size_t i;

	for (i = 0; i < NCOUNTERS; i++) {
		if (counters[i].src != SRC_PERF || m->perf_fd[i] < 0)
			continue;
		if (read(m->perf_fd[i], v, sizeof(v)) != (ssize_t)sizeof(v))
			continue;
		/* multiplexed with other events: scaled as perf stat scales */
		if (v[2] > 0 && v[2] < v[1])
			v[0] = (unsigned long long)((double)v[0] * (double)v[1] / (double)v[2]);
		s->v[i] = v[0];
		s->have[i] = v[2] > 0 || v[0] > 0;
	}
}

static void
snap(struct monitor *m, struct mon_snap *s)
{
	struct irq_scan ix;
	struct kv_scan kx;

	memset(s, 0, sizeof(*s));
	if (m->want & MON_PERF_STAT)
		perf_read(m, s);
	if (m->want & MON_INTERRUPTS) {
		memset(&ix, 0, sizeof(ix));
		ix.s = s;
		if (read_pieces("/proc/interrupts", irq_piece, &ix) != 0)
			snprintf(m->absent[0], WIRE_MAX_ABSENT, "cannot read /proc/interrupts: %s",
			    strerror(errno));
		else if (ix.rows == 0)
			snprintf(m->absent[0], WIRE_MAX_ABSENT, "/proc/interrupts has no TLB "
			    "shootdown, function call or rescheduling rows on this host");
	}
	if (m->want & MON_VMSTAT) {
		memset(&kx, 0, sizeof(kx));
		kx.s = s;
		kx.src = SRC_VMSTAT;
		if (read_pieces("/proc/vmstat", kv_piece, &kx) != 0)
			snprintf(m->absent[1], WIRE_MAX_ABSENT, "cannot read /proc/vmstat: %s",
			    strerror(errno));
		memset(&kx, 0, sizeof(kx));
		kx.s = s;
		kx.src = SRC_STAT;
		read_pieces("/proc/stat", kv_piece, &kx);
	}
}

int
monitor_read_interrupts(const char *path, unsigned long long v[3], int have[3])
{
	struct mon_snap s;
	struct irq_scan ix;
	size_t i, k = 0;

	memset(&s, 0, sizeof(s));
	memset(&ix, 0, sizeof(ix));
	ix.s = &s;
	if (read_pieces(path, irq_piece, &ix) != 0)
		return -1;
	for (i = 0; i < NCOUNTERS && k < 3; i++)
		if (counters[i].src == SRC_INTERRUPTS) {
			v[k] = s.v[i];
			have[k++] = s.have[i];
		}
	return ix.rows;
}

void
monitor_open(struct trial *t)
{
	struct monitor *m;
	size_t i;

	t->mon = NULL;
	t->ops = 0;
	if (t->monitors == 0 || (m = calloc(1, sizeof(*m))) == NULL)
		return;
	m->want = t->monitors;
	for (i = 0; i < NCOUNTERS; i++)
		m->perf_fd[i] = -1;
	if (m->want & MON_PERF_STAT)
		perf_setup(m);
	t->mon = m;
}

void
trial_measure_begin(struct trial *t)
{
	struct monitor *m = t->mon;

	if (m == NULL || m->begun)
		return;
	snap(m, &m->before);
	m->t0 = timing_now();
	m->begun = 1;
}

void
trial_measure_end(struct trial *t)
{
	struct monitor *m = t->mon;

	if (m == NULL || !m->begun)
		return;
	m->t1 = timing_now();
	snap(m, &m->after);
	m->ended = 1;
}

void
monitor_close(struct trial *t, int rc)
{
	struct monitor *m = t->mon;
	struct jline j;
	size_t i;
	int k, any;

	if (m == NULL)
		return;
	if (!m->ended)
		trial_measure_end(t);	/* no window marked: the whole run */
	if (m->perf_user)
		trial_note(t, "perf-stat counts user space only: the kernel's part is not "
		    "permitted (perf_event_paranoid)");
	for (k = 0; rc == 0 && k < 3; k++) {
		unsigned bit = 1u << k;

		if (!(m->want & bit))
			continue;
		jl_begin(&j, WIRE_MONITOR, t->id);
		jl_str(&j, "bench", t->bench->name);
		jl_str(&j, "monitor", mon_names[k]);
		jl_num(&j, "seconds", (m->t1 - m->t0) / 1e9);
		if (t->ops > 0)
			jl_int(&j, "ops", (long long)t->ops);
		any = 0;
		for (i = 0; i < NCOUNTERS; i++) {
			if (counters[i].monitor != bit || !m->before.have[i] ||
			    !m->after.have[i] || m->after.v[i] < m->before.v[i])
				continue;
			if (!any)
				jl_obj(&j, "counters");
			any = 1;
			jl_int(&j, counters[i].name, (long long)(m->after.v[i] - m->before.v[i]));
		}
		if (any)
			jl_close(&j);
		if (m->absent[k][0] != '\0' || !any)
			jl_str(&j, "absent", m->absent[k][0] ? m->absent[k] :
			    "none of its counters could be read on this host");
		jl_emit(&j, t->out_fd);
	}
	for (i = 0; i < NCOUNTERS; i++)
		if (m->perf_fd[i] >= 0)
			close(m->perf_fd[i]);
	free(m);
	t->mon = NULL;
}

void
trial_ops(struct trial *t, unsigned long long ops)
{
	if (t->ops == 0)
		t->ops = ops;
}
