/*
 * journal-int.h: the struct journal internals shared by the files of the
 * journal (journal.c, hostlog.c, restore.c); not for anyone else.
 *
 * Three mutexes: run_mu guards run.json (the tree and the file), the host
 * table and the per-host status and counts, trials_mu the trials.jsonl
 * descriptor and its size, log_mu the host log descriptors and their
 * partial lines.  The host logs take run_mu inside log_mu, to look a host
 * up; no other two are ever held together.
 */
#ifndef FLEETMARK_JOURNAL_INT_H
#define FLEETMARK_JOURNAL_INT_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "journal.h"
#include "rundir.h"

struct jhost {
	char			*name;
	enum journal_host_status status;
	size_t			 ok, failed;	/* trials appended (this session) */
	int			 logfd;		/* -1: not opened yet */
	char			*partial;	/* stderr line being assembled */
	size_t			 plen;
};

struct journal {
	char		*dir;
	char		*id;
	json_t		*run;		/* run.json */
	int		 trials_fd;	/* -1: not open (a resumed run without
					 * trials.jsonl, until it is taken up) */
	off_t		 size;		/* of trials.jsonl */
	int		 pending;	/* journal_resume(): nothing written until
					 * journal_resume_start() */
	off_t		 cut;		/* pending: trials.jsonl's length without its
					 * incomplete last line, or -1 */
	size_t		 cut_line;	/* ... that line's number */
	int		 spare;		/* this journal made RUNDIR_SPARE */
	int		 read_only;	/* a resumed run whose trials.jsonl could
					 * only be opened for reading (read-only
					 * media): errno then, 0 otherwise */
	struct jhost	**hosts;
	size_t		 nhosts, hcap;
	char		*log_err;
	long long	 run_written;	/* when run.json was last written (ms) */
	int		 run_dirty;	/* a host's state not in it yet */
	pthread_mutex_t	 run_mu, trials_mu, log_mu;
	char		*side;		/* journal_info's side and boot: on every */
	unsigned	 boot;		/* trial line of an ab boot (NULL, 0: none) */
};

/* Whether s may name a host's files (the fleet's rule, checked again). */
int	journal_valid_host(const char *s);

/* The host named name (added when new); NULL for a name unfit for a file.
 * run_mu held. */
struct jhost *journal_host_get(struct journal *j, const char *name);

/* Write out h's incomplete last stderr line; log_mu held (hostlog.c). */
int	hostlog_flush(struct journal *j, struct jhost *h);

#endif /* FLEETMARK_JOURNAL_INT_H */
