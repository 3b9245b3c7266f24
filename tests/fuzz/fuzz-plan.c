/*
 * fuzz-plan.c: plan loading (src/plan.c) on top of the YAML layer,
 * validated against a fixed catalogue: catalog.jsonl here, the native
 * agent's `list --json` (regenerate it with
 * `build/fleetmark-agent list --json > tests/fuzz/catalog.jsonl` when
 * the agent's benchmarks change).  Loading runs no agent: the real
 * plan_load() would.  A plan that loads is matched against a small fleet
 * and expanded into trials, as `fleetmark run` does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "fleet.h"
#include "fuzz.h"
#include "plan.h"

static struct catalog *cat;
static struct fleet *fleet;

static const char fleet_yaml[] =
	"hosts:\n"
	"  alpha: {address: 192.0.2.1, labels: [x86_64, big]}\n"
	"  beta: {address: 192.0.2.2, labels: [arm]}\n"
	"  local: {transport: local}\n";

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *text, *err = NULL;
	size_t len;

	(void)argc;
	(void)argv;
	text = fuzz_read_data("catalog.jsonl", &len);
	if (catalog_parse("catalog.jsonl", text, len, &cat, &err) != 0 ||
	    fleet_parse("fleet", fleet_yaml, strlen(fleet_yaml), &fleet, &err) != 0) {
		fprintf(stderr, "fuzz-plan: %s\n", err);
		exit(2);
	}
	free(text);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan_schedule *s;
	struct plan *p = NULL;
	unsigned char sel[8];
	char *err = NULL;
	size_t i;

	if (plan_parse("fuzz.yaml", (const char *)data, size, cat, &p, &err) != 0) {
		if (err == NULL)
			abort();
		free(err);
		return 0;
	}
	if (p->npoints == 0 || p->nvariants == 0)
		abort();	/* plan.h: at least one of each */
	if (plan_hosts(p, fleet, NULL, sel, &err) != 0)
		free(err);
	(void)plan_order_name(p->order);
	if (p->nvariants * p->npoints * (size_t)p->repeat > 20000)
		goto out;	/* allowed, but slow to expand on every input */
	s = plan_expand(p, "alpha", 42);
	if (s == NULL || s->ntrials != p->nvariants * p->npoints * (size_t)p->repeat ||
	    s->variant_start[s->nvariants] != s->ntrials)
		abort();
	for (i = 0; i < s->ntrials; i++)
		if (s->trials[i].key == NULL || s->trials[i].rep < 1 ||
		    s->trials[i].rep > p->repeat)
			abort();
	plan_schedule_free(s);
 out:
	plan_free(p);
	return 0;
}
