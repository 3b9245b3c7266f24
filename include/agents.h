/*
 * agents.h: the static agent binaries this controller can deploy.
 *
 * An agent directory holds ARCH/fleetmark-agent for each architecture
 * (what `make agents` writes to build/agents/).  Directories are searched
 * in this order, the first one holding an architecture winning:
 *
 *	$FLEETMARK_AGENTS
 *	<directory of this program>/agents		(a build tree: build/agents)
 *	<directory of this program>/../lib/fleetmark/agents	(installed)
 *	FLEETMARK_LIBEXECDIR/agents			(if defined when compiled)
 *
 * Architecture names are Debian's (x86_64, aarch64, armhf, ppc64,
 * ppc64el, s390x); agents_arch_for_machine() maps `uname -m` to them.
 *
 * Errors: 0 or -1 with a newly allocated message in *err.
 */
#ifndef FLEETMARK_AGENTS_H
#define FLEETMARK_AGENTS_H

#include <stddef.h>

#define AGENTS_BINARY	"fleetmark-agent"

struct agent_bin {
	char	*arch;
	char	*path;
	long long size;
};

struct agent_set {
	struct agent_bin *bins;		/* sorted by arch */
	size_t		  n;
	char		**searched;	/* the directories looked in, in order */
	size_t		  nsearched;
};

/* Find every agent binary.  Never fails; n may be 0. */
struct agent_set *agents_find(void);
void	agents_free(struct agent_set *s);

/* The binary for arch (a Debian arch or a `uname -m` name), or NULL. */
const struct agent_bin *agents_lookup(const struct agent_set *s, const char *arch);

/*
 * The Debian architecture name for a `uname -m` machine name: x86_64 and
 * amd64 -> x86_64, aarch64 and arm64 -> aarch64, armv7l/armv6l/armv8l ->
 * armhf, ppc64 -> ppc64, ppc64le -> ppc64el, s390x -> s390x; any other
 * name is returned unchanged.
 */
const char	*agents_arch_for_machine(const char *machine);

/*
 * The top of the source tree this program was built in, when it runs
 * from one (<top>/build/fleetmark with <top>/Makefile and <top>/agent/),
 * as a new string; else NULL.
 */
char	*agents_source_tree(void);

#endif /* FLEETMARK_AGENTS_H */
