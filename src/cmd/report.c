/*
 * cmd/report.c: `fleetmark report RUN... [--baseline REF] [--table T]
 * [--format F] [--aggregate median|mean] [--samples] [--threshold PCT]
 * [--results DIR] [-o FILE]`: the tables of docs/reports.md, rebuilt
 * offline from run directories.  A RUN or REF is a run directory, a run id under the
 * results directory, `latest` (the newest run there), an archive run
 * URL/RUNID or URL/latest, a label, or a run group group:ID or
 * URL/group:ID (every run of the group; runref.h).
 *
 * `fleetmark compare A B [report options]` is here too, as the second
 * entry (cmd_compare, at the end): the report with A as the baseline and
 * B against it (the compare table unless --table says otherwise).
 * compare_main() hands report_main() "--table compare --baseline A B",
 * with argv[0] "compare": A is then a run first (a label too), where
 * `report --baseline REF` tries the series of its runs before a label;
 * B `latest` is the newest other run of A's plan.  When the baseline is a
 * run, a RUN `latest` is the newest other run of its plan.
 *
 * Exit: 0; 1 a run could not be read or the output written; 2 bad usage
 * (unknown table or format, an ambiguous label, runs with no point in
 * common...); 4 with --baseline (or compare), a significant regression in
 * the compare table.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abdir.h"
#include "archive.h"
#include "cmd.h"
#include "log.h"
#include "report.h"
#include "rundir.h"
#include "runref.h"
#include "strv.h"
#include "xmalloc.h"

/*
 * Read the baseline runs basedirs[0..nbase) (a run, or the runs of a
 * group) and then the runs refs into a new *rp.  A ref `latest` (or a
 * label) is then resolved in the baseline's context: the newest other run
 * of its plan.  A ref group:ID is every run of the group.  Returns 0, or a
 * CMD_EXIT_* status with *err.
 */
static int
read_runs(char *const *basedirs, size_t nbase, char *const *refs, int nrefs,
    const struct runref_ctx *ctx0, int samples, struct report **rp, char **err)
{
	struct report *r = report_new();
	struct rundir_run *base = NULL;
	struct runref_ctx ctx = *ctx0;
	char **paths = NULL;
	size_t npaths = 0, k;
	int i, c, rc = CMD_EXIT_ERROR;

	if (samples)
		report_keep_samples(r);
	if (nbase > 0) {
		if (rundir_load(basedirs[0], &base, err) != 0)
			goto out;
		for (k = 0; k < nbase; k++)
			if (report_add_run(r, basedirs[k], err) != 0)
				goto out;
		ctx.plan = base->plan;
		ctx.except = base->id;
		ctx.group = base->group;
		ctx.any_status = 1;
	}
	for (i = 0; i < nrefs; i++) {
		if ((c = runref_resolve_all(refs[i], &ctx, &paths, &npaths, err)) != 0) {
			rc = c == RUNREF_EAMBIGUOUS || c == RUNREF_EGROUP ? CMD_EXIT_USAGE :
			    CMD_EXIT_ERROR;
			goto out;
		}
		for (k = 0; k < npaths; k++)
			if (report_add_run(r, paths[k], err) != 0)
				goto out;
		strv_free(paths, npaths);
		paths = NULL;
		npaths = 0;
	}
	*rp = r;
	r = NULL;
	rc = 0;
out:
	strv_free(paths, npaths);
	rundir_run_free(base);
	report_free(r);
	return rc;
}

