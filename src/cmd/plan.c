/*
 * cmd/plan.c: `fleetmark plan PLAN... [-f FLEET] [-H HOSTS] [-s]`:
 * validate plans and an inventory, show the trials each host would run,
 * in order, and estimate how long that takes.  Nothing is written and no
 * host is contacted.
 *
 * The estimate is plan_estimate_schedule()'s model (plan.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "cmd.h"
#include "fleet.h"
#include "log.h"
#include "numfmt.h"
#include "plan.h"
#include "strv.h"
#include "xmalloc.h"

static size_t
max_size(size_t a, size_t b)
{
	return a > b ? a : b;
}

#define PARAMS_WIDTH	80	/* longer parameter lists are cut in the table */

static const char *
variant_name(const struct plan_variant *v)
{
	return v->name ? v->name : "-";
}

static void
print_header(const struct plan *p, const struct fleet *f, const unsigned char *sel,
    unsigned long long seed)
{
	size_t i, j, nsel = 0;
	const char *sep;
	char timeout[32];

	printf("plan %s (%s)\n", p->name, p->file);
	if (p->description)
		printf("  %s\n", p->description);
	for (i = 0; i < f->nhosts; i++)
		nsel += sel[i];
	printf("fleet %s: %zu of %zu host%s selected:", f->file, nsel, f->nhosts,
	    f->nhosts == 1 ? "" : "s");
	for (i = 0; i < f->nhosts; i++)
		if (sel[i])
			printf(" %s", f->hosts[i].name);
	printf("\n");
	if (p->timeout_ms % 1000 == 0)
		snprintf(timeout, sizeof(timeout), "%llds", p->timeout_ms / 1000);
	else
		snprintf(timeout, sizeof(timeout), "%lldms", p->timeout_ms);
	printf("order %s", plan_order_name(p->order));
	if (p->order == PLAN_ORDER_SHUFFLE)
		printf(" (seed %llu%s)", seed, p->has_seed ? "" :
		    "; put this `seed:` in the plan to repeat the order");
	if (p->repeat_auto)
		printf(", repeat auto (%d to %d)", p->repeat, p->repeat_max);
	else
		printf(", repeat %d", p->repeat);
	printf(", samples %d, timeout %s per trial\n", p->samples, timeout);
	for (i = 0; i < p->nvariants; i++) {
		const struct plan_variant *v = &p->variants[i];

		if (v->name == NULL)
			continue;
		sep = " ";
		printf("variant %s:", v->name);
		for (j = 0; j < v->nwrites; j++) {
			printf("%swrite %s=\"%s\"", sep, v->writes[j].path, v->writes[j].value);
			sep = "; ";
		}
		if (v->nsetup) {
			printf("%s%zu setup command%s", sep, v->nsetup, v->nsetup == 1 ? "" : "s");
			sep = "; ";
		}
		if (v->nteardown)
			printf("%s%zu teardown command%s", sep, v->nteardown,
			    v->nteardown == 1 ? "" : "s");
		if (v->nwrites + v->nsetup + v->nteardown == 0)
			printf(" no change (baseline)");
		printf("\n");
	}
	if (p->has_regression) {
		printf("regression: threshold %g%%, fdr %g, metrics:", p->threshold, p->fdr);
		if (p->nmetrics == 0)
			printf(" all");
		for (i = 0; i < p->nmetrics; i++)
			printf(" %s", p->metrics[i]);
		printf("\n");
	}
	printf("trials per host: %zu variant%s x %zu point%s x repeat %d = %zu",
	    p->nvariants, p->nvariants == 1 ? "" : "s", p->npoints,
	    p->npoints == 1 ? "" : "s", p->repeat,
	    p->nvariants * p->npoints * (size_t)p->repeat);
	if (p->repeat_auto)
		printf(", up to %zu with repeat_max %d", p->nvariants * p->npoints *
		    (size_t)p->repeat_max, p->repeat_max);
	printf("\n");
}

/* "about 18s", "under 1s" */
static void
about(char *buf, size_t size, double secs)
{
	char d[NUMFMT_MAX];

	if (secs < 0.5) {
		snprintf(buf, size, "under 1s");
		return;
	}
	numfmt_duration(d, sizeof(d), secs);
	snprintf(buf, size, "about %s", d);
}

/* "about 18s (estimate)", with the trials the model does not know. */
static void
print_estimate(const struct plan_estimate *e)
{
	char a[64], m[NUMFMT_MAX];

	about(a, sizeof(a), e->secs);
	numfmt_duration(m, sizeof(m), e->max);
	if (e->unknown == 0)
		printf("%s (estimate; at most %s)", a, m);
	else if (e->known == 0)
		printf("duration unknown (no model for %s; at most %s)", e->names, m);
	else
		printf("%s for %zu, plus %zu of %s without a model (estimate; at most %s)", a,
		    e->known, e->unknown, e->names, m);
}

