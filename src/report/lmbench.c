/*
 * report/lmbench.c: lmbench 3's five summary tables, with its headers,
 * column widths and number formatting (scripts/getsummary), one row per
 * (host, label) and repetition, or per series aggregated.
 *
 * Where the mail tables and getsummary differ, the mail wins: the OS
 * column is left-aligned ("with-patch   ", as in the TX49 mail), the rest
 * is getsummary's layout.  Each value is formatted to an inner length,
 * then cut to the column's width: lmbench formats TCP conn with 5
 * characters and prints 4, which is how 76.4 becomes " 76.".  Under the
 * tables come the agent's notes that say a trial differs from lmbench's
 * (the "unlike lmbench: " notes of docs/agent.md), one per series and point.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"
#include "report.h"
#include "strbuf.h"
#include "wire.h"
#include "xmalloc.h"

#define M	1000000.0
#define K	1000.0

/* getsummary's num(): v formatted with `len` characters, into s. */
static void
summary_num(char *s, size_t cap, double v, int len)
{
	char n[64];

	if (isnan(v) || v <= 0) {
		snprintf(s, cap, "%*s", len, "");
	} else if (v >= 10 * M) {
		snprintf(n, sizeof(n), "%.1f", v / M);
		snprintf(s, cap, "%*.*s%s", len - 1, len - 1, n, "M");
	} else if (v >= 10 * K) {
		snprintf(n, sizeof(n), "%.1f", v / K);
		snprintf(s, cap, "%*.*s%s", len - 1, len - 1, n, "K");
	} else if (v >= 10) {
		snprintf(n, sizeof(n), "%.1f", v);
		snprintf(s, cap, "%*.*s", len, len, n);
	} else if (v < 0.001) {
		/* "%6.0e" and wider; below 6 Perl is handed "%5.-1e", no number */
		snprintf(s, cap, "%*.*e", len, len - 6 > 0 ? len - 6 : 0, v);
	} else {
		snprintf(s, cap, "%*.*f", len, len - 2, v);
	}
}

/*
 * The number a cell reads as, and the unit of its last digit: "76." is 76
 * to 1, "39.K" 39000 to 1000, "5e-04" 0.0005 to 0.0001.  -1 for a cell that
 * is not a number.
 */
static int
read_cell(const char *s, double *v, double *unit)
{
	double scale = 1;
	int frac = 0, digits = 0, exp = 0, esign = 1, edigits = 0;

	while (*s == ' ')
		s++;
	*v = 0;
	for (; *s >= '0' && *s <= '9'; s++, digits++)
		*v = *v * 10 + (*s - '0');
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++, digits++, frac++)
			*v += (*s - '0') * pow(10, -(frac + 1));
	if (digits == 0)
		return -1;
	if (*s == 'e') {
		s++;
		if (*s == '-' || *s == '+')
			esign = *s++ == '-' ? -1 : 1;
		for (; *s >= '0' && *s <= '9'; s++, edigits++)
			exp = exp * 10 + (*s - '0');
		if (edigits == 0)
			return -1;
	} else if (*s == 'K' || *s == 'M')
		scale = *s++ == 'K' ? K : M;
	if (*s != '\0')
		return -1;
	*v *= scale * pow(10, esign * exp);
	*unit = scale * pow(10, esign * exp - frac);
	return 0;
}

/*
 * Does the cell read as v, give or take its last digit, and not as a
 * number of another size ("1e-0" is 0.000123 to within its digit, but
 * reads as one)?  A zero is v rounded away ("0.00" for 0.002, as
 * getsummary prints it).
 */
static int
reads_as(const char *cell, double v)
{
	double got, unit;

	return read_cell(cell, &got, &unit) == 0 && fabs(got - v) <= unit * (1 + 1e-9) &&
	    (got == 0 || (got / v >= 0.5 && got / v <= 2));
}

/* s right-aligned in `width`, cut to it as getsummary's printf cuts. */
static void
cut(char *buf, const char *s, int width)
{
	snprintf(buf, (size_t)width + 1, "%*.*s", width, width, s);
}

/* "5e-04" -> "5e-4", "1e+09" -> "1e9": the exponent without its padding. */
static void
short_exponent(char *s)
{
	char *e = strchr(s, 'e'), *d;

	if (e == NULL)
		return;
	d = e + 1;
	if (*d == '+')
		memmove(d, d + 1, strlen(d));
	else if (*d == '-')
		d++;
	while (d[0] == '0' && d[1] != '\0')
		memmove(d, d + 1, strlen(d));
}

