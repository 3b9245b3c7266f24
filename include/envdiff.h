/*
 * envdiff.h: the env facts (hosts/NAME.json, the agent's `env`) that
 * differ between two hosts, or one host on two nights: what a report
 * shows first when it compares sides (docs/environment.md).
 *
 * Facts are flattened to dotted keys ("sysctl.kernel.randomize_va_space",
 * "kernel_config.options.CONFIG_HZ", "uname.release"), values to text
 * (strings as they are, numbers and booleans as JSON writes them, null as
 * "null", arrays as compact JSON).  A few facts that change by themselves
 * are not compared: loadavg, mhz (the current clock where the host has no
 * cpufreq) and uname.nodename (the hosts' names, already in the pair).
 */
#ifndef FLEETMARK_ENVDIFF_H
#define FLEETMARK_ENVDIFF_H

#include <stddef.h>

#include <jansson.h>

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
