/*
 * cmd/ab.c: `fleetmark ab PLAN -H HOSTS -A SIDE -B SIDE [--boots N]
 * [--order abba|alternate|random] ...`: two kernels (sides A and B) on
 * the same hosts in alternating boots, judged with the boot as the unit
 * (docs/ab.md).  Here: the options and their checks, and the command's
 * course; the ab directory, the hosts' sequences of boots and the
 * verdict are src/ab/'s (abdir.h), the statistics ab.h's.
 *
 * A side is a command run here through /bin/sh -c (boot.h), a kexec or
 * a host's `boot:` entry (src/ab/side.c) that makes the host boot into
 * that side; each boot is checked (the boot id
 * changed, the kernel contains what is expected) before the plan runs on
 * the host as a run of its own, DIR/boots/HOST-NN-SIDE/.  Each host has
 * its own sequence, in a child process of its own; ab.json records every
 * boot's state, so that --resume goes on where the sequence stopped.
 * A resume takes nothing from ab.json that it would run: the sides are
 * given again and must be those recorded, and ab.json and its directory
 * must be the user's own, written by no one else.  At the end the boots'
 * trial values are judged per (host, metric, point) row and the table
 * printed and kept in ab.txt.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "abdir.h"
#include "cmd.h"
#include "log.h"
#include "report.h"
#include "xmalloc.h"
#include "yamldoc.h"

#define DEFAULT_RESULTS		"results"
#define DEFAULT_BOOTS		2
#define MAX_BOOTS		99		/* boots a side (two digits a name) */

/* --- setting up ---------------------------------------------------------------- */

/* The host names of -H, refused when one is named twice. */
static int
check_hosts_twice(const char *spec, char **err)
{
	size_t len = strlen(spec);
	char *copy = xstrdup(spec), *p, *q, *end = copy + len;
	int r = 0;

	for (p = copy; p < end; p++)
		if (*p == ',')
			*p = '\0';
	for (p = copy; p < end && r == 0; p += strlen(p) + 1)
		for (q = p + strlen(p) + 1; *p != '\0' && q < end; q += strlen(q) + 1)
			if (strcmp(p, q) == 0) {
				*err = xasprintf("-H %s: host '%s' is named twice", spec, p);
				r = -1;
				break;
			}
	free(copy);
	return r;
}

/* --- the command --------------------------------------------------------------- */

/* An option that a new ab takes and a resume has from ab.json: the first one given. */
static void
only_new(struct ab_cmdopts *o, const char *opt)
{
	if (o->new_only == NULL)
		o->new_only = opt;
}