void
report_lmbench_num(char *buf, double v, int len, int width)
{
	char s[128], t[64];
	int p;

	summary_num(s, sizeof(s), v, len);
	cut(buf, s, width);
	if (isnan(v) || v <= 0 || reads_as(buf, v))
		return;
	/*
	 * getsummary would print a wrong number here: "5e-0" for 0.0005 in 4
	 * characters, "12.3" for 12.3K cut to 4.  Say it as getsummary does at
	 * the printed width, else in the shortest exponent form that fits,
	 * else wider than the column: never a number that reads wrong.
	 */
	summary_num(s, sizeof(s), v, width);
	cut(buf, s, width);
	if (reads_as(buf, v))
		return;
	for (p = width; p >= 0; p--) {
		snprintf(t, sizeof(t), "%.*e", p, v);
		short_exponent(t);
		if ((int)strlen(t) <= width && reads_as(t, v)) {
			snprintf(buf, (size_t)width + 1, "%*s", width, t);
			return;
		}
	}
	snprintf(t, sizeof(t), "%.0e", v);
	short_exponent(t);
	snprintf(buf, 32, "%s", t);
}

/* A column: the point behind it (bench, the params it must have, metric). */
struct lcol {
	const char	*bench, *params, *metric;
	int		 len, width;
	const char	*name;		/* for delta lines, and the grid's column */
	const char	*title;		/* the grid's column when there is no name */
	int		 shared;	/* another table's column: alone it makes no row */
};

#define SAME(b, p, m, w, name)	{ b, p, m, w, w, name, NULL, 0 }
/* the mean of lat_syscall read and write (nullio[] below) */
#define NULLIO		{ "null-io", "", "", 4, 4, NULL, "null I/O", 0 }
/* never measured: blank */
#define NONE(w, title)	{ NULL, NULL, NULL, w, w, NULL, title, 0 }

struct ltable {
	const char	*title;
	const char	*header;	/* the three lines under the dashes, and the rule */
	int		 mhz;		/* the Mhz column first */
	struct lcol	 cols[12];
	size_t		 ncols;
};

