/*
 * cmd/archive.c: `fleetmark push RUN URL`, `fleetmark pull URL/RUN [DIR]`
 * and `fleetmark ls URL` (docs/archive.md).
 *
 * Exit: 0; 1 the transfer failed (server, network, verification); 2 bad
 * usage, a bad URL or run id, or an unusable config file; 130 interrupted
 * (SIGINT or SIGTERM: the transfer stops and cleans up; a second signal
 * ends the process at once).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive.h"
#include "cmd.h"
#include "log.h"
#include "proc.h"
#include "runref.h"
#include "strv.h"
#include "xmalloc.h"

/* SIGINT and SIGTERM stop the transfer cleanly (archive_cancel()); a second one exits. */
static void
on_signal(int sig)
{
	(void)sig;
	if (archive_cancelled()) {
		proc_groups_end_all();	/* _exit skips atexit */
		_exit(CMD_EXIT_INTERRUPTED);
	}
	archive_cancel();
}

static int
exit_for(int r)
{
	/* a system call cut short by the signal fails as it may: still 130 */
	if (r != ARCHIVE_OK && archive_cancelled())
		return CMD_EXIT_INTERRUPTED;
	switch (r) {
	case ARCHIVE_OK:
		return CMD_EXIT_OK;
	case ARCHIVE_EINVAL:
		return CMD_EXIT_USAGE;
	case ARCHIVE_ECANCELED:
		return CMD_EXIT_INTERRUPTED;
	default:
		return CMD_EXIT_ERROR;
	}
}

static int
fail(int r, char *err)
{
	log_error("%s", err != NULL ? err : archive_strerror(r));
	free(err);
	return exit_for(r);
}

/* getopt for the three commands: -h, -v, -q and --results DIR; -1 to go on. */
static int
parse_opts(const struct cmd_entry *e, int argc, char **argv, const char **results,
    int *force)
{
	static const struct option longopts[] = {
		CMD_COMMON_LONGOPTS,
		{ "results", required_argument, NULL, 'R' },
		{ "force", no_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "hvqR:", longopts, NULL)) != -1) {
		switch (c) {
		case 'R':
			if (results == NULL)
				return cmd_usage(e, 0);
			*results = optarg;
			break;
		case 'F':
			if (force == NULL)
				return cmd_usage(e, 0);
			*force = 1;
			break;
		default:
			if ((c = cmd_common_option(e, c, argv, NULL)) >= 0)
				return c;
			break;
		}
	}
	return -1;
}

static int
push_main(int argc, char **argv)
{
	const char *results = NULL;
	struct runref_ctx ctx;
	char *dir = NULL, *err = NULL;
	int r, force = 0;

	memset(&ctx, 0, sizeof(ctx));

	if ((r = parse_opts(&cmd_push, argc, argv, &results, &force)) >= 0)
		return r;
	if (argc - optind != 2)
		return cmd_usage(&cmd_push, 0);
	if (!archive_is_url(argv[optind + 1])) {
		char *d = archive_url_display(argv[optind + 1]);

		log_error("%s: not an archive URL (file://, http://, https:// or s3://)", d);
		free(d);
		return CMD_EXIT_USAGE;
	}
	ctx.results = results;
	if (runref_resolve(argv[optind], &ctx, &dir, &err) != 0)
		return fail(ARCHIVE_EINVAL, err);
	cmd_catch_signals(on_signal);
	r = archive_push_flags(dir, argv[optind + 1], force ? ARCHIVE_PUSH_FORCE : 0, &err);
	free(dir);
	return r == 0 ? CMD_EXIT_OK : fail(r, err);
}

static int
pull_main(int argc, char **argv)
{
	char *url = NULL, *runid = NULL, *err = NULL, *d;
	int r;

	if ((r = parse_opts(&cmd_pull, argc, argv, NULL, NULL)) >= 0)
		return r;
	if (argc - optind < 1 || argc - optind > 2)
		return cmd_usage(&cmd_pull, 0);
	if (archive_split_ref(argv[optind], &url, &runid) != 0) {
		d = archive_url_display(argv[optind]);
		log_error("%s: expected URL/RUNID, an archive URL (file://, http://, "
		    "https://, s3://) and a run id", d);
		free(d);
		return CMD_EXIT_USAGE;
	}
	cmd_catch_signals(on_signal);
	r = archive_pull(url, runid, argc - optind == 2 ? argv[optind + 1] : NULL, &err);
	free(url);
	free(runid);
	return r == 0 ? CMD_EXIT_OK : fail(r, err);
}

