/*
 * notes.c: the agent's notes in every table (docs/reports.md, "Notes").
 *
 * A trial's notes ("16 accessing threads and the unmapping thread share 2
 * CPUs", "THP madvise", a monitor that could not count) are kept per
 * (series, cell) as runs are read.  A table marks a cell (or a row) with
 * a note through rgrid_note(); identical texts are one note, numbered in
 * the order a grid first uses them.  The writers then show them: a mark
 * after the cell and the texts under the table in text and Markdown, a
 * `notes` column in CSV, a `notes` member in JSON, marks with tooltips
 * and a list under the table in HTML.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "html.h"
#include "report-int.h"
#include "report.h"
#include "strbuf.h"
#include "utf8.h"
#include "xmalloc.h"

/* Slot of (row, col) in g->marks; col == g->ncols is the row's own. */
static size_t
slot(const struct rgrid *g, size_t row, size_t col)
{
	return row * (g->ncols + 1) + col;
}

/* The next number of a mark list "1,3" at *p into *n, moving *p on; 0 at its end. */
static int
next_mark(const char **p, size_t *n)
{
	char *end;

	if (*p == NULL || **p == '\0')
		return 0;
	*n = strtoul(*p, &end, 10);
	*p = end + (*end == ',');
	return 1;
}

void
rgrid_note(struct rgrid *g, size_t row, size_t col, const char *text)
{
	size_t n, k, old = g->marks_cap;
	char num[24], *m;

	if (row >= g->nrows || col > g->ncols)
		return;
	n = strv_push_unique(&g->notes, text) + 1;
	k = slot(g, row, col);
	if (k >= g->marks_cap) {
		xgrow(&g->marks, &g->marks_cap, k + 1, sizeof(*g->marks));
		memset(g->marks + old, 0, (g->marks_cap - old) * sizeof(*g->marks));
	}
	if ((m = g->marks[k]) != NULL) {
		/* "1,3": the numbers of the cell's notes, each once, in order */
		struct strbuf sb;
		const char *p = m;
		int put = 0;
		size_t v;

		strbuf_init(&sb, 0);
		while (next_mark(&p, &v)) {
			if (v == n) {
				strbuf_release(&sb);
				return;
			}
			if (v > n && !put) {
				strbuf_addf(&sb, "%s%zu", sb.len ? "," : "", n);
				put = 1;
			}
			strbuf_addf(&sb, "%s%zu", sb.len ? "," : "", v);
		}
		if (!put)
			strbuf_addf(&sb, ",%zu", n);
		free(m);
		g->marks[k] = strbuf_detach(&sb, NULL);
	} else {
		snprintf(num, sizeof(num), "%zu", n);
		g->marks[k] = xstrdup(num);
	}
}

const char *
rgrid_marks(const struct rgrid *g, size_t row, size_t col)
{
	size_t k = slot(g, row, col);

	return k < g->marks_cap ? g->marks[k] : NULL;
}

void
rgrid_notes_drop_row(struct rgrid *g, size_t row)
{
	size_t j, k;

	for (j = 0; j <= g->ncols; j++)
		if ((k = slot(g, row, j)) < g->marks_cap) {
			free(g->marks[k]);
			g->marks[k] = NULL;
		}
}

void
rgrid_notes_free(struct rgrid *g)
{
	size_t k;

	for (k = 0; k < g->marks_cap; k++)
		free(g->marks[k]);
	free(g->marks);
	strv_clear(&g->notes);
}

/*
 * The notes of a row (its cells' and its own), each once, in order of
 * number: their numbers as "[1,3]" (texts 0), or their texts joined by
 * "; " (texts 1), into a new string; "" when it has none.
 */
static char *
row_join(const struct rgrid *g, size_t row, int texts)
{
	unsigned char *seen = xcalloc(g->notes.n + 1, 1);
	struct strbuf sb;
	const char *p;
	size_t j, n;

	for (j = 0; j <= g->ncols; j++)
		for (p = rgrid_marks(g, row, j); next_mark(&p, &n);)
			if (n >= 1 && n <= g->notes.n)
				seen[n] = 1;
	strbuf_init(&sb, 0);
	for (n = 1; n <= g->notes.n; n++) {
		if (!seen[n])
			continue;
		if (texts)
			strbuf_addf(&sb, "%s%s", sb.len ? "; " : "", g->notes.v[n - 1]);
		else
			strbuf_addf(&sb, "%s%zu", sb.len ? "," : "[", n);
	}
	if (!texts && sb.len > 0)
		strbuf_addch(&sb, ']');
	free(seen);
	return strbuf_detach(&sb, NULL);
}

