/*
 * nightly.h: the nightly verdict against history (`fleetmark run
 * --baseline history`, docs/nightly.md): tonight's run judged, series by
 * series, against the current segment of the plan's history, with a
 * false-discovery step over every row and a confirmation round for the
 * rows that would fail the night.
 *
 *	struct nightly_opts o;
 *	struct nightly *n;
 *
 *	nightly_opts_init(&o, plan);
 *	o.source = "results";			(or the --push archive)
 *	if ((r = nightly_judge(rundir, &o, &n, &err)) != 0) ...
 *	if (nightly_to_confirm(n) > 0) {
 *		... run the rows' points again (NIGHTLY_TO_CONFIRM: host,
 *		    variant, point), repetitions after the plan's repeat ...
 *		nightly_confirm(n, rundir, &err);
 *	}
 *	nightly_render(n, REPORT_TEXT, stdout, &err);
 *	regressions = nightly_regressions(n);
 *	nightly_free(n);
 *
 * A row is a series of tonight's run (host, variant, bench, params,
 * metric), judged by verdict.h:
 *
 *	history		the series' current segment (history.h: the nights
 *			since its last change point, at most o->nights of
 *			them) has at least VERDICT_MIN_NIGHTS nights:
 *			verdict_nights(), tonight's mean against the nights'
 *			means with a prediction interval over nights, the
 *			variance moderated by the prior that the history
 *			rows of the same host give (verdict_prior_fit(),
 *			when there are VERDICT_PRIOR_MIN_SERIES of them),
 *			and the trend rule
 *	pooled		fewer nights (1 or 2: a new plan, host or point) on
 *			a host with a prior: verdict_nights() against those
 *			nights with the prior's variance (how the host's
 *			nights vary, which one night's trials cannot say)
 *	fallback	fewer nights and no prior: verdict_judge() of
 *			tonight's trials against the newest night's, at
 *			VERDICT_FALLBACK_MARGIN times the threshold, and it
 *			fails the night only when the change itself reaches
 *			that (the trials know nothing of how nights vary)
 *	new		no earlier night has the series: not judged
 *
 * Then a row that cannot be judged (verdict_judgeable(): fewer than 3
 * trials a side, or noisy) says so, with the trials that would be needed
 * or, for a spread above the threshold, that more would not help
 * (verdict_needed()), and never fails the night; verdict_adjust() is the Benjamini-Hochberg
 * step over the tested rows at o->fdr.  A row held worse whose metric is
 * one of o->metrics (every metric when there are none) would fail the
 * night.  Every test is one-sided (verdict_nights()'s one_sided): only
 * worse fails a night, better is reported.  How a row comes to fail
 * depends on where it can be measured again:
 *
 *	fresh	its host has a `boot:` entry NIGHTLY_BOOT_TEST (tonight's
 *		kernel) and o->confirm > 0: a row bad at its own level
 *		(verdict_nights()'s kind, the magnitude gate included; no
 *		false-discovery step; held as below when it has fewer than
 *		VERDICT_MIN_NIGHTS nights, whose baseline the round would
 *		share too closely) is "to confirm"; the caller boots the
 *		host afresh and measures it again; nightly_confirm() judges
 *		the round's trials alone against the same baseline by their
 *		one-sided step test (significance alone: the gate was applied
 *		once, at the screen), then Benjamini-Hochberg over the fresh
 *		confirmations at o->fdr: "confirmed" when held, else
 *		"vanished".  The boot the night shared is not in the evidence.
 *	same	otherwise: a row must be held by the Benjamini-Hochberg step
 *		at o->fdr / 2 (the one-sided test at the level the two-sided
 *		one spent on worse: a round in the same boot cannot remove a
 *		night's false alarm, so the level must not double); with
 *		o->confirm rounds it is measured again in the night's boot
 *		and judged by the whole rule again ("confirmed" when bad),
 *		which tells a trial's chance from a change that lasts the
 *		night, not a change of the machine's state from one of the
 *		kernel; the verdict says so in words.
 *
 * Only confirmed rows (or, without confirmation rounds, held ones) are
 * regressions; a fresh row whose round measured nothing (its host did
 * not come back) is a regression only when held as a same-boot row is.
 *
 * Tonight's run is left out of the history (o->exclude), whether it is in
 * the source or not.  When the night before tonight and tonight both
 * carry a commit (run.json "commit"), each regression comes with the
 * `git bisect` lines that would find it.
 *
 * Errors: 0; NIGHTLY_ENOHISTORY when the source has no finished night of
 * the plan (a first night: *err says why, and the caller notes it as
 * `latest` does); or -1; each with a new message in *err.
 */
