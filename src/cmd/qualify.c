/*
 * cmd/qualify.c: `fleetmark qualify PLAN -H HOSTS -A SIDE [--boots N]`:
 * what each host can see, from an A/A ab (docs/qualify.md): the same
 * side (a command, a kexec or a `boot:` entry) on both sides of an ab
 * of N boots a side, run by src/ab/ as `fleetmark ab` runs it, its
 * ab.json saying the sides are the same; then, per host and row, the
 * trial and boot sd (and with --history the night sd of the hosts'
 * nightly runs), the change N boots a side detect and what the threshold
 * takes (src/ab/qualify.c), kept in the directory's
 * qualify.json and in each host's record, OUTDIR/qualify/HOST.json (with
 * --push in the archive's qualify/HOST.json too), that `fleetmark ab`
 * reads before its first reboot and `run` before a judged run.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "abdir.h"
#include "cmd.h"
#include "history.h"
#include "log.h"
#include "pace.h"
#include "report.h"
#include "xmalloc.h"
#include "yamldoc.h"

#define DEFAULT_RESULTS		"results"
#define DEFAULT_BOOTS		3
#define MAX_BOOTS		99		/* as ab's: two digits a name */

static const char *history_source;	/* --history */

static int
parse_options(int argc, char **argv, struct ab_cmdopts *o)
{
	static const struct option longopts[] = {
		{ "boots", required_argument, NULL, 'n' },
		{ "expect", required_argument, NULL, 'x' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "format", required_argument, NULL, 'F' },
		{ "history", required_argument, NULL, 'Y' },
		{ "push", required_argument, NULL, 'P' },
		CMD_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "f:H:A:o:hvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->fleet_file = optarg;
			break;
		case 'H':
			o->host_spec = optarg;
			break;
		case 'A':
			o->side[AB_A].cmd = o->side[AB_B].cmd = optarg;
			break;
		case 'o':
			o->outdir = optarg;
			break;
		case 'n':
			if (ydoc_parse_int(optarg, &o->boots) != 0 || o->boots < 2 ||
			    o->boots > MAX_BOOTS) {
				log_error("--boots: expected a number from 2 to %d, not '%s'",
				    MAX_BOOTS, optarg);
				return CMD_EXIT_USAGE;
			}
			break;
		case 'x':
			o->side[AB_A].expect = o->side[AB_B].expect = *optarg ? optarg : NULL;
			break;
		case 'T':
			if (cmd_threshold_option(optarg, &o->thr) != 0)
				return CMD_EXIT_USAGE;
			break;
		case 'F':
			if (report_format_parse(optarg, &o->fmt) != 0 || o->fmt == REPORT_HTML) {
				log_error("unknown format '%s' (text, md, csv, json)", optarg);
				return CMD_EXIT_USAGE;
			}
			break;
		case 'Y':
			history_source = optarg;
			break;
		case 'P':
			if (cmd_archive_option("--push", optarg) != 0)
				return CMD_EXIT_USAGE;
			o->push = optarg;
			break;
		default:
			if ((c = cmd_common_option(&cmd_qualify, c, argv, &o->quiet)) >= 0)
				return c;
			break;
		}
	}
	if (optind + 1 != argc)
		return cmd_usage(&cmd_qualify, 0);
	o->plan_file = argv[optind];
	if (o->side[AB_A].cmd == NULL) {
		log_error("give the side: -A SIDE, what boots the kernel to qualify with");
		return CMD_EXIT_USAGE;
	}
	if (o->host_spec == NULL) {
		log_error("give the hosts: -H HOSTS");
		return CMD_EXIT_USAGE;
	}
	if (log_get_level() == LOG_LEVEL_QUIET)
		o->quiet = 1;
	return -1;
}

static int
qualify_main(int argc, char **argv)
{
	struct ab_cmdopts o;
	struct ab_ctx *c = NULL;
	struct history *h = NULL;
	char *err = NULL;
	long long t0;
	int code;

	memset(&o, 0, sizeof(o));
	o.outdir = DEFAULT_RESULTS;
	o.boots = DEFAULT_BOOTS;
	o.thr = -1;
	o.same = 1;
	o.side[AB_A].label = "A1";
	o.side[AB_B].label = "A2";
	if ((code = parse_options(argc, argv, &o)) >= 0)
		return code;
	c = ab_ctx_new();
	if ((code = ab_load_inputs(o.plan_file, o.fleet_file, o.host_spec, c, &err)) != 0 ||
	    (code = ab_check_sides(&o, c, &err)) != 0 ||
	    (history_source != NULL &&
	    (code = ab_qualify_history(c, history_source, &h, &err)) != 0) ||
	    (code = ab_new_setup(&o, c, AB_ORDER_ABBA, &err)) != 0)
		goto fail;
	t0 = pace_now_ms();
	if (ab_run_hosts(c, o.quiet, &code, &err) != 0) {
		code = CMD_EXIT_ERROR;
		goto fail;
	}
	if (code == CMD_EXIT_INTERRUPTED) {
		log_error("interrupted: %s is left as it is; qualify again", ab_ctx_dir(c));
		goto out;
	}
	if (ab_qualify_report(&o, c, (double)(pace_now_ms() - t0) / 1000, h, &err) != 0) {
		code = CMD_EXIT_ERROR;
		goto fail;
	}
	if (code == CMD_EXIT_REGRESSION)
		code = CMD_EXIT_OK;
	goto out;
 fail:
	log_error("%s", err);
 out:
	free(err);
	history_free(h);
	ab_ctx_free(c);
	return code;
}

