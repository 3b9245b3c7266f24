/*
 * restore.h: restore/HOST in a run directory: the old contents of the
 * files a variant is about to overwrite on a host, kept until the variant
 * is undone, so that a run whose controller died in the middle of a
 * variant puts them back when it is resumed (the run engine reads them
 * before anything else on that host).
 *
 *	restore/lab-03	one line per file: the path and the old content,
 *			both in hex, separated by a space
 *
 * Entries are appended and synced one at a time; a line cut by a crash
 * while it was written is never acted on.  The file exists only while a
 * variant is applied on the host, restore/ only while some host has one.
 *
 * A tuning profile (tune.h), applied under every variant for the whole
 * run, keeps its entries apart, in restore-tune/HOST, so that undoing a
 * variant does not forget them: the *_in() functions take the set.
 *
 * Threads: any thread; a host's file is only touched by its own worker.
 *
 * Errors: 0, or -1 with a newly allocated message in *err.
 */
#ifndef FLEETMARK_RESTORE_H
#define FLEETMARK_RESTORE_H

#include <stddef.h>

struct journal;

enum journal_restore_set {
	JOURNAL_RESTORE_VARIANT,	/* restore/HOST */
	JOURNAL_RESTORE_TUNE,		/* restore-tune/HOST */
};

/*
 * Append and sync one entry for host: path and its old content (copied).
 * An entry for a path already there is kept as it is: the first old
 * content is the one to restore.
 */
int	journal_restore_save(struct journal *j, const char *host, const char *path,
	    const char *old, char **err);

/*
 * The entries of host in the order saved, one per path: *paths and *olds
 * are new arrays of new strings, *n of them.  0 and none when there is no
 * file; -1 with *err when it cannot be read or is damaged.
 */
int	journal_restore_list(struct journal *j, const char *host, char ***paths,
	    char ***olds, size_t *n, char **err);

/* Remove the host's file (and restore/ when it was the last): the variant
 * is undone. */
int	journal_restore_clear(struct journal *j, const char *host, char **err);

/* The same three for the entries of set. */
int	journal_restore_save_in(struct journal *j, enum journal_restore_set set,
	    const char *host, const char *path, const char *old, char **err);
int	journal_restore_list_in(struct journal *j, enum journal_restore_set set,
	    const char *host, char ***paths, char ***olds, size_t *n, char **err);
int	journal_restore_clear_in(struct journal *j, enum journal_restore_set set,
	    const char *host, char **err);

#endif /* FLEETMARK_RESTORE_H */
