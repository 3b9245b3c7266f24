/*
 * test-report-lmbench: the lmbench formatter against the tables of
 * linux-kernel mail, character for character.
 *
 * Golden inputs: tests/data/report/example-lmbench-tx49.txt and
 * example-lmbench-commando.txt, lmbench 3 summary tables copied from
 * linux-kernel mail as it printed them (Toshiba TX49 boards, 2006; a
 * 2.4 GHz x86 "commando", 2005).  Every data row is cut into cells by its
 * table's rule line; each cell's text is turned back into the number the
 * mail printed ("39.K" -> 39000, "166." -> 166), formatted again with
 * report_lmbench_num() at lmbench's length and width for that column, and
 * the whole row rebuilt ("%-9.9s %-13.13s" and the cells) must equal the
 * mail's line.  The commando mail's OS column is one space narrower (the
 * archive flattened it), so its rows are compared with that space put back.
 *
 * Then the whole pipeline: the fixture run directories made from the same
 * numbers (tests/data/report/gen-fixtures.py) rendered by report_render()
 * must equal tests/data/report/golden/lmbench-tx49.txt, which is the mail's
 * text with lmbench's own header (trailing spaces after "sh") and one blank
 * line between tables (checked against the mail in t500-report.sh).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "tap.h"
#include "xmalloc.h"

#define DATA	"tests/data/report/"

/* lmbench's (length, printed width) per column after Host and OS. */
struct colfmt {
	const char	*title;
	int		 n;
	int		 len[12], width[12];
};

static const struct colfmt fmts[] = {
	{ "Processor", 11, { 0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4 },
	  { 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4 } },
	{ "Context", 7, { 6, 6, 6, 6, 6, 7, 7 }, { 6, 6, 6, 6, 6, 7, 7 } },
	{ "*Local* Communication latencies", 8, { 5, 5, 4, 5, 5, 5, 5, 5 },
	  { 5, 5, 4, 5, 5, 5, 5, 4 } },
	{ "File", 8, { 6, 6, 6, 6, 7, 5, 7, 5 }, { 6, 6, 6, 6, 7, 5, 7, 5 } },
	{ "*Local* Communication bandwidths", 9, { 4, 4, 4, 6, 6, 6, 6, 4, 5 },
	  { 4, 4, 4, 6, 6, 6, 6, 4, 5 } },
};

static double
unformat(const char *s)
{
	char buf[32];
	size_t n;

	while (*s == ' ')
		s++;
	if (*s == '\0')
		return NAN;
	snprintf(buf, sizeof(buf), "%s", s);
	n = strlen(buf);
	if (buf[n - 1] == 'K')
		return atof(buf) * 1000;
	if (buf[n - 1] == 'M')
		return atof(buf) * 1e6;
	return atof(buf);
}

static void
check_file(const char *path, int os_width)
{
	FILE *fp = fopen(path, "r");
	char line[512];
	const struct colfmt *f = NULL;
	int in_rows = 0, nrows = 0;

	ok(fp != NULL, path);
	if (fp == NULL)
		return;
	while (fgets(line, sizeof(line), fp)) {
		size_t i, n;

		line[strcspn(line, "\n")] = '\0';
		for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
			if (strncmp(line, fmts[i].title, strlen(fmts[i].title)) == 0)
				f = &fmts[i];
		if (strncmp(line, "--------- ", 10) == 0) {
			in_rows = 1;
			continue;
		}
		if (line[0] == '\0' || line[0] == '#') {
			in_rows = 0;
			continue;
		}
		if (!in_rows || f == NULL)
			continue;
		{
			char want[512], got[512], host[16], os[32], cell[64];
			const char *p = line;
			size_t len = 0;
			int k;

			/* want: the mail's line, OS column widened to 13 */
			snprintf(host, sizeof(host), "%.9s", p);
			snprintf(os, sizeof(os), "%.*s", os_width, p + 10);
			snprintf(want, sizeof(want), "%s %-13s%s", host, os, p + 10 + os_width);
			len = (size_t)snprintf(got, sizeof(got), "%-9.9s %-13.13s", host, os);
			/* trim the copies of host and os */
			for (n = strlen(os); n > 0 && os[n - 1] == ' '; n--)
				os[n - 1] = '\0';
			len = (size_t)snprintf(got, sizeof(got), "%-9.9s %-13.13s", host, os);
			p = want + 23;
			for (k = 0; k < f->n; k++) {
				char tok[32];
				int w = f->width[k];

				snprintf(tok, sizeof(tok), "%.*s", w, p + 1);
				p += 1 + w;
				if (f->len[k] == 0)	/* Mhz: %4.0f */
					snprintf(cell, sizeof(cell), "%4.0f", unformat(tok));
				else
					report_lmbench_num(cell, unformat(tok), f->len[k], w);
				len += (size_t)snprintf(got + len, sizeof(got) - len, " %s", cell);
			}
			is_str(got, want, line);
			nrows++;
		}
	}
	fclose(fp);
	ok(nrows > 0, "rows were found");
}

