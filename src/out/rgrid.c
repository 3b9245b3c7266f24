/*
 * rgrid.c: the output grid every table is turned into, and its writers:
 * aligned text, Markdown, CSV and JSON (rgrid.h).  The notes of a grid
 * (marks on cells and rows, the texts under the table) are kept here too,
 * so that every writer can show them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "csv.h"
#include "html.h"
#include "jsonout.h"
#include "numfmt.h"
#include "rgrid.h"
#include "strbuf.h"
#include "strv.h"
#include "utf8.h"
#include "xmalloc.h"

/* --- Grids ------------------------------------------------------------------- */

struct rgrid *
rgrid_new(const char *table, const char *title, size_t nkeys, size_t ncols,
    const char *const *cols)
{
	struct rgrid *g = xcalloc(1, sizeof(*g));
	size_t i;

	g->table = xstrdup_null(table);
	g->title = xstrdup_null(title);
	g->nkeys = nkeys;
	g->ncols = ncols;
	g->cols = xcalloc(ncols, sizeof(*g->cols));
	for (i = 0; i < ncols; i++)
		g->cols[i] = xstrdup(cols[i]);
	return g;
}

size_t
rgrid_add_row(struct rgrid *g)
{
	size_t i, old = g->cap;

	if (g->nrows == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 16;
		g->cells = xreallocarray(g->cells, g->cap * g->ncols, sizeof(*g->cells));
		g->nums = xreallocarray(g->nums, g->cap * g->ncols, sizeof(*g->nums));
	}
	(void)old;
	for (i = 0; i < g->ncols; i++) {
		g->cells[g->nrows * g->ncols + i] = xstrdup("");
		g->nums[g->nrows * g->ncols + i] = NAN;
	}
	return g->nrows++;
}

void
rgrid_free_row(struct rgrid *g)
{
	size_t i;

	if (g->nrows == 0)
		return;
	g->nrows--;
	for (i = 0; i < g->ncols; i++)
		free(g->cells[g->nrows * g->ncols + i]);
	rgrid_notes_drop_row(g, g->nrows);
}

void
rgrid_set(struct rgrid *g, size_t row, size_t col, const char *s, double num)
{
	size_t k = row * g->ncols + col;

	free(g->cells[k]);
	g->cells[k] = xstrdup(s != NULL ? s : "");
	g->nums[k] = num;
}

void
rgrid_free(struct rgrid *g)
{
	if (g == NULL)
		return;
	strv_free(g->cells, g->nrows * g->ncols);
	strv_free(g->cols, g->ncols);
	free(g->nums);
	free(g->table);
	free(g->title);
	free(g->align);
	free(g->text);
	rgrid_notes_free(g);
	free(g);
}

void
rgrid_align(struct rgrid *g, const char *align)
{
	free(g->align);
	g->align = xstrdup_null(align);
}

/* Whether column j is left-aligned in the body of the table. */
static int
left(const struct rgrid *g, size_t j)
{
	if (g->align != NULL)
		return g->align[j] != 'r';
	return j < g->nkeys || (g->left_last && j == g->ncols - 1);
}

void
rgrids_add(struct rgrids *gs, struct rgrid *g)
{
	xgrow(&gs->g, &gs->cap, gs->n + 1, sizeof(*gs->g));
	gs->g[gs->n++] = g;
}

/* --- Notes on a grid -------------------------------------------------------- */

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

	if (g == NULL)
		return;
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
			rgrid_md_cell(out, g->notes.v[i]);
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

/* --- Writers ---------------------------------------------------------------- */

static void
pad(FILE *out, size_t n)
{
	while (n-- > 0)
		fputc(' ', out);
}

/* A cell as text shows it: with its notes' marks ("0.53 [1,2]"); a new string. */
static char *
text_cell(const struct rgrid *g, size_t row, size_t col)
{
	const char *m = rgrid_marks(g, row, col);
	char *s = utf8_escaped(g->cells[row * g->ncols + col], 0), *t;

	if (m == NULL)
		return s;
	t = xasprintf("%s [%s]", s, m);
	free(s);
	return t;
}

/* Generic aligned text: keys left-aligned, values right-aligned. */
void
rgrid_print_text(const struct rgrid *g, FILE *out)
{
	size_t *w = xcalloc(g->ncols, sizeof(*w)), i, j;
	char **shown = xcalloc(g->nrows * g->ncols + 1, sizeof(*shown));
	char **cols = xcalloc(g->ncols + 1, sizeof(*cols));

	for (i = 0; i < g->nrows; i++)
		for (j = 0; j < g->ncols; j++)
			shown[i * g->ncols + j] = text_cell(g, i, j);
	for (j = 0; j < g->ncols; j++)
		cols[j] = utf8_escaped(g->cols[j], 0);
	if (g->title != NULL)
		fprintf(out, "%s\n", g->title);
	for (j = 0; j < g->ncols; j++)
		w[j] = utf8_width(cols[j]);
	for (j = 0; j < g->nhidden; j++)
		w[j] = 0;
	for (i = 0; i < g->nrows; i++)
		for (j = 0; j < g->ncols; j++) {
			size_t l = utf8_width(shown[i * g->ncols + j]);

			if (l > w[j])
				w[j] = l;
		}
	for (i = 0; i <= g->nrows; i++) {
		const char *const *row = i == 0 ? (const char *const *)cols :
		    (const char *const *)&shown[(i - 1) * g->ncols];
		size_t end = g->ncols;
		char *rm = i > 0 ? (char *)rgrid_marks(g, i - 1, g->ncols) : NULL;

		while (end > 1 && row[end - 1][0] == '\0')
			end--;
		for (j = g->nhidden; j < end; j++) {
			size_t l = utf8_width(row[j]);

			if (j > g->nhidden)
				fputs("  ", out);
			if (i == 0 || left(g, j)) {
				fputs(row[j], out);
				if (j + 1 < end)
					pad(out, w[j] - l);
			} else {
				pad(out, w[j] - l);
				fputs(row[j], out);
			}
		}
		if (rm != NULL)
			fprintf(out, "  [%s]", rm);
		fputc('\n', out);
	}
	rgrid_notes_print(g, out, 0, 0);
	strv_free(shown, g->nrows * g->ncols);
	strv_free(cols, g->ncols);
	free(w);
}

