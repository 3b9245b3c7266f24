/*
 * abdir.h: an ab directory and what `fleetmark ab` does with it
 * (docs/ab.md; src/ab/, the statistics are ab.h's): the directory made,
 * or taken up again with --resume, with its ab.json; each host's
 * sequence of boots, in a child process of its own; the verdict over
 * the boots done.
 *
 * On disk, DIR/ab.json (the plan, the hosts, the sides, the order, each
 * host's sequence of boots and their states), DIR/ab.txt (the verdict)
 * and DIR/boots/HOST-NN-SIDE/ (a run directory a boot, rundir.h).
 *
 * Functions that can fail return 0 or the command's exit status
 * (CMD_EXIT_*, cmd.h), or -1, with a new message in *err.
 */
#ifndef FLEETMARK_ABDIR_H
#define FLEETMARK_ABDIR_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "ab.h"
#include "report.h"

struct catalog;
struct fleet;
struct fleet_host;
struct plan;

/* A side as given: its command, its label and the kernel it must run. */
struct ab_side_opt {
	const char	*cmd;
	const char	*label;
	const char	*expect;
};

/* What the command was asked for. */
struct ab_cmdopts {
	const char	*plan_file, *fleet_file, *host_spec, *outdir, *resume;
	struct ab_side_opt side[2];
	const char	*order_s;
	long long	 boots;
	double		 thr;		/* < 0: the plan's, else VERDICT_THRESHOLD */
	enum report_format fmt;
	int		 dry, quiet;
};

/* What a command works on: the plan, the fleet, the hosts and ab.json. */
struct ab_ctx {
	struct catalog	*cat;
	struct plan	*p;
	struct fleet	*f;
	char		*dir;		/* the ab directory */
	json_t		*state;		/* ab.json */
	const struct fleet_host **hosts;
	size_t		 nhosts;
	int		 runlock;	/* fd of AB_RUNLOCK, or -1 */
};

/* Load dir's ab.json into *out (0), or -1 with *err. */
int	ab_state_load(const char *dir, json_t **out, char **err);

/* The plan, the catalogue and the fleet into c; the hosts of host_spec. */
int	ab_load_inputs(const struct ab_cmdopts *o, const char *plan_file,
	    const char *fleet_file, const char *host_spec, struct ab_ctx *c, char **err);

/* A new ab directory under o->outdir with its ab.json, locked. */
int	ab_new_setup(const struct ab_cmdopts *o, struct ab_ctx *c, enum ab_order order,
	    double thr, char **err);

/* --resume: the directory o->resume taken up again, locked (not with o->dry). */
int	ab_resume_setup(const struct ab_cmdopts *o, struct ab_ctx *c, char **err);

/* --dry-run: print each host's sequence and its machine time. */
int	ab_dry_run(const struct ab_cmdopts *o, const struct ab_ctx *c, enum ab_order order,
	    uint64_t seed);

/* Run each host's sequence in a child of its own: the worst exit status. */
int	ab_run_hosts(const struct ab_ctx *c, int quiet);

/* Judge and print the boots done, write ab.txt: rows B worse, or -1. */
int	ab_verdict(const struct ab_ctx *c, enum report_format fmt, char **err);

void	ab_ctx_release(struct ab_ctx *c);

#endif /* FLEETMARK_ABDIR_H */
