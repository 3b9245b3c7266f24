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
			return cmd_usage(&cmd_compare, 1);
	}
	if (argc < 3 || argv[1][0] == '-' || argv[2][0] == '-')
		return cmd_usage(&cmd_compare, 0);
	/* report --table compare [options...] --baseline A B: A and B are the
	 * first two arguments, options may follow them. */
	av = xcalloc((size_t)argc + 4, sizeof(*av));
	av[n++] = (char *)cmd_compare.name;	/* report_main(): compare's rules */
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

const struct cmd_entry cmd_compare = {
	"compare",
	"A B [--table T] [--format F] [--aggregate median|mean] [--samples] [--threshold PCT] "
	"[--results DIR] [-o FILE]",
	"report with A as the baseline and B against it",
	compare_main,
};
