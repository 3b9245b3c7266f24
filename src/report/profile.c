/*
 * report-profile.c: the profile table: per benchmark point, each series'
 * profile as readprofile lists it ("Hits Percentage Function" under a
 * total line, as in the kernel profiles of linux-kernel mail), series side
 * by side; then each function's change in percentage points between the
 * baseline series and every other one, largest change first; then the
 * trials that have no profile, and why.
 *
 * A series' profile at a point is the sum over its trials: hits per
 * function added up, and the samples of every trial as the total.  The
 * agent sends each trial's top WIRE_PROFILE_TOP functions, so a function
 * outside a trial's top counts in that trial's "other".
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report-int.h"
#include "report.h"
#include "strv.h"
#include "wire.h"
#include "xmalloc.h"

#define PROF_MAX_LINE_TOP	1000	/* functions read from one trial line */
#define PROF_MAX_FUNCS		100000	/* distinct functions kept per series and point */

static struct rprof *
prof_get(struct report *r, size_t s, const char *bench, const char *params)
{
	struct rprof *p;
	size_t i;

	for (i = r->nprofs; i-- > 0;) {
		p = &r->profs[i];
		if (p->series == s && strcmp(p->bench, bench) == 0 &&
		    strcmp(p->params, params) == 0)
			return p;
	}
	xgrow(&r->profs, &r->cap_profs, r->nprofs + 1, sizeof(*r->profs));
	p = &r->profs[r->nprofs++];
	memset(p, 0, sizeof(*p));
	p->series = s;
	p->bench = xstrdup(bench);
	p->params = xstrdup(params);
	return p;
}

static void
fn_add(struct rprof *p, const char *sym, unsigned long long hits)
{
	size_t i;

	for (i = 0; i < p->nfn; i++)
		if (strcmp(p->fn[i].sym, sym) == 0) {
			p->fn[i].hits += hits;
			return;
		}
	if (p->nfn >= PROF_MAX_FUNCS)
		return;		/* the rest stays in "other" */
	xgrow(&p->fn, &p->cap, p->nfn + 1, sizeof(*p->fn));
	p->fn[p->nfn].sym = xstrdup(sym);
	p->fn[p->nfn++].hits = hits;
}

int
report_profile_add(struct report *r, size_t s, const char *bench, const char *params,
    const json_t *prof)
{
	const json_t *top, *f, *v;
	const char *absent, *event;
	json_int_t samples, hits, sum = 0;
	struct rprof *p;
	size_t i, k;

	if (!json_is_object(prof))
		return -1;
	absent = json_string_value(json_object_get(prof, "absent"));
	if (absent != NULL) {
		p = prof_get(r, s, bench, params);
		k = strv_push_unique(&p->absent, absent);
		if (k >= p->absent_cap) {
			size_t old = p->absent_cap;

			p->absent_cap = p->absent.cap > k + 1 ? p->absent.cap : k + 1;
			p->absent_n = xreallocarray(p->absent_n, p->absent_cap,
			    sizeof(*p->absent_n));
			memset(p->absent_n + old, 0, (p->absent_cap - old) *
			    sizeof(*p->absent_n));
		}
		p->absent_n[k]++;
		p->nabsent++;
		return 0;
	}
	/* The whole line is checked before anything of it is kept. */
	v = json_object_get(prof, "samples");
	top = json_object_get(prof, "top");
	event = json_string_value(json_object_get(prof, "event"));
	if (!json_is_integer(v) || (samples = json_integer_value(v)) < 0 ||
	    !json_is_array(top) || json_array_size(top) > PROF_MAX_LINE_TOP)
		return -1;
	json_array_foreach(top, i, f) {
		v = json_object_get(f, "hits");
		if (json_string_value(json_object_get(f, "sym")) == NULL ||
		    !json_is_integer(v) || (hits = json_integer_value(v)) < 0 ||
		    hits > samples - sum)
			return -1;
		sum += hits;
	}
	p = prof_get(r, s, bench, params);
	if (p->event == NULL && event != NULL)
		p->event = xstrdup(event);
	p->trials++;
	p->total += (unsigned long long)samples;
	json_array_foreach(top, i, f) {
		fn_add(p, json_string_value(json_object_get(f, "sym")),
		    (unsigned long long)json_integer_value(json_object_get(f, "hits")));
	}
	return 0;
}

