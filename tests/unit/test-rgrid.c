/*
 * test-rgrid.c: the output grid's writers (src/out/rgrid.c) on grids of
 * their own: alignment by display width, columns aligned at will, no
 * title and no table column, blank cells; and the JSON scalars
 * (src/out/json.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
#include "numfmt.h"
#include "rgrid.h"
#include "tap.h"

/* What writer w makes of g (0 text, 1 md, 2 csv): a new string. */
static char *
written(const struct rgrid *g, int w)
{
	char *buf = NULL;
	size_t len = 0, base = 0;
	FILE *out = open_memstream(&buf, &len);

	if (w == 0)
		rgrid_print_text(g, out);
	else if (w == 1)
		rgrid_print_md(g, out, &base);
	else
		rgrid_print_csv(g, out);
	fclose(out);
	return buf;
}

static struct rgrid *
sample(const char *table, const char *title)
{
	static const char *const cols[] = { "host", "mean", "mark" };
	struct rgrid *g = rgrid_new(table, title, 1, 3, cols);
	size_t row;

	row = rgrid_add_row(g);
	rgrid_set(g, row, 0, "caf\xc3\xa9", NAN);	/* 5 bytes, 4 characters */
	rgrid_set(g, row, 1, "1.5", 1.5);
	rgrid_set(g, row, 2, "worse", NAN);
	row = rgrid_add_row(g);
	rgrid_set(g, row, 0, "lab-01", NAN);
	rgrid_set(g, row, 1, "12.25", 12.25);
	rgrid_set(g, row, 2, NULL, NAN);
	return g;
}

static void
test_text(void)
{
	struct rgrid *g = sample("t", "Title");
	char *s;

	s = written(g, 0);
	/* a character is a column however many bytes it takes (utf8_width()) */
	is_str(s, "Title\nhost    mean   mark\ncaf\xc3\xa9      1.5  worse\n"
	    "lab-01  12.25\n", "text: display width, blank end cells left out");
	free(s);
	rgrid_align(g, "lll");
	s = written(g, 0);
	is_str(s, "Title\nhost    mean   mark\ncaf\xc3\xa9    1.5    worse\n"
	    "lab-01  12.25\n", "text: columns aligned at will");
	free(s);
	rgrid_free(g);
}

static void
test_own_table(void)
{
	struct rgrid *g = sample(NULL, NULL);
	char *s;

	rgrid_align(g, "lrl");
	s = written(g, 0);
	ok(strncmp(s, "host  ", 6) == 0, "text: no title line");
	free(s);
	s = written(g, 1);
	is_str(s, "| host | mean | mark |\n| --- | ---: | --- |\n"
	    "| caf\xc3\xa9 | 1.5 | worse |\n| lab-01 | 12.25 |  |\n",
	    "md: no heading, the alignment's separators");
	free(s);
	s = written(g, 2);
	is_str(s, "host,mean,mark\ncaf\xc3\xa9,1.5,worse\nlab-01,12.25,\n",
	    "csv: no table column");
	free(s);
	rgrid_free(g);
	rgrid_free(NULL);
	ok(1, "rgrid_free(NULL)");
}

static void
test_json_scalars(void)
{
	char buf[NUMFMT_MAX], *s;
	json_t *j;

	is_str(jsonout_num(buf, 2.5), "2.5", "jsonout_num");
	is_str(jsonout_num(buf, NAN), "null", "jsonout_num of NaN");
	is_str(jsonout_num(buf, INFINITY), "null", "jsonout_num of an infinity");
	j = jsonout_real(-INFINITY);
	ok(json_is_null(j), "jsonout_real of an infinity");
	json_decref(j);
	j = jsonout_real(0.25);
	ok(json_is_real(j) && json_real_value(j) == 0.25, "jsonout_real");
	json_decref(j);
	s = jsonout_str("a\"b");
	is_str(s, "\"a\\\"b\"", "jsonout_str escapes");
	free(s);
	s = jsonout_str("\xff");
	is_str(s, "\"\xef\xbf\xbd\"", "jsonout_str: not UTF-8 as U+FFFD");
	free(s);
	s = jsonout_str(NULL);
	is_str(s, "null", "jsonout_str(NULL)");
	free(s);
}

int
main(void)
{
	test_text();
	test_own_table();
	test_json_scalars();
	return tap_done();
}