char *
rgrid_row_marks(const struct rgrid *g, size_t row)
{
	char *m = row_join(g, row, 0);

	if (*m == '\0') {
		free(m);
		return NULL;
	}
	return m;
}

char *
rgrid_row_notes_text(const struct rgrid *g, size_t row)
{
	return row_join(g, row, 1);
}

/* The notes of marks m into a (each text once). */
static void
marks_into(const struct rgrid *g, const char *m, json_t *a)
{
	const char *p = m;
	size_t i, n;

	while (next_mark(&p, &n)) {
		if (n < 1 || n > g->notes.n)
			continue;
		for (i = 0; i < json_array_size(a); i++)
			if (strcmp(json_string_value(json_array_get(a, i)), g->notes.v[n - 1]) == 0)
				break;
		if (i == json_array_size(a))
			json_array_append_new(a, json_string(g->notes.v[n - 1]));
	}
}

json_t *
rgrid_cell_notes_json(const struct rgrid *g, size_t row, size_t col)
{
	json_t *a;

	if (g->notes.n == 0)
		return NULL;
	a = json_array();
	marks_into(g, rgrid_marks(g, row, col), a);
	marks_into(g, rgrid_marks(g, row, g->ncols), a);
	if (json_array_size(a) == 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

void
rgrid_notes_print(const struct rgrid *g, FILE *out, int md, size_t base)
{
	size_t i;

	if (g->notes.n == 0)
		return;
	if (md)
		fputc('\n', out);
	for (i = 0; i < g->notes.n; i++) {
		/* an agent's text: one line, escaped (utf8.h), no raw HTML in md */
		if (md) {
			fprintf(out, "[^%zu]: ", base + i + 1);
			report_md_cell(out, g->notes.v[i]);
		} else {
			char *e = utf8_escaped(g->notes.v[i], 0);

			fprintf(out, "[%zu] %s", i + 1, e);
			free(e);
		}
		fputc('\n', out);
	}
}

void
rgrid_notes_md_marks(const struct rgrid *g, FILE *out, size_t row, size_t col, size_t base)
{
	const char *p = rgrid_marks(g, row, col);
	size_t n;

	while (next_mark(&p, &n))
		fprintf(out, "[^%zu]", base + n);
}

void
rgrid_notes_html_marks(FILE *out, const struct rgrid *g, size_t row, size_t col)
{
	const char *p = rgrid_marks(g, row, col);
	size_t n;

	while (next_mark(&p, &n)) {
		if (n < 1 || n > g->notes.n)
			continue;
		fputs("<sup class=\"note\" title=\"", out);
		html_text(out, g->notes.v[n - 1]);
		fprintf(out, "\">%zu</sup>", n);
	}
}

void
rgrid_notes_html_list(FILE *out, const struct rgrid *g)
{
	size_t i;

	if (g->notes.n == 0)
		return;
	fputs("<ol class=\"notes\">", out);
	for (i = 0; i < g->notes.n; i++) {
		fputs("<li>", out);
		html_text(out, g->notes.v[i]);
		fputs("</li>", out);
	}
	fputs("</ol>\n", out);
}

/* --- Notes read from runs ------------------------------------------------------ */

void
report_notes_put(struct rvals *v, const char *const *notes, size_t n)
{
	size_t i;

	if (n == 0)
		return;
	if (v->notes == NULL)
		v->notes = xcalloc(1, sizeof(*v->notes));
	for (i = 0; i < n; i++)
		if (notes[i] != NULL && v->notes->n < REPORT_MAX_CELL_NOTES)
			strv_push_unique(v->notes, notes[i]);
}

void
report_cell_notes(const struct report *r, size_t s, size_t c, struct rgrid *g, size_t row,
    size_t col)
{
	const struct rvals *v = report_vals(r, s, c);
	size_t i;

	for (i = 0; v != NULL && v->notes != NULL && i < v->notes->n; i++)
		rgrid_note(g, row, col, v->notes->v[i]);
}