#ifndef FLEETMARK_NIGHTLY_H
#define FLEETMARK_NIGHTLY_H

/*
 * The inventory's `boot:` entry that boots tonight's kernel: a host that
 * has one is measured again after a fresh boot of it (nightly_row.fresh).
 */
#define NIGHTLY_BOOT_TEST	"test"

/* Where a confirmation measured, in words (verdict.json "confirmation"."where"). */
#define NIGHTLY_WHERE_FRESH	"fresh boot"
#define NIGHTLY_WHERE_SAME	"same boot"

#include <stddef.h>
#include <stdio.h>

#include "report.h"
#include "serieskey.h"
#include "verdict.h"

struct fleet;
struct plan;

#define NIGHTLY_ENOHISTORY	(-2)

struct nightly_opts {
	const char	*source;	/* results directory or archive URL */
	const char	*cache;		/* history's cache (history_opts.cache) */
	const char	*plan;		/* the plan's name */
	const char	*plan_file;	/* for the bisect lines */
	double		 threshold;	/* percent */
	size_t		 nights;	/* of the segment, at most (regression.nights) */
	int		 confirm;	/* rounds (regression.confirm) */
	double		 fdr;		/* regression.fdr */
	int		 repeat;	/* the plan's: later repetitions are confirmation */
	char *const	*metrics;	/* regression.metrics "BENCH.METRIC"; none: all */
	size_t		 nmetrics;
	const struct fleet *fleet;	/* the inventory (NULL: every host's
					 * confirmation in the same boot) */
};

/* From the plan: its name, file, threshold (5% without regression:),
 * nights, confirm, fdr, repeat and metrics; no source. */
void	nightly_opts_init(struct nightly_opts *o, const struct plan *p);

enum nightly_base {
	NIGHTLY_HISTORY,	/* the segment's nights */
	NIGHTLY_POOLED,		/* too few nights (1 or 2), judged with the
				 * host's pooled night variance */
	NIGHTLY_FALLBACK,	/* too few nights, no pooled variance: the
				 * newest night's trials */
	NIGHTLY_NEW,		/* no earlier night */
};

enum nightly_state {
	NIGHTLY_PASS,		/* judged, no regression */
	NIGHTLY_CANNOT,		/* cannot judge */
	NIGHTLY_UNJUDGED,	/* new: nothing to judge against */
	NIGHTLY_TO_CONFIRM,	/* would fail the night: to be measured again */
	NIGHTLY_CONFIRMED,	/* held in the confirmation round: a regression */
	NIGHTLY_VANISHED,	/* did not hold: not a regression */
	NIGHTLY_FAILED,		/* would fail, and no confirmation round: a regression */
};

