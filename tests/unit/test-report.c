/*
 * test-report: reading run directories (series, labels, duplicates,
 * truncated and corrupt lines, unknown formats, one line in several JSON
 * spellings read as the same), the delta lines of linux-kernel mail, the
 * compare rows of the munmap fixtures (tests/data/report/munmap-*, written
 * by gen-fixtures.py), runs with no point in common, partial runs flagged,
 * the samples table (kept samples, spellings, a trial run again), and run
 * groups (the runs of one group read as one run over their hosts).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "log.h"
#include "report.h"
#include "tap.h"
#include "xmalloc.h"

#define DATA	"tests/data/report/"

/* Render with these options; the message of a failed render in *errp
 * (may be NULL: printed and freed). */
static char *
render_opts(const struct report *r, enum report_table t, enum report_format f,
    const char *baseline, int samples, int *rc, char **errp)
{
	struct report_opts o;
	char *out = NULL, *err = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&out, &len);

	report_opts_init(&o);
	o.table = t;
	o.format = f;
	o.baseline = baseline;
	o.samples = samples;
	*rc = report_render(r, &o, mem, &err);
	fclose(mem);
	if (errp != NULL) {
		*errp = err;
		return out;
	}
	if (*rc < 0)
		printf("# render: %s\n", err);
	free(err);
	return out;
}

static char *
render(const struct report *r, enum report_table t, enum report_format f,
    const char *baseline, int *rc)
{
	return render_opts(r, t, f, baseline, 0, rc, NULL);
}

/* How many times needle is in hay. */
static int
count_of(const char *hay, const char *needle)
{
	int n = 0;

	while (hay && (hay = strstr(hay, needle)) != NULL) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* report_write_baseline's text; its result in *rc. */
static char *
baseline_text(const char *rundir, const char *basedir, int *rc)
{
	char *out = NULL, *err = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&out, &len);

	*rc = report_write_baseline(rundir, basedir, mem, &err);
	fclose(mem);
	if (*rc < 0)
		printf("# report_write_baseline: %s\n", err);
	free(err);
	return out;
}

#define LINE_S(host, params, rep, value, samples) \
	"{\"format\":1,\"run\":\"r\",\"host\":\"" host "\",\"variant\":null," \
	"\"bench\":\"munmap\",\"params\":" params ",\"rep\":" #rep ",\"key\":\"k\"," \
	"\"metric\":\"ns_per_munmap\",\"unit\":\"ns\",\"direction\":\"lower\"," \
	"\"value\":" #value ",\"samples\":" samples ",\"resolved\":{\"a\":[1,{\"b\":\"}\"}]}," \
	"\"status\":\"ok\",\"kind\":\"ok\"}\n"
#define LINE(host, params, rep, value) LINE_S(host, params, rep, value, "[1,2]")

/* One line of the oversubscribed sweep below. */
static void
sweep_line(FILE *f, int threads, int pages, int rep, const char *metric, const char *unit,
    double v)
{
	fprintf(f, "{\"format\":1,\"run\":\"20011130-061500-over-0001\",\"host\":\"lab-01\","
	    "\"variant\":null,\"bench\":\"munmap\",\"params\":{\"threads\":\"%d\","
	    "\"pages\":\"%d\"},\"rep\":%d,\"key\":\"-/munmap/threads=%d,pages=%d/%d\","
	    "\"metric\":\"%s\",\"unit\":\"%s\",\"direction\":\"lower\",\"value\":%g,"
	    "\"samples\":[%g],\"status\":\"ok\",\"kind\":\"ok\",\"notes\":[\"THP never\"%s],"
	    "\"part\":1,\"parts\":1}\n", threads, pages, rep, threads, pages, rep, metric, unit,
	    v, v, threads > 1 ? ",\"16 accessing threads and the unmapping thread share 2 "
	    "CPUs\"" : "");
}

/*
 * An oversubscribed sweep: the agent's notes reach the matrix, the
 * summary and every format, identical notes merged, and only the cells
 * they qualify are marked.
 */