static const struct ltable tables[] = {
	{ "Processor, Processes - times in microseconds - smaller is better",
	  "------------------------------------------------------------------------------\n"
	  "Host                 OS  Mhz null null      open slct sig  sig  fork exec sh  \n"
	  "                             call  I/O stat clos TCP  inst hndl proc proc proc\n"
	  "--------- ------------- ---- ---- ---- ---- ---- ---- ---- ---- ---- ---- ----\n",
	  1, {
		SAME("lat_syscall", "op=null", "latency", 4, "null call"),
		NULLIO,
		SAME("lat_syscall", "op=stat", "latency", 4, "stat"),
		SAME("lat_syscall", "op=open", "latency", 4, "open clos"),
		SAME("lat_select", "type=tcp n=100", "latency", 4, "slct TCP"),
		SAME("lat_sig", "op=install", "latency", 4, "sig inst"),
		SAME("lat_sig", "op=catch", "latency", 4, "sig hndl"),
		SAME("lat_proc", "op=fork", "latency", 4, "fork"),
		SAME("lat_proc", "op=exec", "latency", 4, "exec"),
		SAME("lat_proc", "op=shell", "latency", 4, "sh"),
	  }, 10 },
	{ "Context switching - times in microseconds - smaller is better",
	  "-------------------------------------------------------------------------\n"
	  "Host                 OS  2p/0K 2p/16K 2p/64K 8p/16K 8p/64K 16p/16K 16p/64K\n"
	  "                         ctxsw  ctxsw  ctxsw ctxsw  ctxsw   ctxsw   ctxsw\n"
	  "--------- ------------- ------ ------ ------ ------ ------ ------- -------\n",
	  0, {
		SAME("lat_ctx", "procs=2 size=0", "latency", 6, "ctxsw 2p/0K"),
		SAME("lat_ctx", "procs=2 size=16", "latency", 6, "ctxsw 2p/16K"),
		SAME("lat_ctx", "procs=2 size=64", "latency", 6, "ctxsw 2p/64K"),
		SAME("lat_ctx", "procs=8 size=16", "latency", 6, "ctxsw 8p/16K"),
		SAME("lat_ctx", "procs=8 size=64", "latency", 6, "ctxsw 8p/64K"),
		SAME("lat_ctx", "procs=16 size=16", "latency", 7, "ctxsw 16p/16K"),
		SAME("lat_ctx", "procs=16 size=64", "latency", 7, "ctxsw 16p/64K"),
	  }, 7 },
	{ "*Local* Communication latencies in microseconds - smaller is better",
	  "---------------------------------------------------------------------\n"
	  "Host                 OS 2p/0K  Pipe AF     UDP  RPC/   TCP  RPC/ TCP\n"
	  "                        ctxsw       UNIX         UDP         TCP conn\n"
	  "--------- ------------- ----- ----- ---- ----- ----- ----- ----- ----\n",
	  0, {
		/* shared with the table above: it alone does not make a row */
		{ "lat_ctx", "procs=2 size=0", "latency", 5, 5, NULL, "2p/0K ctxsw", 1 },
		SAME("lat_pipe", "", "latency", 5, "pipe"),
		SAME("lat_unix", "", "latency", 4, "AF UNIX"),
		SAME("lat_udp", "", "latency", 5, "UDP"),
		NONE(5, "RPC/UDP"),
		SAME("lat_tcp", "", "latency", 5, "TCP"),
		NONE(5, "RPC/TCP"),
		{ "lat_connect", "", "latency", 5, 4, "TCP conn", NULL, 0 },
	  }, 8 },
	{ "File & VM system latencies in microseconds - smaller is better",
	  "-------------------------------------------------------------------------------\n"
	  "Host                 OS   0K File      10K File     Mmap    Prot   Page   100fd\n"
	  "                        Create Delete Create Delete Latency Fault  Fault  selct\n"
	  "--------- ------------- ------ ------ ------ ------ ------- ----- ------- -----\n",
	  0, {
		SAME("lat_fs", "size=0", "create", 6, "0K create"),
		SAME("lat_fs", "size=0", "delete", 6, "0K delete"),
		SAME("lat_fs", "size=10240", "create", 6, "10K create"),
		SAME("lat_fs", "size=10240", "delete", 6, "10K delete"),
		SAME("lat_mmap", "", "latency", 7, "mmap"),
		SAME("lat_sig", "op=prot", "latency", 5, "prot fault"),
		SAME("lat_pagefault", "", "latency", 7, "page fault"),
		SAME("lat_select", "type=file n=100", "latency", 5, "100fd selct"),
	  }, 8 },
	{ "*Local* Communication bandwidths in MB/s - bigger is better",
	  "-----------------------------------------------------------------------------\n"
	  "Host                OS  Pipe AF    TCP  File   Mmap  Bcopy  Bcopy  Mem   Mem\n"
	  "                             UNIX      reread reread (libc) (hand) read write\n"
	  "--------- ------------- ---- ---- ---- ------ ------ ------ ------ ---- -----\n",
	  0, {
		SAME("bw_pipe", "", "bandwidth", 4, "bw pipe"),
		SAME("bw_unix", "", "bandwidth", 4, "bw AF UNIX"),
		SAME("bw_tcp", "", "bandwidth", 4, "bw TCP"),
		SAME("bw_file_rd", "", "bandwidth", 6, "file reread"),
		SAME("bw_mmap_rd", "", "bandwidth", 6, "mmap reread"),
		SAME("bw_mem", "op=bcopy", "bandwidth", 6, "bcopy libc"),
		SAME("bw_mem", "op=fcp", "bandwidth", 6, "bcopy hand"),
		SAME("bw_mem", "op=frd", "bandwidth", 4, "mem read"),
		SAME("bw_mem", "op=fwr", "bandwidth", 5, "mem write"),
	  }, 9 },
};
#define NTABLES	(sizeof(tables) / sizeof(tables[0]))

/* The two points behind "null I/O", and their delta names. */
static const struct lcol nullio[2] = {
	SAME("lat_syscall", "op=read", "latency", 4, "read"),
	SAME("lat_syscall", "op=write", "latency", 4, "write"),
};

static int
col_match(const struct lcol *l, const struct rcell *c)
{
	return l->bench && strcmp(l->bench, c->bench) == 0 &&
	    strcmp(l->metric, c->metric) == 0 && report_params_match(c->params, l->params);
}

