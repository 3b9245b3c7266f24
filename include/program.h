/*
 * program.h: the user's own benchmarks, `bench: program` in a plan
 * (docs/own-benchmarks.md).
 *
 * Loading (program.c) reads one benchmark entry: `name:` (the name in
 * tables), `source:` (files next to the plan) or `command:` (a program
 * already on the host), `build:` (one shell line run in a scratch copy of
 * the sources), `program:` (the file the build makes, when it makes more
 * than one executable), `args:` (argv templates with {param}), `params:`
 * (as for built-in benchmarks) and `parse:` (rules of a regular expression
 * with named groups and the metrics they fill).  Regular expressions are
 * written in a Python-like dialect and translated to POSIX extended ones
 * (program_regex()), which the agent's libc runs on every architecture.
 *
 * Building (program-build.c) makes the binary for an architecture: with
 * the cross compiler `make agents` uses for it (static), cached under
 * the user's cache directory by the hash of the sources and the build
 * line, or on the host when it has a compiler and no cross compiler fits.
 * Deploying (program-build.c) puts it on a host in WORKDIR/programs/HASH/
 * by one exec-channel upload checked by SHA-256, as the agent is.
 *
 * Errors: 0 or -1 with a newly allocated message in *err ("FILE:LINE:COL:
 * message" for loading, the host's name for deploying).
 */
#ifndef FLEETMARK_PROGRAM_H
#define FLEETMARK_PROGRAM_H

#include <stddef.h>

#include "catalog.h"

struct ydoc_node;
struct transport;

#define PROGRAM_NAME_MAX	64	/* bytes of a program's or a source's name */
#define PROGRAM_MAX_RULES	16	/* as the agent allows */
#define PROGRAM_MAX_METRICS	32
#define PROGRAM_MAX_GROUPS	32
#define PROGRAM_MAX_ARGS	128
#define PROGRAM_MAX_SOURCE	(16 << 20)	/* bytes of all sources together */

/* One metric a rule fills from one of its groups. */
struct program_metric {
	char	*name;
	char	*unit;
	int	 higher_better;
	double	 scale;		/* the group's number times this (default 1) */
	int	 group;		/* its group in the translated expression, 1.. */
};

struct program_rule {
	char			*match;		/* as written in the plan */
	char			*ere;		/* POSIX ERE (program_regex()) */
	struct program_metric	*metrics;
	size_t			 nmetrics;
};

struct program {
	char			*name;		/* the name in tables */
	char			*command;	/* `command:`, or NULL */
	char			*build;		/* `build:`, or NULL */
	char			*binary;	/* `program:`, or NULL: found after the build */
	char			**sources;	/* paths on this machine */
	char			**source_names;	/* their names in the scratch copy */
	size_t			 nsources;
	char			**args;		/* templates */
	size_t			 nargs;
	struct program_rule	*rules;
	size_t			 nrules;
	char			 hash[65];	/* of the sources, build line and program */
	struct catalog_bench	 bench;		/* what the plan checks params
						 * and metrics against */
	const struct ydoc_node	*where;
};

/*
 * Load the `bench: program` entry e of the plan in file plan_file.  The
 * parameter names the plan gives (its `params:` keys) are checked against
 * the {param} of `args:`.  Returns 0 and a new program in *out.
 */
int	program_load(const struct ydoc_node *e, const char *plan_file,
	    struct program **out, char **err);
void	program_free(struct program *p);

/* The keys a `bench: program` entry may have (NULL-terminated). */
extern const char *const program_keys[];

/*
 * Translate a regular expression of the plan's dialect into a POSIX ERE:
 * (?P<name>...) and (?<name>...) named groups, (?:...), \d \D \s \S \w \W
 * (also inside brackets, the positive ones), \t, and \ before punctuation
 * for the character itself.  Lookaround, backreferences, lazy quantifiers,
 * \b and inline flags are refused.  On success *ere is the new expression
 * and names[0..*ngroups) the name of each group ("" for an unnamed one),
 * a new vector of new strings.  On failure -1 with the reason and the
 * 1-based character in *why (a new string).
 */
int	program_regex(const char *re, char **ere, char ***names, size_t *ngroups,
	    char **why);

/* --- builds and deploys (program-build.c) ------------------------------------ */

/*
 * The cross compiler for a Debian architecture, as `make agents` uses it
 * (musl-gcc for x86_64, ARCH-linux-gnu-gcc for the others), when it is
 * on PATH; else NULL.  A static string.
 */
const char	*program_cross_cc(const char *arch);

/*
 * Build p for arch on this machine with the cross compiler, static, in a
 * scratch copy of the sources; cached in the user's cache directory
 * (programs/HASH-ARCH/).  Returns 0 with the binary's path (a new string)
 * in *path, -1 with the compiler's first lines in *err, or 1 when no cross
 * compiler fits arch (nothing is set).
 */
int	program_build_local(const struct program *p, const char *arch, char **path,
	    char **err);

/*
 * Put p on the host of t for architecture arch (Debian's name) in
 * dir/programs/ (dir: the agent's work directory, "~/" expanded):
 * a `command:` needs nothing; else the cross-built binary is uploaded
 * (skipped when the host holds it intact), or, when no cross compiler
 * fits, the sources are sent and built there with its cc.  Returns 0 with
 * the path or command the agent runs in *path (a new string) and in *how
 * what it took ("a command", "uploaded", "already there", "built there":
 * a static string), or a
 * negative TRANSPORT_E* code with a new message naming the host in *err
 * (TRANSPORT_EREMOTE: the build failed, its first error lines said).
 */
int	program_deploy(struct transport *t, const struct program *p, const char *arch,
	    const char *dir, char **path, const char **how, char **err);

#endif /* FLEETMARK_PROGRAM_H */