/* Write text to dir/name (a file that cannot be written bails out); 0. */
static int
put_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);

	tap_put(path, "w", text);
	free(path);
	return 0;
}

/*
 * A run of one host with a 5-digit Mhz and a null call below 0.001 us,
 * rendered as lmbench tables into a new string (NULL on failure).
 */
static char *
render_edges(enum report_format fmt)
{
	char name[32], hosts[512], *dir, *err = NULL;
	char *out = NULL;
	size_t len = 0;
	struct report *r;
	struct report_opts o;
	FILE *mem;
	int bad;

	snprintf(name, sizeof(name), "edges-%d", (int)fmt);
	dir = tap_subdir(name);
	snprintf(hosts, sizeof(hosts), "%s/hosts", dir);
	bad = mkdir(hosts, 0700) != 0 ||
	    put_file(dir, "run.json", "{\"format\": 1, \"run\": \"20010101-000000-edge-0001\", "
		"\"status\": \"finished\", \"label\": \"edge\", \"plan\": {\"name\": "
		"\"lmbench\", \"repeat\": 1, \"regression\": null}, \"hosts\": {\"fast\": "
		"{\"status\": \"done\", \"kernel\": \"9.9\", \"ok\": 0, \"failed\": 0}}}\n") != 0 ||
	    put_file(dir, "hosts/fast.json", "{\"agent\": \"0.1.0\", \"mhz\": 12346.0}\n") != 0 ||
	    put_file(dir, "trials.jsonl",
		"{\"format\":1,\"run\":\"20010101-000000-edge-0001\",\"host\":\"fast\","
		"\"variant\":null,\"bench\":\"lat_syscall\",\"suite\":\"lmbench\","
		"\"params\":{\"op\":\"null\"},\"rep\":1,\"key\":\"-/lmbench/-/1\","
		"\"metric\":\"latency\",\"unit\":\"us\",\"direction\":\"lower\",\"value\":0.0005,"
		"\"samples\":[0.0005],\"start\":978307201.0,\"duration\":1.0,\"status\":\"ok\","
		"\"kind\":\"ok\",\"part\":1,\"parts\":1}\n"
		"{\"format\":1,\"run\":\"20010101-000000-edge-0001\",\"host\":\"fast\","
		"\"variant\":null,\"bench\":\"lat_connect\",\"suite\":\"lmbench\","
		"\"params\":{},\"rep\":1,\"key\":\"-/lmbench/-/1\","
		"\"metric\":\"latency\",\"unit\":\"us\",\"direction\":\"lower\",\"value\":12345,"
		"\"samples\":[12345],\"start\":978307202.0,\"duration\":1.0,\"status\":\"ok\","
		"\"kind\":\"ok\",\"part\":2,\"parts\":2}\n"
		"{\"format\":1,\"run\":\"20010101-000000-edge-0001\",\"host\":\"fast\","
		"\"variant\":null,\"bench\":\"lat_proc\",\"suite\":\"lmbench\","
		"\"params\":{\"op\":\"fork\"},\"rep\":1,\"key\":\"-/lmbench/-/1\","
		"\"metric\":\"latency\",\"unit\":\"us\",\"direction\":\"lower\",\"value\":120,"
		"\"samples\":[120],\"start\":978307203.0,\"duration\":1.0,\"status\":\"ok\","
		"\"kind\":\"ok\",\"notes\":[\"file on ext4\",\"unlike lmbench: the agent is "
		"statically linked\"],\"part\":1,\"parts\":1}\n"
		/* context switching: a number, a 0 the agent explains, a failure */
		"{\"format\":1,\"run\":\"20010101-000000-edge-0001\",\"host\":\"fast\","
		"\"variant\":null,\"bench\":\"lat_ctx\",\"params\":{\"procs\":\"2\","
		"\"size\":\"0\"},\"rep\":1,\"key\":\"k1\",\"metric\":\"latency\",\"unit\":\"us\","
		"\"direction\":\"lower\",\"value\":5.5,\"samples\":[5.5],\"status\":\"ok\","
		"\"kind\":\"ok\",\"part\":1,\"parts\":1}\n"
		"{\"format\":1,\"run\":\"20010101-000000-edge-0001\",\"host\":\"fast\","
		"\"variant\":null,\"bench\":\"lat_ctx\",\"params\":{\"procs\":\"2\","
		"\"size\":\"64\"},\"rep\":1,\"key\":\"k2\",\"metric\":\"latency\",\"unit\":\"us\","
		"\"direction\":\"lower\",\"value\":0,\"samples\":[0],\"status\":\"ok\","
		"\"kind\":\"ok\",\"notes\":[\"the overhead is larger than the operation: "
		"subtraction leaves nothing (latency: 6 of 11 samples 0)\"],\"part\":1,\"parts\":1}\n"
		"{\"format\":1,\"run\":\"20010101-000000-edge-0001\",\"host\":\"fast\","
		"\"variant\":null,\"bench\":\"lat_ctx\",\"params\":{\"procs\":\"2\","
		"\"size\":\"16\"},\"rep\":1,\"key\":\"k3\",\"metric\":null,\"unit\":null,"
		"\"direction\":null,\"value\":null,\"samples\":[],\"status\":\"timeout\","
		"\"kind\":\"benchmark\",\"message\":\"lat_ctx did not finish within its "
		"deadline\",\"part\":1,\"parts\":1}\n") != 0;
	r = report_new();
	if (!bad && report_add_run(r, dir, &err) == 0) {
		report_opts_init(&o);
		o.table = REPORT_TABLE_LMBENCH;
		o.format = fmt;
		if ((mem = open_memstream(&out, &len)) != NULL) {
			if (report_render(r, &o, mem, &err) != 0) {
				fclose(mem);
				free(out);
				out = NULL;
			} else
				fclose(mem);
		}
	}
	if (out == NULL)
		printf("# %s\n", err ? err : "could not write the run");
	report_free(r);
	free(err);
	tap_rmtree(dir);
	free(dir);
	return out;
}