static void
print_schedule(const struct plan *p, const struct plan_schedule *s, int verbose)
{
	size_t i, wnum, wvar = 7, wbench = 5, wparams = 6, wrep;
	int profile = 0;
	char num[32], rep[32];

	snprintf(num, sizeof(num), "%zu", s->ntrials);
	wnum = max_size(strlen(num), 1);
	snprintf(rep, sizeof(rep), "%d/%d", p->repeat, p->repeat);
	wrep = max_size(strlen(rep), 3);
	for (i = 0; i < s->ntrials; i++) {
		const struct plan_trial *t = &s->trials[i];

		wvar = max_size(wvar, strlen(variant_name(t->variant)));
		wbench = max_size(wbench, strlen(t->point->bench));
		wparams = max_size(wparams, strlen(*t->point->label ? t->point->label : "-"));
		if (wparams > PARAMS_WIDTH)
			wparams = PARAMS_WIDTH;
		profile |= t->point->profile == PLAN_PROFILE_PERF;
	}
	printf("  %*s  %-*s  %-*s  %-*s  %*s%s%s\n", (int)wnum, "#", (int)wvar, "variant",
	    (int)wbench, "bench", (int)wparams, "params", (int)wrep, "rep",
	    profile ? "  profile" : "", verbose ? "  key" : "");
	for (i = 0; i < s->ntrials; i++) {
		const struct plan_trial *t = &s->trials[i];

		const char *label = *t->point->label ? t->point->label : "-";
		char cut[PARAMS_WIDTH + 1];

		if (strlen(label) > PARAMS_WIDTH) {
			snprintf(cut, sizeof(cut), "%.*s...", PARAMS_WIDTH - 3, label);
			label = cut;
		}
		snprintf(rep, sizeof(rep), "%d/%d", t->rep, p->repeat);
		printf("  %*zu  %-*s  %-*s  %-*s  %*s", (int)wnum, i + 1, (int)wvar,
		    variant_name(t->variant), (int)wbench, t->point->bench, (int)wparams,
		    label, (int)wrep, rep);
		if (profile)
			printf(verbose ? "  %-7s" : "  %s",
			    t->point->profile == PLAN_PROFILE_PERF ? "perf" : "-");
		if (verbose)
			printf("  %s", t->key);
		printf("\n");
	}
}

/*
 * One plan against the fleet: its header, each selected host's trials (or,
 * with brief, only their number) and estimate, and the total.  Returns a
 * CMD_EXIT_* status; errors are logged.
 */
/* More tasks at once than a host of known CPUs has (a local host's). */
static void
warn_cpus(const struct plan *p, const char *host, long cpus)
{
	char **msgs;
	size_t i, n = plan_cpu_warnings(p, host, cpus, &msgs);

	for (i = 0; i < n; i++)
		log_warn("%s", msgs[i]);
	strv_free(msgs, n);
}

static int
show_plan(const char *file, const struct catalog *cat, const struct fleet *f,
    const char *hosts_spec, int brief)
{
	struct plan *p = NULL;
	unsigned char *sel = NULL;
	unsigned long long seed;
	struct plan_estimate e, longest;
	char *err = NULL;
	size_t i, nsel = 0, total = 0;

	if (plan_load(file, cat, &p, &err) != 0 ||
	    plan_select(p, f, hosts_spec, &sel, &err) != 0) {
		log_error("%s", err);
		free(err);
		plan_free(p);
		return CMD_EXIT_USAGE;
	}
	seed = plan_seed(p);
	print_header(p, f, sel, seed);
	memset(&longest, 0, sizeof(longest));
	for (i = 0; i < f->nhosts; i++) {
		struct plan_schedule *s;

		if (!sel[i])
			continue;
		if (f->hosts[i].transport == FLEET_TRANSPORT_LOCAL)
			warn_cpus(p, f->hosts[i].name, sysconf(_SC_NPROCESSORS_ONLN));
		s = plan_expand(p, f->hosts[i].name, seed);
		plan_estimate_schedule(cat, p, s, &e);
		printf("%shost %s: %zu trials, ", brief ? "" : "\n", s->host, s->ntrials);
		print_estimate(&e);
		printf("\n");
		if (!brief)
			print_schedule(p, s, log_get_level() >= LOG_LEVEL_VERBOSE);
		if (e.secs + e.max > longest.secs + longest.max)
			longest = e;
		total += s->ntrials;
		nsel++;
		plan_schedule_free(s);
	}
	printf("\ntotal: %zu trials on %zu host%s\n", total, nsel, nsel == 1 ? "" : "s");
	if (nsel > 1) {
		printf("duration: the longest host, ");
		print_estimate(&longest);
		printf("; hosts run in parallel\n");
	}
	free(sel);
	plan_free(p);
	return CMD_EXIT_OK;
}

