/*
 * envdiff.h: the env facts (hosts/NAME.json, the agent's `env`) that
 * differ between two hosts, or one host on two nights: what a report
 * shows first when it compares sides (docs/environment.md).
 *
 * What a fact is, one rule for every place that shows facts (the
 * ENVIRONMENT DIFFERS lines and the environment grid of a report, the
 * history's changes of env, the HTML page's table of hosts):
 *   - a fact is a leaf of the env object that is not an object, its key
 *     the dotted path to it ("sysctl.kernel.randomize_va_space",
 *     "kernel_config.options.CONFIG_HZ", "uname.release"); the top-level
 *     "type" (the record's kind) is not a fact;
 *   - its value as text: a string as it is; an integer exactly ("42");
 *     a real as numfmt_shortest() writes it ("2400" for 2400.0, "2.5");
 *     a boolean, null and an array as compact JSON writes them ("true",
 *     "null", "[0.5,0.25,0.1]");
 *   - at most ENVDIFF_MAX_FACTS of one object, in its order.
 * A few facts that change by themselves are shown but not compared:
 * loadavg, mhz (the current clock where the host has no cpufreq) and
 * uname.nodename (the hosts' names, already in the pair).
 */
#ifndef FLEETMARK_ENVDIFF_H
#define FLEETMARK_ENVDIFF_H

#include <stddef.h>

#include <jansson.h>

#include "strv.h"

#define ENVDIFF_MAX_FACTS	4096	/* facts of one env object looked at */

/* One fact that differs: a or b is "(none)" when one side lacks it. */
struct envdiff_fact {
	char	*key;
	char	*a, *b;
};

/* The facts that differ, in the order of a's keys, then b's extra ones. */
struct envdiff {
	struct envdiff_fact	*facts;
	size_t			 n;
};

/*
 * The facts of env object o (none when o is NULL or not an object), their
 * keys appended to keys and their texts to vals, in o's order.
 */
void	envdiff_flatten(const json_t *o, struct strv *keys, struct strv *vals);

/* Compare two env objects into *d (released with envdiff_release()); NULL
 * objects have no facts. */
void	envdiff_compare(const json_t *a, const json_t *b, struct envdiff *d);

/*
 * The same for host ha of run directory da against hb of db (their
 * hosts/NAME.json).  0, or -1 with a new *err when one cannot be read
 * (*d then empty).
 */
int	envdiff_dirs(const char *da, const char *ha, const char *db, const char *hb,
	    struct envdiff *d, char **err);

void	envdiff_release(struct envdiff *d);

/* v cut to at most max display bytes, "..." at the end when cut: a new string. */
char	*envdiff_short(const char *v, size_t max);

#endif /* FLEETMARK_ENVDIFF_H */