const char *
report_lmbench_name(const struct rcell *c)
{
	size_t t, k;

	for (k = 0; k < 2; k++)
		if (col_match(&nullio[k], c))
			return nullio[k].name;
	for (t = 0; t < NTABLES; t++)
		for (k = 0; k < tables[t].ncols; k++)
			if (tables[t].cols[k].name && col_match(&tables[t].cols[k], c))
				return tables[t].cols[k].name;
	return NULL;
}

/* The cell behind a column, or -1. */
static long
find_cell(const struct report *r, const struct lcol *l)
{
	size_t c;

	for (c = 0; c < r->ncells; c++)
		if (col_match(l, &r->cells[c]))
			return (long)c;
	return -1;
}

void
report_lmbench_notes(struct report *r, size_t s, const char *bench, const char *params,
    const char *const *notes, size_t nnotes)
{
	size_t plen = strlen(WIRE_NOTE_UNLIKE_LMBENCH), i;
	const char *text;
	char *line;

	for (i = 0; i < nnotes; i++) {
		if ((text = notes[i]) == NULL || strncmp(text, WIRE_NOTE_UNLIKE_LMBENCH, plen) != 0)
			continue;
		line = xasprintf("%s\x1f%s%s%s\x1f%s", r->series[s].name, bench,
		    *params ? " " : "", params, text + plen);
		strv_push_unique(&r->unlike, line);
		free(line);
	}
}

/*
 * After the tables, what the agent said makes a trial differ from
 * lmbench's, one line per series, point and note: a grid of its own.
 */
static void
unlike_grid(const struct report *r, struct rgrids *gs)
{
	static const char *const cols[] = { "series", "point", "note" };
	struct rgrid *g;
	size_t i, row, len = 0;
	char *text = NULL, *f[3], *dup, *p;
	int k;
	FILE *mem;

	if (r->unlike.n == 0 || (mem = open_memstream(&text, &len)) == NULL)
		return;
	g = rgrid_new("lmbench", "Unlike lmbench", 2, 3, cols);
	fprintf(mem, "Unlike lmbench\n--------------\n");
	for (i = 0; i < r->unlike.n; i++) {
		p = dup = xstrdup(r->unlike.v[i]);
		for (k = 0; k < 3; k++) {
			f[k] = p;
			if (p != NULL && (p = strchr(p, '\x1f')) != NULL)
				*p++ = '\0';
		}
		row = rgrid_add_row(g);
		for (k = 0; k < 3; k++)
			rgrid_set(g, row, (size_t)k, f[k] ? f[k] : "", NAN);
		fprintf(mem, "%s: %s: %s\n", f[0], f[1] ? f[1] : "", f[2] ? f[2] : "");
		free(dup);
	}
	fclose(mem);
	g->text = text;
	rgrids_add(gs, g);
}

static double value_of(const struct report *r, size_t s, long c, int rep,
    enum report_aggregate agg);

/* A column's name for people: the mail header's two words ("2p/64K ctxsw"). */
static const char *
col_title(const struct rgrid *g, size_t col)
{
	return g->cols[col];
}

/*
 * Say why each blank cell of row `row` (series s, repetition rep) is
 * blank: a failed trial (its reason), a value of 0 (the agent's notes on
 * it), a column fleetmark does not measure, or a point the run did not
 * measure (those named together, one note for the row).
 */
