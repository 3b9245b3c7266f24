/*
 * cmd/collect.c: `fleetmark collect RUN [-o DIR] [-f FLEET] [-H HOSTS]
 * [-j N] [--wait] [--give-up HOSTS]`: gather a detached run's results from its hosts
 * (docs/detached.md).  RUN is a run directory, or a run id (or latest)
 * under -o DIR.
 *
 * Collecting is `run --resume RUN` of a detached run (session.h,
 * RUN_COLLECT): each host's journal is appended to the run directory
 * exactly once, a host whose detached agent is done or gone runs the
 * trials no host finished, and the run is finished, with its report,
 * when every host is.  With --wait, that again every DETACH_WAIT_S
 * seconds until no host runs its trials any more.
 *
 * Exit status: run's for a finished run (0, 3, 130, 1), 5 while hosts
 * still run their trials (or were not reached), 2 for bad usage or a run
 * that is not detached.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive.h"
#include "clock.h"
#include "cmd.h"
#include "detach.h"
#include "log.h"
#include "run.h"
#include "rundir.h"
#include "runref.h"
#include "strv.h"
#include "xmalloc.h"

/* The run directory RUN names, checked to be a detached run; 0 or the exit status. */
static int
detached_dir(const char *ref, const char *results, char **dir, int *finished)
{
	struct runref_ctx ctx;
	struct rundir_run *run = NULL;
	char *err = NULL, *d;
	int r, code = CMD_EXIT_USAGE;

	*dir = NULL;
	if (archive_is_url(ref)) {
		d = archive_url_display(ref);
		log_error("%s: a run in an archive is not collected (its hosts are this "
		    "controller's business)", d);
		free(d);
		return CMD_EXIT_USAGE;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.results = results;
	ctx.any_status = 1;
	ctx.no_labels = 1;
	if (runref_resolve(ref, &ctx, &d, &err) != 0)
		goto out;
	if ((r = rundir_load(d, &run, &err)) != 0) {
		code = r == RUNDIR_ENOTRUN ? CMD_EXIT_USAGE : CMD_EXIT_ERROR;
		free(d);
		goto out;
	}
	if (!run->detached) {
		err = xasprintf("%s is not a detached run (run --detach makes one); `fleetmark "
		    "run --resume %s` carries a stopped run on", d, d);
		free(d);
		goto out;
	}
	*finished = run->status != NULL && strcmp(run->status,
	    journal_status_name(JOURNAL_FINISHED)) == 0;
	*dir = d;
	code = 0;
 out:
	if (err != NULL)
		log_error("%s", err);
	free(err);
	rundir_run_free(run);
	return code;
}

/* Option opt and its value onto av, when it was given. */
static void
push_option(struct strv *av, const char *opt, const char *value)
{
	if (value == NULL)
		return;
	strv_push(av, opt);
	strv_push(av, value);
}

static int
collect_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "wait", no_argument, NULL, 'w' },
		{ "give-up", required_argument, NULL, 'U' },
		CMD_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	const char *outdir = NULL, *fleet = NULL, *hosts = NULL, *jobs = NULL;
	const char *give_up = NULL;
	struct strv av = STRV_INIT;
	char *dir = NULL;
	int c, quiet = 0, wait = 0, finished = 0, code;

	while ((c = getopt_long(argc, argv, "o:f:H:j:hvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			outdir = optarg;
			break;
		case 'f':
			fleet = optarg;
			break;
		case 'H':
			hosts = optarg;
			break;
		case 'j':
			jobs = optarg;
			break;
		case 'w':
			wait = 1;
			break;
		case 'U':
			give_up = optarg;
			break;
		default:
			if ((c = cmd_common_option(&cmd_collect, c, argv, &quiet)) >= 0)
				return c;
			break;
		}
	}
	if (optind + 1 != argc)
		return cmd_usage(&cmd_collect, 0);
	if ((code = detached_dir(argv[optind], outdir ? outdir : "results", &dir,
	    &finished)) != 0)
		return code;
	if (finished) {
		printf("nothing to collect: %s has finished (`fleetmark report %s` shows it)\n",
		    dir, dir);
		free(dir);
		return CMD_EXIT_OK;
	}
	/* `run --resume` of a detached run is collect (cmd/run.c) */
	strv_push(&av, "run");
	strv_push(&av, "--resume");
	strv_push(&av, dir);
	push_option(&av, "-f", fleet);
	push_option(&av, "-H", hosts);
	push_option(&av, "-j", jobs);
	push_option(&av, "--give-up", give_up);
	if (quiet)
		strv_push(&av, "-q");
	for (;;) {
		optind = 0;
		code = cmd_run.handler((int)av.n, av.v);
		if (code != CMD_EXIT_RUNNING || !wait || run_stop_requested())
			break;
		log_info("collecting again in %d s", DETACH_WAIT_S);
		for (c = 0; c < DETACH_WAIT_S * 4 && !run_stop_requested(); c++)
			clock_sleep_ms(250);
		if (run_stop_requested())
			break;
	}
	strv_clear(&av);
	free(dir);
	return code;
}

