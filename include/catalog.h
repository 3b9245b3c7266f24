/*
 * catalog.h: the benchmark catalogue, as the agent describes it.
 *
 * `fleetmark-agent list --json` prints one "bench" line per benchmark
 * (docs/agent-protocol.md): its parameters with types, defaults and enum
 * choices, its metrics with units and directions, and for a suite such as
 * lmbench the member points.  Plans are validated against this catalogue,
 * so the controller never carries its own copy of what the agent can run.
 *
 * Errors: 0 or -1 with a newly allocated message in *err (the caller
 * frees it); outputs are set only on success.
 */
#ifndef FLEETMARK_CATALOG_H
#define FLEETMARK_CATALOG_H

#include <stddef.h>

#define CATALOG_MAX_OUTPUT	(4 * 1024 * 1024)	/* bytes read from `list` */
#define CATALOG_TIMEOUT_MS	20000			/* for `list` to finish */

enum catalog_ptype {
	CATALOG_INT,		/* integer, optional K/M/G suffix */
	CATALOG_CPUS,		/* integer, or N% of the host's CPUs */
	CATALOG_STRING,		/* any text */
	CATALOG_ENUM,		/* one of choices[] */
};

struct catalog_param {
	char			*name;
	enum catalog_ptype	 type;
	char			*def;		/* default, as text */
	char			*choices;	/* CATALOG_ENUM: "a|b|c" */
	char			*help;		/* what it means, for people; may be "" */
};

struct catalog_metric {
	char	*name;
	char	*unit;
	int	 higher_better;
	char	*help;		/* what it measures, for people; may be "" */
};

/* One point of a suite: a benchmark and "key=value" words. */
struct catalog_member {
	char	*bench;
	size_t	 nparams;
	char	**keys;
	char	**vals;
};

struct catalog_bench {
	char			*name;
	char			*summary;
	char			*from;		/* where it comes from ("lmbench lat_ctx
						 * (...)"), may be "" */
	struct catalog_param	*params;
	size_t			 nparams;
	struct catalog_metric	*metrics;
	size_t			 nmetrics;
	struct catalog_member	*members;	/* suites only */
	size_t			 nmembers;	/* 0: not a suite */
};

struct catalog {
	char			*source;	/* where it came from, for messages */
	struct catalog_bench	*benches;
	size_t			 nbenches;
};

/*
 * Parse the JSON lines of `list --json` (`len` bytes of `text`); lines
 * whose type is not "bench" are ignored.  `source` names the origin.
 */
int	catalog_parse(const char *source, const char *text, size_t len,
	    struct catalog **out, char **err);

/*
 * Run `AGENT list --json` (bounded in time and output) and parse it.
 */
int	catalog_load(const char *agent, struct catalog **out, char **err);

/*
 * The native agent this controller runs for its catalogue:
 * $FLEETMARK_AGENT, else fleetmark-agent next to the running binary.
 * Returns a new string, or NULL with *err set when there is none.
 */
char	*catalog_agent_path(char **err);

void	catalog_free(struct catalog *cat);

/* Lookups; NULL when absent. */
const struct catalog_bench	*catalog_find(const struct catalog *cat, const char *name);
const struct catalog_param	*catalog_find_param(const struct catalog_bench *b,
				    const char *name);
const struct catalog_metric	*catalog_find_metric(const struct catalog_bench *b,
				    const char *name);

/*
 * Check a value for parameter p as the agent will: integers (with K/M/G),
 * CPU counts (an integer or N%), enum choices.  Returns 0, or -1 with the
 * reason (without position: "'x' is not an integer") in *why.
 */
int	catalog_check_value(const struct catalog_param *p, const char *value, char **why);

/* Names, for suggestions: a new array of n borrowed pointers. */
const char	**catalog_bench_names(const struct catalog *cat, size_t *n);
const char	**catalog_param_names(const struct catalog_bench *b, size_t *n);
const char	**catalog_metric_names(const struct catalog_bench *b, size_t *n);

#endif /* FLEETMARK_CATALOG_H */