static int
report_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "baseline", required_argument, NULL, 'b' },
		{ "table", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'F' },
		{ "aggregate", required_argument, NULL, 'a' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "samples", no_argument, NULL, 'S' },
		{ "results", required_argument, NULL, 'R' },
		CMD_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct report_opts o;
	struct report *r = NULL;
	const char *outfile = NULL, *baseline = NULL;
	struct runref_ctx ctx;
	struct cmd_output out = CMD_OUTPUT_INIT;
	char *err = NULL, **bpaths = NULL;
	size_t nb = 0;
	int c, n, rc = CMD_EXIT_USAGE, samples = 0;
	int compare = strcmp(argv[0], cmd_compare.name) == 0;
	/* compare's options are ours: its errors name it */
	const struct cmd_entry *self = compare ? &cmd_compare : &cmd_report;

	report_opts_init(&o);
	memset(&ctx, 0, sizeof(ctx));
	while ((c = getopt_long(argc, argv, "b:t:F:a:T:R:o:hvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			baseline = optarg;
			break;
		case 't':
			if (report_table_parse(optarg, &o.table) != 0) {
				log_error("unknown table '%s' (lmbench, delta, compare, compact, matrix, summary, profile, kernel, failures, all)",
				    optarg);
				return CMD_EXIT_USAGE;
			}
			break;
		case 'F':
			if (report_format_parse(optarg, &o.format) != 0) {
				log_error("unknown format '%s' (text, md, csv, json, html)", optarg);
				return CMD_EXIT_USAGE;
			}
			break;
		case 'a':
			if (strcmp(optarg, "median") == 0)
				o.aggregate = REPORT_AGG_MEDIAN;
			else if (strcmp(optarg, "mean") == 0)
				o.aggregate = REPORT_AGG_MEAN;
			else if (strcmp(optarg, "none") == 0)
				o.aggregate = REPORT_AGG_NONE;
			else {
				log_error("unknown aggregate '%s' (none, median, mean)", optarg);
				return CMD_EXIT_USAGE;
			}
			break;
		case 'T':
			if (cmd_threshold_option(optarg, &o.threshold) != 0)
				return CMD_EXIT_USAGE;
			break;
		case 'R':
			ctx.results = optarg;
			break;
		case 'S':
			samples = 1;
			break;
		case 'o':
			outfile = optarg;
			break;
		default:
			if ((c = cmd_common_option(self, c, argv, NULL)) >= 0)
				return c;
			break;
		}
	}
	if (optind >= argc && baseline == NULL)
		return cmd_usage(self, 0);

	o.samples = samples;
	/* an ab directory: its boots' tables and the verdict (abdir.h) */
	if (argc - optind == 1 && baseline == NULL && ab_is_dir(argv[optind])) {
		rc = CMD_EXIT_ERROR;
		if (cmd_output_open(&out, outfile, &err) != 0)
			goto fail;
		if (ab_report(argv[optind], &o, out.fp, &err) < 0)
			goto fail;
		if (cmd_output_close(&out, "the report", &err) != 0)
			goto fail;
		return CMD_EXIT_OK;
	}
	/*
	 * A baseline that is a run is read first; else it names a series.
	 * compare's A is a run first, by label too; report's --baseline is a
	 * run by directory, id, latest or URL, then a series of its runs, and
	 * only then a label.
	 */
	if (baseline != NULL) {
		ctx.no_labels = !compare;
		c = runref_resolve_all(baseline, &ctx, &bpaths, &nb, &err);
		ctx.no_labels = 0;
		if (c == RUNREF_EAMBIGUOUS || c == RUNREF_EGROUP || (c != 0 &&
		    c != RUNREF_ENOTFOUND && (archive_is_url(baseline) ||
		    runref_group_split(baseline, NULL, NULL, NULL)))) {
			rc = c == RUNREF_EAMBIGUOUS || c == RUNREF_EGROUP ? CMD_EXIT_USAGE :
			    CMD_EXIT_ERROR;
			goto fail;
		}
		free(err);
		err = NULL;
	}
	if ((rc = read_runs(bpaths, nb, argv + optind, argc - optind, &ctx, samples, &r,
	    &err)) != 0)
		goto fail;
	if (baseline != NULL && nb == 0 && !compare && !report_has_series(r, baseline)) {
		/* not a series of the runs given: the label of a run? */
		if ((c = runref_resolve_all(baseline, &ctx, &bpaths, &nb, &err)) ==
		    RUNREF_EAMBIGUOUS) {
			rc = CMD_EXIT_USAGE;
			goto fail;
		}
		free(err);
		err = NULL;
		if (c == 0) {
			report_free(r);
			r = NULL;
			if ((rc = read_runs(bpaths, nb, argv + optind, argc - optind, &ctx,
			    samples, &r, &err)) != 0)
				goto fail;
		}
	}
	if (nb > 0)
		o.baseline = report_series_name(r, 0);
	else
		o.baseline = baseline;
	rc = CMD_EXIT_ERROR;
	if (cmd_output_open(&out, outfile, &err) != 0)
		goto fail;
	if ((n = report_render(r, &o, out.fp, &err)) < 0) {
		rc = CMD_EXIT_USAGE;
		goto fail;
	}
	if (cmd_output_close(&out, "the report", &err) != 0)
		goto fail;
	report_free(r);
	strv_free(bpaths, nb);
	if (n > 0 && baseline != NULL) {
		log_warn("%d significant regression%s against %s", n, n == 1 ? "" : "s",
		    baseline);
		return CMD_EXIT_REGRESSION;
	}
	return CMD_EXIT_OK;
fail:
	log_error("%s", err ? err : "report failed");
	cmd_output_abort(&out);
	free(err);
	strv_free(bpaths, nb);
	report_free(r);
	return rc;
}

