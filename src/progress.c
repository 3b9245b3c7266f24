/*
 * progress.c: live progress of a run on a terminal, plain lines elsewhere
 * (see progress.h).
 *
 * One mutex guards the state and the output: a frame is rendered and
 * written whole under it, so host threads never interleave.  A frame is
 * drawn over the previous one by moving the cursor up over it and
 * clearing each line; lines are cut one column short of the width so the
 * terminal never wraps them (which would break the count).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "numfmt.h"
#include "progress.h"
#include "strbuf.h"
#include "utf8.h"
#include "xmalloc.h"

#define C_RED	"\033[31m"
#define C_GREEN	"\033[32m"
#define C_YELLOW "\033[33m"
#define C_DIM	"\033[2m"
#define C_OFF	"\033[0m"

#define PLAIN_MAX	4096	/* bytes of a plain line */
#define SUMMARY_SLOWEST	5	/* busy hosts shown in the summary */
#define SUMMARY_PLAIN_S	1.0	/* at most one plain summary line this often */

struct phost {
	char			*name;
	size_t			 ntrials;
	enum progress_state	 st;
	char			*detail;	/* state detail or failure reason */
	size_t			 k;		/* current trial, 1-based; 0 none yet */
	char			*what;
	size_t			 done, failed;	/* trials finished, of which failed */
	double			 t0;		/* when its first trial started */
	double			 since;		/* when it entered its state */
};

struct progress {
	int			 fd;
	enum progress_mode	 mode;
	int			 color;
	int			 cols, rows;	/* 0: ask the terminal */
	pthread_mutex_t		 mu;
	struct phost		*hosts;
	size_t			 n, cap;
	size_t			 drawn;		/* lines of the frame on the screen */
	double			 last_draw;
	int			 dirty;
	int			 ended;
	double			 start;
	double			(*now)(void *);
	void			*arg;
	pthread_t		 ticker;
	int			 ticking, stop;
	pthread_cond_t		 cv;
	size_t			 summary;	/* more hosts than this: summary mode */
	double			 last_summary;	/* when the last plain summary went out */
	int			 summary_due;	/* a change since then */
};

/* --- Text ---------------------------------------------------------------------- */

/*
 * A line being built: visible columns are counted apart from bytes so
 * that colour sequences do not count, and text stops at `max` columns.
 */
struct line {
	struct strbuf	*sb;
	int		 col, max;
	int		 color;
};

/* Text for people: controls and broken UTF-8 become '?', cut at l->max. */
static void
put(struct line *l, const char *t)
{
	size_t n = strlen(t), i, k;

	for (i = 0; i < n && l->col < l->max; i += k) {
		const unsigned char *u = (const unsigned char *)t + i;

		k = utf8_seq(u, n - i);
		if (k == 0 || utf8_is_control(u, k)) {
			strbuf_add(l->sb, "?", 1);
			if (k == 0)
				k = 1;
		} else
			strbuf_add(l->sb, t + i, k);
		l->col++;
	}
}

static void
pad(struct line *l, int to)
{
	while (l->col < to && l->col < l->max) {
		strbuf_add(l->sb, " ", 1);
		l->col++;
	}
}

static void
color(struct line *l, const char *c)
{
	if (l->color)
		strbuf_addstr(l->sb, c);
}

/* sep, then "N failed" in red: a host's failed trials. */
static void
put_failed(struct line *l, const char *sep, size_t failed)
{
	char num[32];

	snprintf(num, sizeof(num), "%zu failed", failed);
	put(l, sep);
	color(l, C_RED);
	put(l, num);
	color(l, C_OFF);
}

/* --- Clock ----------------------------------------------------------------------- */

static double
now(const struct progress *p)
{
	if (p->now != NULL)
		return p->now(p->arg);
	return clock_wall();
}

static void
stamp(const struct progress *p, char *buf, size_t size)
{
	clock_iso8601(buf, size, (time_t)now(p), -1);
}

/* --- Output ---------------------------------------------------------------------- */