static void
blank_notes(const struct report *r, const struct ltable *lt, const long *cells,
    const long *io, size_t s, int rep, enum report_aggregate agg, struct rgrid *g,
    size_t row, size_t col0)
{
	struct strbuf missing;
	size_t k, col, nmissing = 0;
	char *text, *why;

	strbuf_init(&missing, 0);
	for (k = 0; k < lt->ncols; k++) {
		const struct lcol *l = &lt->cols[k];
		double v = NAN;
		long c = -1;

		col = col0 + k;
		if (l->bench == NULL) {
			rgrid_note(g, row, col, "RPC/UDP and RPC/TCP: not measured (fleetmark has "
			    "no Sun RPC benchmark, lmbench's lat_rpc)");
			continue;
		}
		if (strcmp(l->bench, "null-io") == 0) {
			v = value_of(r, s, io[0], rep, agg);
			if (isnan(v))
				v = value_of(r, s, io[1], rep, agg);
			c = io[0] >= 0 ? io[0] : io[1];
		} else {
			c = cells[k];
			v = value_of(r, s, c, rep, agg);
		}
		if (!isnan(v) && v > 0)
			continue;
		if (!isnan(v)) {
			text = xasprintf("%s: the value is 0, which lmbench prints blank",
			    col_title(g, col));
			rgrid_note(g, row, col, text);
			free(text);
			report_cell_notes(r, s, (size_t)c, g, row, col);
			continue;
		}
		why = report_failure_why(r, s, strcmp(l->bench, "null-io") == 0 ? "lat_syscall" :
		    l->bench, strcmp(l->bench, "null-io") == 0 ? "" : l->params);
		if (why != NULL) {
			text = xasprintf("%s: the trial failed: %s", col_title(g, col), why);
			rgrid_note(g, row, col, text);
			free(text);
			free(why);
			continue;
		}
		strbuf_addf(&missing, "%s%s", nmissing++ ? ", " : "", col_title(g, col));
	}
	if (nmissing > 0) {
		text = xasprintf("not measured in this run: %s", missing.buf);
		for (k = 0; k < lt->ncols; k++) {
			col = col0 + k;
			if (strstr(missing.buf, col_title(g, col)) != NULL)
				rgrid_note(g, row, col, text);
		}
		free(text);
	}
	strbuf_release(&missing);
}

/*
 * Whether the lmbench tables have a row: a cell they show with a value
 * above 0 in some series.  A value of 0 is no result, as in lmbench's
 * tables (a context switch whose overhead took all its time), and a run
 * of only such values gets the other tables, its failures among them.
 */
int
report_has_lmbench(const struct report *r)
{
	const struct rvals *v;
	size_t c, s, i;

	for (c = 0; c < r->ncells; c++) {
		if (report_lmbench_name(&r->cells[c]) == NULL)
			continue;
		for (s = 0; s < r->nseries; s++)
			for (i = 0; (v = report_vals(r, s, c)) != NULL && i < v->n; i++)
				if (v->v[i] > 0)
					return 1;
	}
	return 0;
}

/* The value of a cell for one repetition (rep > 0) or aggregated (rep 0). */
static double
value_of(const struct report *r, size_t s, long c, int rep, enum report_aggregate agg)
{
	const struct rvals *v;
	size_t i;

	if (c < 0 || (v = report_vals(r, s, (size_t)c)) == NULL)
		return NAN;
	if (rep == 0)
		return report_agg(v, agg);
	for (i = 0; i < v->n; i++)
		if (v->rep[i] == rep)
			return v->v[i];
	return NAN;
}

static void
add_rep(int **reps, size_t *n, size_t *cap, int rep)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*reps)[i] == rep)
			return;
	xgrow(reps, cap, *n + 1, sizeof(**reps));
	(*reps)[(*n)++] = rep;
}

static int
cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The rows of one table as printed: their series and Host and OS text. */
struct lrows {
	size_t	*series;
	char	(*key)[24];	/* "%-9.9s %-13.13s" */
	size_t	 n, cap;
};

/*
 * Under a table whose rows of two series print alike (Host and OS cut to
 * getsummary's widths), which rows are which series.
 */
static void
print_legend(FILE *mem, const struct report *r, const struct lrows *lr)
{
	size_t i, j, first;
	int any = 0;

	for (i = 0; i < lr->n; i = j) {
		int alike = 0;
		size_t k;

		for (j = i; j < lr->n && lr->series[j] == lr->series[i]; j++)
			;
		for (k = 0; k < lr->n && !alike; k++)
			alike = lr->series[k] != lr->series[i] &&
			    strcmp(lr->key[k], lr->key[i]) == 0;
		/* report_label_rows(): alike by design, in the order of the runs */
		if (!alike || r->label_rows)
			continue;
		if (!any)
			fprintf(mem, "Rows that print alike (Host and OS cut to 9 and 13 "
			    "characters; `--label NAME` names a run in the OS column):\n");
		any = 1;
		first = i + 1;
		if (j - i == 1)
			fprintf(mem, "  row %zu: %s\n", first, r->series[lr->series[i]].name);
		else
			fprintf(mem, "  rows %zu-%zu: %s\n", first, j, r->series[lr->series[i]].name);
	}
}

/* Rows are grouped by host, as the mail tables are; series order within. */
static const struct report *sort_r;