/*
 * A run whose only lmbench value is a 0 (a context switch its overhead
 * took whole, as on a loaded machine) and whose other trials failed: the
 * lmbench tables have no row, so the automatic choice is the other
 * tables, and the failures are shown; it used to pick lmbench and end in
 * "no lmbench points" with nothing printed.
 */
static void
test_zero_only(void)
{
	char *dir = tap_subdir("zero-only"), *err = NULL, *out = NULL;
	struct report_opts o;
	struct report *r;
	size_t len = 0;
	FILE *mem;
	int bad, rc = -1;

	bad = put_file(dir, "run.json", "{\"format\": 1, \"run\": \"20010101-000000-zero-0001\", "
		"\"status\": \"finished\", \"plan\": {\"name\": \"ring\", \"repeat\": 1, "
		"\"regression\": null}, \"hosts\": {\"local\": {\"status\": \"done\", "
		"\"kernel\": \"9.9\", \"ok\": 1, \"failed\": 1}}}\n") != 0 ||
	    put_file(dir, "trials.jsonl",
		"{\"format\":1,\"run\":\"20010101-000000-zero-0001\",\"host\":\"local\","
		"\"variant\":null,\"bench\":\"lat_ctx\",\"params\":{\"procs\":\"2\","
		"\"size\":\"0\"},\"rep\":1,\"key\":\"k1\",\"metric\":\"latency\",\"unit\":\"us\","
		"\"direction\":\"lower\",\"value\":0,\"samples\":[0,0,0],\"status\":\"ok\","
		"\"kind\":\"ok\",\"part\":1,\"parts\":1}\n"
		"{\"format\":1,\"run\":\"20010101-000000-zero-0001\",\"host\":\"local\","
		"\"variant\":null,\"bench\":\"munmap\",\"params\":{\"threads\":\"300%\"},"
		"\"rep\":1,\"key\":\"k2\",\"metric\":null,\"unit\":null,\"direction\":null,"
		"\"value\":null,\"samples\":[],\"status\":\"bad-request\",\"kind\":\"benchmark\","
		"\"message\":\"threads x accesses is too many\",\"part\":1,\"parts\":1}\n") != 0;
	r = report_new();
	ok(!bad && report_add_run(r, dir, &err) == 0, "read a run whose only lmbench value is 0");
	report_opts_init(&o);
	if ((mem = open_memstream(&out, &len)) != NULL) {
		rc = report_render(r, &o, mem, &err);
		fclose(mem);
	}
	ok(rc == 0, "the automatic table renders");
	ok(out != NULL && strstr(out, "Failures: 1 trial not ok") != NULL, "and shows the failure");
	if (rc != 0)
		printf("# %s\n", err ? err : "?");
	free(out);
	report_free(r);
	free(err);
	tap_rmtree(dir);
	free(dir);
}

