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

#include <stdio.h>

#include "ab.h"
#include "report.h"

struct fleet;
struct history;
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
	int		 same;		/* qualify: -B is -A (an A/A run), recorded */
	const char	*order_s;
	long long	 boots;
	int		 boots_set;	/* --boots was given */
	double		 thr;		/* < 0: the plan's, else VERDICT_THRESHOLD */
	enum report_format fmt;
	int		 dry, quiet;
	const char	*new_only;	/* the first option given that --resume refuses */
	const char	*push;		/* qualify: the archive the records go to too */
};

/*
 * What a command works on: the plan, the fleet, the hosts, the ab
 * directory, its ab.json and its run lock.  Made empty by ab_ctx_new(),
 * filled by ab_load_inputs() and one of the two setups, freed with
 * ab_ctx_free() (which releases the lock; NULL is fine).
 */
struct ab_ctx;

struct ab_ctx	*ab_ctx_new(void);
void		 ab_ctx_free(struct ab_ctx *c);

/* The ab directory, once set up (NULL before). */
const char	*ab_ctx_dir(const struct ab_ctx *c);

/*
 * The plan, the catalogue and the fleet into c; the hosts of host_spec
 * (names or @labels).  0, or CMD_EXIT_USAGE (a plan or fleet that does
 * not load, an unknown host) or CMD_EXIT_ERROR with *err.
 */
int	ab_load_inputs(const char *plan_file, const char *fleet_file,
	    const char *host_spec, struct ab_ctx *c, char **err);

/*
 * After ab_load_inputs(): a new ab directory under o->outdir, with its
 * ab.json (o's sides, order, boots a side, and threshold: o->thr, else
 * the plan's, else VERDICT_THRESHOLD), locked.  0 or CMD_EXIT_ERROR.
 */
int	ab_new_setup(const struct ab_cmdopts *o, struct ab_ctx *c, enum ab_order order,
	    char **err);

/*
 * --resume: the directory o->resume taken up again (its hosts, and its
 * plan and fleet unless o names them), locked unless o->dry.  Its ab.json
 * and directory must be the user's own and written by no one else, and
 * o's sides those it recorded; its own are never run.  0, or
 * CMD_EXIT_USAGE or CMD_EXIT_ERROR with *err, nothing written.
 */
int	ab_resume_setup(const struct ab_cmdopts *o, struct ab_ctx *c, char **err);

/*
 * Both sides (o's -A and -B) make sense for every host of c (each parsed
 * and resolved: a kexec's syntax, a `boot:` entry every host has, no kexec
 * of this machine): 0, or CMD_EXIT_USAGE with *err, before anything is
 * written or rebooted.  Contacts no host (ab/side.c).
 */
int	ab_check_sides(const struct ab_cmdopts *o, const struct ab_ctx *c, char **err);

/* --dry-run, after ab_load_inputs(): each host's sequence and machine time. */
int	ab_dry_run(const struct ab_cmdopts *o, const struct ab_ctx *c, enum ab_order order);

/*
 * Run each host's sequence from its first boot not done, in a child of
 * its own; SIGINT and SIGTERM are passed on to them.  *code: the worst
 * of their exit statuses (interrupted first, then an error, then a
 * failure).  Then ab.json, as the children left it, is read again: -1
 * with *err when it cannot be.
 */
int	ab_run_hosts(struct ab_ctx *c, int quiet, int *code, char **err);

/*
 * Judge the boots done, print the table in fmt and write ab.txt.  The
 * number of counted rows where B is worse (> 0: exit 4), or -1 with *err.
 */
int	ab_verdict(const struct ab_ctx *c, enum report_format fmt, char **err);

/*
 * `fleetmark qualify` (docs/qualify.md, src/ab/qualify.c): an A/A ab,
 * both sides the same, tells what each host can see.
 */

/* One row of the boots done, judged as ab_verdict() judges it. */
struct ab_qrow {
	char		*host, *variant, *bench, *params, *metric, *unit;
	int		 higher;
	double		 trials;	/* trials a boot (the components' r0) */
	struct ab_judgement j;
};

/*
 * The boots done of c judged at threshold thr, printing nothing: the
 * rows into *out, *n of them (ab_qrows_free()).  0, or -1 with *err.
 */
int	ab_judge_dir(const struct ab_ctx *c, double thr, struct ab_qrow **out, size_t *n,
	    char **err);
void	ab_qrows_free(struct ab_qrow *rows, size_t n);

/* Where a host's qualification is kept: OUTDIR/qualify/HOST.json. */
#define AB_QUALIFY_DIR	"qualify"
#define AB_QUALIFY_JSON	"qualify.json"

/*
 * After an A/A run of ab_run_hosts(): judge it, print per host x row the
 * trial and boot sd (and the night sd of h's nights when h is not NULL),
 * the change `boots` boots a side detect, and what the threshold takes
 * (fmt), write DIR/qualify.json and each host's record under
 * o->outdir/qualify/.  secs: the wall time of the boots, for the cost of
 * a boot.  A row judged worse is a warning.  0, or -1 with *err.
 */
int	ab_qualify_report(const struct ab_cmdopts *o, const struct ab_ctx *c, double secs,
	    const struct history *h, char **err);

/*
 * --history SOURCE (a results directory or an archive, history.h): the
 * nights of c's plan on c's hosts into a new *out, before anything
 * reboots.  0, or CMD_EXIT_USAGE (no night of the plan there, an unknown
 * host) or CMD_EXIT_ERROR with *err.
 */
int	ab_qualify_history(const struct ab_ctx *c, const char *source, struct history **out,
	    char **err);

/*
 * Before the first reboot of an ab, from each host's record
 * (o->outdir/qualify/HOST.json): without --boots (o->boots_set 0), the
 * boots a side become the most that a counted row of the plan on any host
 * needs to detect the threshold, of the rows that need AB_AUTO_BOOTS or
 * fewer, when that is more than o->boots (an info line says so); then a
 * warning for each row whose record says o->boots boots a side cannot
 * detect the threshold, with the boots it would take.  A record that
 * does not read is a warning too; nothing fails.
 */
#define AB_AUTO_BOOTS	12
void	ab_qualify_warn(struct ab_cmdopts *o, const struct ab_ctx *c);

/*
 * Before a run of plan p that is judged (the plan has a regression: or
 * the run a baseline), on the hosts of f that sel selects (NULL: all):
 * for each host with a record in outdir/qualify/HOST.json or in the
 * archive at url (NULL: none; the newer of the two), a warning for
 * each counted row of p whose change a night detects (the record's
 * night_detectable) is above thr, saying what an ab would take.  Nothing
 * fails.
 */
void	ab_qualify_warn_nights(const char *outdir, const char *url, const struct plan *p,
	    const struct fleet *f, const unsigned char *sel, double thr);

/* Whether dir is an ab directory (has an ab.json). */
int	ab_is_dir(const char *dir);

/*
 * The report of the ab directory dir (`fleetmark report DIR`), in o's
 * format, to out: the report layer's tables (report.h) of the boots done,
 * each boot's run read as a series of its own (one row per boot in the
 * lmbench tables, the side's label in the OS column, the boot's mean or
 * with o->aggregate median its median), then the verdict's two tables.
 * o->extra is not used.  Reads only files: ab.json (need not be the
 * user's: nothing it says is run) and the boots' run directories.  The
 * number of counted rows where B is worse, or -1 with *err.
 */
int	ab_report(const char *dir, const struct report_opts *o, FILE *out, char **err);

#endif /* FLEETMARK_ABDIR_H */
