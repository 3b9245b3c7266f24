/*
 * test-report-judge: how the compare, compact and matrix tables judge
 * their rows (report-judge.c), on runs written here: Benjamini-Hochberg
 * q over every row (a change marked alone is not marked among twenty),
 * "cannot judge" for fewer than 3 trials or a noisy side (with the trials
 * needed), outliers flagged and kept, a metric that is always 0 not
 * noisy, the default table (a matrix for a two-axis sweep, else the
 * compact compare without the parameters every point shares), and
 * --table all (the summary, one sign convention).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "report.h"
#include "tap.h"
#include "xmalloc.h"

static const char *top;
static int nrun;

/* A run directory with a run.json; its path (static). */
static const char *
new_run(FILE **lines)
{
	static char dir[512];
	char path[600];
	FILE *fp;

	snprintf(dir, sizeof(dir), "%s/run%d", top, ++nrun);
	if (mkdir(dir, 0777) != 0)
		return NULL;
	snprintf(path, sizeof(path), "%s/run.json", dir);
	if ((fp = fopen(path, "w")) != NULL) {
		fprintf(fp, "{\"format\":1,\"run\":\"r%d\",\"label\":\"l\",\"status\":\"finished\","
		    "\"hosts\":{\"h1\":{\"kernel\":\"6.1.0\"}}}", nrun);
		fclose(fp);
	}
	snprintf(path, sizeof(path), "%s/trials.jsonl", dir);
	*lines = fopen(path, "w");
	return dir;
}

/* Trial lines of variant v at point params (a JSON object) for metric m. */
static void
put(FILE *fp, const char *v, const char *params, const char *m, const double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(fp, "{\"format\":1,\"run\":\"r\",\"host\":\"h1\",\"variant\":\"%s\","
		    "\"bench\":\"munmap\",\"params\":%s,\"rep\":%zu,\"key\":\"k%zu\","
		    "\"metric\":\"%s\",\"unit\":\"ns\",\"direction\":\"lower\",\"value\":%.17g,"
		    "\"status\":\"ok\",\"kind\":\"ok\"}\n", v, params, i + 1, i, m, x[i]);
}

/* Render the runs read into r; the text (for the caller to free). */
static char *
render(struct report *r, enum report_table t, enum report_format f, int *rc)
{
	struct report_opts o;
	char *out = NULL, *err = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&out, &len);

	report_opts_init(&o);
	o.table = t;
	o.format = f;
	o.baseline = "base";
	*rc = report_render(r, &o, mem, &err);
	fclose(mem);
	if (*rc < 0)
		printf("# render: %s\n", err);
	free(err);
	return out;
}

static struct report *
read_run(const char *dir)
{
	struct report *r = report_new();
	char *err = NULL;

	if (report_add_run(r, dir, &err) != 0) {
		printf("# %s\n", err);
		free(err);
	}
	return r;
}

/* The longest line of s. */
static size_t
widest(const char *s)
{
	size_t w = 0, l;

	while (s && *s) {
		l = strcspn(s, "\n");
		if (l > w)
			w = l;
		s += l + (s[l] == '\n');
	}
	return w;
}

static int
count_of_lines(const char *s)
{
	int n = 0;

	while (s && (s = strchr(s, '\n')) != NULL) {
		n++;
		s++;
	}
	return n;
}

static const double base5[] = { 100, 102, 98, 101, 99 };
static const double new5[] = { 103, 105, 101, 104, 102 };	/* +3%: p 0.017, interval to 5.3% */