/* Two kernels whose releases differ after the OS column's 13 characters. */
static void
test_legend(void)
{
	char *dir = tap_subdir("legend"), *cmd;
	char *out = NULL, *err = NULL, a[256], b[256];
	struct report_opts o;
	struct report *r;
	size_t len = 0;
	FILE *mem;
	int bad;

	snprintf(a, sizeof(a), "%s/v1045", dir);
	snprintf(b, sizeof(b), "%s/v1046", dir);
	cmd = xasprintf("cp -r " DATA "tx49-without %s && cp -r " DATA "tx49-without %s && "
	    "sed -i 's/\"without-patch\"/\"6.18.44-fc-v1045\"/' %s/run.json && "
	    "sed -i 's/\"without-patch\"/\"6.18.44-fc-v1046\"/' %s/run.json", a, b, a, b);
	bad = system(cmd) != 0;
	free(cmd);
	r = report_new();
	ok(!bad && report_add_run(r, a, &err) == 0 && report_add_run(r, b, &err) == 0,
	    "read two runs labelled 6.18.44-fc-v1045 and -v1046");
	report_opts_init(&o);
	o.table = REPORT_TABLE_LMBENCH;
	mem = open_memstream(&out, &len);
	ok(report_render(r, &o, mem, &err) == 0, "render their lmbench tables");
	fclose(mem);
	ok(strstr(out, "TX49-16K  6.18.44-fc-v1  197 0.72 2.40 17.7 34.3 82.9 2.84 26.2 2500 "
	    "9364 39.K\n") != NULL, "the rows keep getsummary's layout, OS cut to 13");
	ok(strstr(out, "--------- ------------- ---- ---- ---- ---- ---- ---- ---- ---- ---- "
	    "---- ----\nTX49-16K  6.18.44-fc-v1") != NULL, "... under the header as before");
	ok(strstr(out, "TX49-32K  6.18.44-fc-v1  396 0.36 1.19 6.79 11.3 41.0 1.41 8.15 1250 "
	    "4682 19.K\n"
	    "Rows that print alike (Host and OS cut to 9 and 13 characters; `--label NAME` "
	    "names a run in the OS column):\n"
	    "  rows 1-3: TX49-16K/6.18.44-fc-v1045\n"
	    "  rows 4-6: TX49-16K/6.18.44-fc-v1046\n"
	    "  rows 7-9: TX49-32K/6.18.44-fc-v1045\n"
	    "  rows 10-12: TX49-32K/6.18.44-fc-v1046\n\n"
	    "Context switching") != NULL,
	    "a legend under the table says which rows are which series, by row");
	{
		size_t n = 0;
		const char *p;

		for (p = out; (p = strstr(p, "Rows that print alike")) != NULL; p++)
			n++;
		is_int((int)n, 3, "one legend under each of the three tables");
	}
	free(out);
	report_free(r);
	free(err);
	tap_rmtree(dir);
	free(dir);
}

