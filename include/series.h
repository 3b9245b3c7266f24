/*
 * series.h: the series store: the ok trial values of trials.jsonl files
 * grouped into series by struct series_key (serieskey.h), read through
 * trialread.h.  history, nightly, bisect-run and the numbers `run` prints
 * at its end all take their series from here, keyed the same way.
 *
 *	struct series_store *st = series_store_new(SERIES_VALUES);
 *
 *	if (series_store_read(st, path, TRIAL_REP, NULL, NULL, NULL, &err) != 0)
 *		...
 *	for (i = 0; i < series_store_n(st); i++) {
 *		const struct series *s = series_store_at(st, i);
 *		... s->key.host, s->key.params, s->n, s->mean, series_sd(s) ...
 *	}
 *	series_store_free(st);
 *
 * What a series holds.  A line goes into a series when its status is
 * "ok" and it has a metric and a finite value; other lines are only handed
 * to the caller's callback.  The key is the line's host, variant, bench,
 * params (series_params_text() of the line's params, in the line's order),
 * metric and unit (the unit, the direction, the params and the point are
 * the first line's).  Every series has its count, mean and sum of squared
 * deviations, updated line by line in the order of the lines (Welford), so
 * two reads of the same lines give the same bits; with SERIES_VALUES it
 * keeps each value too, with its repetition and its place among all the
 * values the store took.  Series are in the order their first line came.
 *
 * A trial run again is not replaced: each ok line is a value (reports,
 * which do replace one, keep their own per-cell arrays for speed).
 */
#ifndef FLEETMARK_SERIES_H
#define FLEETMARK_SERIES_H

#include <stddef.h>

#include "serieskey.h"
#include "strbuf.h"
#include "trialread.h"

/* What a store keeps besides the count, mean and spread: series_store_new()'s flags. */
enum series_flag {
	SERIES_VALUES	= 1 << 0,	/* each value: v, rep and seq */
	SERIES_SAMPLES	= 1 << 1,	/* and its samples (x); implies SERIES_VALUES */
	SERIES_NOTES	= 1 << 2,	/* and its notes (x); implies SERIES_VALUES */
};

/* What a value has besides the number (SERIES_SAMPLES, SERIES_NOTES). */
struct series_extra {
	double	*samples;	/* NULL when the line had none */
	size_t	 nsamples;
	char	**notes;	/* NULL when the line had none */
	size_t	 nnotes;
};

/* One series.  Everything is the store's; read it, do not change it. */
struct series {
	struct series_key key;	/* owned */
	size_t	 nparams;	/* the params of the first line, as text */
	char	**pkeys, **pvals;
	char	*point;		/* the point id of its first line's trial key
				 * ("VARIANT/POINT-ID/REP"), "" when the read
				 * did not ask for TRIAL_KEY */
	int	 higher;	/* its first line's: higher is better */
	size_t	 n;		/* values taken */
	double	 mean, m2;	/* Welford's running mean and sum of squares */
	/* SERIES_VALUES: the n values in the order of the lines */
	double	*v;
	long long *rep;		/* each one's "rep" (0 unless the read asked TRIAL_REP) */
	size_t	*seq;		/* each one's place among all values the store took */
	struct series_extra *x;	/* SERIES_SAMPLES or SERIES_NOTES: each one's */
	size_t	 cap;
};

struct series_store;

/* A new empty store keeping what flags (enum series_flag, or'ed) say. */
struct series_store *series_store_new(unsigned int flags);

/*
 * Read the trials.jsonl at path into st, with trialread_file() and the
 * fields (enum trial_field: TRIAL_REP, TRIAL_KEY, TRIAL_LENIENT, or what
 * also reads) the caller asks for besides the ones the store needs.  also
 * (may be NULL) is called on every line first, whether the store takes it
 * or not; its non-zero return stops the reading and is returned.  A
 * missing file has no lines.  Returns 0, also's return, or -1 with *err
 * set when the file cannot be read; the lines read before stay in st.
 */
int	series_store_read(struct series_store *st, const char *path, unsigned int fields,
	    trial_line_fn also, void *arg, struct trial_scan *scan, char **err);

/*
 * Take one line as trialread hands it out (read with at least
 * TRIAL_VARIANT | TRIAL_PARAMS | TRIAL_METRIC | TRIAL_VALUE): 1 when it
 * went into a series, 0 when it is not an ok line with a finite value.
 */
int	series_store_add(struct series_store *st, const struct trial_line *l);

/* Series in st; the i-th (first-seen order), NULL past the end. */
size_t	series_store_n(const struct series_store *st);
const struct series *series_store_at(const struct series_store *st, size_t i);

/* The series of key k (its unit is not looked at), or NULL. */
const struct series *series_store_find(const struct series_store *st,
	    const struct series_key *k);

/*
 * The values of every series match(s, arg) says yes to, pooled in the
 * order of their lines, into a new array *out (NULL when there are none);
 * how many.  Needs SERIES_VALUES.
 */
size_t	series_store_pool(const struct series_store *st,
	    int (*match)(const struct series *s, void *arg), void *arg, double **out);

/* Accepts NULL. */
void	series_store_free(struct series_store *st);

/* The sample standard deviation of s's values, NAN below two. */
double	series_sd(const struct series *s);

/*
 * A series' params text: "k=v,k=v" of the n names k and values v (a NULL
 * value as ""), into sb (reset first).  The one place the text of a series
 * key's params is made.
 */
void	series_params_text(struct strbuf *sb, size_t n, const char *const *k,
	    const char *const *v);

#endif /* FLEETMARK_SERIES_H */