static void
test_notes(void)
{
	char *dir = tap_subdir("notes"), path[512], *out;
	struct report *r = report_new();
	int rc, t, p, rep;
	FILE *f;

	snprintf(path, sizeof(path), "%s/run.json", dir);
	tap_put(path, "w", "{\"format\":1,\"run\":\"20011130-061500-over-0001\",\"label\":"
	    "\"k\",\"status\":\"finished\",\"plan\":{\"name\":\"over\",\"repeat\":2,"
	    "\"regression\":null},\"hosts\":{}}\n");
	snprintf(path, sizeof(path), "%s/trials.jsonl", dir);
	f = fopen(path, "w");
	for (t = 1; t <= 16; t *= 16)
		for (p = 1; p <= 16; p *= 16)
			for (rep = 1; rep <= 2; rep++) {
				sweep_line(f, t, p, rep, "ns_per_munmap", "ns", 1000.0 * t + p);
				sweep_line(f, t, p, rep, "interrupts:tlb_shootdowns", "/op",
				    t > 1 ? 1.0 : 0.0);
			}
	fclose(f);
	ok(report_add_run(r, dir, NULL) == 0, "read the oversubscribed sweep");
	out = render(r, REPORT_TABLE_MATRIX, REPORT_TEXT, NULL, &rc);
	ok(out && strstr(out, "munmap ns_per_munmap (ns, mean of trials ±rsd; ! outliers among "
	    "the trials): lab-01/k\nthreads  pages=1            pages=16\n"
	    "1           1001 ±0.0% [1]     1016 ±0.0% [1]\n"
	    "16       16001 ±0.0% [1,2]  16016 ±0.0% [1,2]\n[1] THP never\n[2] 16 accessing "
	    "threads and the unmapping thread share 2 CPUs\n") != NULL,
	    "matrix: the oversubscribed row's cells marked, the notes under the grid");
	ok(out && strstr(out, "munmap interrupts:tlb_shootdowns (/op, mean of trials ±rsd") != NULL,
	    "a monitor's metric is a grid of its own");
	free(out);
	out = render(r, REPORT_TABLE_SUMMARY, REPORT_TEXT, NULL, &rc);
	ok(out && count_of(out, "16 accessing threads and the unmapping thread share 2 CPUs") ==
	    1 && strstr(out, "16016 [1,2]") != NULL, "summary: marks, one footnote per note");
	free(out);
	out = render(r, REPORT_TABLE_MATRIX, REPORT_MD, NULL, &rc);
	ok(out && strstr(out, "| 16001 ±0.0%[^1][^2] |") != NULL && strstr(out, "[^2]: 16 accessing "
	    "threads") != NULL && strstr(out, "[^3]: THP never") != NULL,
	    "Markdown: footnote labels unique over the document");
	free(out);
	out = render(r, REPORT_TABLE_MATRIX, REPORT_CSV, NULL, &rc);
	ok(out && strstr(out, ",pages=16,notes\n") != NULL && strstr(out, ",16,16001,16016,"
	    "THP never; 16 accessing threads and the unmapping thread share 2 CPUs\n") != NULL,
	    "CSV: the row's notes in a notes column");
	free(out);
	out = render(r, REPORT_TABLE_MATRIX, REPORT_JSON, NULL, &rc);
	ok(out && strstr(out, "\"value\":1001.0,\"text\":\"1001 ±0.0%\",\"notes\":[\"THP never\"]}")
	    != NULL, "JSON: a cell's notes");
	free(out);
	out = render(r, REPORT_TABLE_MATRIX, REPORT_HTML, NULL, &rc);
	ok(out && strstr(out, "16001 ±0.0%<sup class=\"note\" title=\"THP never\">1</sup><sup "
	    "class=\"note\" title=\"16 accessing threads and the unmapping thread share 2 "
	    "CPUs\">2</sup>") != NULL && strstr(out, "<ol class=\"notes\"><li>THP never</li>")
	    != NULL, "HTML: marks with the note as a tooltip, the notes listed under the table");
	free(out);
	report_free(r);
	tap_rmtree(dir);
	free(dir);
}

/*
 * A run dir/ID on the hosts of "h1,h2" (each with two trials), of run
 * group `group` (NULL: none), its controller on `ctl`.
 */
static void
group_run(const char *dir, const char *id, const char *group, const char *ctl,
    const char *hosts)
{
	char path[512], json[1024], h[2][8] = { "", "" };
	FILE *f;
	int i, n;

	n = sscanf(hosts, "%7[^,],%7s", h[0], h[1]);
	snprintf(path, sizeof(path), "%s/%s", dir, id);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/run.json", dir, id);
	snprintf(json, sizeof(json), "{\"format\":1,\"run\":\"%s\",\"status\":\"finished\","
	    "\"label\":null,\"group\":%s%s%s,\"start\":\"2001-11-30T06:15:0%zuZ\","
	    "\"controller\":{\"version\":\"0\",\"host\":\"%s\"},\"plan\":{\"name\":\"p\"},"
	    "\"hosts\":{\"%s\":{\"kernel\":\"k\"}%s%s%s}}\n", id, group ? "\"" : "",
	    group ? group : "null", group ? "\"" : "", strlen(ctl) % 10, ctl, h[0],
	    n > 1 ? ",\"" : "", n > 1 ? h[1] : "", n > 1 ? "\":{\"kernel\":\"k\"}" : "");
	tap_put(path, "w", json);
	snprintf(path, sizeof(path), "%s/%s/trials.jsonl", dir, id);
	if ((f = fopen(path, "w")) == NULL)
		return;
	for (i = 0; i < n; i++)
		fprintf(f, "{\"format\":1,\"run\":\"%s\",\"host\":\"%s\",\"variant\":null,"
		    "\"bench\":\"munmap\",\"params\":{},\"rep\":1,\"key\":\"k\",\"metric\":"
		    "\"ns\",\"unit\":\"ns\",\"direction\":\"lower\",\"value\":%d,\"status\":"
		    "\"ok\",\"kind\":\"ok\"}\n{\"format\":1,\"run\":\"%s\",\"host\":\"%s\","
		    "\"variant\":null,\"bench\":\"munmap\",\"params\":{},\"rep\":2,\"key\":"
		    "\"k\",\"metric\":\"ns\",\"unit\":\"ns\",\"direction\":\"lower\",\"value\":"
		    "%d,\"status\":\"ok\",\"kind\":\"ok\"}\n", id, h[i], 100 + h[i][1], id,
		    h[i], 102 + h[i][1]);
	fclose(f);
}