static void
out(struct progress *p, const char *buf, size_t len)
{
	ssize_t n;

	/* Progress is for people: a closed or full terminal loses it, no more. */
	while (len > 0) {
		n = write(p->fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

static const char *state_word(enum progress_state st);

/* Whether there are too many hosts for a line each (progress.h). */
static int
summarized(const struct progress *p)
{
	return p->summary > 0 && p->n > p->summary;
}

/* A timestamped line: "2026-11-30T04:15:02Z lab-03 TEXT". */
static void
vplain(struct progress *p, const struct phost *h, const char *fmt, va_list ap)
{
	char ts[32], text[PLAIN_MAX];
	struct strbuf s = STRBUF_INIT;
	struct line l = { &s, 0, PLAIN_MAX, 0 };

	if (p->mode != PROGRESS_PLAIN)
		return;
	vsnprintf(text, sizeof(text), fmt, ap);
	stamp(p, ts, sizeof(ts));
	strbuf_addstr(&s, ts);
	strbuf_addstr(&s, " ");
	if (h != NULL) {
		put(&l, h->name);
		strbuf_addstr(&s, " ");
	}
	put(&l, text);
	strbuf_addstr(&s, "\n");
	out(p, s.buf, s.len);
	strbuf_release(&s);
}

static void
plain(struct progress *p, const struct phost *h, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
plain(struct progress *p, const struct phost *h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vplain(p, h, fmt, ap);
	va_end(ap);
}

/*
 * A host's line of what a big fleet sums up instead (its states, its
 * trials): written only while there is a line per host; else the next
 * summary line says it.
 */
static void
plain_host(struct progress *p, const struct phost *h, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
plain_host(struct progress *p, const struct phost *h, const char *fmt, ...)
{
	va_list ap;

	if (summarized(p)) {
		p->summary_due = 1;
		return;
	}
	va_start(ap, fmt);
	vplain(p, h, fmt, ap);
	va_end(ap);
}

/* --- Frames ---------------------------------------------------------------------- */

static void
terminal_size(const struct progress *p, int *cols, int *rows)
{
	struct winsize ws;

	*cols = 80;
	*rows = 24;
	if (ioctl(p->fd, TIOCGWINSZ, &ws) == 0) {
		if (ws.ws_col > 0)
			*cols = ws.ws_col;
		if (ws.ws_row > 0)
			*rows = ws.ws_row;
	}
	if (p->cols > 0)
		*cols = p->cols;
	if (p->rows > 0)
		*rows = p->rows;
}

/* Whether the host is through: done, given up or interrupted. */
static int
over(const struct phost *h)
{
	return h->st == PROGRESS_DONE || h->st == PROGRESS_FAILED ||
	    h->st == PROGRESS_INTERRUPTED;
}

/* The trials of a host that is through that it did not finish. */
static size_t
not_run(const struct phost *h)
{
	return over(h) && h->done < h->ntrials ? h->ntrials - h->done : 0;
}

static void
host_line(const struct progress *p, struct strbuf *s, const struct phost *h, int namew,
    int cols)
{
	struct line l = { s, 0, namew < cols - 1 ? namew : cols - 1, p->color };
	char num[64];

	put(&l, h->name);	/* cut at namew columns */
	l.max = cols - 1;
	pad(&l, namew + 2);
	switch (h->st) {
	case PROGRESS_WAITING:
		color(&l, C_DIM);
		put(&l, "waiting");
		color(&l, C_OFF);
		break;
	case PROGRESS_CONNECTING:
	case PROGRESS_DEPLOYING:
		put(&l, h->st == PROGRESS_CONNECTING ? "connecting" : "deploying");
		if (h->detail) {
			put(&l, " ");
			put(&l, h->detail);
		}
		break;
	case PROGRESS_RUNNING:
		if (h->k == 0) {
			put(&l, "running");
			if (h->detail) {
				put(&l, " ");
				put(&l, h->detail);
			}
			break;
		}
		snprintf(num, sizeof(num), "trial %zu/%zu", h->k, h->ntrials);
		put(&l, num);
		if (h->failed) {
			put_failed(&l, " (", h->failed);
			put(&l, ")");
		}
		if (h->what) {
			put(&l, " ");
			put(&l, h->what);
		}
		break;
	case PROGRESS_DONE:
		color(&l, C_GREEN);
		put(&l, "done");
		color(&l, C_OFF);
		snprintf(num, sizeof(num), ", %zu trial%s", h->done, h->done == 1 ? "" : "s");
		put(&l, num);
		if (h->failed)
			put_failed(&l, ", ", h->failed);
		break;
	case PROGRESS_FAILED:
		color(&l, C_RED);
		put(&l, "failed");
		if (h->detail) {
			put(&l, ": ");
			put(&l, h->detail);
		}
		color(&l, C_OFF);
		break;
	case PROGRESS_INTERRUPTED:
		color(&l, C_YELLOW);
		put(&l, "interrupted");
		color(&l, C_OFF);
		snprintf(num, sizeof(num), ", %zu trial%s", h->done, h->done == 1 ? "" : "s");
		put(&l, num);
		if (h->failed) {
			snprintf(num, sizeof(num), "%zu failed", h->failed);
			put(&l, ", ");
			color(&l, C_RED);
			put(&l, num);
			color(&l, C_OFF);
		}
		snprintf(num, sizeof(num), ", %zu not run", not_run(h));
		put(&l, num);
		break;
	}
	strbuf_addstr(s, "\n");
}

/*
 * The counts of the bar and the last line: trials finished (ran, or were
 * recorded failed), of which failed, and the total; the trials hosts that
 * are through left not run; whether every host is through.
 */
struct counts {
	size_t	finished, failed, total, not_run;
	int	over;
};

static void
totals(const struct progress *p, struct counts *c)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->over = p->n > 0;
	for (i = 0; i < p->n; i++) {
		const struct phost *h = &p->hosts[i];

		c->total += h->ntrials;
		c->failed += h->failed;
		c->finished += h->done < h->ntrials ? h->done : h->ntrials;
		c->not_run += not_run(h);
		c->over &= over(h);
	}
}

/*
 * Seconds until the slowest host is done, from each host's own pace
 * (hosts run in parallel); hosts with no trial finished yet go at the
 * average pace of the others.  -1 when nothing is known yet.
 */
static double
eta(const struct progress *p, double t)
{
	double worst = -1, sum = 0, per;
	size_t i, nrate = 0;

	for (i = 0; i < p->n; i++) {
		const struct phost *h = &p->hosts[i];

		if (h->done > 0 && h->t0 > 0) {
			sum += (t - h->t0) / (double)h->done;
			nrate++;
		}
	}
	if (nrate == 0)
		return -1;
	for (i = 0; i < p->n; i++) {
		const struct phost *h = &p->hosts[i];
		double e;

		if (over(h) || h->done >= h->ntrials)
			continue;
		per = h->done > 0 && h->t0 > 0 ? (t - h->t0) / (double)h->done :
		    sum / (double)nrate;
		e = per * (double)(h->ntrials - h->done);
		if (e > worst)
			worst = e;
	}
	return worst < 0 ? 0 : worst;
}

static void
bar_line(const struct progress *p, struct strbuf *s, int cols, double t)
{
	struct line l = { s, 0, cols - 1, p->color };
	struct counts c;
	size_t pct;
	char rest[192], d[32], fails[48] = "", left[48] = "";
	int barw, fill, i, ended;
	double e;

	totals(p, &c);
	pct = c.total ? c.finished * 100 / c.total : 100;
	ended = c.over || (c.total > 0 && c.finished >= c.total);
	if (c.failed)
		snprintf(fails, sizeof(fails), ", %zu failed", c.failed);
	if (c.not_run)
		snprintf(left, sizeof(left), ", %zu not run", c.not_run);
	if (ended) {
		numfmt_duration(d, sizeof(d), t - p->start);
		snprintf(rest, sizeof(rest), " %zu/%zu trials%s%s  %3zu%%  in %s",
		    c.finished, c.total, fails, left, pct, d);
	} else {
		e = eta(p, t);
		if (e < 0)
			snprintf(d, sizeof(d), "--");
		else
			numfmt_duration(d, sizeof(d), e);
		snprintf(rest, sizeof(rest), " %zu/%zu trials%s  %3zu%%  eta %s",
		    c.finished, c.total, fails, pct, d);
	}
	if ((int)strlen(rest) > cols - 1) {
		/* Narrow: the numbers that matter most. */
		snprintf(rest, sizeof(rest), " %zu/%zu %zu%% %s%s", c.finished, c.total, pct,
		    ended ? "in " : "eta ", d);
	}
	barw = cols - 1 - 2 - (int)strlen(rest);
	if (barw > 40)
		barw = 40;
	if (barw >= 10) {
		fill = c.total ? (int)((double)barw * (double)c.finished / (double)c.total) :
		    barw;
		put(&l, "[");
		color(&l, c.failed ? C_RED : C_GREEN);
		for (i = 0; i < fill; i++)
			put(&l, "#");
		color(&l, C_OFF);
		for (; i < barw; i++)
			put(&l, ".");
		put(&l, "]");
		put(&l, rest);
	} else
		put(&l, rest + 1);
	strbuf_addstr(s, "\n");
}

/*
 * Order of showing hosts when they do not all fit: busy, failed,
 * interrupted (trials left), waiting, done.
 */
enum { R_BUSY, R_FAILED, R_INTERRUPTED, R_WAITING, R_DONE, NRANKS };

static int
rank(const struct phost *h)
{
	switch (h->st) {
	case PROGRESS_CONNECTING:
	case PROGRESS_DEPLOYING:
	case PROGRESS_RUNNING:
		return R_BUSY;
	case PROGRESS_FAILED:
		return R_FAILED;
	case PROGRESS_INTERRUPTED:
		return R_INTERRUPTED;
	case PROGRESS_WAITING:
		return R_WAITING;
	case PROGRESS_DONE:
		break;
	}
	return R_DONE;
}

/* "1000 hosts: 12 connecting, 850 running, 4 failed" (the states there are). */
static void
state_counts(const struct progress *p, struct strbuf *s)
{
	static const enum progress_state order[] = { PROGRESS_WAITING, PROGRESS_CONNECTING,
		PROGRESS_DEPLOYING, PROGRESS_RUNNING, PROGRESS_DONE, PROGRESS_FAILED,
		PROGRESS_INTERRUPTED };
	size_t n[PROGRESS_INTERRUPTED + 1] = { 0 }, i;
	const char *sep = ": ";

	for (i = 0; i < p->n; i++)
		n[p->hosts[i].st]++;
	strbuf_addf(s, "%zu hosts", p->n);
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (n[order[i]] == 0)
			continue;
		strbuf_addf(s, "%s%zu %s", sep, n[order[i]], state_word(order[i]));
		sep = ", ";
	}
}

/* Whether busy host a is behind b: less of its trials done, or longer so. */
static int
behind(const struct phost *a, const struct phost *b)
{
	double fa = a->ntrials ? (double)a->done / (double)a->ntrials : 0;
	double fb = b->ntrials ? (double)b->done / (double)b->ntrials : 0;

	return fa < fb || (fa == fb && a->since < b->since);
}

/* A line of the frame that is not a host's: text cut to the width. */
static void
text_line(const struct progress *p, struct strbuf *s, int cols, const char *text)
{
	struct line l = { s, 0, cols - 1, p->color };

	put(&l, text);
	strbuf_addstr(s, "\n");
}

/*
 * The frame of a big fleet: the hosts by state, the slowest busy hosts,
 * the failed ones (as many as fit), the bar.  Returns its lines.
 */
static size_t
render_summary(const struct progress *p, struct strbuf *s, int namew, int cols, int rows,
    double t)
{
	struct strbuf c = STRBUF_INIT;
	size_t i, k, pick[SUMMARY_SLOWEST], nslow = 0, nbusy = 0, nfail = 0, nlines = 0;
	size_t room, most, shown;
	unsigned char *taken = xcalloc(p->n ? p->n : 1, 1);
	char num[96];

	state_counts(p, &c);
	text_line(p, s, cols, c.buf);
	nlines++;
	strbuf_release(&c);
	for (i = 0; i < p->n; i++) {
		nbusy += rank(&p->hosts[i]) == R_BUSY;
		nfail += p->hosts[i].st == PROGRESS_FAILED;
	}
	/*
	 * The rows: counts, bar, one spare; of the rest the slowest come
	 * first, in at most half of them when there are failed hosts to show.
	 */
	room = rows > 4 ? (size_t)rows - 3 : 1;
	most = nfail > 0 ? room / 2 : room;
	for (k = 0; k < SUMMARY_SLOWEST && k + 1 < most && nbusy > 0; k++) {
		size_t best = SIZE_MAX;

		for (i = 0; i < p->n; i++)
			if (!taken[i] && rank(&p->hosts[i]) == R_BUSY &&
			    (best == SIZE_MAX || behind(&p->hosts[i], &p->hosts[best])))
				best = i;
		if (best == SIZE_MAX)
			break;
		taken[best] = 1;
		pick[nslow++] = best;
	}
	if (nslow > 0) {
		snprintf(num, sizeof(num), "slowest of %zu busy:", nbusy);
		text_line(p, s, cols, num);
		nlines++;
		room -= nslow + 1;
		for (k = 0; k < nslow; k++)
			host_line(p, s, &p->hosts[pick[k]], namew, cols);
		nlines += nslow;
	}
	if (nfail > 0 && room >= 2) {
		snprintf(num, sizeof(num), "failed (%zu):", nfail);
		text_line(p, s, cols, num);
		nlines++;
		room--;
		/* the last row says how many more when they do not all fit */
		for (i = 0, shown = 0; i < p->n; i++) {
			if (p->hosts[i].st != PROGRESS_FAILED)
				continue;
			if (shown + 1 == room && nfail > room)
				break;
			host_line(p, s, &p->hosts[i], namew, cols);
			nlines++;
			if (++shown == room)
				break;
		}
		if (shown < nfail) {
			snprintf(num, sizeof(num), "+%zu more failed", nfail - shown);
			text_line(p, s, cols, num);
			nlines++;
		}
	}
	bar_line(p, s, cols, t);
	nlines++;
	free(taken);
	return nlines;
}

/* Render the frame into s; returns its number of lines. */
static size_t
render(const struct progress *p, struct strbuf *s, double t)
{
	int cols, rows, namew = 0, r, n;
	size_t i, shown = 0, hidden[NRANKS] = { 0, 0, 0, 0, 0 }, nlines = 0, avail;
	unsigned char *show;

	terminal_size(p, &cols, &rows);
	if (cols < 20)
		cols = 20;
	for (i = 0; i < p->n; i++) {
		n = (int)strlen(p->hosts[i].name);
		if (n > namew)
			namew = n;
	}
	if (namew > PROGRESS_NAME_MAX)
		namew = PROGRESS_NAME_MAX;
	if (summarized(p))
		return render_summary(p, s, namew, cols, rows, t);

	/* One row spare, so that the last line's newline never scrolls a
	 * frame that fills the screen off its top. */
	show = xcalloc(p->n ? p->n : 1, 1);
	if (p->n + 1 <= (size_t)(rows > 2 ? rows - 1 : 1)) {
		memset(show, 1, p->n);
		shown = p->n;
	} else {
		avail = rows > 4 ? (size_t)rows - 3 : 1;
		for (r = 0; r < NRANKS; r++)
			for (i = 0; i < p->n && shown < avail; i++)
				if (rank(&p->hosts[i]) == r && !show[i]) {
					show[i] = 1;
					shown++;
				}
	}
	for (i = 0; i < p->n; i++) {
		if (show[i]) {
			host_line(p, s, &p->hosts[i], namew, cols);
			nlines++;
		} else
			hidden[rank(&p->hosts[i])]++;
	}
	if (shown < p->n) {
		struct line l = { s, 0, cols - 1, p->color };
		char num[192];

		snprintf(num, sizeof(num), "+%zu more: %zu busy, %zu failed, %zu waiting, "
		    "%zu done", p->n - shown, hidden[R_BUSY], hidden[R_FAILED],
		    hidden[R_WAITING], hidden[R_DONE]);
		put(&l, num);
		if (hidden[R_INTERRUPTED] > 0) {
			snprintf(num, sizeof(num), ", %zu interrupted", hidden[R_INTERRUPTED]);
			put(&l, num);
		}
		strbuf_addstr(s, "\n");
		nlines++;
	}
	bar_line(p, s, cols, t);
	nlines++;
	free(show);
	return nlines;
}

/* Draw the frame over the previous one; mu held. */
static void
draw(struct progress *p, const char *message)
{
	struct strbuf frame = STRBUF_INIT, o = STRBUF_INIT;
	size_t lines, i;
	double t = now(p);
	const char *q, *nl;

	lines = render(p, &frame, t);
	if (p->drawn > 0)
		strbuf_addf(&o, "\r\033[%zuA", p->drawn);
	if (message != NULL) {
		if (p->drawn > 0)
			strbuf_addstr(&o, "\033[J");
		strbuf_addstr(&o, message);
		strbuf_addstr(&o, "\n");
	}
	for (q = frame.buf, i = 0; i < lines && (nl = strchr(q, '\n')) != NULL; i++) {
		strbuf_add(&o, q, (size_t)(nl - q));
		strbuf_addstr(&o, "\033[K\n");
		q = nl + 1;
	}
	if (message == NULL && lines < p->drawn)
		strbuf_addstr(&o, "\033[J");
	out(p, o.buf, o.len);
	p->drawn = lines;
	p->last_draw = t;
	p->dirty = 0;
	strbuf_release(&frame);
	strbuf_release(&o);
}

/* Off a terminal, a big fleet's line: its hosts by state, its trials; mu held. */
static void
plain_summary(struct progress *p)
{
	struct strbuf s = STRBUF_INIT;
	struct counts c;

	state_counts(p, &s);
	totals(p, &c);
	plain(p, NULL, "%s; %zu/%zu trials, %zu failed", s.buf, c.finished, c.total,
	    c.failed);
	strbuf_release(&s);
	p->summary_due = 0;
	p->last_summary = now(p);
}

/* A change: draw now, or soon (rate limit); mu held. */
static void
changed(struct progress *p)
{
	if (p->mode == PROGRESS_PLAIN && p->summary_due && !p->ended &&
	    now(p) - p->last_summary >= SUMMARY_PLAIN_S)
		plain_summary(p);
	if (p->mode != PROGRESS_TERMINAL || p->ended)
		return;
	if (now(p) - p->last_draw >= 1.0 / PROGRESS_MAX_FPS)
		draw(p, NULL);
	else
		p->dirty = 1;
}

/* --- API --------------------------------------------------------------------------- */

struct progress *
progress_new(int fd, enum progress_mode mode)
{
	struct progress *p = xcalloc(1, sizeof(*p));
	int tty = isatty(fd);
	const char *env;
	char *end;
	long v;

	p->fd = fd;
	if (mode == PROGRESS_AUTO)
		mode = progress_is_terminal(fd) ? PROGRESS_TERMINAL : PROGRESS_PLAIN;
	p->mode = mode;
	p->color = mode == PROGRESS_TERMINAL && tty && getenv("NO_COLOR") == NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->start = now(p);
	p->summary = PROGRESS_SUMMARY_HOSTS;
	if ((env = getenv("FLEETMARK_PROGRESS_SUMMARY")) != NULL && *env != '\0') {
		v = strtol(env, &end, 10);
		if (*end == '\0' && v >= 0)
			p->summary = (size_t)v;
	}
	return p;
}

enum progress_mode
progress_mode(const struct progress *p)
{
	return p->mode;
}

void
progress_set_clock(struct progress *p, double (*fn)(void *), void *arg)
{
	pthread_mutex_lock(&p->mu);
	p->now = fn;
	p->arg = arg;
	p->start = now(p);
	pthread_mutex_unlock(&p->mu);
}

void
progress_set_size(struct progress *p, int cols, int rows)
{
	pthread_mutex_lock(&p->mu);
	p->cols = cols;
	p->rows = rows;
	pthread_mutex_unlock(&p->mu);
}

void
progress_set_summary(struct progress *p, size_t hosts)
{
	pthread_mutex_lock(&p->mu);
	p->summary = hosts;
	pthread_mutex_unlock(&p->mu);
}

void
progress_set_color(struct progress *p, int on)
{
	pthread_mutex_lock(&p->mu);
	p->color = on && getenv("NO_COLOR") == NULL;
	pthread_mutex_unlock(&p->mu);
}

size_t
progress_add_host(struct progress *p, const char *name, size_t ntrials)
{
	struct phost *h;
	size_t i;

	pthread_mutex_lock(&p->mu);
	xgrow(&p->hosts, &p->cap, p->n + 1, sizeof(*p->hosts));
	i = p->n++;
	h = &p->hosts[i];
	memset(h, 0, sizeof(*h));
	h->name = xstrdup(name);
	h->ntrials = ntrials;
	changed(p);
	pthread_mutex_unlock(&p->mu);
	return i;
}

static const char *
state_word(enum progress_state st)
{
	switch (st) {
	case PROGRESS_WAITING:		return "waiting";
	case PROGRESS_CONNECTING:	return "connecting";
	case PROGRESS_DEPLOYING:	return "deploying";
	case PROGRESS_RUNNING:		return "running";
	case PROGRESS_DONE:		return "done";
	case PROGRESS_FAILED:		return "failed";
	case PROGRESS_INTERRUPTED:	return "interrupted";
	}
	return "?";
}

/* Lock p and return its host number `host`; NULL (unlocked) if there is none. */
static struct phost *
lock_host(struct progress *p, size_t host)
{
	pthread_mutex_lock(&p->mu);
	if (host < p->n)
		return &p->hosts[host];
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

void
progress_state(struct progress *p, size_t host, enum progress_state st, const char *detail)
{
	struct phost *h;

	if ((h = lock_host(p, host)) == NULL)
		return;
	free(h->detail);
	h->detail = xstrdup_null(detail);
	if (st != h->st || h->since == 0)
		h->since = now(p);
	h->st = st;
	if (st == PROGRESS_DONE) {
		if (h->failed)
			plain_host(p, h, "done, %zu trial%s, %zu failed", h->done,
			    h->done == 1 ? "" : "s", h->failed);
		else
			plain_host(p, h, "done, %zu trial%s", h->done, h->done == 1 ? "" : "s");
	} else if (st == PROGRESS_FAILED)
		plain(p, h, "failed%s%s", detail ? ": " : "", detail ? detail : "");
	else if (st == PROGRESS_INTERRUPTED) {
		char fails[48] = "";

		if (h->failed)
			snprintf(fails, sizeof(fails), ", %zu failed", h->failed);
		plain_host(p, h, "interrupted, %zu trial%s%s, %zu not run", h->done,
		    h->done == 1 ? "" : "s", fails, not_run(h));
	} else
		plain_host(p, h, "%s%s%s", state_word(st), detail ? " " : "",
		    detail ? detail : "");
	changed(p);
	pthread_mutex_unlock(&p->mu);
}

void
progress_trial(struct progress *p, size_t host, size_t k, const char *what)
{
	struct phost *h;

	if ((h = lock_host(p, host)) == NULL)
		return;
	if (h->st != PROGRESS_RUNNING || h->since == 0)
		h->since = now(p);
	h->st = PROGRESS_RUNNING;
	h->k = k;
	free(h->what);
	h->what = xstrdup_null(what);
	if (h->t0 == 0)
		h->t0 = now(p);
	plain_host(p, h, "trial %zu/%zu%s%s", k, h->ntrials, what ? " " : "", what ? what : "");
	changed(p);
	pthread_mutex_unlock(&p->mu);
}

void
progress_trials_failed(struct progress *p, size_t host, size_t n)
{
	struct phost *h;

	if ((h = lock_host(p, host)) == NULL)
		return;
	h->done += n;
	h->failed += n;
	changed(p);
	pthread_mutex_unlock(&p->mu);
}

/*
 * mu held: "NAME trial k/N " and text as a line that stays, above the
 * frame on a terminal (what comes from a host sanitized, cut).
 */
static void
trial_line(struct progress *p, const struct phost *h, const char *text)
{
	struct strbuf s = STRBUF_INIT;
	struct line l = { &s, 0, PLAIN_MAX, 0 };
	char k[64];

	if (p->mode != PROGRESS_TERMINAL || p->ended)
		return;
	snprintf(k, sizeof(k), " trial %zu/%zu ", h->k, h->ntrials);
	put(&l, h->name);
	put(&l, k);
	put(&l, text);
	if (p->drawn > 0)
		draw(p, s.buf);
	else {
		strbuf_addstr(&s, "\n");
		out(p, s.buf, s.len);
	}
	strbuf_release(&s);
}

void
progress_add_trials(struct progress *p, size_t host, size_t n)
{
	struct phost *h;

	if ((h = lock_host(p, host)) == NULL)
		return;
	h->ntrials += n;
	changed(p);
	pthread_mutex_unlock(&p->mu);
}

void
progress_trial_done(struct progress *p, size_t host, const char *failure)
{
	struct phost *h;
	char *text;

	if ((h = lock_host(p, host)) == NULL)
		return;
	h->done++;
	if (failure != NULL) {
		h->failed++;
		/* a big fleet: the first failure of a point with its message */
		if (strstr(failure, ": ") != NULL)
			plain(p, h, "trial %zu/%zu failed: %s", h->k, h->ntrials, failure);
		else
			plain_host(p, h, "trial %zu/%zu failed: %s", h->k, h->ntrials,
			    failure);
		if (strstr(failure, ": ") != NULL) {
			text = xasprintf("failed: %s", failure);
			trial_line(p, h, text);
			free(text);
		}
	}
	changed(p);
	pthread_mutex_unlock(&p->mu);
}

void
progress_trial_values(struct progress *p, size_t host, const char *values)
{
	struct phost *h;

	if ((h = lock_host(p, host)) == NULL)
		return;
	if (p->mode == PROGRESS_PLAIN)
		plain(p, h, "trial %zu/%zu %s", h->k, h->ntrials, values);
	else
		trial_line(p, h, values);
	pthread_mutex_unlock(&p->mu);
}

void
progress_message(struct progress *p, const char *line)
{
	struct strbuf s = STRBUF_INIT;

	pthread_mutex_lock(&p->mu);
	if (p->mode == PROGRESS_TERMINAL && !p->ended && p->drawn > 0)
		draw(p, line);
	else {
		strbuf_addstr(&s, line);
		strbuf_addstr(&s, "\n");
		out(p, s.buf, s.len);
		strbuf_release(&s);
	}
	pthread_mutex_unlock(&p->mu);
}

/* mu held */
static void
tick(struct progress *p)
{
	double t;

	if (p->mode != PROGRESS_TERMINAL || p->ended || p->n == 0)
		return;
	t = now(p);
	if ((p->dirty && t - p->last_draw >= 1.0 / PROGRESS_MAX_FPS) ||
	    t - p->last_draw >= 1.0)
		draw(p, NULL);
}

void
progress_tick(struct progress *p)
{
	pthread_mutex_lock(&p->mu);
	tick(p);
	pthread_mutex_unlock(&p->mu);
}

static void *
ticker_main(void *arg)
{
	struct progress *p = arg;
	struct timespec ts;

	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		clock_deadline(&ts, 1000 / PROGRESS_MAX_FPS);
		pthread_cond_timedwait(&p->cv, &p->mu, &ts);
		if (!p->stop)
			tick(p);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int
progress_start_ticker(struct progress *p)
{
	int r = 0;

	pthread_mutex_lock(&p->mu);
	if (p->mode == PROGRESS_TERMINAL && !p->ticking && !p->ended) {
		p->stop = 0;
		if ((r = pthread_create(&p->ticker, NULL, ticker_main, p)) == 0)
			p->ticking = 1;
	}
	pthread_mutex_unlock(&p->mu);
	return r == 0 ? 0 : -1;
}

static void
stop_ticker(struct progress *p)
{
	int join;

	pthread_mutex_lock(&p->mu);
	join = p->ticking;
	p->stop = 1;
	p->ticking = 0;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	if (join)
		pthread_join(p->ticker, NULL);
}

void
progress_end(struct progress *p)
{
	struct counts c;
	char d[32], left[48] = "";

	stop_ticker(p);
	pthread_mutex_lock(&p->mu);
	if (!p->ended) {
		if (p->mode == PROGRESS_TERMINAL && p->n > 0)
			draw(p, NULL);
		else if (p->mode == PROGRESS_PLAIN && p->n > 0) {
			if (p->summary_due)
				plain_summary(p);
			totals(p, &c);
			numfmt_duration(d, sizeof(d), now(p) - p->start);
			if (c.not_run)
				snprintf(left, sizeof(left), ", %zu not run", c.not_run);
			plain(p, NULL, "%zu/%zu trials, %zu failed%s, in %s", c.finished,
			    c.total, c.failed, left, d);
		}
		p->ended = 1;
		p->drawn = 0;
	}
	pthread_mutex_unlock(&p->mu);
}

size_t
progress_render(struct progress *p, char *buf, size_t size)
{
	struct strbuf s = STRBUF_INIT;
	size_t n;

	pthread_mutex_lock(&p->mu);
	render(p, &s, now(p));
	pthread_mutex_unlock(&p->mu);
	n = s.len;
	if (size > 0) {
		size_t c = n < size - 1 ? n : size - 1;

		memcpy(buf, s.buf, c);
		buf[c] = '\0';
	}
	strbuf_release(&s);
	return n;
}

void
progress_free(struct progress *p)
{
	size_t i;

	if (p == NULL)
		return;
	stop_ticker(p);
	for (i = 0; i < p->n; i++) {
		free(p->hosts[i].name);
		free(p->hosts[i].detail);
		free(p->hosts[i].what);
	}
	free(p->hosts);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

/* --- One status line ----------------------------------------------------------------- */

int
progress_is_terminal(int fd)
{
	const char *term = getenv("TERM");

	return isatty(fd) && (term == NULL || strcmp(term, "dumb") != 0);
}

#define STATUS_CLEAR	"\r\033[K"	/* to the line's start, and clear it */
#define STATUS_MAX	512		/* bytes of a status line, STATUS_CLEAR included */

struct progress_line {
	int		 fd;
	long long	 last_ms;	/* when last drawn; 0: draw at the next set */
	int		 drawn;		/* the line is on the screen */
};

struct progress_line *
progress_line_new(int fd)
{
	struct progress_line *l;

	if (!progress_is_terminal(fd))
		return NULL;
	l = xcalloc(1, sizeof(*l));
	l->fd = fd;
	return l;
}

void
progress_line_set(struct progress_line *l, int force, const char *fmt, ...)
{
	char line[STATUS_MAX];
	long long t;
	va_list ap;
	int n;

	if (l == NULL)
		return;
	t = clock_mono_ms();
	if (!force && t - l->last_ms < 1000 / PROGRESS_MAX_FPS)
		return;
	l->last_ms = t;
	memcpy(line, STATUS_CLEAR, sizeof(STATUS_CLEAR) - 1);
	va_start(ap, fmt);
	n = vsnprintf(line + sizeof(STATUS_CLEAR) - 1, sizeof(line) - sizeof(STATUS_CLEAR) + 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n += (int)sizeof(STATUS_CLEAR) - 1;
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;	/* cut */
	if (write(l->fd, line, (size_t)n) == n)
		l->drawn = 1;
}

void
progress_line_message(struct progress_line *l, const char *line)
{
	char *s;

	if (l == NULL)
		return;
	s = xasprintf(STATUS_CLEAR "%s\n", line);
	if (write(l->fd, s, strlen(s)) > 0)
		l->drawn = 0;
	l->last_ms = 0;
	free(s);
}

void
progress_line_end(struct progress_line *l)
{
	if (l == NULL)
		return;
	if (l->drawn)
		(void)!write(l->fd, STATUS_CLEAR, sizeof(STATUS_CLEAR) - 1);
	free(l);
}