int
main(void)
{
	char buf[64], *err = NULL, *out = NULL, *want;
	size_t len = 0;
	struct report *r;
	struct report_opts o;
	FILE *mem;

	if (tap_tmpdir("test-report-lmbench") == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	/* getsummary's num(), one case per branch */
	report_lmbench_num(buf, 39200, 4, 4);
	is_str(buf, "39.K", "10K and up: one decimal of K, cut to len-1, then K");
	report_lmbench_num(buf, 12345678, 5, 5);
	is_str(buf, "12.3M", "10M and up: M");
	report_lmbench_num(buf, 166.4, 4, 4);
	is_str(buf, "166.", "10 and up: %.1f cut to the width");
	report_lmbench_num(buf, 2972.2, 4, 4);
	is_str(buf, "2972", "a thousand: the integer part");
	report_lmbench_num(buf, 0.49, 4, 4);
	is_str(buf, "0.49", "below 10: len-2 decimals");
	report_lmbench_num(buf, 7.58, 6, 6);
	is_str(buf, "7.5800", "2p/0K: 4 decimals in 6");
	report_lmbench_num(buf, 2.1431, 7, 7);
	is_str(buf, "2.14310", "page fault: 5 decimals in 7");
	report_lmbench_num(buf, 76.4, 5, 4);
	is_str(buf, " 76.", "TCP conn: formatted in 5, printed in 4");
	report_lmbench_num(buf, 0.0005, 7, 7);
	is_str(buf, "5.0e-04", "below 0.001: len-6 digits of exponent form");
	report_lmbench_num(buf, 0.0005, 6, 6);
	is_str(buf, " 5e-04", "below 0.001 in 6: getsummary's %6.0e");
	report_lmbench_num(buf, NAN, 6, 6);
	is_str(buf, "      ", "missing: blank");
	report_lmbench_num(buf, -1, 4, 4);
	is_str(buf, "    ", "not positive: blank");

	/*
	 * Where getsummary prints a wrong number, a right one: below 0.001 it
	 * has no format for fewer than 6 characters ("%4.0e" cut to 4 reads
	 * "5e-0", five), and a K value cut from 5 characters to 4 loses its K.
	 */
	report_lmbench_num(buf, 0.0005, 4, 4);
	is_str(buf, "5e-4", "below 0.001 in 4: 5e-4, not 5e-0 (five)");
	report_lmbench_num(buf, 0.0005, 5, 4);
	is_str(buf, "5e-4", "below 0.001, TCP conn (5 cut to 4): 5e-4");
	report_lmbench_num(buf, 0.0005, 5, 5);
	is_str(buf, "5e-04", "below 0.001 in 5: 5e-04");
	report_lmbench_num(buf, 0.000123, 4, 4);
	is_str(buf, "1e-4", "0.000123 in 4: 1e-4");
	report_lmbench_num(buf, 12345, 5, 4);
	is_str(buf, "12.K", "TCP conn of 12345 us: 12.K, not 12.3");
	report_lmbench_num(buf, 9999.97, 4, 4);
	is_str(buf, " 1e4", "9999.97 in 4: not 1000");
	report_lmbench_num(buf, 0.0149, 5, 4);
	is_str(buf, "0.01", "digits cut after the point stay getsummary's");

	{
		char *edges = render_edges(REPORT_TEXT), *md, *csv, *json;

		ok(edges != NULL, "render a run with a 12346 Mhz host");
		ok(edges && strstr(edges, "\nfast      edge          12346 5e-4 ") != NULL,
		    "Mhz 12346 printed whole (getsummary's %4.0f), null call 5e-4");
		ok(edges && strstr(edges, " 12.K  [1,2]\n") != NULL,
		    "TCP conn 12345 us: 12.K, the row's blank cells marked");
		ok(edges && strstr(edges, "\n[1] RPC/UDP and RPC/TCP: not measured (fleetmark has "
		    "no Sun RPC benchmark, lmbench's lat_rpc)\n[2] not measured in this run: "
		    "pipe, AF UNIX, UDP, TCP\n") != NULL,
		    "... and explained under the table, the columns not measured together");
		ok(edges && strstr(edges, "\nUnlike lmbench\n--------------\n"
		    "fast/edge: lat_proc op=fork: the agent is statically linked\n") != NULL,
		    "a note that says a trial differs from lmbench is listed under the tables");
		ok(edges && strstr(edges, "file on ext4") == NULL, "other notes are not");
		ok(edges && strstr(edges, "\nfast      edge          5.5000                      "
		    "                        [1,2,3,4]\n[1] ctxsw 2p/16K: the trial failed: timeout: "
		    "lat_ctx did not finish within its deadline\n[2] ctxsw 2p/64K: the value is 0, "
		    "which lmbench prints blank\n[3] the overhead is larger than the operation: "
		    "subtraction leaves nothing (latency: 6 of 11 samples 0)\n[4] not measured in "
		    "this run: ctxsw 8p/16K, ctxsw 8p/64K, ctxsw 16p/16K, ctxsw 16p/64K\n") != NULL, "context switching: a failed trial's blank cell and a 0 are explained, "
		    "with the agent's note");
		if (edges)
			printf("# %s", edges);
		free(edges);
		md = render_edges(REPORT_MD);
		ok(md && strstr(md, "       [^3][^4] |") != NULL && strstr(md, "]: ctxsw 2p/64K: the value is "
		    "0, which lmbench prints blank\n") != NULL, "Markdown: blank cells carry "
		    "footnote marks, the footnotes under the table");
		free(md);
		csv = render_edges(REPORT_CSV);
		ok(csv && strstr(csv, ",ctxsw 16p/64K,notes\n") != NULL && strstr(csv,
		    "ctxsw 2p/64K: the value is 0, which lmbench prints blank; the overhead is "
		    "larger") != NULL, "CSV: a notes column with the row's notes");
		free(csv);
		json = render_edges(REPORT_JSON);
		ok(json && strstr(json, "\"column\":\"ctxsw 2p/16K\",\"value\":null,\"text\":\"\","
		    "\"notes\":[\"ctxsw 2p/16K: the trial failed: timeout: lat_ctx did not finish "
		    "within its deadline\"]") != NULL, "JSON: a blank cell with its notes");
		free(json);
	}

	check_file(DATA "example-lmbench-tx49.txt", 13);
	check_file(DATA "example-lmbench-commando.txt", 12);

	/* the pipeline, from the fixture runs */
	r = report_new();
	ok(report_add_run(r, DATA "tx49-without", &err) == 0, "read tx49-without");
	ok(report_add_run(r, DATA "tx49-with", &err) == 0, "read tx49-with");
	is_int((int)report_nseries(r), 4, "four series: two hosts, two labels");
	report_opts_init(&o);
	o.table = REPORT_TABLE_LMBENCH;
	mem = open_memstream(&out, &len);
	ok(report_render(r, &o, mem, &err) == 0, "render lmbench");
	fclose(mem);
	want = tap_slurp(DATA "golden/lmbench-tx49.txt", NULL);
	ok(want != NULL && strcmp(out, want) == 0, "tx49 tables equal golden/lmbench-tx49.txt");
	if (want && strcmp(out, want) != 0)
		printf("# got:\n%s", out);
	free(out);
	free(want);

	/* aggregated: one row per series, the median */
	o.aggregate = REPORT_AGG_MEDIAN;
	out = NULL;
	mem = open_memstream(&out, &len);
	ok(report_render(r, &o, mem, &err) == 0, "render lmbench --aggregate median");
	fclose(mem);
	ok(strstr(out, "TX49-16K  without-patch  197 0.72 2.40 17.7 34.3 82.9 2.85 26.1 "
	    "2500 9341 39.K\n") != NULL, "median row of TX49-16K without-patch");
	ok(strstr(out, "TX49-16K  without-patch 4.7800") != NULL,
	    "median 2p/0K of 4.78, 5.40, 4.68");
	{
		size_t rows = 0;
		const char *p;

		for (p = out; (p = strstr(p, "TX49-32K  with-patch ")) != NULL; p++)
			rows++;
		is_int((int)rows, 3, "one TX49-32K with-patch row per table (3 tables)");
	}
	free(out);
	report_free(r);
	free(err);
	err = NULL;
	test_legend();
	test_zero_only();
	return tap_done();
}