/* The report of the runs ids under dir, AUTO tables in text. */
static char *
group_report(const char *dir, const char *const *ids, int *rc)
{
	struct report *r = report_new();
	char path[512], *err = NULL, *out;

	for (; *ids != NULL; ids++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *ids);
		if (report_add_run(r, path, &err) != 0) {
			printf("# %s\n", err);
			free(err);
			err = NULL;
		}
	}
	out = render(r, REPORT_TABLE_AUTO, REPORT_TEXT, NULL, rc);
	report_free(r);
	return out;
}

/*
 * Two runs of one group on h1 and h2 read as one run over both: the
 * tables of a single run (a summary, not a compare of h2 against h1), and
 * a table of the runs at the top; the same runs without a group compare.
 */
static void
test_groups(void)
{
	static const char *const single[] = { "20011130-061500-p-0001", NULL };
	static const char *const group[] = { "20011130-061501-p-0002",
		"20011130-061502-p-0003", NULL };
	static const char *const nogroup[] = { "20011130-061503-p-0004",
		"20011130-061504-p-0005", NULL };
	char *dir = tap_subdir("groups"), *a, *b, *c, *p;
	int rc;

	group_run(dir, single[0], NULL, "ctl", "h1,h2");
	group_run(dir, group[0], "rack", "ctl-a", "h1");
	group_run(dir, group[1], "rack", "ctl-bb", "h2");
	group_run(dir, nogroup[0], NULL, "ctl-a", "h1");
	group_run(dir, nogroup[1], NULL, "ctl-bb", "h2");
	a = group_report(dir, single, &rc);
	b = group_report(dir, group, &rc);
	is_int(rc, 0, "a group's runs: rendered");
	c = group_report(dir, nogroup, &rc);
	ok(a != NULL && strncmp(a, "Summary", 7) == 0, "one run over h1 and h2: a summary");
	p = b != NULL ? strstr(b, "\n\nSummary") : NULL;
	ok(p != NULL && strcmp(p + 2, a) == 0,
	    "the group's runs: the same tables, after the table of the runs");
	ok(b != NULL && strncmp(b, "Run group: ", 11) == 0 &&
	    strstr(b, "rack   20011130-061501-p-0002  h1     ctl-a       2001-11-30T06:15:05Z") &&
	    strstr(b, "rack   20011130-061502-p-0003  h2     ctl-bb      2001-11-30T06:15:06Z"),
	    "that table: each run's group, id, hosts, controller and start");
	if (getenv("TEST_REPORT_SHOW") != NULL)
		printf("%s----\n%s----\n%s", a, b, c);
	ok(c != NULL && strstr(c, "Summary") == NULL && strstr(c, "h2/k") != NULL &&
	    strstr(c, "Run group") == NULL, "the same runs without a group: compared");
	free(a);
	free(b);
	free(c);
	tap_rmtree(dir);
	free(dir);
}

/* --table: every name of the registry (render.c), and only those. */
static void
test_table_names(void)
{
	static const struct {
		const char		*name;
		enum report_table	 t;
	} names[] = {
		{ "auto", REPORT_TABLE_AUTO }, { "lmbench", REPORT_TABLE_LMBENCH },
		{ "delta", REPORT_TABLE_DELTA }, { "compare", REPORT_TABLE_COMPARE },
		{ "all", REPORT_TABLE_ALL }, { "matrix", REPORT_TABLE_MATRIX },
		{ "summary", REPORT_TABLE_SUMMARY }, { "profile", REPORT_TABLE_PROFILE },
		{ "kernel", REPORT_TABLE_KERNEL }, { "failures", REPORT_TABLE_FAILURES },
		{ "compact", REPORT_TABLE_COMPACT },
	};
	enum report_table t;
	size_t i, good = 0;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		/* another table first, so that a parse that writes nothing fails */
		t = names[i].t == REPORT_TABLE_ALL ? REPORT_TABLE_AUTO : REPORT_TABLE_ALL;
		good += report_table_parse(names[i].name, &t) == 0 && t == names[i].t;
	}
	is_int((int)good, (int)(sizeof(names) / sizeof(names[0])),
	    "every table name parses to its table");
	ok(report_table_parse("samples", &t) != 0 && report_table_parse("", &t) != 0 &&
	    report_table_parse("Compare", &t) != 0, "samples (an option), empty and Compare do not");
}