void
rgrid_md_cell(FILE *out, const char *s)
{
	char *e = utf8_escaped(s, 0), *p;

	for (p = e; *p; p++) {
		if (*p == '<')
			fputs("&lt;", out);
		else {
			if (*p == '|')
				fputc('\\', out);
			fputc(*p, out);
		}
	}
	free(e);
}

void
rgrid_csv_cell(FILE *out, const char *s)
{
	char *e = utf8_escaped(s, 0), *q = NULL, *end;

	if (strchr("=+-@", e[0]) != NULL && e[0] != '\0' && strcmp(e, "-") != 0) {
		(void)strtod(e, &end);
		if (end == e || (*end != '\0' && strcmp(end, "%") != 0))
			q = xasprintf("'%s", e);
	}
	csv_field(out, q ? q : e);
	free(q);
	free(e);
}

void
rgrid_print_md(const struct rgrid *g, FILE *out, size_t *base)
{
	size_t i, j;

	if (g->title != NULL)
		fprintf(out, "### %s\n\n", g->title);
	fputc('|', out);
	for (j = g->nhidden; j < g->ncols; j++) {
		fputc(' ', out);
		rgrid_md_cell(out, g->cols[j]);
		fputs(" |", out);
	}
	fputs("\n|", out);
	for (j = g->nhidden; j < g->ncols; j++)
		fputs(g->align != NULL ? (left(g, j) ? " --- |" : " ---: |") :
		    j < g->nkeys ? " --- |" : " ---: |", out);
	fputc('\n', out);
	for (i = 0; i < g->nrows; i++) {
		fputc('|', out);
		for (j = g->nhidden; j < g->ncols; j++) {
			fputc(' ', out);
			rgrid_md_cell(out, g->cells[i * g->ncols + j]);
			rgrid_notes_md_marks(g, out, i, j, *base);
			if (j + 1 == g->ncols)
				rgrid_notes_md_marks(g, out, i, g->ncols, *base);
			fputs(" |", out);
		}
		fputc('\n', out);
	}
	rgrid_notes_print(g, out, 1, *base);
	*base += g->notes.n;
}

void
rgrid_print_csv(const struct rgrid *g, FILE *out)
{
	size_t i, j;

	if (g->table != NULL)
		fputs("table", out);
	for (j = 0; j < g->ncols; j++) {
		if (g->table != NULL || j > 0)
			fputc(',', out);
		rgrid_csv_cell(out, g->cols[j]);
	}
	if (g->notes.n > 0)
		fputs(",notes", out);
	fputc('\n', out);
	for (i = 0; i < g->nrows; i++) {
		if (g->table != NULL)
			csv_field(out, g->table);
		for (j = 0; j < g->ncols; j++) {
			size_t k = i * g->ncols + j;
			char num[64];

			if (g->table != NULL || j > 0)
				fputc(',', out);
			if (!isnan(g->nums[k]) && j >= g->nkeys) {
				numfmt_shortest(num, sizeof(num), g->nums[k]);
				fputs(num, out);
			} else {
				/* lmbench's blank cells have spaces: trim them */
				const char *s = g->cells[k];

				while (*s == ' ')
					s++;
				rgrid_csv_cell(out, s);
			}
		}
		if (g->notes.n > 0) {
			char *nt = rgrid_row_notes_text(g, i);

			fputc(',', out);
			rgrid_csv_cell(out, nt);
			free(nt);
		}
		fputc('\n', out);
	}
}

/* One object per (row, value column): the row's keys, "column", "value", "text". */
void
rgrid_print_json(const struct rgrid *g, FILE *out, int *first)
{
	size_t i, j, k;

	for (i = 0; i < g->nrows; i++)
		for (j = g->nkeys; j < g->ncols; j++) {
			const char *txt = g->cells[i * g->ncols + j];
			double num = g->nums[i * g->ncols + j];
			json_t *o, *notes;
			char *s;

			while (*txt == ' ')
				txt++;
			if (*txt == '\0' && isnan(num) && rgrid_marks(g, i, j) == NULL)
				continue;
			o = json_object();
			if (g->table != NULL)
				json_object_set_new(o, "table", json_string(g->table));
			for (k = 0; k < g->nkeys; k++)
				json_object_set_new(o, g->cols[k],
				    json_string(g->cells[i * g->ncols + k]));
			json_object_set_new(o, "column", json_string(g->cols[j]));
			json_object_set_new(o, "value", jsonout_real(num));
			json_object_set_new(o, "text", json_string(txt));
			if ((notes = rgrid_cell_notes_json(g, i, j)) != NULL)
				json_object_set_new(o, "notes", notes);
			s = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_REAL_PRECISION(15));
			fprintf(out, "%s%s", *first ? "[\n" : ",\n", s);
			*first = 0;
			free(s);
			json_decref(o);
		}
}