void
report_profile_release(struct report *r)
{
	size_t i, j;

	if (r == NULL)
		return;
	for (i = 0; i < r->nprofs; i++) {
		struct rprof *p = &r->profs[i];

		for (j = 0; j < p->nfn; j++)
			free(p->fn[j].sym);
		free(p->fn);
		free(p->bench);
		free(p->params);
		free(p->event);
		strv_clear(&p->absent);
		free(p->absent_n);
	}
	free(r->profs);
	r->profs = NULL;
	r->nprofs = r->cap_profs = 0;
}

int
report_has_profile(const struct report *r)
{
	return r->nprofs > 0;
}

/* Functions by hits, largest first; ties by name, so output is stable. */
static int
cmp_fn(const void *a, const void *b)
{
	const struct rprof_fn *x = a, *y = b;

	if (x->hits != y->hits)
		return x->hits < y->hits ? 1 : -1;
	return strcmp(x->sym, y->sym);
}

static double
pct(unsigned long long hits, unsigned long long total)
{
	return total ? (double)hits * 100.0 / (double)total : 0;
}

/* Hits of sym in p (0 when it is not among the functions kept). */
static unsigned long long
hits_of(const struct rprof *p, const char *sym)
{
	size_t i;

	for (i = 0; i < p->nfn; i++)
		if (strcmp(p->fn[i].sym, sym) == 0)
			return p->fn[i].hits;
	return 0;
}

/* Hits of p's functions outside its top WIRE_PROFILE_TOP. */
static unsigned long long
other_hits(const struct rprof *p)
{
	unsigned long long listed = 0;
	size_t i;

	for (i = 0; i < p->nfn && i < WIRE_PROFILE_TOP; i++)
		listed += p->fn[i].hits;
	return p->total > listed ? p->total - listed : 0;
}

static char *
point_name(const char *bench, const char *params)
{
	return xasprintf("%s%s%s", bench, *params ? " " : "", params);
}

static void
set_num(struct rgrid *g, size_t row, size_t col, const char *fmt, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	rgrid_set(g, row, col, buf, v);
}

/* The readprofile listing: a text block per series, side by side. */
static char *
listing_text(const struct report *r, const struct rprof *const *ps, size_t n,
    const char *title)
{
	char *text = NULL, **head, *line, buf[64];
	size_t len = 0, i, k, rows = 0, *w, *hw, cap = 1, l;
	FILE *out = open_memstream(&text, &len);

	if (out == NULL)
		return xstrdup("");
	w = xcalloc(n, sizeof(*w));
	hw = xcalloc(n, sizeof(*hw));
	head = xcalloc(n, sizeof(*head));
	for (k = 0; k < n; k++) {
		const struct rprof *p = ps[k];
		size_t m = p->nfn < WIRE_PROFILE_TOP ? p->nfn : WIRE_PROFILE_TOP;

		head[k] = xasprintf("%s (%zu trial%s)", r->series[p->series].name,
		    p->trials, p->trials == 1 ? "" : "s");
		hw[k] = (size_t)snprintf(buf, sizeof(buf), "%llu", p->total);
		if (hw[k] < 4)
			hw[k] = 4;	/* "Hits" */
		w[k] = strlen("Hits Percentage Function");
		if (strlen(head[k]) > w[k])
			w[k] = strlen(head[k]);
		for (i = 0; i < m; i++)
			if (hw[k] + 8 + strlen(p->fn[i].sym) > w[k])
				w[k] = hw[k] + 8 + strlen(p->fn[i].sym);
		if (m + 2 > rows)
			rows = m + 2;	/* total, functions, other */
		cap += w[k] + 4;
	}
	line = xmalloc(cap);
	fprintf(out, "%s\n\n", title);
	for (i = 0; i < rows + 3; i++) {
		l = 0;
		for (k = 0; k < n; k++) {
			const struct rprof *p = ps[k];
			size_t m = p->nfn < WIRE_PROFILE_TOP ? p->nfn : WIRE_PROFILE_TOP;
			char *c = line + l;
			int got = 0;

			if (i == 0)
				got = snprintf(c, cap - l, "%s", head[k]);
			else if (i == 1)
				got = snprintf(c, cap - l, "Hits Percentage Function");
			else if (i == 2) {
				/* readprofile's rule: as long as its header */
				memset(c, '-', strlen("Hits Percentage Function"));
				got = (int)strlen("Hits Percentage Function");
			} else if (i == 3)
				got = snprintf(c, cap - l, "%*llu %6.2f total", (int)hw[k],
				    p->total, 100.0);
			else if (i - 4 < m)
				got = snprintf(c, cap - l, "%*llu %6.2f %s", (int)hw[k],
				    p->fn[i - 4].hits, pct(p->fn[i - 4].hits, p->total),
				    p->fn[i - 4].sym);
			else if (i + 1 == rows + 3 && other_hits(p) > 0)
				got = snprintf(c, cap - l, "%*llu %6.2f other", (int)hw[k],
				    other_hits(p), pct(other_hits(p), p->total));
			l += (size_t)got;
			/* the next block starts 4 columns after this one's widest */
			while (k + 1 < n && l < cap - 1 && (size_t)(c - line) + w[k] + 4 > l)
				line[l++] = ' ';
		}
		while (l > 0 && line[l - 1] == ' ')
			l--;	/* no trailing blanks */
		line[l] = '\0';
		fprintf(out, "%s\n", line);
	}
	fclose(out);
	strv_free(head, n);
	free(line);
	free(w);
	free(hw);
	return text;
}