static int
cmp_series(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(sort_r->series[x].host, sort_r->series[y].host);

	return c ? c : x < y ? -1 : x > y;
}

/* One table being built: its grid and text, and the rows printed so far. */
struct lbuild {
	const struct report	*r;
	const struct report_opts *o;
	const struct ltable	*lt;
	const long		*cells;		/* the cell behind each column, or -1 */
	const long		*io;		/* the two behind null I/O */
	struct rgrid		*g;
	FILE			*mem;
	struct lrows		 lr;
	int			*reps;		/* scratch: a series' repetitions */
	size_t			 reps_cap;
};

static int
is_nullio(const struct lcol *l)
{
	return l->bench != NULL && strcmp(l->bench, "null-io") == 0;
}

/* The repetitions of series s in the table's columns, sorted into b->reps; how many. */
static size_t
series_reps(struct lbuild *b, size_t s)
{
	const struct rvals *v;
	size_t k, i, j, n = 0;

	for (k = 0; k < b->lt->ncols; k++) {
		if (b->lt->cols[k].shared)
			continue;
		v = b->cells[k] >= 0 ? report_vals(b->r, s, (size_t)b->cells[k]) : NULL;
		for (i = 0; v && i < v->n; i++)
			add_rep(&b->reps, &n, &b->reps_cap, v->rep[i]);
		if (!is_nullio(&b->lt->cols[k]))
			continue;
		for (j = 0; j < 2; j++) {
			v = b->io[j] >= 0 ? report_vals(b->r, s, (size_t)b->io[j]) : NULL;
			for (i = 0; v && i < v->n; i++)
				add_rep(&b->reps, &n, &b->reps_cap, v->rep[i]);
		}
	}
	if (n > 1)	/* reps is NULL while no series had a trial */
		qsort(b->reps, n, sizeof(*b->reps), cmp_int);
	return n;
}

/* Column k's value for series s, repetition rep (0: aggregated). */
static double
col_value(const struct lbuild *b, size_t k, size_t s, int rep)
{
	const struct lcol *l = &b->lt->cols[k];
	enum report_aggregate agg = b->o->aggregate;
	double rd, wr;

	if (l->bench == NULL)
		return NAN;
	if (!is_nullio(l))
		return value_of(b->r, s, b->cells[k], rep, agg);
	rd = value_of(b->r, s, b->io[0], rep, agg);
	wr = value_of(b->r, s, b->io[1], rep, agg);
	/* As lmbench: no read, use write. */
	return isnan(rd) ? wr : isnan(wr) ? rd : (rd + wr) / 2;
}

/* Remember a printed row's series and Host and OS text, for the legend. */
static void
lrows_add(struct lrows *lr, size_t s, const char *line)
{
	if (lr->n == lr->cap) {
		lr->cap = lr->cap ? lr->cap * 2 : 16;
		lr->series = xreallocarray(lr->series, lr->cap, sizeof(*lr->series));
		lr->key = xreallocarray(lr->key, lr->cap, sizeof(*lr->key));
	}
	lr->series[lr->n] = s;
	snprintf(lr->key[lr->n++], sizeof(lr->key[0]), "%s", line);
}

/*
 * The row of series s, repetition rep (0: aggregated), in the grid and
 * the text; as lmbench, none when no column but a shared one has a result.
 */
