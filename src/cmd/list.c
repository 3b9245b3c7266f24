/*
 * cmd/list.c: `fleetmark list [BENCH...]`: the benchmark catalogue, as
 * the agent publishes it (catalog.h) and plans are checked against:
 * every benchmark with its parameters and their defaults, and its metrics
 * with their units and directions; with names, each of those benchmarks
 * in full (types, choices, what each parameter and metric means, a
 * suite's points).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "cmd.h"
#include "log.h"
#include "strbuf.h"
#include "xmalloc.h"
#include "yamldoc.h"

#define LIST_COLUMN	11	/* where a block's values start */

static const char *
type_name(enum catalog_ptype t)
{
	switch (t) {
	case CATALOG_INT:	return "int";
	case CATALOG_CPUS:	return "cpus";
	case CATALOG_ENUM:	return "enum";
	case CATALOG_STRING:	return "string";
	}
	return "?";
}

static const char *
direction(const struct catalog_metric *m)
{
	return m->higher_better ? "higher is better" : "lower is better";
}

/* "k=v k=v" of a suite member, or "defaults". */
static void
member_words(struct strbuf *s, const struct catalog_member *m)
{
	size_t i;

	strbuf_addstr(s, m->bench);
	for (i = 0; i < m->nparams; i++)
		strbuf_addf(s, " %s=%s", m->keys[i], m->vals[i]);
}

/* A labelled line of the short block: "  params   a=1 b=2", wrapped. */
static void
labelled(const char *label, const char *text)
{
	printf("  %-*s", LIST_COLUMN - 2, label);
	cmd_wrap(stdout, text, LIST_COLUMN, LIST_COLUMN);
}

/* Three lines or so: summary, parameters with defaults, metrics. */
static void
print_short(const struct catalog_bench *b)
{
	struct strbuf s = STRBUF_INIT;
	size_t i;

	printf("%s: %s\n", b->name, b->summary);
	if (b->nmembers > 0) {
		strbuf_addf(&s, "%zu points of", b->nmembers);
		for (i = 0; i < b->nmembers; i++)
			if (i == 0 || strcmp(b->members[i].bench, b->members[i - 1].bench) != 0)
				strbuf_addf(&s, "%s %s", i ? "," : "", b->members[i].bench);
		strbuf_addf(&s, " (fleetmark list %s)", b->name);
		labelled("suite", s.buf);
		strbuf_reset(&s);
	}
	if (b->nparams > 0) {
		for (i = 0; i < b->nparams; i++)
			strbuf_addf(&s, "%s%s=%s", i ? " " : "", b->params[i].name,
			    *b->params[i].def ? b->params[i].def : "\"\"");
		labelled("params", s.buf);
		strbuf_reset(&s);
	}
	if (b->nmetrics > 0) {
		for (i = 0; i < b->nmetrics; i++)
			strbuf_addf(&s, "%s%s (%s, %s)", i ? ", " : "", b->metrics[i].name,
			    *b->metrics[i].unit ? b->metrics[i].unit : "-", direction(&b->metrics[i]));
		labelled("metrics", s.buf);
	}
	strbuf_release(&s);
}

static size_t
widest(size_t w, const char *s)
{
	return strlen(s) > w ? strlen(s) : w;
}