static int
plan_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "summary", no_argument, NULL, 's' },
		CMD_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	const char *fleet_file = NULL, *hosts_spec = NULL;
	struct catalog *cat = NULL;
	struct fleet *f = NULL;
	char *err = NULL, *agent = NULL;
	size_t bad = 0;
	int c, i, r, brief = 0, rc = CMD_EXIT_USAGE;

	while ((c = getopt_long(argc, argv, "f:H:shvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			fleet_file = optarg;
			break;
		case 'H':
			hosts_spec = optarg;
			break;
		case 's':
			brief = 1;
			break;
		default:
			if ((c = cmd_common_option(&cmd_plan, c, argv, NULL)) >= 0)
				return c;
			break;
		}
	}
	if (optind >= argc)
		return cmd_usage(&cmd_plan, 0);

	if ((agent = catalog_agent_path(&err)) == NULL ||
	    catalog_load(agent, &cat, &err) != 0) {
		rc = CMD_EXIT_ERROR;
		goto fail;
	}
	log_verbose("benchmark catalogue: %zu benchmarks from %s", cat->nbenches, agent);
	if (fleet_load(fleet_file, &f, &err) != 0)
		goto fail;

	/* Every plan is shown or its errors logged, as a compiler goes on. */
	rc = CMD_EXIT_OK;
	for (i = optind; i < argc; i++) {
		if (i > optind)
			printf("\n");
		fflush(stdout);
		if ((r = show_plan(argv[i], cat, f, hosts_spec, brief)) != CMD_EXIT_OK) {
			/* one plan alone prints nothing on stdout when it is wrong */
			if (argc - optind > 1)
				printf("plan %s: not valid (its error is on stderr)\n", argv[i]);
			bad++;
			rc = r;
		}
	}
	if (bad < (size_t)(argc - optind)) {
		char *how = xasprintf("the estimate is a model, not a measurement: per trial "
		    "%.1fs to start, calibrate and warm up, plus each sample: about %.0f ms for "
		    "lmbench's benchmarks (calibrated to that; 1.1 times `interval` for those "
		    "that have one, plus `warmup`), interval_ms for will-it-scale's "
		    "(one more to warm up); %.1fs more with a perf profile; connecting and "
		    "deploying not counted; \"at most\": every trial at the plan's timeout",
		    PLAN_EST_START_S, PLAN_EST_SAMPLE_S * 1000, PLAN_EST_PROFILE_S);

		printf("\n");
		cmd_wrap(stdout, how, 0, 2);
		free(how);
	}
	if (argc - optind > 1)
		printf("\n%d plans: %zu valid, %zu not\n", argc - optind,
		    (size_t)(argc - optind) - bad, bad);
	if (fflush(stdout) != 0)
		rc = CMD_EXIT_ERROR;
	goto out;
fail:
	log_error("%s", err);
out:
	free(err);
	free(agent);
	fleet_free(f);
	catalog_free(cat);
	return rc;
}

static const struct cmd_option plan_options[] = {
	{ 'f', NULL, "FLEET", "the inventory (fleetmark-fleet(5))", "the embedded fleet: one "
	    "host, local, this machine" },
	{ 'H', NULL, "HOSTS", "only these hosts: names and @labels, comma separated (narrows "
	    "each plan's hosts:)", "every host a plan names" },
	{ 's', "summary", NULL, "per host only the number of trials and the estimate, not "
	    "each trial", NULL },
	{ 0, NULL, NULL, NULL, NULL }
};

static const struct cmd_exit plan_exits[] = {
	{ 0, "every plan and the inventory are valid" },
	{ 1, "something else failed: no agent to read the benchmark catalogue from" },
	{ 2, "bad usage, or a plan or the inventory is invalid (FILE:LINE:COL: message, with "
	    "a suggestion for a misspelt name); the other plans are still shown" },
	{ -1, NULL }
};

static const struct cmd_example plan_examples[] = {
	{ "fleetmark plan plans/tlb-flush.yaml -f lab.yaml -H @x86_64", "what would run on "
	    "each x86_64 host, in order" },
	{ "fleetmark plan -s plans/*.yaml", "check every plan; trials and time per host" },
	{ "fleetmark plan -v plans/smoke.yaml", "also each trial's key (what --resume "
	    "matches)" },
	{ NULL, NULL }
};

static const struct cmd_help plan_help = {
	"Validates each plan (fleetmark-plan(5)) against the agent's benchmark catalogue "
	"and the inventory, and prints what a run would do: the plan's settings and "
	"variants, then for every selected host the trials in the order they would run "
	"(number, variant, benchmark, parameters, repetition) with an estimate of how "
	"long they take.  Nothing is written and no host is contacted.\n\n"
	"The estimate is a model, not a measurement: per trial about 0.1 s to start, "
	"calibrate and warm up, plus the samples, each about 5 ms for lmbench's "
	"benchmarks (the agent calibrates them to that) or interval_ms for "
	"will-it-scale's (plus one warm-up interval), plus about 1.2 s with a perf "
	"profile.  Benchmarks the model does not know (exec, munmap, pagefault, spin) "
	"are counted apart; the plan's timeout for every trial is the upper bound.  "
	"Hosts differ: a slow board takes longer.",
	plan_options, NULL, plan_exits, plan_examples,
	"fleetmark-plan(5), fleetmark-fleet(5), docs/plans-and-fleets.md, fleetmark list", 0
};

const struct cmd_entry cmd_plan = {
	"plan", "PLAN... [-f FLEET] [-H HOSTS] [-s] [-v]",
	"validate test plans and show the trials each host would run", plan_main,
	&plan_help
};
