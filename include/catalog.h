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
	int			 has_min, has_max;	/* CATALOG_INT, CATALOG_CPUS: */
	long long		 min, max;		/* the values accepted */
};

/* A limit on the product of two parameters, each counted as at least 1. */
struct catalog_limit {
	char		*a, *b;
	long long	 max;
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
	struct catalog_limit	*limits;
	size_t			 nlimits;
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
 * CPU counts (an integer or N%), enum choices, and the range the
 * catalogue gives (an N% count only when its host is known, so not here).
 * Returns 0, or -1 with the reason (without position: "'x' is not an
 * integer", "5000 is out of range (2 to 1024)") in *why.
 */
int	catalog_check_value(const struct catalog_param *p, const char *value, char **why);

/*
 * p's range for people, "2 to 1024", "at least 1M", "at most 64" (a new
 * string), or NULL when it has none.
 */
char	*catalog_range_text(const struct catalog_param *p);

/*
 * An integer value as the agent reads it (K, M, G: powers of 1024) into
 * *out; -1 when it is not one (an N% count is not).
 */
int	catalog_int_value(const char *value, long long *out);

/*
 * Check the limits of b against one point's values (keys[i] = vals[i],
 * every parameter; a value that is no integer, such as N%, is not
 * checked).  Returns 0, or -1 with the reason ("threads x accesses is 1024
 * x 8192, more than 4194304") in *why and the index of the limit's second
 * parameter in keys in *which (for the message's position).
 */
int	catalog_check_limits(const struct catalog_bench *b, char *const *keys,
	    char *const *vals, size_t n, size_t *which, char **why);

/* Names, for suggestions: a new array of n borrowed pointers. */
const char	**catalog_bench_names(const struct catalog *cat, size_t *n);
const char	**catalog_param_names(const struct catalog_bench *b, size_t *n);
const char	**catalog_metric_names(const struct catalog_bench *b, size_t *n);

#endif /* FLEETMARK_CATALOG_H */