/* Everything the catalogue says of b. */
static void
print_long(const struct catalog_bench *b)
{
	struct strbuf s = STRBUF_INIT;
	size_t i, wn = 9, wd = 7, wu = 4;
	int col, ints = 0, cpus = 0;
	char *range;

	printf("%s: %s\n", b->name, b->summary);
	if (*b->from)
		labelled("from", b->from);
	for (i = 0; i < b->nparams; i++) {
		wn = widest(wn, b->params[i].name);
		wd = widest(wd, b->params[i].def);
	}
	for (i = 0; i < b->nmetrics; i++) {
		wn = widest(wn, b->metrics[i].name);
		wu = widest(wu, b->metrics[i].unit);
	}
	if (wd > 24)
		wd = 24;	/* a long default (exec's command) runs over */
	if (b->nparams > 0) {
		printf("\n  %-*s  %-6s  %-*s  %s\n", (int)wn, "parameter", "type", (int)wd,
		    "default", "meaning");
		for (i = 0; i < b->nparams; i++) {
			const struct catalog_param *p = &b->params[i];

			strbuf_reset(&s);
			strbuf_addstr(&s, *p->help ? p->help : "-");
			if (p->type == CATALOG_ENUM)
				strbuf_addf(&s, "; one of %s", p->choices);
			if ((range = catalog_range_text(p)) != NULL)
				strbuf_addf(&s, "; %s", range);
			free(range);
			ints |= p->type == CATALOG_INT;
			cpus |= p->type == CATALOG_CPUS;
			col = 2 + (int)wn + 2 + 6 + 2 + (int)wd + 2;
			if (strlen(p->def) > wd)	/* the meaning on a line of its own */
				printf("  %-*s  %-6s  %s\n%*s", (int)wn, p->name, type_name(p->type),
				    p->def, col, "");
			else
				printf("  %-*s  %-6s  %-*s  ", (int)wn, p->name, type_name(p->type),
				    (int)wd, p->def);
			cmd_wrap(stdout, s.buf, col, col);
		}
		if (ints || cpus)
			printf("  (%s%s%s)\n", ints ? "int: K, M and G suffixes allowed" : "",
			    ints && cpus ? "; " : "", cpus ? "cpus: a number, or N% of the host's "
			    "online CPUs" : "");
		for (i = 0; i < b->nlimits; i++)
			printf("  (%s x %s: at most %lld, each counted as at least 1)\n",
			    b->limits[i].a, b->limits[i].b, b->limits[i].max);
	}
	if (b->nmetrics > 0) {
		printf("\n  %-*s  %-*s  %-6s  %s\n", (int)wn, "metric", (int)wu, "unit", "better",
		    "meaning");
		for (i = 0; i < b->nmetrics; i++) {
			const struct catalog_metric *m = &b->metrics[i];

			col = printf("  %-*s  %-*s  %-6s  ", (int)wn, m->name, (int)wu, m->unit,
			    m->higher_better ? "higher" : "lower");
			cmd_wrap(stdout, *m->help ? m->help : "-", col,
			    2 + (int)wn + 2 + (int)wu + 2 + 6 + 2);
		}
	}
	if (b->nmembers > 0) {
		printf("\n  %zu points (a plan's `bench: %s` runs them all):\n", b->nmembers,
		    b->name);
		for (i = 0; i < b->nmembers; i++) {
			strbuf_reset(&s);
			member_words(&s, &b->members[i]);
			printf("    %s\n", s.buf);
		}
	}
	strbuf_release(&s);
}

static int
list_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CMD_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	const struct catalog_bench *b;
	struct catalog *cat = NULL;
	char *err = NULL, *agent = NULL;
	size_t i;
	int c, k, rc = CMD_EXIT_OK;

	while ((c = getopt_long(argc, argv, "hvq", longopts, NULL)) != -1)
		if ((c = cmd_common_option(&cmd_list, c, argv, NULL)) >= 0)
			return c;
	if ((agent = catalog_agent_path(&err)) == NULL || catalog_load(agent, &cat, &err) != 0) {
		log_error("%s", err);
		free(err);
		free(agent);
		return CMD_EXIT_ERROR;
	}
	log_verbose("benchmark catalogue: %zu benchmarks from %s", cat->nbenches, agent);
	if (optind == argc)
		for (i = 0; i < cat->nbenches; i++)
			print_short(&cat->benches[i]);
	for (k = optind; k < argc; k++) {
		if ((b = catalog_find(cat, argv[k])) == NULL) {
			size_t n;
			const char **names = catalog_bench_names(cat, &n);
			char *hint = ydoc_did_you_mean(argv[k], names, n);

			log_error("unknown benchmark '%s'%s", argv[k], *hint ? hint :
			    " (`fleetmark list` shows them all)");
			free(hint);
			free(names);
			rc = CMD_EXIT_USAGE;
			continue;
		}
		if (k > optind)
			printf("\n");
		print_long(b);
	}
	if (fflush(stdout) != 0)
		rc = CMD_EXIT_ERROR;
	catalog_free(cat);
	free(agent);
	return rc;
}

static const struct cmd_exit list_exits[] = {
	{ 0, "the catalogue was shown" },
	{ 1, "no agent to read it from (run make, or set FLEETMARK_AGENT)" },
	{ 2, "an unknown benchmark (with a suggestion)" },
	{ -1, NULL }
};

static const struct cmd_example list_examples[] = {
	{ "fleetmark list", "every benchmark: parameters with defaults, metrics with units" },
	{ "fleetmark list munmap lat_ctx", "those two in full" },
	{ "fleetmark list lmbench", "the points of the lmbench suite" },
	{ NULL, NULL }
};

static const struct cmd_help list_help = {
	"The benchmarks a plan can name, as the agent describes them (`fleetmark-agent "
	"list`, read from the native agent next to this program or $FLEETMARK_AGENT): "
	"for each, its parameters with their defaults (a plan's params set them; a "
	"list makes a matrix axis) and its metrics with their units and whether lower "
	"or higher is better.  With BENCH names, each of those in full: parameter "
	"types and choices, what every parameter and metric means, where the "
	"benchmark comes from, and a suite's points.",
	NULL, NULL, list_exits, list_examples,
	"fleetmark-plan(5), docs/agent.md (what each benchmark times)", 0
};

const struct cmd_entry cmd_list = {
	"list", "[BENCH...]",
	"the benchmark catalogue: parameters and defaults, metrics and units", list_main,
	&list_help
};
