/*
 * cmd-report.c: `fleetmark report RUN... [--baseline REF] [--table T]
 * [--format F] [--aggregate median|mean] [--threshold PCT] [--results DIR]
 * [-o FILE]`: the tables of docs/reports.md, rebuilt offline from run
 * directories.  A RUN or REF is a run directory, a run id under the
 * results directory, `latest` (the newest run there), or an archive run
 * URL/RUNID or URL/latest (runref.h).
 *
 * Exit: 0; 1 a run could not be read or the output written; 2 bad usage
 * (unknown table or format...); 4 with --baseline, a significant
 * regression in the compare table.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive.h"
#include "cmd.h"
#include "fsutil.h"
#include "log.h"
#include "report.h"
#include "runref.h"
#include "xmalloc.h"

static int
report_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "baseline", required_argument, NULL, 'b' },
		{ "table", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'F' },
		{ "aggregate", required_argument, NULL, 'a' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "results", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct report_opts o;
	struct report *r = NULL;
	const char *outfile = NULL, *baseline = NULL;
	struct runref_ctx ctx;
	struct fs_atomic a = { NULL, NULL, -1, 0 };
	char *err = NULL, *path = NULL, *end;
	FILE *out = stdout;
	int c, i, n, rc = CMD_EXIT_USAGE;

	report_opts_init(&o);
	memset(&ctx, 0, sizeof(ctx));
	while ((c = getopt_long(argc, argv, "b:t:F:a:T:R:o:hvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			baseline = optarg;
			break;
		case 't':
			if (report_table_parse(optarg, &o.table) != 0) {
				log_error("unknown table '%s' (lmbench, delta, compare, matrix, summary, profile, all)",
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
			errno = 0;
			o.threshold = strtod(optarg, &end);
			if (end == optarg || (*end != '\0' && strcmp(end, "%") != 0) ||
			    errno != 0 || !(o.threshold >= 0 && o.threshold <= 1000)) {
				log_error("bad threshold '%s' (a percentage, e.g. 5%%)", optarg);
				return CMD_EXIT_USAGE;
			}
			break;
		case 'R':
			ctx.results = optarg;
			break;
		case 'o':
			outfile = optarg;
			break;
		default:
			if ((c = cmd_common_option(&cmd_report, c, NULL)) >= 0)
				return c;
			break;
		}
	}
	if (optind >= argc && baseline == NULL)
		return cmd_usage(&cmd_report, 0);

	r = report_new();
	/* A baseline that is a run is read first; else it names a series. */
	if (baseline != NULL) {
		if ((c = runref_resolve(baseline, &ctx, &path, &err)) == 0) {
			if (report_add_run(r, path, &err) != 0) {
				rc = CMD_EXIT_ERROR;
				goto fail;
			}
			free(path);
			path = NULL;
			o.baseline = report_series_name(r, 0);
		} else if (c != RUNREF_ENOTFOUND && archive_is_url(baseline)) {
			rc = CMD_EXIT_ERROR;
			goto fail;
		} else {
			free(err);
			err = NULL;
			o.baseline = baseline;
		}
	}
	for (i = optind; i < argc; i++) {
		if (runref_resolve(argv[i], &ctx, &path, &err) != 0 ||
		    report_add_run(r, path, &err) != 0) {
			rc = CMD_EXIT_ERROR;
			goto fail;
		}
		free(path);
		path = NULL;
	}
	if (outfile != NULL) {
		/* a report can be rendered again: replaced atomically, no fsync */
		if (fs_atomic_open(&a, outfile, 0666, FS_NOSYNC, &err) != 0) {
			rc = CMD_EXIT_ERROR;
			goto fail;
		}
		if ((out = fs_atomic_stream(&a)) == NULL) {
			out = stdout;
			err = xasprintf("cannot write %s: %s", outfile, strerror(errno));
			rc = CMD_EXIT_ERROR;
			goto fail;
		}
	}
	if ((n = report_render(r, &o, out, &err)) < 0) {
		rc = CMD_EXIT_USAGE;
		goto fail;
	}
	if (out != stdout) {
		int bad = ferror(out);

		if (fclose(out) != 0 || bad) {
			out = stdout;
			err = xasprintf("cannot write %s: %s", outfile, strerror(errno));
			rc = CMD_EXIT_ERROR;
			goto fail;
		}
		out = stdout;
		if (fs_atomic_commit(&a, &err) != 0) {
			rc = CMD_EXIT_ERROR;
			goto fail;
		}
	} else if (fflush(stdout) != 0) {
		err = xasprintf("cannot write the report: %s", strerror(errno));
		rc = CMD_EXIT_ERROR;
		goto fail;
	}
	report_free(r);
	if (n > 0 && baseline != NULL) {
		log_warn("%d significant regression%s against %s", n, n == 1 ? "" : "s",
		    baseline);
		return CMD_EXIT_REGRESSION;
	}
	return CMD_EXIT_OK;
fail:
	log_error("%s", err ? err : "report failed");
	if (out != stdout)
		fclose(out);
	fs_atomic_abort(&a);
	free(err);
	free(path);
	report_free(r);
	return rc;
}

const struct cmd_entry cmd_report = {
	"report",
	"RUN... [--baseline REF] [--table lmbench|delta|compare|matrix|summary|profile|all] "
	"[--format text|md|csv|json|html] [--aggregate median|mean] [--threshold PCT] "
	"[--results DIR] [-o FILE]",
	"tables from run directories (offline)",
	report_main,
};