int
main(void)
{
	struct report *r;
	const char *dir;
	char params[64], *out;
	FILE *fp;
	int rc, i;

	log_set_level(LOG_LEVEL_QUIET);
	if ((top = tap_tmpdir("test-report-judge")) == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}

	/* One row: p 0.017 is its q, and the interval reaches 5%: worse. */
	dir = new_run(&fp);
	put(fp, "base", "{\"threads\":\"1\"}", "ns_per_munmap", base5, 5);
	put(fp, "new", "{\"threads\":\"1\"}", "ns_per_munmap", new5, 5);
	fclose(fp);
	r = read_run(dir);
	out = render(r, REPORT_TABLE_COMPARE, REPORT_CSV, &rc);
	is_int(rc, 1, "one row, p 0.017: a regression");
	ok(out && strstr(out, ",0.017071681233782655,0.017071681233782655,worse,"),
	    "marked worse on its own: q = p");
	free(out);
	report_free(r);

	/* The same row among 19 that did not change: q = 20 x p, not marked. */
	dir = new_run(&fp);
	put(fp, "base", "{\"threads\":\"1\"}", "ns_per_munmap", base5, 5);
	put(fp, "new", "{\"threads\":\"1\"}", "ns_per_munmap", new5, 5);
	for (i = 2; i <= 20; i++) {
		snprintf(params, sizeof(params), "{\"threads\":\"%d\"}", i);
		put(fp, "base", params, "ns_per_munmap", base5, 5);
		put(fp, "new", params, "ns_per_munmap", base5, 5);
	}
	fclose(fp);
	r = read_run(dir);
	out = render(r, REPORT_TABLE_COMPARE, REPORT_CSV, &rc);
	is_int(rc, 0, "among 20 rows judged: no regression");
	ok(out && strstr(out, ",0.017071681233782655,0.3414336246756531,,") &&
	    !strstr(out, ",worse,"), "its q is 20 x 0.0171 = 0.341: not marked");
	free(out);
	out = render(r, REPORT_TABLE_COMPACT, REPORT_TEXT, &rc);
	ok(out && strstr(out, "q: adjusted over the 20 rows judged"), "the title says over "
	    "how many rows q is");
	free(out);
	report_free(r);

	/* Cannot judge: 2 trials a side, or a noisy side; never marked. */
	dir = new_run(&fp);
	{
		static const double b2[] = { 100, 101 }, n2[] = { 150, 151 };
		static const double bn[] = { 100, 120, 85, 110, 90 };
		static const double nn[] = { 200, 230, 180, 215, 190 };

		put(fp, "base", "{\"threads\":\"1\"}", "ns_per_munmap", b2, 2);
		put(fp, "new", "{\"threads\":\"1\"}", "ns_per_munmap", n2, 2);
		/* 2 trials of rsd 2.8% (sd 2.83, mean 102): 11 a side narrow the
		 * interval below 5% of 102 = 5.1 (2 t(0.975; 20) sqrt(16/11) = 5.03;
		 * with 10, 2 t(0.975; 18) sqrt(1.6) = 5.31) */
		static const double b3[] = { 100, 104 };
		/* 2 trials of rsd 12.9%: above 5%, more will not help */
		static const double b4[] = { 100, 120 };

		put(fp, "base", "{\"threads\":\"2\"}", "ns_per_munmap", bn, 5);
		put(fp, "new", "{\"threads\":\"2\"}", "ns_per_munmap", nn, 5);
		put(fp, "base", "{\"threads\":\"3\"}", "ns_per_munmap", b3, 2);
		put(fp, "new", "{\"threads\":\"3\"}", "ns_per_munmap", b3, 2);
		put(fp, "base", "{\"threads\":\"4\"}", "ns_per_munmap", b4, 2);
		put(fp, "new", "{\"threads\":\"4\"}", "ns_per_munmap", b4, 2);
	}
	fclose(fp);
	r = read_run(dir);
	out = render(r, REPORT_TABLE_COMPACT, REPORT_TEXT, &rc);
	is_int(rc, 0, "a 50% and a 100% slowdown that cannot be judged: no regression");
	ok(out && strstr(out, "cannot judge: 2 trials, 3 needed"), "2 trials: 3 needed");
	/* bn: sd sqrt(820 / 4) = 14.32 over 101, 14.2%; nn: sqrt(1580 / 4) over 203, 9.8% */
	ok(out && strstr(out, "cannot judge: noisy, 14.2% > 5%") != NULL,
	    "noisy: no trial count, the larger spread against the threshold");
	ok(out && strstr(out, "or rsd > 5% (noisy, X% > 5%: more trials will not help)") != NULL,
	    "the title says what that means");
	ok(out && strstr(out, "cannot judge: 2 trials, 11 needed") != NULL,
	    "2 trials of rsd 2.8%: 11 needed");
	ok(out && strstr(out, "cannot judge: noisy, 12.9% > 5%") != NULL,
	    "2 trials of rsd 12.9%: more will not help either");
	ok(out && !strstr(out, "cannot judge: noisy, ~"), "no trial count for a noisy row");
	ok(out && !strstr(out, "worse\n") && !strstr(out, "REGRESSION"), "neither is marked");
	free(out);
	out = render(r, REPORT_TABLE_COMPARE, REPORT_CSV, &rc);
	ok(out && strstr(out, ",,cannot judge,both,,") != NULL,
	    "compare csv: no q, cannot judge, both sides noisy, nothing needed");
	ok(out && strstr(out, ",,cannot judge,both,11,") != NULL,
	    "compare csv: 11 needed for the 2 trials of rsd 2.8%");
	free(out);
	report_free(r);

	/* Outliers: one wild trial is flagged and kept; a metric always 0 is steady. */
	dir = new_run(&fp);
	{
		static const double q[] = { 100, 101, 99, 100, 101, 99, 100 };
		static const double w[] = { 100, 101, 99, 100, 101, 99, 300 };
		static const double z[] = { 0, 0, 0, 0, 0 };

		put(fp, "base", "{\"threads\":\"1\"}", "ns_per_munmap", q, 7);
		put(fp, "new", "{\"threads\":\"1\"}", "ns_per_munmap", w, 7);
		put(fp, "base", "{\"threads\":\"1\"}", "faults", z, 5);
		put(fp, "new", "{\"threads\":\"1\"}", "faults", z, 5);
	}
	fclose(fp);
	r = read_run(dir);
	out = render(r, REPORT_TABLE_COMPARE, REPORT_CSV, &rc);
	ok(out && strstr(out, "ns_per_munmap,ns,h1/l/base,h1/l/new,100,") &&
	    strstr(out, ",0,1\n"), "compare csv: outliers 0 and 1");
	ok(out && strstr(out, "faults,ns,h1/l/base,h1/l/new,0,0,5,0,0,5,+0.0%") == NULL &&
	    strstr(out, ",faults,ns,h1/l/base,h1/l/new,0,0,5,0,0,5,0,") != NULL,
	    "a metric that is always 0: rsd 0, change 0");
	ok(out && strstr(out, "faults,ns,h1/l/base,h1/l/new,0,0,5,0,0,5,0,,,1,1,,,,0,0\n"),
	    "... p 1, q 1, not marked and not noisy");
	free(out);
	out = render(r, REPORT_TABLE_COMPACT, REPORT_TEXT, &rc);
	ok(out && strstr(out, "% > 5% !\n") != NULL,
	    "compact: the wild trial makes its row noisy, and the row has !");
	ok(out && strstr(out, "faults (ns)") && !strstr(out, "faults (ns)  0 ±0.0%  0 ±0.0%  "
	    "+0.0%  -  -  cannot"), "compact: the zero metric is not 'cannot judge'");
	free(out);
	out = render(r, REPORT_TABLE_SUMMARY, REPORT_CSV, &rc);
	ok(out && strstr(out, "faults,ns,h1/l/base,0,0,5,\n") != NULL,
	    "summary: always 0 is rsd 0, not noisy");
	free(out);
	report_free(r);

	/* A moderate outlier keeps the row judged, flagged with ! */
	dir = new_run(&fp);
	{
		static const double q[] = { 100, 101, 99, 100, 101, 99, 100, 101, 99 };
		static const double w[] = { 100, 101, 99, 100, 101, 99, 100, 101, 110 };

		put(fp, "base", "{\"threads\":\"1\",\"pages\":\"1\"}", "ns_per_munmap", q, 9);
		put(fp, "new", "{\"threads\":\"1\",\"pages\":\"1\"}", "ns_per_munmap", w, 9);
		put(fp, "base", "{\"threads\":\"2\",\"pages\":\"2\"}", "ns_per_munmap", q, 9);
		put(fp, "new", "{\"threads\":\"2\",\"pages\":\"2\"}", "ns_per_munmap", q, 9);
	}
	fclose(fp);
	r = read_run(dir);
	out = render(r, REPORT_TABLE_COMPACT, REPORT_TEXT, &rc);
	ok(out && strstr(out, "threads=1,pages=1") && strstr(out, "  !\n"),
	    "compact: a judged row with an outlier: no mark, but !");
	free(out);
	out = render(r, REPORT_TABLE_MATRIX, REPORT_TEXT, &rc);
	ok(out && strstr(out, "+1.2% !") != NULL, "matrix: the change cell has ! too");
	ok(out && strstr(out, "101.2 ±3.3% !") != NULL, "matrix: and the value cell");
	free(out);
	report_free(r);

	/* The default: a 9-point two-axis sweep is a matrix, not 27 compare rows. */
	dir = new_run(&fp);
	{
		int t, pg;
		double b[3], n[3];

		for (t = 1; t <= 4; t *= 2)
			for (pg = 1; pg <= 256; pg *= 16) {
				snprintf(params, sizeof(params), "{\"threads\":\"%d\",\"pages\":\"%d\","
				    "\"accesses\":\"512\"}", t, pg);
				for (i = 0; i < 3; i++) {
					b[i] = 1000 * t + pg + i;
					n[i] = t == 4 ? b[i] * 1.2 : b[i];
				}
				put(fp, "base", params, "ns_per_munmap", b, 3);
				put(fp, "new", params, "ns_per_munmap", n, 3);
			}
	}
	fclose(fp);
	r = read_run(dir);
	out = render(r, REPORT_TABLE_AUTO, REPORT_TEXT, &rc);
	ok(out && strstr(out, "% change of the mean") && !strstr(out, "Compare"),
	    "a two-axis sweep with two variants: the matrix, no compare table");
	ok(out && strstr(out, " ±") != NULL, "matrix cells carry their spread");
	ok(out && widest(out) < 320 && count_of_lines(out) < 30, "and it is short");
	free(out);
	report_free(r);

	/* A one-axis sweep: the compact compare, accesses=512 (shared) left out. */
	dir = new_run(&fp);
	for (i = 1; i <= 4; i++) {
		double b[3] = { 100.0 * i, 100.0 * i + 1, 100.0 * i - 1 }, n[3];
		int k;

		for (k = 0; k < 3; k++)
			n[k] = b[k] * 1.1;
		snprintf(params, sizeof(params), "{\"threads\":\"%d\",\"accesses\":\"512\"}", i);
		put(fp, "base", params, "ns_per_munmap", b, 3);
		put(fp, "new", params, "ns_per_munmap", n, 3);
	}
	fclose(fp);
	r = read_run(dir);
	out = render(r, REPORT_TABLE_AUTO, REPORT_TEXT, &rc);
	ok(out && strncmp(out, "Compare: new h1/l/new against base h1/l/base", 44) == 0,
	    "one axis: the compact compare, series named once");
	if (out && strstr(out, "\n\n"))
		strstr(out, "\n\n")[1] = '\0';	/* the table, not the REGRESSION lines */
	ok(out && strstr(out, "ns_per_munmap (ns) threads=2 ") && !strstr(out, "accesses"),
	    "the point without the parameters every point shares");
	ok(out && strstr(out, "ns_per_munmap (ns) geomean ") != NULL, "a geomean row");
	ok(out && widest(out + strcspn(out, "\n") + 1) < 120, "rows under 120 columns");
	ok(out && !strstr(out, "Lines not used"), "no 'Lines not used' when every line was");
	free(out);
	out = render(r, REPORT_TABLE_ALL, REPORT_TEXT, &rc);
	ok(out && strstr(out, "Summary: ") && strstr(out, "Compare against"),
	    "--table all: the summary and the compare table");
	ok(out && strstr(out, "(+ the value grew, as in the compare table; then worse or "
	    "better)") && strstr(out, "munmap.ns_per_munmap[threads=2,accesses=512]: 200 -> "
	    "220 +10% worse\n"), "--table all: the delta lines with the compare table's sign");
	free(out);
	report_free(r);
	return tap_done();
}