int
main(void)
{
	struct report *r;
	struct report_counts c;
	char *err = NULL, *out, *dir, path[512];
	int rc;

	if (tap_tmpdir("test-report") == NULL) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	log_set_level(LOG_LEVEL_QUIET);
	test_notes();
	test_groups();
	test_table_names();

	/* Delta lines: the mail's, then the sign rules. */
	out = report_delta_line("fork", 166, 187, 0);
	is_str(out, "fork: 166 -> 187 -13%", "mail: fork latency grew 13%: worse, negative");
	free(out);
	out = report_delta_line("exec", 857, 909, 0);
	is_str(out, "exec: 857 -> 909 -6%", "mail: exec");
	free(out);
	out = report_delta_line("bw pipe", 313, 440, 1);
	is_str(out, "bw pipe: 313 -> 440 +41%", "a bandwidth that grew is better: positive");
	free(out);
	out = report_delta_line("fork", 187, 166, 0);
	is_str(out, "fork: 187 -> 166 +11%", "a latency that shrank is better: positive");
	free(out);
	out = report_delta_line("null call", 0.49, 0.491, 0);
	is_str(out, "null call: 0.49 -> 0.491 -0.2%", "below 1%: one decimal");
	free(out);

	/* The munmap fixtures: counts, series, compare rows. */
	r = report_new();
	ok(report_add_run(r, DATA "munmap-base", &err) == 0, "read munmap-base");
	ok(report_add_run(r, DATA "munmap-patch", &err) == 0, "read munmap-patch (damaged)");
	report_counts(r, &c);
	is_int((int)c.truncated, 1, "the truncated last line is counted");
	is_int((int)c.corrupt, 1, "the corrupt line is counted");
	is_int((int)c.failed, 2, "the failed trials are counted");
	is_int((int)c.infra, 1, "the infrastructure failure apart");
	is_int((int)c.nometric, 1, "the line without a metric is counted");
	is_int((int)c.used, 40, "20 values a run used");
	is_int((int)report_nseries(r), 2, "two series");
	is_str(report_series_name(r, 0), "lab-03/base", "series name: host/label");
	is_str(report_series_name(r, 1), "lab-03/patched", "the second run's label");

	out = render(r, REPORT_TABLE_COMPARE, REPORT_CSV, NULL, &rc);
	is_int(rc, 1, "one significant regression");
	ok(strstr(out, "compare,munmap,\"threads=4,pages=16\",ns_per_munmap,ns,lab-03/base,"
	    "lab-03/patched,5026.2,0.43325") != NULL, "compare: baseline mean and rsd");
	ok(strstr(out, ",5528.6,0.42795") != NULL, "compare: patched mean and rsd");
	ok(strstr(out, ",9.99562293581633") != NULL, "compare: change +10.0%");
	ok(strstr(out, ",5.52088172399337e-10,8.281322585990055e-10,worse,,,0,0\n") != NULL,
	    "compare: ns_per_munmap marked worse, with p and its Benjamini-Hochberg q");
	ok(strstr(out, ",better,,,0,0\n") != NULL, "compare: accesses marked better");
	ok(strstr(out, "\"threads=8,pages=16\",ns_per_munmap,ns,lab-03/base,lab-03/patched,"
	    "5330.2") != NULL && strstr(out, ",0.2929474745281735,,cannot judge,both,,0,0\n")
	    != NULL, "compare: the noisy point cannot be judged (no q, not marked), and no "
	    "trials needed: its rsd is above 5%, which more trials do not shrink");
	ok(strstr(out, ",9.995622935816334,9.335060456990561,10.656185414642106,") != NULL,
	    "compare: the change and its 95% interval");
	ok(strstr(out, "compare,munmap,geomean,ns_per_munmap,ns,lab-03/base,lab-03/patched,"
	    "5175.968628189321,,,5568.357050333608,,2,7.580966005227863,") != NULL,
	    "compare: a geomean row per pair and (bench, metric)");
	free(out);

	out = render(r, REPORT_TABLE_COMPARE, REPORT_JSON, NULL, &rc);
	{
		json_error_t je;
		json_t *a = json_loads(out, 0, &je);

		ok(json_is_array(a) && json_array_size(a) == 63,
		    "compare json: an array of 63 cells (blank ones left out)");
		ok(json_is_real(json_object_get(json_array_get(a, 0), "value")) &&
		    strcmp(json_string_value(json_object_get(json_array_get(a, 0), "column")),
		    "base mean") == 0, "compare json: the first cell is the base mean, a number");
		json_decref(a);
	}
	free(out);

	out = render(r, REPORT_TABLE_COMPARE, REPORT_TEXT, NULL, &rc);
	ok(strstr(out, "Lines not used: 2 failed (1 of them infrastructure), 1 without a metric, "
	    "1 corrupt, 1 truncated, 0 of an unknown format")
	    != NULL, "the text says what was not used");
	free(out);

	out = render(r, REPORT_TABLE_DELTA, REPORT_TEXT, "patched", &rc);
	ok(rc == 0 && strstr(out, "munmap.ns_per_munmap[threads=4,pages=16]: 5529 -> 5026 +9%\n")
	    != NULL, "delta with the patched run as baseline: bench.metric[params]");
	free(out);
	out = render(r, REPORT_TABLE_DELTA, REPORT_TEXT, "nosuch", &rc);
	is_int(rc, -1, "an unknown baseline is an error");
	free(out);

	/* the same run twice: two series, the second "#2" */
	ok(report_add_run(r, DATA "munmap-base", &err) == 0, "read munmap-base again");
	is_int((int)report_nseries(r), 3, "a duplicate series is kept");
	is_str(report_series_name(r, 2), "lab-03/base#2", "and told apart with #2");
	report_free(r);

	/* lmbench: the fixtures have it, munmap has not */
	r = report_new();
	ok(report_add_run(r, DATA "munmap-base", &err) == 0, "read munmap-base");
	out = render(r, REPORT_TABLE_LMBENCH, REPORT_TEXT, NULL, &rc);
	is_int(rc, -1, "lmbench without lmbench points is an error");
	free(out);
	out = render(r, REPORT_TABLE_DELTA, REPORT_TEXT, NULL, &rc);
	is_int(rc, -1, "delta with one series is an error");
	free(out);
	report_free(r);

	/* matrix: threads down, pages across, numeric order, change grid */
	r = report_new();
	ok(report_add_run(r, DATA "sweep", &err) == 0, "read the sweep run");
	out = render(r, REPORT_TABLE_MATRIX, REPORT_CSV, "never", &rc);
	is_int(rc, 0, "matrix renders");
	ok(strstr(out, "table,series,baseline,bench,metric,params,quantity,threads,pages=1,"
	    "pages=16,pages=256\n") != NULL, "matrix: pages across, in numeric order");
	ok(strstr(out, "matrix,lab-03/6.1.0-13-amd64/never,,munmap,ns_per_munmap,"
	    "accesses=512,mean,1,1010,1160,3560\nmatrix,lab-03/6.1.0-13-amd64/never,,munmap,"
	    "ns_per_munmap,accesses=512,mean,2,") != NULL,
	    "matrix: threads down in numeric order (the lines had 4, 1, 2), means of trials");
	free(out);
	out = render(r, REPORT_TABLE_MATRIX, REPORT_TEXT, "never", &rc);
	ok(strstr(out, "4        +20.0% *  +20.0% *   +20.0% *\n") != NULL,
	    "matrix: the change grid marks the significant 20% cells");
	ok(strstr(out, "1           +0.0%     +0.0%      +0.0%\n") != NULL,
	    "matrix: unchanged cells are not marked");
	free(out);
	report_free(r);
	r = report_new();
	ok(report_add_run(r, DATA "munmap-base", &err) == 0, "read munmap-base");
	out = render(r, REPORT_TABLE_MATRIX, REPORT_TEXT, NULL, &rc);
	is_int(rc, -1, "matrix without a two-parameter sweep is an error");
	free(out);
	out = render(r, REPORT_TABLE_ALL, REPORT_TEXT, NULL, &rc);
	ok(rc == 0 && strncmp(out, "Summary: ", 9) == 0 && count_of(out, "\n\n") == 0,
	    "all tables of one series without lmbench or sweep: the summary alone");
	ok(strstr(out, "Lines not used") == NULL, "no 'Lines not used' when every line was");
	free(out);
	report_free(r);

	/* Lines built here: every JSON spelling of a line reads as the same line. */
	dir = tap_subdir("lines");
	snprintf(path, sizeof(path), "%s/run.json", dir);
	tap_put(path, "w", "{\"format\":1,\"run\":\"r\",\"label\":null,"
	    "\"hosts\":{\"h1\":{\"kernel\":\"6.1.0\"}}}");
	snprintf(path, sizeof(path), "%s/trials.jsonl", dir);
	tap_put(path, "w",
	    LINE("h1", "{\"threads\":\"4\",\"pages\":\"16\"}", 1, 10)
	    LINE("h1", "{\"threads\":4,\"pages\":16}", 2, 20)		/* numbers */
	    LINE("h\\u0031", "{\"threads\":\"4\",\"pages\":\"16\"}", 3, 30)	/* escape */
	    "\n"
	    LINE("h1", "{ \"threads\" : \"4\" , \"pages\" : \"16\" }", 4, 4e1)
	    LINE("h1", "{\"threads\":\"4\",\"pages\":\"16\",\"x\":0.5}", 1, 50));
	r = report_new();
	ok(report_add_run(r, dir, &err) == 0, "read lines in various spellings");
	report_counts(r, &c);
	is_int((int)report_nseries(r), 1, "an escaped host name is the same host");
	is_str(report_series_name(r, 0), "h1/6.1.0", "label: the kernel from run.json");
	is_int((int)c.used, 5, "every spelling is read");
	is_int((int)c.corrupt, 0, "none corrupt");
	out = render(r, REPORT_TABLE_COMPARE, REPORT_CSV, NULL, &rc);
	is_int(rc, -1, "compare needs two series");
	free(out);
	{
		/* a second host makes the compare possible: check the means */
		FILE *fp = fopen(path, "a");

		fputs(LINE("h2", "{\"threads\":\"4\",\"pages\":\"16\"}", 1, 10), fp);
		fputs(LINE("h2", "{\"threads\":\"4\",\"pages\":\"16\"}", 2, 10), fp);
		fclose(fp);
	}
	report_free(r);
	r = report_new();
	ok(report_add_run(r, dir, &err) == 0, "read again with h2");
	out = render(r, REPORT_TABLE_COMPARE, REPORT_CSV, "h1", &rc);
	ok(rc >= 0 && strstr(out, "compare,munmap,\"threads=4,pages=16\",ns_per_munmap,ns,"
	    "h1/6.1.0,h2/unknown,25,") != NULL,
	    "numbers, escapes and spaces land in one cell: mean of 10 20 30 40; "
	    "a host with no kernel known is labelled unknown");
	ok(strstr(out, "\"threads=4,pages=16,x=0.5\"") != NULL,
	    "a real-valued parameter makes its own cell");
	free(out);
	report_free(r);

	/* a truncated last line, then an unknown format */
	{
		FILE *fp = fopen(path, "a");

		fputs("{\"format\":1,\"run\":\"r\",\"ho", fp);
		fclose(fp);
	}
	r = report_new();
	ok(report_add_run(r, dir, &err) == 0, "a truncated last line is not an error");
	report_counts(r, &c);
	is_int((int)c.truncated, 1, "and it is counted");
	report_free(r);
	tap_put(path, "w", LINE("h1", "{}", 1, 1)
	    "{\"format\":2,\"run\":\"r\",\"host\":\"h1\"}\n");
	r = report_new();
	ok(report_add_run(r, dir, &err) == 0, "a line of an unknown format is not an error");
	report_counts(r, &c);
	is_int((int)c.unknown_format, 1, "it is skipped and counted (docs/results.md)");
	is_int((int)c.used, 1, "the line of format 1 is used");
	report_free(r);
	snprintf(path, sizeof(path), "%s/run.json", dir);
	tap_put(path, "w", "{\"format\":7,\"run\":\"r\"}");
	r = report_new();
	ok(report_add_run(r, dir, &err) == -1 && err && strstr(err, "unknown format 7"),
	    "a run.json of an unknown format is an error");
	free(err);
	err = NULL;
	report_free(r);

	/* The failures table: per host, point and class, the first message */
	snprintf(path, sizeof(path), "%s/run.json", dir);
	tap_put(path, "w", "{\"format\":1,\"run\":\"r\",\"label\":\"s\",\"status\":\"finished\","
	    "\"hosts\":{\"h1\":{},\"h2\":{}}}");
	snprintf(path, sizeof(path), "%s/trials.jsonl", dir);
#define FAIL(host, params, rep, status, kind, msg) \
	"{\"format\":1,\"run\":\"r\",\"host\":\"" host "\",\"variant\":null," \
	"\"bench\":\"lat_ctx\",\"params\":" params ",\"rep\":" #rep ",\"key\":\"k\"," \
	"\"metric\":null,\"value\":null,\"samples\":[],\"status\":\"" status "\"," \
	"\"kind\":\"" kind "\",\"message\":" msg "}\n"
	tap_put(path, "w",
	    FAIL("h1", "{\"procs\":\"5000\"}", 1, "bad-request", "benchmark",
		"\"parameter procs: 5000 is out of range (2 to 1024)\"")
	    FAIL("h1", "{\"procs\":\"5000\"}", 2, "bad-request", "benchmark",
		"\"another message\"")
	    FAIL("h1", "{\"procs\":\"2\"}", 1, "bench", "benchmark", "\"line one\\nline two\"")
	    FAIL("h2", "{\"procs\":\"5000\"}", 1, "connect", "infrastructure", "null")
	    FAIL("h1", "{\"procs\":\"5000\"}", 3, "timeout", "benchmark", "\"slow\""));
#undef FAIL
	r = report_new();
	ok(report_add_run(r, dir, &err) == 0, "read a run whose every trial failed");
	out = render(r, REPORT_TABLE_AUTO, REPORT_CSV, NULL, &rc);
	is_int(rc, 0, "its default report renders");
	is_str(out, "table,host,variant,bench,point,class,first message,count\n"
	    "failures,h1,-,lat_ctx,procs=5000,bad-request,"
	    "parameter procs: 5000 is out of range (2 to 1024),2\n"
	    "failures,h1,-,lat_ctx,procs=2,bench,line one,1\n"
	    "failures,h2,-,lat_ctx,procs=5000,connect,-,1\n"
	    "failures,h1,-,lat_ctx,procs=5000,timeout,slow,1\n",
	    "nothing measured: only the failures table, a row per host, point and class "
	    "with the first message (its first line) and the count");
	free(out);
	out = render(r, REPORT_TABLE_FAILURES, REPORT_TEXT, NULL, &rc);
	ok(rc == 0 && out && strncmp(out, "Failures: 5 trials not ok,", 26) == 0,
	    "--table failures: titled with the trials not ok");
	free(out);
	report_free(r);
	snprintf(path, sizeof(path), "%s/trials.jsonl", dir);
	tap_put(path, "w", LINE("h1", "{}", 1, 1));
	r = report_new();
	ok(report_add_run(r, dir, &err) == 0, "read a run without failures");
	out = render(r, REPORT_TABLE_AUTO, REPORT_TEXT, NULL, &rc);
	ok(rc == 0 && out && strstr(out, "Failures") == NULL, "no failures table when all is ok");
	free(out);
	out = render_opts(r, REPORT_TABLE_FAILURES, REPORT_TEXT, NULL, 0, &rc, &err);
	ok(rc == -1 && err && strcmp(err, "no trial failed in the runs given") == 0,
	    "--table failures when nothing failed is an error");
	free(err);
	err = NULL;
	free(out);
	report_free(r);

	/* --samples: each trial's samples, in the spellings a line may have */
	snprintf(path, sizeof(path), "%s/run.json", dir);
	tap_put(path, "w", "{\"format\":1,\"run\":\"r\",\"label\":\"s\",\"status\":\"finished\","
	    "\"hosts\":{\"h1\":{}}}");
	snprintf(path, sizeof(path), "%s/trials.jsonl", dir);
	tap_put(path, "w",
	    LINE_S("h1", "{}", 1, 20, "[ 30 , 10,20 ]")
	    LINE_S("h\\u0031", "{}", 2, 5, "[4,5,6.5]")	/* an escape */
	    LINE_S("h1", "{}", 3, 1, "[1,2,3,4,5,6,7,8,9,10,11]")	/* more than 10 */
	    LINE_S("h1", "{}", 4, 7, "[7, \"x\"]")		/* not numbers */
	    LINE_S("h1", "{}", 5, 9, "[9,8]")
	    LINE_S("h1", "{}", 5, 2, "[2,1,3]"));		/* rep 5 run again */
	r = report_new();
	ok(report_add_run(r, dir, &err) == 0, "read lines with samples, not kept");
	out = render_opts(r, REPORT_TABLE_SUMMARY, REPORT_CSV, NULL, 1, &rc, &err);
	ok(rc == -1 && err && strstr(err, "samples"), "--samples without kept samples: an error");
	free(err);
	err = NULL;
	free(out);
	report_free(r);
	r = report_new();
	report_keep_samples(r);
	ok(report_add_run(r, dir, &err) == 0, "read lines with samples, kept");
	out = render_opts(r, REPORT_TABLE_SUMMARY, REPORT_CSV, NULL, 1, &rc, NULL);
	is_int(rc, 0, "summary with the samples table renders");
	ok(strstr(out, "\ntable,bench,params,metric,unit,series,rep,n,min,median,max,spread,"
	    "s1,s2,s3\n") != NULL, "samples: a column per sample, as many as the longest "
	    "trial shown (the 11-sample one is not)");
	ok(strstr(out, "\nsamples,munmap,,ns_per_munmap,ns,h1/s,1,3,10,20,30,100,30,10,20\n")
	    != NULL, "samples: n, min, median, max, spread %, in the order taken");
	ok(strstr(out, "\nsamples,munmap,,ns_per_munmap,ns,h1/s,2,3,4,5,6.5,50,4,5,6.5\n")
	    != NULL, "samples: a line with an escaped host name");
	ok(strstr(out, "\nsamples,munmap,,ns_per_munmap,ns,h1/s,3,11,1,6,11,166.66666666666669,"
	    ",,\n") != NULL, "samples: more than 10: min, median, max, no columns");
	ok(strstr(out, "\nsamples,munmap,,ns_per_munmap,ns,h1/s,4,0,,,,,,,\n") != NULL,
	    "samples: not an array of numbers: none kept");
	ok(strstr(out, "\nsamples,munmap,,ns_per_munmap,ns,h1/s,5,3,1,2,3,100,2,1,3\n") != NULL &&
	    count_of(out, ",h1/s,5,") == 1, "samples: a trial run again replaces its samples");
	free(out);
	out = render(r, REPORT_TABLE_SUMMARY, REPORT_CSV, NULL, &rc);
	ok(out && strstr(out, "samples") == NULL, "no samples table unless asked");
	free(out);
	report_free(r);

	/* a partial run: a line at the top, a table first in csv and json */
	snprintf(path, sizeof(path), "%s/run.json", dir);
	tap_put(path, "w", "{\"format\":1,\"run\":\"r-int\",\"label\":\"s\","
	    "\"status\":\"interrupted\",\"hosts\":{\"h1\":{}}}");
	r = report_new();
	ok(report_add_run(r, dir, &err) == 0, "read an interrupted run");
	out = render(r, REPORT_TABLE_SUMMARY, REPORT_TEXT, NULL, &rc);
	ok(out && strncmp(out, "PARTIAL RUN: r-int (", 20) == 0 && strstr(out, ") was "
	    "interrupted: not every trial ran, so points may be missing or have fewer "
	    "trials\n\nSummary: ") != NULL, "text: the PARTIAL RUN line, then the tables");
	free(out);
	out = render(r, REPORT_TABLE_SUMMARY, REPORT_CSV, NULL, &rc);
	ok(out && strncmp(out, "table,run,dir,status\npartial,r-int,", 35) == 0 &&
	    strstr(out, ",interrupted\n\ntable,bench,") != NULL, "csv: the partial table first");
	free(out);
	out = render(r, REPORT_TABLE_SUMMARY, REPORT_JSON, NULL, &rc);
	ok(out && strncmp(out, "[\n{\"table\":\"partial\",\"run\":\"r-int\",", 35) == 0,
	    "json: the partial object first");
	free(out);
	report_free(r);
	tap_put(path, "w", "{\"format\":1,\"run\":\"r-int\",\"label\":\"s\","
	    "\"status\":\"failed\",\"hosts\":{\"h1\":{}}}");
	r = report_new();
	ok(report_add_run(r, dir, &err) == 0, "read a failed run");
	out = render(r, REPORT_TABLE_SUMMARY, REPORT_TEXT, NULL, &rc);
	ok(out && strstr(out, "failed (the controller gave up)") != NULL, "a failed run: flagged");
	free(out);
	report_free(r);

	/* no point in common: an error for compare, the summary by default */
	r = report_new();
	ok(report_add_run(r, DATA "munmap-base", &err) == 0 &&
	    report_add_run(r, DATA "pagefault", &err) == 0, "read two unrelated runs");
	ok(report_has_series(r, "base") && report_has_series(r, "lab-03/base") &&
	    !report_has_series(r, "patched"), "report_has_series: by label and full name");
	out = render_opts(r, REPORT_TABLE_COMPARE, REPORT_TEXT, NULL, 0, &rc, &err);
	is_int(rc, -1, "compare with no point in common: an error");
	is_str(err, "no points in common: lab-03/base (run 20011130-041500-tlb-flush-range-3f2a, "
	    "plan tlb-flush-range) has munmap (2 points); lab-03/base#2 (run "
	    "20050301-120000-pagefault-5a1e, plan pagefault) has pagefault (1 point)",
	    "the message says what each side has");
	ok(out == NULL || *out == '\0', "and nothing is printed");
	free(err);
	err = NULL;
	free(out);
	out = render(r, REPORT_TABLE_AUTO, REPORT_TEXT, NULL, &rc);
	ok(rc == 0 && strncmp(out, "Summary: ", 9) == 0, "no --table: the summary instead");
	free(out);
	report_free(r);

	/* report_write_run writes report.txt */
	{
		char cmd[1024];

		snprintf(path, sizeof(path), "%s/run", dir);
		tap_rmtree(path);
		snprintf(cmd, sizeof(cmd), "cp -r " DATA "commando %s/run", dir);
		ok(system(cmd) == 0, "copy the commando run");
		snprintf(path, sizeof(path), "%s/run", dir);
		ok(report_write_run(path, NULL, &err) == 0, "report_write_run");
		snprintf(path, sizeof(path), "%s/run/report.txt", dir);
		{
			FILE *fp = fopen(path, "r");
			char line[256] = "";

			ok(fp != NULL, "report.txt written");
			if (fp) {
				if (fgets(line, sizeof(line), fp) == NULL)
					line[0] = '\0';
				fclose(fp);
			}
			is_str(line, "Processor, Processes - times in microseconds - smaller is better\n",
			    "with the lmbench tables");
		}
		/* regression.metrics: only the plan's metrics count (docs/plans-and-fleets.md) */
		snprintf(cmd, sizeof(cmd), "cp -r " DATA "munmap-base %s/base && cp -r " DATA
		    "munmap-patch %s/patch && sed -i 's/\"metrics\": \\[\\]/\"metrics\": "
		    "[\"munmap.accesses_per_thread_ms\"]/' %s/patch/run.json && grep -q "
		    "accesses_per_thread_ms %s/patch/run.json", dir, dir, dir, dir);
		ok(system(cmd) == 0, "copy the munmap runs, the patch's plan listing a metric "
		    "that did not regress");
		snprintf(path, sizeof(path), "%s/patch", dir);
		snprintf(cmd, sizeof(cmd), "%s/base", dir);
		out = baseline_text(path, cmd, &rc);
		is_int(rc, 0, "a worse metric not in regression.metrics is no regression");
		ok(out && strstr(out, "worse") && !strstr(out, "REGRESSION:"),
		    "it is still marked worse, and no REGRESSION line");
		free(out);
		snprintf(cmd, sizeof(cmd), "sed -i 's/munmap.accesses_per_thread_ms/"
		    "munmap.ns_per_munmap/' %s/patch/run.json", dir);
		ok(system(cmd) == 0, "list the metric that regressed");
		snprintf(cmd, sizeof(cmd), "%s/base", dir);
		out = baseline_text(path, cmd, &rc);
		is_int(rc, 1, "report_write_baseline counts the listed metric's regression");
		ok(out && strstr(out, "\nREGRESSION: munmap.ns_per_munmap[threads=4,pages=16] "
		    "+10.0% (p=5.52e-10, q=8.28e-10) lab-03/patched: 5026 -> 5529 ns (baseline "
		    "lab-03/base)\n"), "the REGRESSION line names metric, params, change, p");
		free(out);
		snprintf(path, sizeof(path), "%s/patch/report.html", dir);
		ok(access(path, F_OK) == 0, "report.html written too");
		snprintf(path, sizeof(path), "%s/patch/report.txt", dir);
		ok(access(path, F_OK) == 0, "and report.txt");

		/* lmbench and compare in one report.txt: the PARTIAL RUN line once */
		snprintf(cmd, sizeof(cmd), "cp -r " DATA "tx49-without %s/txa && cp -r " DATA
		    "tx49-with %s/txb && sed -i 's/\"status\": \"finished\"/\"status\": "
		    "\"interrupted\"/' %s/txb/run.json && grep -q interrupted %s/txb/run.json",
		    dir, dir, dir, dir);
		ok(system(cmd) == 0, "copy the TX49 runs, the second interrupted");
		snprintf(path, sizeof(path), "%s/txb", dir);
		snprintf(cmd, sizeof(cmd), "%s/txa", dir);
		out = baseline_text(path, cmd, &rc);
		ok(out && strncmp(out, "PARTIAL RUN: ", 13) == 0 && count_of(out, "PARTIAL RUN")
		    == 1 && strstr(out, "Processor, Processes") && strstr(out, "Compare against"),
		    "report_write_baseline: lmbench, compare, and the partial run flagged once");
		free(out);

		tap_rmtree(dir);
		free(dir);
	}
	free(err);
	return tap_done();
}
