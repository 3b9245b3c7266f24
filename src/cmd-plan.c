/*
 * cmd-plan.c: `fleetmark plan PLAN [-f FLEET] [-H HOSTS]`: validate a plan
 * and an inventory, and show the trials each host would run, in order.
 * Nothing is written and no host is contacted.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "cmd.h"
#include "fleet.h"
#include "log.h"
#include "plan.h"
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
	printf(", repeat %d, samples %d, timeout %s per trial\n", p->repeat, p->samples,
	    timeout);
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
		printf("regression: threshold %g%%, metrics:", p->threshold);
		if (p->nmetrics == 0)
			printf(" all");
		for (i = 0; i < p->nmetrics; i++)
			printf(" %s", p->metrics[i]);
		printf("\n");
	}
	printf("trials per host: %zu variant%s x %zu point%s x repeat %d = %zu\n",
	    p->nvariants, p->nvariants == 1 ? "" : "s", p->npoints,
	    p->npoints == 1 ? "" : "s", p->repeat,
	    p->nvariants * p->npoints * (size_t)p->repeat);
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
	printf("\nhost %s: %zu trials\n", s->host, s->ntrials);
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

static int
plan_main(int argc, char **argv)
{
	const char *fleet_file = NULL, *hosts_spec = NULL;
	struct catalog *cat = NULL;
	struct fleet *f = NULL;
	struct plan *p = NULL;
	unsigned char *sel = NULL;
	unsigned long long seed;
	char *err = NULL, *agent = NULL;
	size_t i, nsel = 0, total = 0;
	int c, rc = CMD_EXIT_USAGE;

	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};

	while ((c = getopt_long(argc, argv, "f:H:hvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			fleet_file = optarg;
			break;
		case 'H':
			hosts_spec = optarg;
			break;
		default:
			if ((c = cmd_common_option(&cmd_plan, c, argv, NULL)) >= 0)
				return c;
			break;
		}
	}
	if (optind + 1 != argc)
		return cmd_usage(&cmd_plan, 0);

	if ((agent = catalog_agent_path(&err)) == NULL ||
	    catalog_load(agent, &cat, &err) != 0) {
		rc = CMD_EXIT_ERROR;
		goto fail;
	}
	log_verbose("benchmark catalogue: %zu benchmarks from %s", cat->nbenches, agent);
	if (plan_load(argv[optind], cat, &p, &err) != 0)
		goto fail;
	if (fleet_load(fleet_file, &f, &err) != 0)
		goto fail;
	if (plan_select(p, f, hosts_spec, &sel, &err) != 0)
		goto fail;

	seed = plan_seed(p);
	print_header(p, f, sel, seed);
	for (i = 0; i < f->nhosts; i++) {
		struct plan_schedule *s;

		if (!sel[i])
			continue;
		s = plan_expand(p, f->hosts[i].name, seed);
		print_schedule(p, s, log_get_level() >= LOG_LEVEL_VERBOSE);
		total += s->ntrials;
		nsel++;
		plan_schedule_free(s);
	}
	printf("\ntotal: %zu trials on %zu host%s\n", total, nsel, nsel == 1 ? "" : "s");
	rc = fflush(stdout) == 0 ? CMD_EXIT_OK : CMD_EXIT_ERROR;
	goto out;
fail:
	log_error("%s", err);
out:
	free(err);
	free(agent);
	free(sel);
	plan_free(p);
	fleet_free(f);
	catalog_free(cat);
	return rc;
}

static const struct cmd_option plan_options[] = {
	{ 'f', NULL, "FLEET", "the inventory (fleetmark-fleet(5))", "the embedded fleet: one "
	    "host, local, this machine" },
	{ 'H', NULL, "HOSTS", "only these hosts: names and @labels, comma separated (narrows "
	    "the plan's hosts:)", "every host the plan names" },
	{ 0, NULL, NULL, NULL, NULL }
};

static const struct cmd_exit plan_exits[] = {
	{ 0, "the plan and the inventory are valid" },
	{ 1, "something else failed: no agent to read the benchmark catalogue from" },
	{ 2, "bad usage, or the plan or the inventory is invalid (FILE:LINE:COL: message, "
	    "with a suggestion for a misspelt name)" },
	{ -1, NULL }
};

static const struct cmd_example plan_examples[] = {
	{ "fleetmark plan plans/tlb-flush.yaml -f lab.yaml -H @x86_64", "what would run on "
	    "each x86_64 host, in order" },
	{ "fleetmark plan -v plans/smoke.yaml", "also each trial's key (what --resume "
	    "matches)" },
	{ NULL, NULL }
};

static const struct cmd_help plan_help = {
	"Validates a plan (fleetmark-plan(5)) against the agent's benchmark catalogue "
	"and the inventory, and prints what a run would do: the plan's settings and "
	"variants, then for every selected host the trials in the order they would run "
	"(number, variant, benchmark, parameters, repetition).  Nothing is written and "
	"no host is contacted.",
	plan_options, NULL, plan_exits, plan_examples,
	"fleetmark-plan(5), fleetmark-fleet(5), docs/plans-and-fleets.md, fleetmark list", 0
};

const struct cmd_entry cmd_plan = {
	"plan", "PLAN [-f FLEET] [-H HOSTS] [-v]",
	"validate a test plan and show the trials each host would run", plan_main,
	&plan_help
};