struct nightly_row {
	struct series_key key;	/* owned */
	char	*point;		/* the plan's point id (trial keys), for a round */
	int	 higher;
	int	 counts;	/* a metric of the plan's regression.metrics */
	enum nightly_base base;
	double	 threshold;	/* the one applied (wider in a fallback) */
	double	*good;		/* the nights' means, or the newest night's trials */
	size_t	 ngood;
	double	*nights;	/* a fallback's segment nights' means (1 or 2) */
	size_t	 nnights;
	char	*nights_from;	/* and the run id of the first of them */
	char	*from, *to;	/* run ids of the baseline's first and last night */
	char	*good_ref;	/* the newest night, as a bisect-run --baseline REF */
	char	*good_commit;	/* the newest night's commit, or NULL */
	double	*now;		/* tonight's trials (the plan's repetitions) */
	size_t	 nnow;
	struct verdict_row vr;
	struct verdict_prior prior;	/* its host's pooled variance (df 0: none) */
	double	 gsd;		/* the good side's spread, for the trials needed */
	double	*again;		/* the confirmation round's trials */
	size_t	 nagain;
	struct verdict cv;	/* their verdict (NIGHTLY_CONFIRMED, _VANISHED) */
	int	 fresh;		/* measured again after a fresh boot (its host
				 * has a NIGHTLY_BOOT_TEST entry, o.confirm > 0) */
	double	 cp;		/* its one-sided p towards worse (NAN: none) */
	double	 cq;		/* its Benjamini-Hochberg q over the confirmations */
	enum nightly_state state;
};

struct nightly {
	char	*source;	/* without credentials */
	char	*plan;
	char	*commit;	/* tonight's, or NULL */
	struct nightly_opts o;	/* as given (borrowed strings) */
	size_t	 nruns;		/* nights in the history */
	struct nightly_row *rows;	/* by bench, params, metric, host */
	size_t	 n;
	size_t	 tested;	/* rows that entered a BH step */
	size_t	 tested_counted;	/* of them, the rows that can fail the night
					 * (their own step; the others have theirs) */
	int	 confirmed;	/* nightly_confirm() was called */
};

/* Judge tonight's run directory rundir (see above) into a new *out. */
int	nightly_judge(const char *rundir, const struct nightly_opts *o, struct nightly **out,
	    char **err);

/* Rows to confirm (NIGHTLY_TO_CONFIRM). */
size_t	nightly_to_confirm(const struct nightly *n);

/*
 * Read rundir's confirmation trials (repetitions after o.repeat) and
 * judge each row to confirm by them (see above).  Rows without any are
 * "vanished" only when the round ran: a row whose round has no trial at
 * all (the host failed) stays a regression.  0 or -1 with *err.
 */
int	nightly_confirm(struct nightly *n, const char *rundir, char **err);

/* The regressions: confirmed, or failed without a confirmation round. */
int	nightly_regressions(const struct nightly *n);

/*
 * Write the verdict: text (a header line, a row per series, then a line
 * per regression, vanished change and row that cannot be judged, and the
 * bisect lines), md (the same as a table), json (an object with the
 * settings and an array of rows), or html (one <p> line); csv is refused.
 * 0, or -1 with *err when out cannot be written.
 */
int	nightly_render(const struct nightly *n, enum report_format f, FILE *out, char **err);

/*
 * The plan of the confirmation round: *cp a shallow copy of p with the
 * points and variants of the rows to confirm, `confirm` rounds of
 * `repeat` trials numbered after the night's (plan.h's rep_base),
 * interleaved; csel (f->nhosts flags) the hosts of those rows among sel
 * (NULL: all).  cp borrows from p: free only cp->points and
 * cp->variants.
 */
void	nightly_round_plan(const struct nightly *n, const struct plan *p,
	    const struct fleet *f, const unsigned char *sel, struct plan *cp,
	    unsigned char *csel);

/*
 * The verdict into the run directory dir: the text appended to
 * report.txt, verdict.json and verdict.md (replaced atomically, without
 * fsync: they can be made again), and the html line at the top of
 * report.html's body.  0, or -1 with *err.
 */
int	nightly_write(const struct nightly *n, const char *dir, char **err);

void	nightly_free(struct nightly *n);	/* accepts NULL */

#endif /* FLEETMARK_NIGHTLY_H */