static const struct cmd_option report_own_options[] = {
	{ 'b', "baseline", "REF", "compare with REF: a run or run group (read first; its first "
	    "series is the baseline) or a series of the runs given (its name, label, variant, "
	    "host or run id); a significant regression exits 4", "the first series" },
	{ 0, NULL, NULL, NULL, NULL }
};

/* Shared with compare (below), which gives the baseline itself. */
const struct cmd_option cmd_report_options[] = {
	{ 't', "table", "TABLE", "lmbench, delta, compare, compact (the compare in a table "
	    "per pair, narrow), matrix, summary, profile, kernel, failures, or all (every table "
	    "that has data)", "lmbench when the runs have lmbench points, else, when there is "
	    "something to compare, the matrix of a two-axis sweep and the compact compare of "
	    "the other points, else summary and the matrix of a sweep; profile tables besides "
	    "when trials have profiles, the kernel log table whenever a trial saw kernel "
	    "trouble, and the failures table when some trials failed" },
	{ 'F', "format", "FORMAT", "text, md, csv, json (one object per cell) or html (one "
	    "self-contained page with charts)", "text" },
	{ 'a', "aggregate", "HOW", "how a series' trials make one value: none (lmbench tables: "
	    "a row per trial), median or mean", "none for the lmbench tables, mean elsewhere" },
	{ 'T', "threshold", "PCT", "the smallest change the verdict counts, e.g. 5%",
	    "the plan's regression threshold, else 5%" },
	{ 0, "samples", NULL, "add a table of each trial's samples: n, min, median, max, "
	    "spread, and the samples themselves when there are at most 10 (batch-to-batch "
	    "stability, e.g. pagefault's batches)", NULL },
	{ 'R', "results", "DIR", "where run ids, latest and labels are looked up", "results" },
	{ 'o', NULL, "FILE", "write the tables to FILE (replaced atomically) instead of stdout",
	    NULL },
	{ 0, NULL, NULL, NULL, NULL }
};

static const struct cmd_exit report_exits[] = {
	{ 0, "the tables were written" },
	{ 1, "a run could not be read (missing, unreadable or unknown run.json) or the "
	    "output could not be written" },
	{ 2, "bad usage: an unknown table, format or aggregate, nothing to compare, lmbench "
	    "tables without lmbench points, an unknown --baseline series, a run group of "
	    "several plans or labels or with a host in two runs" },
	{ 4, "with --baseline: a significant regression in the compare table" },
	{ -1, NULL }
};

static const struct cmd_example report_examples[] = {
	{ "fleetmark report latest", "the newest run's default tables" },
	{ "fleetmark report latest --table matrix --format md", "a sweep's grids, for mail" },
	{ "fleetmark report RUN-A RUN-B --baseline RUN-A -F html -o ab.html", "the page with "
	    "charts" },
	{ NULL, NULL }
};