static int
ls_main(int argc, char **argv)
{
	char **ids = NULL, *err = NULL;
	size_t n = 0, i;
	int r;

	if ((r = parse_opts(&cmd_ls, argc, argv, NULL, NULL)) >= 0)
		return r;
	if (argc - optind != 1)
		return cmd_usage(&cmd_ls, 0);
	cmd_catch_signals(on_signal);
	if ((r = archive_list(argv[optind], &ids, &n, &err)) != 0)
		return fail(r, err);
	for (i = 0; i < n; i++)
		printf("%s\n", ids[i]);
	strv_free(ids, n);
	if (fflush(stdout) != 0) {
		log_error("standard output: write failed");
		return CMD_EXIT_ERROR;
	}
	return CMD_EXIT_OK;
}

static const struct cmd_option push_options[] = {
	{ 'R', "results", "DIR", "where a run id is looked up", "results" },
	{ 0, "force", NULL, "push a run whose run.json says it is still running, or replace "
	    "another run with the same id in the archive", NULL },
	{ 0, NULL, NULL, NULL, NULL }
};

static const struct cmd_exit archive_exits[] = {
	{ 0, "done" },
	{ 1, "the transfer or the verification failed: the server, the network, a wrong "
	    "password, a corrupted file" },
	{ 2, "bad usage, a URL or run id that is not valid, a config file fleetmark refuses" },
	{ 130, "interrupted (SIGINT, SIGTERM): the transfer stopped and cleaned up" },
	{ -1, NULL }
};

static const char archive_see[] = "docs/archive.md (URLs, the manifest, the config "
    "file with credentials), docs/archive-s3.md";

static const struct cmd_example push_examples[] = {
	{ "fleetmark push latest https://dav.example.org/fleetmark", NULL },
	{ "fleetmark push results/20261130-041500-smoke-3f2a s3://bench-results/nightly", NULL },
	{ NULL, NULL }
};

static const struct cmd_help push_help = {
	"Uploads a run (a run directory, a run id under the results directory, or "
	"latest) to an archive: file:///DIR, http(s)://HOST/PATH (WebDAV) or "
	"s3://BUCKET/PREFIX.  Every file goes first and the MANIFEST of sha256 sums "
	"last, so an interrupted push leaves no listed run: push again to complete it.  "
	"A run already there with the same manifest is not sent again.",
	push_options, NULL, archive_exits, push_examples, archive_see, 0
};

static const struct cmd_example pull_examples[] = {
	{ "fleetmark pull https://dav.example.org/fleetmark/20261130-041500-smoke-3f2a",
	    "into ./20261130-041500-smoke-3f2a" },
	{ "fleetmark pull file:///srv/fleetmark/20261130-041500-smoke-3f2a /tmp/run", NULL },
	{ NULL, NULL }
};

static const struct cmd_help pull_help = {
	"Downloads a complete run from an archive into DIR (default ./RUNID), every "
	"file checked against the manifest's size and sha256 as it arrives.  The "
	"files go to a temporary directory beside DIR that is renamed to DIR at the "
	"end: DIR either does not exist or holds the whole verified run.",
	NULL, NULL, archive_exits, pull_examples, archive_see, 0
};

static const struct cmd_example ls_examples[] = {
	{ "fleetmark ls https://dav.example.org/fleetmark", NULL },
	{ "fleetmark -v ls s3://bench-results/nightly", "also says which runs are left out "
	    "as incomplete" },
	{ NULL, NULL }
};

static const struct cmd_help ls_help = {
	"Lists the ids of the complete runs (those with a MANIFEST) under URL, one a "
	"line, oldest first.  An archive that does not exist yet has no runs.",
	NULL, NULL, archive_exits, ls_examples, archive_see, 0
};

const struct cmd_entry cmd_push = {
	"push", "RUN URL [--results DIR]",
	"upload a run to an archive (files first, its manifest last)",
	push_main,
	&push_help,
};

const struct cmd_entry cmd_pull = {
	"pull", "URL/RUNID [DIR]",
	"download a run from an archive, every sum verified",
	pull_main,
	&pull_help,
};

const struct cmd_entry cmd_ls = {
	"ls", "URL",
	"list the complete runs in an archive, oldest first",
	ls_main,
	&ls_help,
};