static void
row_for(struct lbuild *b, size_t s, int rep)
{
	const struct rseries *se = &b->r->series[s];
	size_t row = rgrid_add_row(b->g), col = 4, k, ll;
	char repbuf[16], cell[64], line[256], *marks;
	int any = 0;
	double v;

	rgrid_set(b->g, row, 0, se->host, NAN);
	rgrid_set(b->g, row, 1, se->os, NAN);
	rgrid_set(b->g, row, 2, se->name, NAN);
	snprintf(repbuf, sizeof(repbuf), "%d", rep);
	rgrid_set(b->g, row, 3, rep ? repbuf : b->o->aggregate == REPORT_AGG_MEDIAN ?
	    "median" : "mean", NAN);
	ll = (size_t)snprintf(line, sizeof(line), "%-9.9s %-13.13s", se->host, se->os);
	if (b->lt->mhz) {
		/* getsummary's "%4.0f": a fifth digit widens the row */
		if (se->mhz > 0)
			snprintf(cell, sizeof(cell), "%4.0f", se->mhz);
		else
			snprintf(cell, sizeof(cell), "    ");
		ll += (size_t)snprintf(line + ll, sizeof(line) - ll, " %s", cell);
		rgrid_set(b->g, row, col++, cell, se->mhz > 0 ? se->mhz : NAN);
	}
	for (k = 0; k < b->lt->ncols; k++) {
		v = col_value(b, k, s, rep);
		if (!isnan(v) && v > 0 && !b->lt->cols[k].shared)
			any = 1;
		report_lmbench_num(cell, v, b->lt->cols[k].len, b->lt->cols[k].width);
		ll += (size_t)snprintf(line + ll, sizeof(line) - ll, " %s", cell);
		rgrid_set(b->g, row, col++, cell, v);
	}
	if (!any) {
		rgrid_free_row(b->g);
		return;
	}
	blank_notes(b->r, b->lt, b->cells, b->io, s, rep, b->o->aggregate, b->g, row,
	    col - b->lt->ncols);
	marks = rgrid_row_marks(b->g, row);
	fprintf(b->mem, "%s%s%s\n", line, marks ? "  " : "", marks ? marks : "");
	free(marks);
	lrows_add(&b->lr, s, line);
}

/* The grid of table lt: the row's names, then Mhz and the table's columns. */
static struct rgrid *
table_grid(const struct ltable *lt)
{
	const char *colnames[16] = { "host", "os", "series", "rep" };
	size_t i = 4, k;

	if (lt->mhz)
		colnames[i++] = "Mhz";
	for (k = 0; k < lt->ncols; k++)
		colnames[i++] = lt->cols[k].name ? lt->cols[k].name : lt->cols[k].title;
	return rgrid_new("lmbench", lt->title, 4, i, colnames);
}

/*
 * Table b->lt over the series in order: its grid, with the text in
 * g->text, in *gp, or NULL when no row has a result.  -1 without memory.
 */
static int
table_build(struct lbuild *b, const size_t *order, struct rgrid **gp)
{
	size_t si, s, i, nreps, len = 0;
	char *text = NULL;

	*gp = NULL;
	if ((b->mem = open_memstream(&text, &len)) == NULL)
		return -1;
	b->g = table_grid(b->lt);
	fprintf(b->mem, "%s\n%s", b->lt->title, b->lt->header);
	b->lr.n = 0;
	for (si = 0; si < b->r->nseries; si++) {
		s = order[si];
		if ((nreps = series_reps(b, s)) == 0)
			continue;
		if (b->o->aggregate != REPORT_AGG_NONE)
			row_for(b, s, 0);
		else
			for (i = 0; i < nreps; i++)
				row_for(b, s, b->reps[i]);
	}
	print_legend(b->mem, b->r, &b->lr);
	fclose(b->mem);
	if (b->g->nrows == 0) {
		rgrid_free(b->g);
		free(text);
		return 0;
	}
	b->g->text = text;
	*gp = b->g;
	return 0;
}

int
report_table_lmbench(const struct report *r, const struct report_opts *o,
    struct rgrids *gs, char **err)
{
	struct lbuild b = { .r = r, .o = o };
	size_t t, k, s, *order, ntables = 0;
	long cells[NTABLES][12], io[2];
	struct rgrid *g;
	int ret = -1;

	for (k = 0; k < 2; k++)
		io[k] = find_cell(r, &nullio[k]);
	for (t = 0; t < NTABLES; t++)
		for (k = 0; k < tables[t].ncols; k++)
			cells[t][k] = find_cell(r, &tables[t].cols[k]);

	order = xcalloc(r->nseries + 1, sizeof(*order));
	for (s = 0; s < r->nseries; s++)
		order[s] = s;
	sort_r = r;
	qsort(order, r->nseries, sizeof(*order), cmp_series);
	b.io = io;
	for (t = 0; t < NTABLES; t++) {
		b.lt = &tables[t];
		b.cells = cells[t];
		if (table_build(&b, order, &g) != 0) {
			*err = xstrdup("out of memory");
			goto out;
		}
		if (g != NULL) {
			rgrids_add(gs, g);
			ntables++;
		}
	}
	if (ntables == 0) {
		*err = xstrdup("no lmbench points in the runs given (try --table compare)");
		goto out;
	}
	unlike_grid(r, gs);
	ret = 0;
 out:
	free(b.reps);
	free(order);
	free(b.lr.series);
	free(b.lr.key);
	return ret;
}