/* The listing as a grid (Markdown, CSV, JSON, HTML): a row per rank. */
static struct rgrid *
listing_grid(const struct report *r, const struct rprof *const *ps, size_t n,
    const char *title)
{
	size_t ncols = 3 + 3 * n, i, k, row, rows = 0;
	const char **cols = xcalloc(ncols, sizeof(*cols));
	char **names = xcalloc(3 * n, sizeof(*names)), buf[32];
	struct rgrid *g;

	cols[0] = "bench";
	cols[1] = "params";
	cols[2] = "rank";
	for (k = 0; k < n; k++) {
		const char *s = r->series[ps[k]->series].name;

		cols[3 + 3 * k] = names[3 * k] = xasprintf("%s hits", s);
		cols[4 + 3 * k] = names[3 * k + 1] = xasprintf("%s %%", s);
		cols[5 + 3 * k] = names[3 * k + 2] = xasprintf("%s function", s);
		i = ps[k]->nfn < WIRE_PROFILE_TOP ? ps[k]->nfn : WIRE_PROFILE_TOP;
		if (i + 2 > rows)
			rows = i + 2;
	}
	g = rgrid_new("profile", title, 3, ncols, cols);
	g->nhidden = 2;
	for (i = 0; i < rows; i++) {
		row = rgrid_add_row(g);
		rgrid_set(g, row, 0, ps[0]->bench, NAN);
		rgrid_set(g, row, 1, ps[0]->params, NAN);
		if (i == 0)
			rgrid_set(g, row, 2, "total", NAN);
		else if (i + 1 == rows)
			rgrid_set(g, row, 2, "other", NAN);
		else {
			snprintf(buf, sizeof(buf), "%zu", i);
			rgrid_set(g, row, 2, buf, NAN);
		}
		for (k = 0; k < n; k++) {
			const struct rprof *p = ps[k];
			size_t m = p->nfn < WIRE_PROFILE_TOP ? p->nfn : WIRE_PROFILE_TOP;
			unsigned long long h;
			const char *sym;

			if (i == 0) {
				h = p->total;
				sym = "total";
			} else if (i - 1 < m) {
				h = p->fn[i - 1].hits;
				sym = p->fn[i - 1].sym;
			} else if (i + 1 == rows && other_hits(p) > 0) {
				h = other_hits(p);
				sym = "other";
			} else
				continue;
			set_num(g, row, 3 + 3 * k, "%.0f", (double)h);
			set_num(g, row, 4 + 3 * k, "%.2f", pct(h, p->total));
			rgrid_set(g, row, 5 + 3 * k, sym, NAN);
		}
	}
	for (k = 0; k < n; k++)
		free(names[3 * k]), free(names[3 * k + 1]), free(names[3 * k + 2]);
	free(names);
	free(cols);
	return g;
}