static const struct cmd_option qualify_options[] = {
	{ 'H', NULL, "HOSTS", "the hosts (names or @labels, comma-separated), each with its "
	    "own sequence of boots, in parallel", NULL },
	{ 'A', NULL, "SIDE", "the kernel to qualify with, booted on both sides: a shell "
	    "command run here that makes the host boot into it (as ab's -A), "
	    "kexec:KERNEL[,initrd=FILE][,append=ARGS], or the name of each host's boot: "
	    "entry in the inventory", NULL },
	{ 0, "boots", "N", "boots a side, at least 2; the detectable change is that of an ab "
	    "of N boots a side", "3" },
	{ 0, "expect", "STRING", "the boot check: the kernel (uname -r, uname -v or "
	    "/proc/cmdline) must contain STRING", "no kernel check" },
	{ 0, "threshold", "PCT", "the change to see: what it takes is printed",
	    "the plan's, else 5%" },
	{ 0, "format", "FORMAT", "the table as text, md, csv or json", "text" },
	{ 0, "history", "SOURCE", "the hosts' nightly runs of the plan (a results directory "
	    "or an archive URL): the night sd beside the trial and boot sd, over the nights "
	    "since each series' last change; read before the first reboot", NULL },
	{ 0, "push", "URL", "the archive each record is put in too, as URL/qualify/HOST.json: "
	    "a run that pushes there (the nightly) or takes its baseline from there reads it",
	    NULL },
	{ 'f', NULL, "FLEET", "the inventory", "the embedded fleet" },
	{ 'o', NULL, "DIR", "the results directory: the A/A ab directory is made in it, and "
	    "each host's record in DIR/qualify/HOST.json", "results" },
	{ 0, NULL, NULL, NULL, NULL }
};

static const struct cmd_exit qualify_exits[] = {
	{ 0, "every boot done: each host's record kept (a row judged worse is a warning: "
	    "with one kernel on both sides it is noise)" },
	{ 1, "something failed: ab.json, qualify.json or a record could not be written, or "
	    "a record was not pushed (it is kept in DIR/qualify)" },
	{ 2, "bad usage or input: no side, a malformed side, a boot: entry a host lacks, "
	    "--boots below 2, a plan or fleet that does not load, a --history with no "
	    "night of the plan" },
	{ 3, "a host failed (as ab's exit 3) or trials failed: the hosts whose boots all "
	    "ran are qualified, the others not" },
	{ 130, "interrupted: nothing is kept but the ab directory" },
	{ -1, NULL }
};

static const struct cmd_example qualify_examples[] = {
	{ "fleetmark qualify plans/syscall.yaml -f lab.yaml -H lab-07 -A 'ssh root@lab-07 "
	    "reboot' --expect 6.6.0 --boots 4",
	    "4 boots a side of the running kernel: what an ab of 4 boots a side sees there" },
	{ NULL, NULL }
};

static const struct cmd_help qualify_help = {
	"What each host can see: an A/A ab, the same kernel on both sides (as `fleetmark "
	"ab -A SIDE -B SIDE` with one side), then per host, metric and point the trial and "
	"boot standard deviations, the smallest change an ab of N boots a side detects "
	"with 95% power, and what the threshold takes: boots a side, and the trials a boot "
	"of Kalibera and Jones.  Kept with the host's results, DIR/qualify/HOST.json: "
	"`fleetmark ab` warns before its first reboot when its threshold is below what "
	"its boots can detect on a host.",
	qualify_options, NULL, qualify_exits, qualify_examples, "docs/qualify.md", 0
};

const struct cmd_entry cmd_qualify = {
	"qualify",
	"PLAN [-f FLEET] -H HOSTS -A SIDE [--boots N] [--expect S] [--threshold X%] "
	"[--format F] [--history SOURCE] [--push URL] [-o DIR] [-q] [-v]",
	"each host's noise, boot to boot, and the smallest change an ab can see there",
	qualify_main,
	&qualify_help,
};
