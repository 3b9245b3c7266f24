/*
 * rgrid.h: the output grid every table is turned into, and its writers
 * (src/out/rgrid.c).
 *
 * A table is built as a grid of text cells, each with the number behind
 * it (or NAN), then written in one of the formats: aligned text, a
 * Markdown table, CSV or JSON.  The first nkeys columns identify a row.
 * Notes (the agent's remarks on a value) are attached to cells or rows
 * and numbered per grid; each writer shows them its own way.
 *
 * Ownership: a grid owns its strings; rgrid_set() copies.  Allocation
 * failure ends the process (xmalloc.h).
 */
#ifndef FLEETMARK_RGRID_H
#define FLEETMARK_RGRID_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "strv.h"

struct rgrid {
	char	*table;		/* "lmbench", "compare", ...; NULL: a table of its
				 * own (no "table" column in CSV and JSON) */
	char	*title;		/* NULL: the caller writes its own heading */
	char	*text;		/* the text rendering, when the table has its own */
	size_t	 ncols, nkeys;	/* the first nkeys columns identify a row */
	size_t	 nhidden;	/* the first nhidden of them are in CSV and JSON
				 * only (the text and Markdown titles say them) */
	int	 left_last;	/* the last column is words: left-aligned in text */
	char	*align;		/* rgrid_align(), or NULL */
	char	**cols;
	size_t	 nrows, cap;
	char	**cells;	/* nrows * ncols, owned, never NULL ("" blank) */
	double	*nums;		/* the number behind each cell, or NAN */
	struct strv notes;	/* the notes' texts, numbered from 1 */
	char	**marks;	/* per (row, col), and per row at col ncols: "1,3" or NULL */
	size_t	 marks_cap;
};

/* A grid without rows; table and title may be NULL (struct rgrid). */
struct rgrid	*rgrid_new(const char *table, const char *title, size_t nkeys,
		    size_t ncols, const char *const *cols);
size_t	rgrid_add_row(struct rgrid *g);
/* Cell (row, col) to a copy of s (NULL: blank) and the number behind it. */
void	rgrid_set(struct rgrid *g, size_t row, size_t col, const char *s, double num);
/* Drop the last row. */
void	rgrid_free_row(struct rgrid *g);
void	rgrid_free(struct rgrid *g);

/*
 * The alignment of each column in text and Markdown: align[j] is 'l' or
 * 'r' (copied; NULL for the default: the keys and a left_last column
 * left, the other columns right).  Headers are left-aligned in text.
 */
void	rgrid_align(struct rgrid *g, const char *align);

/* Tables: each appends its grids to *gs. */
struct rgrids {
	struct rgrid	**g;
	size_t		 n, cap;
};
void	rgrids_add(struct rgrids *gs, struct rgrid *g);

/* --- Notes --------------------------------------------------------------- */

/*
 * Note text on cell (row, col) of g, or on the row as a whole (col ==
 * g->ncols).  Identical texts are one note; notes are numbered from 1 in
 * the order the grid first uses them.
 */
void	rgrid_note(struct rgrid *g, size_t row, size_t col, const char *text);
/* The numbers of the notes on (row, col) as "1,3", or NULL (owned by g). */
const char *rgrid_marks(const struct rgrid *g, size_t row, size_t col);
/* The row's note numbers, its cells' and its own, as "[1,3]" (a new
 * string), or NULL when it has none. */
char	*rgrid_row_marks(const struct rgrid *g, size_t row);
/* The row's notes' texts joined by "; " (a new string, "" for none): CSV. */
char	*rgrid_row_notes_text(const struct rgrid *g, size_t row);
/* The texts of the notes on a cell and on its row (a new array), or NULL: JSON. */
json_t	*rgrid_cell_notes_json(const struct rgrid *g, size_t row, size_t col);
/* The notes under a table: "[1] text" lines, or Markdown footnotes
 * "[^N]: text" numbered from base + 1 (labels unique in a document). */
void	rgrid_notes_print(const struct rgrid *g, FILE *out, int md, size_t base);
/* A cell's Markdown footnote references "[^N]", numbered from base + 1. */
void	rgrid_notes_md_marks(const struct rgrid *g, FILE *out, size_t row, size_t col,
	    size_t base);
/* HTML: a cell's marks with the texts as tooltips; the list under a table. */
void	rgrid_notes_html_marks(FILE *out, const struct rgrid *g, size_t row, size_t col);
void	rgrid_notes_html_list(FILE *out, const struct rgrid *g);
/* Forget the marks of a row (rgrid_free_row()); free them all (rgrid_free();
 * g may be NULL). */
void	rgrid_notes_drop_row(struct rgrid *g, size_t row);
void	rgrid_notes_free(struct rgrid *g);

/* --- Writers ------------------------------------------------------------- */

/*
 * The title, then the grid aligned by display width (utf8_width(), after
 * escaping): keys left, values right, two spaces between columns, blank
 * cells at the end of a row left out.
 */
void	rgrid_print_text(const struct rgrid *g, FILE *out);
/* "### title", then a Markdown table; footnotes numbered from *base + 1,
 * *base moved past this grid's. */
void	rgrid_print_md(const struct rgrid *g, FILE *out, size_t *base);
/* A header line, then a row per grid row, the table's name first. */
void	rgrid_print_csv(const struct rgrid *g, FILE *out);
/* One object per (row, value column), each after "[\n" (*first) or ",\n". */
void	rgrid_print_json(const struct rgrid *g, FILE *out, int *first);

/*
 * A text cell of a Markdown table (report's and history's): its controls
 * escaped (utf8_escape(), so one line), '|' escaped and '<' as "&lt;" (no
 * raw HTML from a run in a rendered page).
 */
void	rgrid_md_cell(FILE *out, const char *s);

/*
 * A text cell of a CSV table, quoted as csv.h does: its controls escaped,
 * and never a formula when a spreadsheet opens the file: a leading = + -
 * or @ gets a "'" before it (OWASP's advice), unless the cell is a number
 * as written ("-3.5", "+12%") or "-", the tables' "none".
 */
void	rgrid_csv_cell(FILE *out, const char *s);

#endif /* FLEETMARK_RGRID_H */
