/*
 * cmd/history.c: `fleetmark history SOURCE [--plan NAME] [-H HOSTS]
 * [--metric BENCH.METRIC] [--since DATE] [--group GLOB]
 * [--format text|md|csv|json|html]
 * [--nights] [--threshold PCT] [-o FILE]`: a plan's nights in a results
 * directory or an archive, per series, with their change points
 * (history.h, docs/history.md).
 *
 * Exit: 0; 1 a run or archive could not be read, or the output written;
 * 2 bad usage or input (no runs, an unknown plan, host or metric, a bad
 * --since).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "history.h"
#include "log.h"
#include "report.h"
#include "xmalloc.h"

/* The comma-separated names of spec, as new strings in *v. */
static size_t
split_hosts(const char *spec, char ***v)
{
	size_t n = 0, cap = 0, len;
	const char *p = spec;

	*v = NULL;
	while (*p) {
		len = strcspn(p, ",");
		if (len > 0) {
			xgrow(v, &cap, n + 1, sizeof(**v));
			(*v)[n++] = xstrndup(p, len);
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return n;
}

static int
history_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "plan", required_argument, NULL, 'p' },
		{ "metric", required_argument, NULL, 'm' },
		{ "since", required_argument, NULL, 's' },
		{ "group", required_argument, NULL, 'g' },
		{ "format", required_argument, NULL, 'F' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "nights", no_argument, NULL, 'n' },
		CMD_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct history_opts o;
	struct history_render_opts ro;
	struct history *h = NULL;
	struct cmd_output out = CMD_OUTPUT_INIT;
	const char *outfile = NULL;
	char **hosts = NULL, *err = NULL;
	size_t nhosts = 0, i;
	int c, r, rc = CMD_EXIT_USAGE;

	history_opts_init(&o);
	memset(&ro, 0, sizeof(ro));
	ro.format = REPORT_TEXT;
	while ((c = getopt_long(argc, argv, "H:o:hvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o.plan = optarg;
			break;
		case 'H':
			for (i = 0; i < nhosts; i++)
				free(hosts[i]);
			free(hosts);
			nhosts = split_hosts(optarg, &hosts);
			break;
		case 'm':
			o.metric = optarg;
			break;
		case 's':
			if (!history_since_valid(optarg)) {
				log_error("bad --since '%s' (a date, YYYY-MM-DD, or a time, "
				    "YYYY-MM-DDTHH:MM:SSZ)", optarg);
				goto done;
			}
			o.since = optarg;
			break;
		case 'g':
			o.group = optarg;
			break;
		case 'F':
			if (report_format_parse(optarg, &ro.format) != 0) {
				log_error("unknown format '%s' (text, md, csv, json, html)", optarg);
				goto done;
			}
			break;
		case 'T':
			if (cmd_threshold_option(optarg, &o.threshold) != 0)
				goto done;
			break;
		case 'n':
			ro.nights = 1;
			break;
		case 'o':
			outfile = optarg;
			break;
		default:
			if ((r = cmd_common_option(&cmd_history, c, argv, NULL)) >= 0) {
				rc = r;
				goto done;
			}
			break;
		}
	}
	if (optind != argc - 1) {
		rc = cmd_usage(&cmd_history, 0);
		goto done;
	}
	/* -v shows every night, as --nights does */
	if (log_get_level() >= LOG_LEVEL_VERBOSE)
		ro.nights = 1;
	o.hosts = (const char *const *)hosts;
	o.nhosts = nhosts;

	if ((r = history_load(argv[optind], &o, &h, &err)) != 0) {
		rc = r == HISTORY_EINPUT ? CMD_EXIT_USAGE : CMD_EXIT_ERROR;
		goto fail;
	}
	rc = CMD_EXIT_ERROR;
	if (cmd_output_open(&out, outfile, &err) != 0 ||
	    history_render(h, &ro, out.fp, &err) != 0 ||
	    cmd_output_close(&out, "the history", &err) != 0)
		goto fail;
	rc = CMD_EXIT_OK;
	goto done;
 fail:
	log_error("%s", err != NULL ? err : "history failed");
	cmd_output_abort(&out);
 done:
	free(err);
	history_free(h);
	for (i = 0; i < nhosts; i++)
		free(hosts[i]);
	free(hosts);
	return rc;
}

static const struct cmd_option history_options[] = {
	{ 0, "plan", "NAME", "the plan whose finished runs are the nights",
	    "the only plan the finished runs have" },
	{ 'H', NULL, "HOSTS", "only these hosts' series (names, comma-separated)", "every host" },
	{ 0, "metric", "BENCH.METRIC", "only these metrics (comma-separated; BENCH alone: all "
	    "of its metrics)", "every metric" },
	{ 0, "since", "DATE", "only runs started on or after DATE: YYYY-MM-DD, or "
	    "YYYY-MM-DDTHH:MM:SSZ (UTC)", NULL },
	{ 0, "group", "GLOB", "only the runs of run groups matching GLOB (run --group), e.g. "
	    "'nightly-*'; a group's runs are one night whether or not it is given",
	    "every run" },
	{ 0, "format", "FORMAT", "text or md (a row per segment of each series), csv or json "
	    "(a row, an object, per series and night), html (a page with a trend chart per "
	    "series)", "text" },
	{ 0, "nights", NULL, "text and md: a row per night instead of per segment (-v too)",
	    NULL },
	{ 0, "threshold", "PCT", "the smallest change reported as a change point, e.g. 5%",
	    "the plan's regression threshold, else 5%" },
	{ 'o', NULL, "FILE", "write to FILE (replaced atomically) instead of stdout", NULL },
	{ 0, NULL, NULL, NULL, NULL }
};

static const struct cmd_exit history_exits[] = {
	{ 0, "the history was written, change points or not" },
	{ 1, "a run or the archive could not be read, or the output written" },
	{ 2, "bad usage or input: no runs, several plans and no --plan, an unknown plan, host "
	    "or metric, a bad --since, format or threshold" },
	{ -1, NULL }
};

static const struct cmd_example history_examples[] = {
	{ "fleetmark history results", "every series of the plan in results/, a row per segment" },
	{ "fleetmark history https://dav.example.org/fleetmark --plan lmbench --since 2026-09-01",
	    "the nights of an archive since September" },
	{ "fleetmark history results --format html -o trends.html", "a trend chart per series" },
	{ "fleetmark history results --format json | jq '.[] | select(.change != null)'",
	    "the change points, for a script" },
	{ NULL, NULL }
};

static const struct cmd_help history_help = {
	"Reads every finished run of one plan in SOURCE, a results directory or an "
	"archive URL (its runs fetched into the local cache and verified first), and "
	"shows per series (host, variant, bench, point, metric) the nights in order: "
	"each night's value is the mean of its trials, labelled with the run's label or "
	"the host's kernel.  The runs of one run group (run --group: several "
	"controllers, each on its own hosts) are one night.\n\n"
	"Change points are the nights a series moved to a new level and stayed: "
	"E-divisive means with a permutation test (p <= 0.05), segments of at least 3 "
	"nights, changes of at least the threshold.  Each is shown with its size, p, "
	"worse or better, and the labels of the nights before and after.\n\n"
	"Each run's summary is cached under $XDG_CACHE_HOME/fleetmark/history (else "
	"~/.cache/fleetmark/history): a second call reads only new and changed runs "
	"(-v says how many).",
	history_options, NULL, history_exits, history_examples,
	"docs/history.md (the method, its figures and limits, the formats, the cache)", 0
};

const struct cmd_entry cmd_history = {
	"history",
	"SOURCE [--plan NAME] [-H HOSTS] [--metric BENCH.METRIC] [--since DATE] "
	"[--group GLOB] [--format text|md|csv|json|html] [--nights] [--threshold PCT] [-o FILE]",
	"a plan's nights per series, with their change points (offline)",
	history_main,
	&history_help,
};
