/*
 * cmd-compare.c: `fleetmark compare A B [report options]`: the report
 * with A as the baseline and B against it (the compare table unless
 * --table says otherwise).  A is a run first (a run directory, id,
 * `latest`, URL or label), a series name only when it is none of those;
 * B `latest` is the newest other run of A's plan (cmd-report.c, which
 * knows it is compare's by argv[0]).  Exits 2 when A and B have no point
 * in common, 4 on a significant regression.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "xmalloc.h"

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
	rc = cmd_report.handler(n, av);
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