static int
parse_options(int argc, char **argv, struct ab_cmdopts *o)
{
	static const struct option longopts[] = {
		{ "boots", required_argument, NULL, 'n' },
		{ "order", required_argument, NULL, 'O' },
		{ "label-a", required_argument, NULL, 'a' },
		{ "label-b", required_argument, NULL, 'b' },
		{ "expect-a", required_argument, NULL, 'x' },
		{ "expect-b", required_argument, NULL, 'y' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "resume", required_argument, NULL, 'R' },
		{ "format", required_argument, NULL, 'F' },
		{ "dry-run", no_argument, NULL, 'D' },
		CMD_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "f:H:A:B:o:hvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->fleet_file = optarg;
			break;
		case 'H':
			only_new(o, "-H");
			o->host_spec = optarg;
			break;
		case 'A':
			o->side[AB_A].cmd = optarg;
			break;
		case 'B':
			o->side[AB_B].cmd = optarg;
			break;
		case 'o':
			only_new(o, "-o");
			o->outdir = optarg;
			break;
		case 'n':
			only_new(o, "--boots");
			o->boots_set = 1;
			if (ydoc_parse_int(optarg, &o->boots) != 0 || o->boots < 2 ||
			    o->boots > MAX_BOOTS) {
				log_error("--boots: expected a number from 2 to %d, not '%s'",
				    MAX_BOOTS, optarg);
				return CMD_EXIT_USAGE;
			}
			break;
		case 'O':
			only_new(o, "--order");
			o->order_s = optarg;
			break;
		case 'a':
			only_new(o, "--label-a");
			o->side[AB_A].label = optarg;
			break;
		case 'b':
			only_new(o, "--label-b");
			o->side[AB_B].label = optarg;
			break;
		case 'x':
			only_new(o, "--expect-a");
			o->side[AB_A].expect = *optarg ? optarg : NULL;
			break;
		case 'y':
			only_new(o, "--expect-b");
			o->side[AB_B].expect = *optarg ? optarg : NULL;
			break;
		case 'T':
			only_new(o, "--threshold");
			if (cmd_threshold_option(optarg, &o->thr) != 0)
				return CMD_EXIT_USAGE;
			break;
		case 'R':
			o->resume = optarg;
			break;
		case 'F':
			if (report_format_parse(optarg, &o->fmt) != 0) {
				log_error("unknown format '%s' (text, md, csv, json, html)", optarg);
				return CMD_EXIT_USAGE;
			}
			break;
		case 'D':
			o->dry = 1;
			break;
		default:
			if ((c = cmd_common_option(&cmd_ab, c, argv, &o->quiet)) >= 0)
				return c;
			break;
		}
	}
	if (optind + 1 == argc)
		o->plan_file = argv[optind];
	else if (optind != argc || o->resume == NULL)
		return cmd_usage(&cmd_ab, 0);
	if (o->resume != NULL && (o->side[AB_A].cmd == NULL || o->side[AB_B].cmd == NULL)) {
		log_error("--resume %s: give both sides again: -A SIDE and -B SIDE, as the ab "
		    "was started (the commands its ab.json records are not run)", o->resume);
		return CMD_EXIT_USAGE;
	}
	if (o->resume != NULL && o->new_only != NULL) {
		log_error("--resume %s: %s is not taken on a resume: the recorded ones are used "
		    "(the hosts, labels, expected kernels, boots, order, threshold and directory "
		    "of its ab.json)", o->resume, o->new_only);
		return CMD_EXIT_USAGE;
	}
	if (o->resume != NULL)
		return -1;
	if (o->side[AB_A].cmd == NULL || o->side[AB_B].cmd == NULL) {
		log_error("give both sides: -A SIDE and -B SIDE");
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
ab_main(int argc, char **argv)
{
	struct ab_cmdopts o;
	struct ab_ctx *c = NULL;
	enum ab_order order = AB_ORDER_ABBA;
	char *err = NULL;
	int code, worse;

	memset(&o, 0, sizeof(o));
	o.outdir = DEFAULT_RESULTS;
	o.boots = DEFAULT_BOOTS;
	o.thr = -1;
	if ((code = parse_options(argc, argv, &o)) >= 0)
		return code;
	if (o.order_s != NULL && ab_order_parse(o.order_s, &order) != 0) {
		log_error("--order: expected abba, alternate or random, not '%s'", o.order_s);
		return CMD_EXIT_USAGE;
	}
	if (o.host_spec != NULL && check_hosts_twice(o.host_spec, &err) != 0) {
		code = CMD_EXIT_USAGE;
		goto fail;
	}
	c = ab_ctx_new();
	if (o.resume != NULL) {
		if ((code = ab_resume_setup(&o, c, &err)) != 0 ||
		    (code = ab_check_sides(&o, c, &err)) != 0)
			goto fail;
	} else {
		if ((code = ab_load_inputs(o.plan_file, o.fleet_file, o.host_spec, c, &err)) != 0 ||
		    (code = ab_check_sides(&o, c, &err)) != 0)
			goto fail;
		if (o.side[AB_A].label == NULL)
			o.side[AB_A].label = "A";
		if (o.side[AB_B].label == NULL)
			o.side[AB_B].label = "B";
		ab_qualify_warn(&o, c);
		if (o.dry) {
			code = ab_dry_run(&o, c, order);
			goto out;
		}
		if ((code = ab_new_setup(&o, c, order, &err)) != 0)
			goto fail;
	}
	if (o.dry) {
		printf("dry run: %s is taken up from each host's first boot not done\n",
		    ab_ctx_dir(c));
		code = CMD_EXIT_OK;
		goto out;
	}
	if (ab_run_hosts(c, o.quiet, &code, &err) != 0) {
		code = CMD_EXIT_ERROR;
		goto fail;
	}
	if (code == CMD_EXIT_INTERRUPTED) {
		log_error("interrupted: `fleetmark ab --resume %s -A SIDE -B SIDE`, with the "
		    "sides it was started with, goes on", ab_ctx_dir(c));
		goto out;
	}
	if ((worse = ab_verdict(c, o.fmt, &err)) < 0) {
		code = CMD_EXIT_ERROR;
		goto fail;
	}
	if (worse > 0 && code == CMD_EXIT_OK)
		code = CMD_EXIT_REGRESSION;
	else if (worse > 0 && code == CMD_EXIT_PARTIAL)
		code = CMD_EXIT_REGRESSION;
	goto out;
 fail:
	log_error("%s", err);
 out:
	free(err);
	ab_ctx_free(c);
	return code;
}

static const struct cmd_option ab_options[] = {
	{ 'H', NULL, "HOSTS", "the hosts (names or @labels, comma-separated), each with its "
	    "own sequence of boots, in parallel", NULL },
	{ 'A', NULL, "SIDE", "side A: a shell command run here that makes the host boot "
	    "into kernel A, with FLEETMARK_HOST, FLEETMARK_SIDE and FLEETMARK_BOOT in its "
	    "environment (a FLEETMARK_EXPECT_KERNEL=STRING line it prints sets the boot "
	    "check; ended with what it started when it runs past the host's boot_timeout); "
	    "or kexec:KERNEL[,initrd=FILE][,append=ARGS], files on the host that kexec "
	    "boots; or the name of each host's boot: entry in the inventory", NULL },
	{ 'B', NULL, "SIDE", "side B, the same", NULL },
	{ 0, "boots", "N", "boots a side, at least 2; without it, 2 or what the hosts' "
	    "qualifications say the plan's counted rows need to see the threshold (up to 12)",
	    "2" },
	{ 0, "order", "ORDER", "abba (blocks AB, BA, ...), alternate (AB, AB, ...) or random "
	    "(each block AB or BA, the seed recorded)", "abba" },
	{ 0, "label-a", "LABEL", "side A's label, the label of its boots' runs", "A" },
	{ 0, "label-b", "LABEL", "side B's label", "B" },
	{ 0, "expect-a", "STRING", "the boot check of side A: the kernel (uname -r, uname -v "
	    "or /proc/cmdline) must contain STRING", "no kernel check" },
	{ 0, "expect-b", "STRING", "the same for side B", "no kernel check" },
	{ 0, "threshold", "PCT", "the smallest change that counts", "the plan's, else 5%" },
	{ 0, "format", "FORMAT", "the table as text, md, csv or json; html: one page with "
	    "the boots' tables (a row per boot) and the verdict, as fleetmark report DIR",
	    "text" },
	{ 0, "resume", "DIR", "go on with the ab directory DIR from each host's first boot "
	    "not done (PLAN and -f, unless given, come from its ab.json, as do the hosts, "
	    "labels, expected kernels, boots, order and threshold); -A and -B must be given "
	    "again, the commands it was started with", NULL },
	{ 0, "dry-run", NULL, "print each host's sequence of boots and the machine time it "
	    "takes; nothing is contacted or written", NULL },
	{ 'f', NULL, "FLEET", "the inventory", "the embedded fleet" },
	{ 'o', NULL, "DIR", "where the ab directory is made", "results" },
	{ 0, NULL, NULL, NULL, NULL }
};

static const struct cmd_exit ab_exits[] = {
	{ 0, "every boot done, no trial failed, B not worse on a counted row" },
	{ 1, "something failed: ab.json could not be written, a run could not start" },
	{ 2, "bad usage or input: a side missing or malformed, a boot: entry a host lacks, a "
	    "host named twice, --boots below 2, an unknown order, a plan or fleet that does "
	    "not load; a resume given an option ab.json records, or whose sides are not those "
	    "of ab.json, or whose ab.json others can write" },
	{ 3, "a host failed (a side command that failed or ran past the host's boot_timeout, "
	    "a kexec side's file missing on the host, a host that did not come back, a wrong "
	    "kernel: class boot), or trials failed" },
	{ 4, "B is significantly worse than A on a counted row" },
	{ 130, "interrupted: --resume goes on" },
	{ -1, NULL }
};

static const struct cmd_example ab_examples[] = {
	{ "fleetmark ab plans/syscall.yaml -f lab.yaml -H lab-07 -A 'ssh root@lab-07 "
	    "grub-reboot old && ssh root@lab-07 reboot' -B 'ssh root@lab-07 grub-reboot new "
	    "&& ssh root@lab-07 reboot' --expect-a 6.6.0 --expect-b 6.7.0 --boots 4",
	    "4 boots of each kernel in the order ABBA ABBA, judged by boot" },
	{ NULL, NULL }
};

static const struct cmd_help ab_help = {
	"Two kernels (sides A and B) on the same hosts in alternating boots, judged with "
	"the boot as the unit: each side command makes the host boot into its kernel, the "
	"boot is checked (a new boot id, the kernel expected), and the plan runs on the "
	"host as a run of its own under DIR/boots/.  The verdict pairs each A boot with the "
	"B boot of its block (a paired t-test on the log scale, Benjamini-Hochberg over the "
	"rows, then the threshold), and says what the boots can see.",
	ab_options, NULL, ab_exits, ab_examples, "docs/ab.md", 0
};

const struct cmd_entry cmd_ab = {
	"ab",
	"PLAN [-f FLEET] -H HOSTS -A SIDE -B SIDE [--boots N] "
	"[--order abba|alternate|random] [--label-a L] [--label-b L] [--expect-a S] "
	"[--expect-b S] [--threshold X%] [--format F] [-o DIR] [--resume DIR] [--dry-run] "
	"[-q] [-v]",
	"two kernels in alternating boots on the same hosts, judged by boot",
	ab_main,
	&ab_help,
};