static const struct cmd_help report_help = {
	"Reads run directories (never a host, never the network) and prints their "
	"tables.  A RUN or REF is a run directory, a run id under the results "
	"directory, latest (the newest run there), or an archive run URL/RUNID or "
	"URL/latest (fetched into the local cache and verified first).  group:ID (or "
	"URL/group:ID in an archive) is every run of a run group (run --group), read as "
	"one run over all their hosts; a table at the top gives each run's hosts, "
	"controller and start.\n\n"
	"A series is (run label, host, variant); the label is the run's --label, "
	"else the host's kernel release.  Each other series is compared with the "
	"baseline series of its own host.  Lines that are not used (failed trials, "
	"corrupt lines) are counted on stderr and in the table titles.",
	report_own_options, cmd_report_options, report_exits, report_examples,
	"docs/reports.md (every table, the statistics, the verdict), docs/archive.md", 0
};

const struct cmd_entry cmd_report = {
	"report",
	"RUN... [--baseline REF] [--table TABLE] [--format text|md|csv|json|html] "
	"[--aggregate none|median|mean] [--samples] [--threshold PCT] [--results DIR] [-o FILE]",
	"tables from run directories (offline)",
	report_main,
	&report_help,
};

/* --- compare A B: report with A as the baseline ----------------------------- */

static int
compare_main(int argc, char **argv)
{
	char **av;
	int i, n = 0, rc;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return cmd_help_print(&cmd_compare, stdout) == 0 ? CMD_EXIT_OK :
			    CMD_EXIT_ERROR;
	}
	if (argc < 3 || argv[1][0] == '-' || argv[2][0] == '-')
		return cmd_usage(&cmd_compare, 0);
	/* report --table compare [options...] --baseline A B: A and B are the
	 * first two arguments, options may follow them. */
	av = xcalloc((size_t)argc + 4, sizeof(*av));
	av[n++] = (char *)cmd_compare.name;	/* report's errors then name compare */
	av[n++] = "--table";
	av[n++] = "compare";
	av[n++] = "--baseline";
	av[n++] = argv[1];
	for (i = 2; i < argc; i++)
		av[n++] = argv[i];
	rc = report_main(n, av);
	free(av);
	return rc;
}

static const struct cmd_exit compare_exits[] = {
	{ 0, "no significant regression" },
	{ 1, "a run could not be read, or the output written" },
	{ 2, "bad usage, nothing to compare" },
	{ 4, "a significant regression of B against A" },
	{ -1, NULL }
};

static const struct cmd_example compare_examples[] = {
	{ "fleetmark compare results/RUN-A results/RUN-B", "each host of B against itself in A" },
	{ "fleetmark compare RUN-A latest --format md", "against the newest run, for mail" },
	{ "fleetmark compare group:night-1 group:night-2", "two nights of a fleet split "
	    "between controllers" },
	{ NULL, NULL }
};

static const struct cmd_help compare_help = {
	"The report with A as the baseline and B against it: `fleetmark report "
	"--table compare --baseline A B`, with report's options.  One row per point "
	"and metric both have: each side's mean, rsd and number of trials, the change "
	"(+ means the value grew), Welch's t-test p, and a mark: better or worse when "
	"the change is significant by the verdict (p < 0.05 and its 95% interval "
	"reaching the threshold); noisy names a side too noisy to judge.  A and B are "
	"runs as report takes them: directories, run ids, latest (for B: the newest other "
	"run of A's plan), archive URL/RUNID, a label (its newest run), or a run group "
	"group:ID or URL/group:ID (its runs as one run).",
	NULL, cmd_report_options, compare_exits, compare_examples,
	"docs/reports.md (the compare table and the verdict), fleetmark report --help", 0
};

const struct cmd_entry cmd_compare = {
	"compare",
	"A B [--table T] [--format F] [--aggregate median|mean] [--samples] [--threshold PCT] "
	"[--results DIR] [-o FILE]",
	"report with A as the baseline and B against it",
	compare_main,
	&compare_help,
};
