/*
 * history-int.h: what history.c shares with the files of src/history/;
 * not an API.  The per-run cache (history/cache.c).
 */
#ifndef FLEETMARK_HISTORY_INT_H
#define FLEETMARK_HISTORY_INT_H

#include <stddef.h>

#include <jansson.h>

#include "history.h"
#include "strbuf.h"

#define CACHE_NAME_HEX	40	/* hex digits of a cache file's name */

enum {
	CACHE_NONE,		/* no valid cache file */
	CACHE_META,		/* one with the run's facts only */
	CACHE_ROWS,		/* one with its series too */
};

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

json_t	*meta_json(const struct meta *m, long long nrows);
void	 enc(struct strbuf *sb, const char *s);
int	 rows_parse(char *text, size_t len, struct nrow **vp, size_t *np);
char	*dec(const char *s, size_t n);
char	*cache_path(const char *cache, const char *key);
int	 cache_open(const struct meta *m, json_t **first, char **buf, size_t *len);
void	 meta_from_json(struct meta *m, const json_t *o);
int	 cache_rows(const struct meta *m, char **bufp, struct nrow **vp, size_t *np);
char	*stat_valid(const char *dir);
char	*manifest_valid(const char *dir, char **err);

#endif /* FLEETMARK_HISTORY_INT_H */