static const struct cmd_option collect_options[] = {
	{ 'o', NULL, "DIR", "where RUN is looked for when it is a run id or latest", "results" },
	{ 'f', NULL, "FLEET", "the inventory, as for run --resume", "the one the run recorded" },
	{ 'H', NULL, "HOSTS", "only these hosts of the run", "every host of the run" },
	{ 'j', NULL, "N", "at most N hosts at once", "all" },
	{ 0, "wait", NULL, "collect again every 30 s until no host runs its trials any more, "
	    "then finish the run", "collect once" },
	{ 0, "give-up", "HOSTS", "stop waiting for these hosts of the run (a board that never "
	    "came back): they are not reached, the trials their agents did not journal fail "
	    "as agent-lost, and the run can finish without them", NULL },
	{ 0, NULL, NULL, NULL, NULL }
};

static const struct cmd_exit collect_exits[] = {
	{ 0, "the run has finished and every trial on every host is ok" },
	{ 1, "an error: the run directory could not be written, the run is in use" },
	{ 2, "bad usage, no such run, or a run that is not detached" },
	{ 3, "the run has finished, but some hosts or trials failed (results kept)" },
	{ 5, "not finished: hosts still run their trials, or were not reached; collect "
	    "again later" },
	{ 130, "interrupted by SIGINT or SIGTERM" },
	{ -1, NULL }
};

static const struct cmd_example collect_examples[] = {
	{ "fleetmark collect results/20261201-170000-lmbench-1a2b", "gather what the hosts "
	    "have run so far; exit 5 while they still run" },
	{ "fleetmark collect latest --wait", "wait for the newest run's hosts, gather "
	    "everything, write the report" },
	{ NULL, NULL }
};

static const struct cmd_help collect_help = {
	"Gathers the results of a run started with `fleetmark run --detach`.  Each host "
	"is reached again; the trials its detached agent journaled there are appended "
	"to the run directory, each exactly once however often collect runs.  A host "
	"whose agent still runs is left to it.  A host whose agent is done has its "
	"journal removed; one whose agent is gone without finishing (a reboot, a kill) "
	"runs the trials it did not finish now, attached, as `run --resume` would.  "
	"When every host is done the run is finished: the host table and the report are "
	"printed as by run.\n\n"
	"A host that cannot be reached records nothing: collect it again later, or "
	"give it up with --give-up HOST, which records what it did not journal as "
	"failed (agent-lost) so that the run can finish; `run --resume` of the "
	"finished run later runs those trials again, attached, once the host is back.  "
	"`fleetmark run --resume RUN` of a detached run collects it too.",
	collect_options, NULL, collect_exits, collect_examples,
	"docs/detached.md, fleetmark run --detach", 0
};

const struct cmd_entry cmd_collect = {
	"collect",
	"RUN [-o DIR] [-f FLEET] [-H HOSTS] [-j N] [--wait] [--give-up HOSTS] [-q] [-v]",
	"gather a detached run's results from its hosts", collect_main, &collect_help
};
