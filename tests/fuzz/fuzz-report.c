/*
 * fuzz-report.c: what reports make of trials.jsonl (src/report.c, reading
 * the lines through src/trialread.c the way reports do: leniently, every
 * line counted), then every table, in a format chosen by the input's
 * length, HTML (the page with its charts and host table) included.  The
 * input stays in memory (report_add_lines()); the run's fixed run.json is
 * in a directory made at start (and removed at exit).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "log.h"
#include "report.h"

static const char run_json[] =
	"{\"format\":1,\"run\":\"20011130-041500-fuzz-3f2a\",\"status\":\"finished\","
	"\"label\":\"base\",\"plan\":{\"name\":\"fuzz\",\"repeat\":5,"
	"\"regression\":{\"threshold\":5.0,\"metrics\":[]}},"
	"\"hosts\":{\"lab-03\":{\"status\":\"done\",\"kernel\":\"6.1.0-13-amd64\"}}}\n";

static char dir[PATH_MAX], runfile[PATH_MAX + 16];
static FILE *devnull;

static void
cleanup(void)
{
	unlink(runfile);
	rmdir(dir);
}

static void
write_file(const char *path, const void *data, size_t size)
{
	FILE *fp = fopen(path, "wb");

	if (fp == NULL || fwrite(data, 1, size, fp) != size || fclose(fp) != 0) {
		perror(path);
		exit(2);
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "%s/fuzz-report.XXXXXX", tmp ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		fprintf(stderr, "fuzz-report: cannot make a directory in %s\n", tmp ? tmp : "/tmp");
		exit(2);
	}
	snprintf(runfile, sizeof(runfile), "%s/run.json", dir);
	write_file(runfile, run_json, strlen(run_json));
	atexit(cleanup);
	if ((devnull = fopen("/dev/null", "w")) == NULL)
		exit(2);
	log_set_level(LOG_LEVEL_QUIET);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum report_format formats[] = {
		REPORT_TEXT, REPORT_MD, REPORT_CSV, REPORT_JSON, REPORT_HTML,
	};
	struct report_opts o;
	struct report *r;
	char *err = NULL;
	size_t i;

	r = report_new();
	if (report_add_lines(r, dir, data, size, &err) != 0) {
		if (err == NULL)
			abort();
		free(err);
		report_free(r);
		return 0;
	}
	for (i = 0; i < report_nseries(r); i++)
		(void)strlen(report_series_name(r, i));
	/* one format per input, chosen by its length: rendering is the slow part */
	report_opts_init(&o);
	o.table = REPORT_TABLE_ALL;
	o.format = formats[size % (sizeof(formats) / sizeof(formats[0]))];
	o.aggregate = size / 4 % 2 ? REPORT_AGG_MEDIAN : REPORT_AGG_NONE;
	if (report_render(r, &o, devnull, &err) < 0) {
		if (err == NULL)
			abort();
		free(err);
	}
	report_free(r);
	return 0;
}
