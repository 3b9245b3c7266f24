/*
 * serieskey.h: what names one series of numbers across the trials of a
 * run, the runs of a report and the nights of a history: the host, the
 * variant, the point (bench and params) and the metric, with the unit the
 * lines give it.  series.h's series (the store history, nightly,
 * bisect-run and the end-of-run numbers of `run` read), history.h's
 * series and nightly.h's rows each embed one.
 *
 *	struct series_key k = { l->host, l->variant, l->bench, params,
 *	    l->metric, l->unit };		(borrowed: a lookup)
 *
 *	series_key_text(&k, &sb);	the text to hash or look up by
 *	series_key_dup(&s->key, &k);	an owned copy in s
 *	...
 *	series_key_release(&s->key);
 *
 * Identity.  Two keys name one series when host, variant, bench, params
 * and metric are equal (a NULL variant equals only a NULL variant); the
 * unit is carried, not compared: it comes with the series' first line.
 */
#ifndef FLEETMARK_SERIESKEY_H
#define FLEETMARK_SERIESKEY_H

#include "strbuf.h"

/*
 * The strings are owned by the struct holding the key when it was made by
 * series_key_dup() (freed by series_key_release()), else borrowed from
 * wherever the caller took them: which one is said where it is embedded.
 */
struct series_key {
	const char	*host;
	const char	*variant;	/* NULL: the plan has no variants */
	const char	*bench;
	const char	*params;	/* "k=v,k=v" (or the plan's point label), "" for none */
	const char	*metric;
	const char	*unit;		/* "" when the lines give none */
};

/*
 * *dst as a copy of *src that owns its strings: variant stays NULL when
 * it is, a NULL unit or params becomes "".  host, bench and metric must
 * not be NULL.  Release it with series_key_release().
 */
void	series_key_dup(struct series_key *dst, const struct series_key *src);

/* Free the strings of a key series_key_dup() made and zero it; NULL fields are fine. */
void	series_key_release(struct series_key *k);

/*
 * Order of series in every table and history: bench, params (in version
 * order, strverscmp(3): n=2 before n=16), metric, host (version order),
 * then variant (NULL first).  0 exactly when a and b name one series.
 */
int	series_key_cmp(const struct series_key *a, const struct series_key *b);

/*
 * The identity of k as one string into sb (reset first): the five names
 * apart by a byte no name holds, a NULL variant its own value, so that
 * equal texts are equal keys.  For hashing and sorted lookups.
 */
void	series_key_text(const struct series_key *k, struct strbuf *sb);

#endif /* FLEETMARK_SERIESKEY_H */
