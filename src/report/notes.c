/*
 * notes.c: the agent's notes in every table (docs/reports.md, "Notes").
 *
 * A trial's notes ("16 accessing threads and the unmapping thread share 2
 * CPUs", "THP madvise", a monitor that could not count) are kept per
 * (series, cell) as runs are read, and put on a table's cells through
 * rgrid_note() (out/rgrid.c keeps a grid's notes: identical texts are one
 * note, numbered in the order a grid first uses them).  The writers then
 * show them: a mark after the cell and the texts under the table in text
 * and Markdown, a `notes` column in CSV, a `notes` member in JSON, marks
 * with tooltips and a list under the table in HTML.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report-int.h"
#include "report.h"
#include "xmalloc.h"

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