struct change_row {
	const char	*sym;
	double		 key;	/* largest |change| over the series */
};

static int
cmp_change(const void *a, const void *b)
{
	const struct change_row *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return strcmp(x->sym, y->sym);
}

/* Percentage points against the baseline (ps[0]), and the ratio. */
static struct rgrid *
change_grid(const struct report *r, const struct rprof *const *ps, size_t n,
    const char *title)
{
	size_t ncols = 4 + 3 * (n - 1), i, k, nrows = 0, cap = 0, row;
	const char **cols = xcalloc(ncols, sizeof(*cols));
	char **names = xcalloc(ncols, sizeof(*names));
	struct change_row *rows = NULL;
	struct strv seen = STRV_INIT;
	struct rgrid *g;

	cols[0] = "bench";
	cols[1] = "params";
	cols[2] = "function";
	cols[3] = names[3] = xasprintf("%s %%", r->series[ps[0]->series].name);
	for (k = 1; k < n; k++) {
		const char *s = r->series[ps[k]->series].name;

		cols[1 + 3 * k] = names[1 + 3 * k] = xasprintf("%s %%", s);
		cols[2 + 3 * k] = names[2 + 3 * k] = xasprintf("%s change", s);
		cols[3 + 3 * k] = names[3 + 3 * k] = xasprintf("%s ratio", s);
	}
	/* every function in some series' top, plus "other" */
	for (k = 0; k < n; k++)
		for (i = 0; i < ps[k]->nfn && i < WIRE_PROFILE_TOP; i++)
			strv_push_unique(&seen, ps[k]->fn[i].sym);
	for (i = 0; i < seen.n; i++) {
		double b = pct(hits_of(ps[0], seen.v[i]), ps[0]->total), key = 0;

		for (k = 1; k < n; k++) {
			double d = fabs(pct(hits_of(ps[k], seen.v[i]), ps[k]->total) - b);

			if (d > key)
				key = d;
		}
		xgrow(&rows, &cap, nrows + 1, sizeof(*rows));
		rows[nrows].sym = seen.v[i];
		rows[nrows++].key = key;
	}
	if (nrows > 1)
		qsort(rows, nrows, sizeof(*rows), cmp_change);
	g = rgrid_new("profile-change", title, 3, ncols, cols);
	g->nhidden = 2;
	for (i = 0; i <= nrows; i++) {
		const char *sym = i < nrows ? rows[i].sym : "other";
		double b, v;

		if (i == nrows) {
			/* what no listed function holds, in each series */
			int any = 0;

			for (k = 0; k < n; k++) {
				unsigned long long listed = 0;
				size_t j;

				for (j = 0; j < seen.n; j++)
					listed += hits_of(ps[k], seen.v[j]);
				any |= ps[k]->total > listed;
			}
			if (!any)
				break;
		}
		row = rgrid_add_row(g);
		rgrid_set(g, row, 0, ps[0]->bench, NAN);
		rgrid_set(g, row, 1, ps[0]->params, NAN);
		rgrid_set(g, row, 2, sym, NAN);
		for (k = 0; k < n; k++) {
			unsigned long long h = 0;

			if (i < nrows)
				h = hits_of(ps[k], sym);
			else {
				size_t j;

				for (j = 0, h = ps[k]->total; j < seen.n; j++)
					h -= hits_of(ps[k], seen.v[j]) <= h ?
					    hits_of(ps[k], seen.v[j]) : h;
			}
			v = pct(h, ps[k]->total);
			if (k == 0) {
				b = v;
				set_num(g, row, 3, "%.2f", v);
				continue;
			}
			set_num(g, row, 1 + 3 * k, "%.2f", v);
			set_num(g, row, 2 + 3 * k, "%+.2f", v - b);
			if (b > 0)
				set_num(g, row, 3 + 3 * k, "%.2fx", v / b);
			else
				rgrid_set(g, row, 3 + 3 * k, v > 0 ? "new" : "", NAN);
		}
	}
	strv_free(names, ncols);
	free(cols);
	free(rows);
	strv_clear(&seen);
	return g;
}

