/*
 * history-int.h: what history.c shares with the files of src/history/;
 * not an API.  The per-run cache (history/cache.c).
 */
#ifndef FLEETMARK_HISTORY_INT_H
#define FLEETMARK_HISTORY_INT_H

#include <stddef.h>

#include <jansson.h>

#include "history.h"
#include "serieskey.h"
#include "strbuf.h"

/* What a run's cache file gave its struct meta. */
enum {
	CACHE_NONE,		/* no valid cache file */
	CACHE_META,		/* one with the run's facts only */
	CACHE_ROWS,		/* one with its series too */
};

/* What a run is: its facts, from its cache file or its run.json (the first pass). */
struct meta {
	char	*where;		/* the directory, or URL/RUNID, for messages */
	char	*dir;		/* the run directory to read */
	char	*key;		/* the cache key */
	char	*valid;		/* what a cache file must have been made from */
	char	*cpath;		/* the cache file; NULL: no cache */
	char	*id, *plan, *status, *start, *label, *commit, *plan_file, *group;
	const char *night_start;	/* its night's start (select_nights()) */
	double	 threshold;
	char	**hosts, **kernels;	/* kernels[i] may be NULL */
	size_t	 nhosts;
	int	 cache;		/* CACHE_* */
	int	 keep;		/* one of the nights */
	int	 stale;		/* the cache file names another directory */
};

/* A series of one night, as a cache line gives it (pointers into the line). */
struct nrow {
	char	*key;		/* the first five fields, still encoded */
	char	*unit;		/* encoded */
	int	 higher;
	double	 mean, sd;
	size_t	 n;
};

/*
 * The per-run cache (history/cache.c): one file per run, CACHE/<40 hex
 * digits of the SHA-256 of the run's key>.jsonl, a line of the run's facts
 * and then, once its nights were read, a line per series (the format is
 * written down at the top of cache.c).
 */

/* The cache file of key under the directory cache (a new string). */
char	*history_cache_path(const char *cache, const char *key);

/*
 * Read m's cache file (m->cpath): its first line into *first (a new
 * reference), the whole file into *buf (the caller frees it).  -1 when
 * there is none, or it is not a cache file for m->key.
 */
int	 history_cache_open(const struct meta *m, json_t **first, char **buf, size_t *len);

/* m's facts (not where, dir, key, valid or cpath) from *first of history_cache_open(). */
void	 history_cache_meta(struct meta *m, const json_t *first);

/*
 * m's cache file, when it is still the one m->valid says and holds
 * series: the whole file in *bufp (the caller frees it), its series lines
 * parsed into a new array *vp of *np rows pointing into it.  -1 when not.
 */
int	 history_cache_rows(const struct meta *m, char **bufp, struct nrow **vp, size_t *np);

/*
 * Write m's cache file: its facts, and the lines of its series (body,
 * nrows of them) unless body is NULL.  0 without writing when m->cpath is
 * NULL; -1 with *err (a new string) when it cannot be written.
 */
int	 history_cache_write(const struct meta *m, const struct strbuf *body, size_t nrows,
	    char **err);

/*
 * One series of a night as a cache line, appended to sb: its key k, the
 * params as nparams names and values (a NULL value is ""), its direction,
 * mean, sd (NaN for one trial) and count.  -1 (nothing appended) when the
 * mean is not finite: values so large that their sum is not.
 */
int	 history_cache_line(struct strbuf *sb, const struct series_key *k, size_t nparams,
	    const char *const *pkeys, const char *const *pvals, int higher, double mean,
	    double sd, size_t n);

/*
 * The len bytes of cache lines at text (changed in place: their tabs and
 * newlines become NULs) into a new array *vp of *np rows; -1 (nothing
 * made) when one is not a cache line.
 */
int	 history_cache_parse(char *text, size_t len, struct nrow **vp, size_t *np);

/*
 * The series of a row's encoded key and unit decoded into *s (its key,
 * pkeys, pvals and nparams; the rest zero); -1 (nothing left in *s) when
 * they do not decode.
 */
int	 history_cache_series(struct history_series *s, const char *key, const char *unit);

/*
 * What a cache file must have been made from: for a run directory the
 * size and modification time of run.json and trials.jsonl, for an archive
 * run (its MANIFEST fetched into dir) their sums.  New strings; the second
 * is NULL with *err set when the MANIFEST cannot be read.
 */
char	*history_cache_stat_valid(const char *dir);
char	*history_cache_manifest_valid(const char *dir, char **err);

#endif /* FLEETMARK_HISTORY_INT_H */