/* Trials without a profile, per series and reason. */
static struct rgrid *
absent_grid(const struct report *r, const struct rprof *const *ps, size_t n,
    const char *title)
{
	static const char *const cols[] = { "bench", "params", "series", "reason", "trials" };
	struct rgrid *g = rgrid_new("profile-absent", title, 4, 5, cols);
	char *text = NULL;
	size_t len = 0, k, i, row;
	FILE *out = open_memstream(&text, &len);

	g->nhidden = 2;
	if (out != NULL)
		fprintf(out, "%s\n", title);
	for (k = 0; k < n; k++)
		for (i = 0; i < ps[k]->absent.n; i++) {
			size_t c = ps[k]->absent_n[i];

			row = rgrid_add_row(g);
			rgrid_set(g, row, 0, ps[k]->bench, NAN);
			rgrid_set(g, row, 1, ps[k]->params, NAN);
			rgrid_set(g, row, 2, r->series[ps[k]->series].name, NAN);
			rgrid_set(g, row, 3, ps[k]->absent.v[i], NAN);
			set_num(g, row, 4, "%.0f", (double)c);
			if (out != NULL)
				fprintf(out, "%s: %zu trial%s without profile: %s\n",
				    r->series[ps[k]->series].name, c, c == 1 ? "" : "s",
				    ps[k]->absent.v[i]);
		}
	if (out != NULL) {
		fclose(out);
		g->text = text;
	}
	return g;
}

void
report_profile_sort(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nprofs; i++)
		if (r->profs[i].nfn > 1)
			qsort(r->profs[i].fn, r->profs[i].nfn, sizeof(*r->profs[i].fn),
			    cmp_fn);
}

int
report_table_profile(const struct report *r, const struct report_opts *o, size_t base,
    struct rgrids *gs, char **err)
{
	const struct rprof **ps;
	size_t i, j, n, nabsent;
	char *point, *title;

	(void)o;
	if (r->nprofs == 0) {
		*err = xstrdup("no trial has a profile (a plan asks for one with "
		    "'profile: perf' on a benchmark)");
		return -1;
	}
	ps = xcalloc(r->nprofs, sizeof(*ps));
	for (i = 0; i < r->nprofs; i++) {
		const struct rprof *first = &r->profs[i];

		/* each point once, where it first appears */
		for (j = 0; j < i; j++)
			if (strcmp(r->profs[j].bench, first->bench) == 0 &&
			    strcmp(r->profs[j].params, first->params) == 0)
				break;
		if (j < i)
			continue;
		/* its series with a profile: the baseline first, then in order */
		n = 0;
		nabsent = 0;
		for (j = i; j < r->nprofs; j++) {
			const struct rprof *p = &r->profs[j];

			if (strcmp(p->bench, first->bench) != 0 ||
			    strcmp(p->params, first->params) != 0)
				continue;
			nabsent += p->nabsent;
			if (p->trials == 0)
				continue;
			if (p->series == base) {
				memmove(ps + 1, ps, n * sizeof(*ps));
				ps[0] = p;
			} else
				ps[n] = p;
			n++;
		}
		point = point_name(first->bench, first->params);
		if (n > 0) {
			struct rgrid *g;

			title = xasprintf("profile: %s (%s samples; hits summed over trials)",
			    point, ps[0]->event ? ps[0]->event : "perf");
			g = listing_grid(r, ps, n, title);
			g->text = listing_text(r, ps, n, title);
			rgrids_add(gs, g);
			free(title);
			if (n > 1) {
				title = xasprintf("profile change: %s (percentage points against "
				    "%s, largest first)", point, r->series[ps[0]->series].name);
				rgrids_add(gs, change_grid(r, ps, n, title));
				free(title);
			}
		}
		if (nabsent > 0) {
			n = 0;
			for (j = i; j < r->nprofs; j++)
				if (strcmp(r->profs[j].bench, first->bench) == 0 &&
				    strcmp(r->profs[j].params, first->params) == 0 &&
				    r->profs[j].nabsent > 0)
					ps[n++] = &r->profs[j];
			title = xasprintf("profile: %s: trials without a profile", point);
			rgrids_add(gs, absent_grid(r, ps, n, title));
			free(title);
		}
		free(point);
	}
	free(ps);
	return 0;
}
