/*
 * archive.c: the push/pull/ls/fetch operations on top of the backends
 * (archive.h).  The backends move bytes; this file decides what is sent,
 * in which order, and what a complete run is.  URLs are parsed in url.c,
 * manifests built, parsed and verified in manifest.c.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive.h"
#include "digest.h"
#include "fleet.h"
#include "fsutil.h"
#include "http.h"
#include "log.h"
#include "progress.h"
#include "rundir.h"
#include "strv.h"
#include "userconf.h"
#include "xdg.h"
#include "xmalloc.h"

/*
 * The backends, one line each.  s3:// is src/archive-s3.c's
 * archive_backend_s3 (its line goes here).
 */
static const struct archive_backend *const backends[] = {
	&archive_backend_file,
	&archive_backend_http,
	&archive_backend_https,
	&archive_backend_s3,
	NULL
};

const struct archive_backend *
archive_backend_find(const char *scheme)
{
	size_t i;

	for (i = 0; backends[i] != NULL; i++)
		if (strcmp(backends[i]->scheme, scheme) == 0)
			return backends[i];
	return NULL;
}

static volatile sig_atomic_t cancelled;

void
archive_cancel(void)
{
	cancelled = 1;
}

int
archive_cancelled(void)
{
	return cancelled != 0;
}

/* Between files: ARCHIVE_ECANCELED with a message once cancelled. */
static int
check_cancel(char **err)
{
	if (!cancelled)
		return ARCHIVE_OK;
	*err = xstrdup("interrupted");
	return ARCHIVE_ECANCELED;
}

const char *
archive_strerror(int code)
{
	switch (code) {
	case ARCHIVE_OK:
		return "ok";
	case ARCHIVE_ENOTFOUND:
		return "not found";
	case ARCHIVE_ETRANSIENT:
		return "transient failure";
	case ARCHIVE_EPERM:
		return "failure";
	case ARCHIVE_EINVAL:
		return "invalid argument";
	case ARCHIVE_ECORRUPT:
		return "corrupt";
	case ARCHIVE_EEXIST:
		return "exists";
	case ARCHIVE_ECANCELED:
		return "interrupted";
	default:
		return "unknown error";
	}
}

/* --- Files --------------------------------------------------------------- */

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

/* rm -rf of a directory this process created (no symlinks followed). */
static void
rm_tree(const char *dir)
{
	if (dir != NULL)
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* --- Progress on stderr -------------------------------------------------- */

/*
 * A transfer's progress: a line redrawn in place on a terminal
 * (progress.h), else a log line per file at -v.
 */
struct xfer {
	const char		*verb;		/* "push", "pull" */
	const char		*runid;
	struct progress_line	*line;		/* NULL off a terminal */
	size_t			 nfiles, files_done;
	uint64_t		 total, before;	/* bytes of all files; of finished files */
};

static void
xfer_draw(struct xfer *x, uint64_t cur, int force)
{
	progress_line_set(x->line, force, "%s %s: %zu/%zu files, %.1f of %.1f MB",
	    x->verb, x->runid, x->files_done, x->nfiles,
	    (double)(x->before + cur) / 1e6, (double)x->total / 1e6);
}

static void
xfer_cb(void *arg, uint64_t cur)
{
	xfer_draw(arg, cur, 0);
}

/* Log messages while the line is drawn: above it, redrawn later. */
static void
xfer_sink(const char *line, void *arg)
{
	struct xfer *x = arg;

	progress_line_message(x->line, line);
}

static void
xfer_init(struct xfer *x, const char *verb, const char *runid,
    const struct archive_manifest *m)
{
	size_t i;

	memset(x, 0, sizeof(*x));
	x->verb = verb;
	x->runid = runid;
	if (log_get_level() >= LOG_LEVEL_INFO)
		x->line = progress_line_new(STDERR_FILENO);
	x->nfiles = m->n + 1;
	for (i = 0; i < m->n; i++)
		x->total += m->entries[i].size;
	if (x->line != NULL)
		log_set_sink(xfer_sink, x);
}

/* One file finished (or, for the log, started being counted). */
static void
xfer_file_done(struct xfer *x, const char *path, uint64_t size)
{
	x->files_done++;
	x->before += size;
	if (x->line != NULL)
		xfer_draw(x, 0, 1);
	else
		log_verbose("%s %s/%s (%llu bytes)", x->verb, x->runid, path,
		    (unsigned long long)size);
}

static void
xfer_end(struct xfer *x)
{
	if (x->line != NULL)
		log_set_sink(NULL, NULL);
	progress_line_end(x->line);
	x->line = NULL;
}

/* --- Sessions ------------------------------------------------------------ */

struct session {
	struct archive_url		*u;
	const struct archive_backend	*be;
	struct userconf			*uc;
	void				*state;
};

static void
session_close(struct session *s)
{
	if (s->be != NULL && s->state != NULL)
		s->be->close(s->state);
	userconf_free(s->uc);
	archive_url_free(s->u);
	memset(s, 0, sizeof(*s));
}

/* Every secret the session knows, in any form a server may echo, made "***". */
static void
session_scrub(const struct session *s, char **err)
{
	const char *s3[3] = { NULL, NULL, NULL };
	size_t i;

	if (s->u != NULL)
		http_scrub(err, s->u->user, s->u->password, NULL);
	if (s->uc != NULL) {
		for (i = 0; i < s->uc->nwebdav; i++)
			http_scrub(err, s->uc->webdav[i].user, s->uc->webdav[i].password, NULL);
		s3[0] = s->uc->s3.secret_access_key;
		s3[1] = s->uc->s3.session_token;
	}
	http_scrub(err, NULL, NULL, s3);
}

static int
session_open(struct session *s, const char *url, char **err)
{
	int r;

	memset(s, 0, sizeof(*s));
	if ((r = archive_url_parse(url, &s->u, err)) != 0)
		return r;
	if ((s->be = archive_backend_find(s->u->scheme)) == NULL) {
		*err = xasprintf("%s: %s:// archives are not supported by this build",
		    s->u->display, s->u->scheme);
		r = ARCHIVE_EINVAL;
		goto fail;
	}
	/* Credentials and retry settings; a plain directory needs none. */
	if (strcmp(s->u->scheme, "file") != 0 && (r = userconf_load(&s->uc, err)) != 0) {
		r = ARCHIVE_EINVAL;
		goto fail;
	}
	if ((r = s->be->open(s->u, s->uc, &s->state, err)) != 0)
		goto fail;
	return ARCHIVE_OK;
 fail:
	session_scrub(s, err);
	session_close(s);
	return r;
}

/* A temporary local file for small downloads and uploads. */
static char *
tmp_file(void)
{
	char *p;
	int fd;

	p = xasprintf("%s/fleetmark-archive.XXXXXX", fs_tmpdir());
	if ((fd = mkstemp(p)) == -1) {
		free(p);
		return NULL;
	}
	close(fd);
	return p;
}

/* A small file, whole: ARCHIVE_ENOTFOUND, ARCHIVE_ECORRUPT past max, ARCHIVE_EPERM. */
static int
read_small(const char *path, size_t max, char **text, size_t *len, char **err)
{
	if (fs_read_file(path, max, text, len, err) == 0)
		return ARCHIVE_OK;
	return errno == ENOENT ? ARCHIVE_ENOTFOUND : errno == EFBIG ? ARCHIVE_ECORRUPT :
	    ARCHIVE_EPERM;
}

/*
 * The archive's MANIFEST of runid: its text and parsed form (either may
 * be NULL if not wanted).  ARCHIVE_ENOTFOUND when the run is incomplete.
 */
static int
remote_manifest(struct session *s, const char *runid, char **textp,
    struct archive_manifest **mp, char **err)
{
	char *tmp, *key, *text = NULL, *name;
	size_t len;
	int r;

	if ((tmp = tmp_file()) == NULL)
		return err_set(err, ARCHIVE_EPERM, "cannot create a temporary file: %s",
		    strerror(errno));
	key = xasprintf("%s/%s", runid, ARCHIVE_MANIFEST);
	r = s->be->get(s->state, key, tmp, ARCHIVE_MANIFEST_MAX, NULL, err);
	if (r == 0)
		r = read_small(tmp, ARCHIVE_MANIFEST_MAX, &text, &len, err);
	if (r == 0 && mp != NULL) {
		name = xasprintf("%s/%s", s->u->display, key);
		r = archive_manifest_parse(name, text, len, mp, err);
		if (r == 0 && strcmp((*mp)->runid, runid) != 0) {
			*err = xasprintf("%s: the manifest is for run %s", name, (*mp)->runid);
			archive_manifest_free(*mp);
			*mp = NULL;
			r = ARCHIVE_ECORRUPT;
		}
		free(name);
	}
	if (r == 0 && textp != NULL) {
		*textp = text;
		text = NULL;
	}
	free(text);
	unlink(tmp);
	free(tmp);
	free(key);
	return r;
}

/* --- push ---------------------------------------------------------------- */

/* Upload order: run.json, trials.jsonl, hosts/, logs/, report.*, the rest. */
static int
push_rank(const char *path)
{
	if (strcmp(path, RUNDIR_RUN_JSON) == 0)
		return 0;
	if (strcmp(path, RUNDIR_TRIALS) == 0)
		return 1;
	if (strncmp(path, RUNDIR_HOSTS "/", sizeof(RUNDIR_HOSTS)) == 0)
		return 2;
	if (strncmp(path, RUNDIR_LOGS "/", sizeof(RUNDIR_LOGS)) == 0)
		return 3;
	if (strncmp(path, "report.", 7) == 0)
		return 4;
	return 5;
}

static int
run_dir_id(const char *rundir, char **dirp, char **idp, char **err)
{
	char *dir = xstrdup(rundir), *id;
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		dir[--n] = '\0';
	id = strrchr(dir, '/') != NULL ? strrchr(dir, '/') + 1 : dir;
	if (!rundir_exists(dir)) {
		*err = xasprintf("%s: not a run directory (no %s)", dir, RUNDIR_RUN_JSON);
		free(dir);
		return ARCHIVE_EINVAL;
	}
	if (!archive_valid_runid(id)) {
		*err = xasprintf("%s: '%s' is not a valid run id%s", dir, id,
		    strcmp(id, ARCHIVE_QUALIFY) == 0 ? " (an archive keeps the hosts' "
		    "qualifications under that name)" : "");
		free(dir);
		return ARCHIVE_EINVAL;
	}
	*idp = xstrdup(id);
	*dirp = dir;
	return ARCHIVE_OK;
}

static int
same_str(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

/*
 * Whether the archive's runid is the run in rundir (mine, its run.json),
 * which is about to replace it: the same controller host, start and plan
 * (a resumed run keeps them).  ARCHIVE_EEXIST with a message when not, or
 * when the archive's run.json cannot be read to tell.
 */
static int
same_identity(struct session *s, const char *runid, const struct rundir_run *mine,
    char **err)
{
	struct rundir_run *theirs = NULL;
	char *tmpdir = NULL, *key = NULL, *path = NULL, *e = NULL, *why = NULL;
	int r;

	tmpdir = xasprintf("%s/fleetmark-identity.XXXXXX", fs_tmpdir());
	if (mkdtemp(tmpdir) == NULL) {
		r = err_set(err, ARCHIVE_EPERM, "cannot create a temporary directory: %s",
		    strerror(errno));
		free(tmpdir);
		return r;
	}
	key = xasprintf("%s/%s", runid, RUNDIR_RUN_JSON);
	path = xasprintf("%s/%s", tmpdir, RUNDIR_RUN_JSON);
	r = s->be->get(s->state, key, path, ARCHIVE_MANIFEST_MAX, NULL, &e);
	if (r == ARCHIVE_ECANCELED) {
		*err = e;
		e = NULL;
		goto out;
	}
	if (r != 0 || rundir_load(tmpdir, &theirs, &e) != 0)
		why = xasprintf("its %s cannot be read (%s)", RUNDIR_RUN_JSON, e);
	else if (!same_str(theirs->plan, mine->plan))
		why = xasprintf("it is a run of plan %s", theirs->plan ? theirs->plan : "(none)");
	else if (!same_str(theirs->start, mine->start))
		why = xasprintf("it started at %s, this one at %s",
		    theirs->start ? theirs->start : "(unknown)", mine->start ? mine->start : "(unknown)");
	else if (!same_str(theirs->controller_host, mine->controller_host))
		why = xasprintf("it ran on controller %s, this one on %s",
		    theirs->controller_host ? theirs->controller_host : "(unknown)",
		    mine->controller_host ? mine->controller_host : "(unknown)");
	if (why != NULL) {
		*err = xasprintf("%s/%s is another run with the same id (%s): not replaced "
		    "(push --force replaces it)", s->u->display, runid, why);
		r = ARCHIVE_EEXIST;
	} else
		r = ARCHIVE_OK;
 out:
	rundir_run_free(theirs);
	unlink(path);
	rmdir(tmpdir);
	free(tmpdir);
	free(key);
	free(path);
	free(e);
	free(why);
	return r;
}

int
archive_push(const char *rundir, const char *url, char **err)
{
	return archive_push_flags(rundir, url, 0, err);
}

int
archive_push_flags(const char *rundir, const char *url, int flags, char **err)
{
	struct session s;
	struct archive_manifest *m = NULL;
	struct archive_progress prog;
	struct rundir_run *mine = NULL;
	struct xfer x;
	char *dir = NULL, *runid = NULL, *text = NULL, *old = NULL, *tmp = NULL;
	char *key, *full, *e2 = NULL;
	size_t len, i, *order = NULL;
	int r, rank, fd;

	memset(&s, 0, sizeof(s));
	if ((r = run_dir_id(rundir, &dir, &runid, err)) != 0)
		return r;
	if ((flags & ARCHIVE_PUSH_FORCE) == 0) {
		if (rundir_load(dir, &mine, err) != 0) {
			r = ARCHIVE_EINVAL;
			goto out;
		}
		if (same_str(mine->status, journal_status_name(JOURNAL_RUNNING))) {
			*err = xasprintf("%s: the run is still running (its %s says so): push it when "
			    "it has ended, or resume it first if its controller died (push --force "
			    "pushes it as it is)", dir, RUNDIR_RUN_JSON);
			r = ARCHIVE_EINVAL;
			goto out;
		}
	}
	if ((r = archive_manifest_build(dir, runid, &m, err)) != 0)
		goto out;
	text = archive_manifest_format(m, &len);
	if ((r = session_open(&s, url, err)) != 0)
		goto out;

	r = remote_manifest(&s, runid, &old, NULL, &e2);
	if (r == 0 && strcmp(old, text) == 0) {
		log_info("%s is already in %s, with the same manifest", runid, s.u->display);
		goto out;
	}
	if (r == 0 && (flags & ARCHIVE_PUSH_FORCE) == 0 &&
	    (r = same_identity(&s, runid, mine, err)) != 0)
		goto out;
	if (r == 0) {
		/* The run changed (resumed?): unlist it while it is rewritten. */
		log_info("%s in %s has another manifest: replacing it", runid, s.u->display);
		key = xasprintf("%s/%s", runid, ARCHIVE_MANIFEST);
		free(e2);
		e2 = NULL;
		r = s.be->del(s.state, key, &e2);
		free(key);
		if (r != 0 && r != ARCHIVE_ENOTFOUND) {
			*err = e2;
			e2 = NULL;
			goto out;
		}
	} else if (r != ARCHIVE_ENOTFOUND) {
		*err = e2;
		e2 = NULL;
		goto out;
	}
	free(e2);
	e2 = NULL;

	/* files first, in a stable order of importance */
	order = xcalloc(m->n ? m->n : 1, sizeof(*order));
	len = 0;
	for (rank = 0; rank <= 5; rank++)
		for (i = 0; i < m->n; i++)
			if (push_rank(m->entries[i].path) == rank)
				order[len++] = i;
	xfer_init(&x, "push", runid, m);
	prog.cb = xfer_cb;
	prog.arg = &x;
	log_info("pushing %s to %s: %zu files, %.1f MB", runid, s.u->display,
	    m->n, (double)x.total / 1e6);
	for (i = 0; i < m->n; i++) {
		const struct archive_entry *e = &m->entries[order[i]];

		if ((r = check_cancel(err)) != 0) {
			xfer_end(&x);
			goto out;
		}
		key = xasprintf("%s/%s", runid, e->path);
		full = xasprintf("%s/%s", dir, e->path);
		r = s.be->put(s.state, key, full, &prog, err);
		free(key);
		free(full);
		if (r != 0) {
			xfer_end(&x);
			goto out;
		}
		xfer_file_done(&x, e->path, e->size);
	}
	/* the manifest last: from here on, the run is listed */
	if ((r = check_cancel(err)) != 0) {
		xfer_end(&x);
		goto out;
	}
	if ((tmp = tmp_file()) == NULL || (fd = open(tmp, O_WRONLY | O_TRUNC | O_CLOEXEC)) == -1) {
		xfer_end(&x);
		*err = xasprintf("cannot create a temporary file: %s", strerror(errno));
		r = ARCHIVE_EPERM;
		goto out;
	}
	len = strlen(text);
	if (fs_full_write(fd, text, len) != 0 || close(fd) != 0) {
		xfer_end(&x);
		*err = xasprintf("%s: %s", tmp, strerror(errno));
		r = ARCHIVE_EPERM;
		goto out;
	}
	key = xasprintf("%s/%s", runid, ARCHIVE_MANIFEST);
	r = s.be->put(s.state, key, tmp, NULL, err);
	free(key);
	if (r == 0)
		xfer_file_done(&x, ARCHIVE_MANIFEST, len);
	xfer_end(&x);
	if (r != 0)
		goto out;
	log_info("pushed %s to %s (%zu files, %.1f MB)", runid, s.u->display,
	    m->n + 1, (double)x.total / 1e6);
 out:
	session_scrub(&s, err);
	session_close(&s);
	if (tmp != NULL)
		unlink(tmp);
	free(tmp);
	free(order);
	free(old);
	free(e2);
	free(text);
	archive_manifest_free(m);
	rundir_run_free(mine);
	free(runid);
	free(dir);
	return r;
}

/* --- pull ---------------------------------------------------------------- */

static int
read_local_manifest(const char *dir, const char *runid,
    struct archive_manifest **mp, char **err)
{
	char *path = xasprintf("%s/%s", dir, ARCHIVE_MANIFEST), *text = NULL;
	size_t len;
	int r;

	if ((r = read_small(path, ARCHIVE_MANIFEST_MAX, &text, &len, err)) == 0)
		r = archive_manifest_parse(path, text, len, mp, err);
	if (r == 0 && strcmp((*mp)->runid, runid) != 0) {
		*err = xasprintf("%s: the manifest is for run %s", path, (*mp)->runid);
		archive_manifest_free(*mp);
		r = ARCHIVE_ECORRUPT;
	}
	free(text);
	free(path);
	return r;
}

/* Whether dir holds exactly the run described by text (its MANIFEST). */
static int
same_run(const char *dir, const char *runid, const char *text)
{
	struct archive_manifest *m = NULL, *mine = NULL;
	char *e = NULL, *t2 = NULL;
	int same = 0;

	if (read_local_manifest(dir, runid, &m, &e) == 0 &&
	    archive_manifest_verify(m, dir, &e) == 0 &&
	    archive_manifest_build(dir, runid, &mine, &e) == 0) {
		t2 = archive_manifest_format(mine, NULL);
		same = strcmp(t2, text) == 0;
	}
	free(t2);
	free(e);
	archive_manifest_free(m);
	archive_manifest_free(mine);
	return same;
}

/* remote_manifest(), with "no such run" for a run without a MANIFEST. */
static int
run_manifest(struct session *s, const char *runid, char **textp,
    struct archive_manifest **mp, char **err)
{
	int r;

	r = remote_manifest(s, runid, textp, mp, err);
	if (r == ARCHIVE_ENOTFOUND) {
		free(*err);
		*err = xasprintf("%s/%s: no such run in the archive (or it is incomplete: no %s)",
		    s->u->display, runid, ARCHIVE_MANIFEST);
	}
	return r;
}

/* Pull runid into dest, whose MANIFEST (text, parsed m) was just fetched. */
static int
pull_manifest(struct session *s, const char *runid, const char *dest, const char *text,
    const struct archive_manifest *m, char **err)
{
	struct archive_progress prog;
	struct xfer x;
	struct stat st;
	char *tmpdir = NULL, *parent, *slash, *key, *full, *mf;
	size_t i, len;
	int r, fd;

	if (lstat(dest, &st) == 0) {
		if (S_ISDIR(st.st_mode) && same_run(dest, runid, text)) {
			log_info("%s already holds %s", dest, runid);
			r = ARCHIVE_OK;
		} else {
			*err = xasprintf("%s already exists and is not this run: remove it or pull elsewhere", dest);
			r = ARCHIVE_EEXIST;
		}
		goto out;
	}
	/* a temporary directory beside dest, renamed into place when verified */
	parent = xstrdup(dest);
	if ((slash = strrchr(parent, '/')) != NULL)
		slash[slash == parent ? 1 : 0] = '\0';
	else
		strcpy(parent, ".");
	tmpdir = xasprintf("%s/.%s.pull-XXXXXX", parent, runid);
	free(parent);
	if (mkdtemp(tmpdir) == NULL) {
		*err = xasprintf("cannot create a directory beside %s: %s", dest, strerror(errno));
		free(tmpdir);
		tmpdir = NULL;
		r = ARCHIVE_EPERM;
		goto out;
	}
	chmod(tmpdir, 0755);
	xfer_init(&x, "pull", runid, m);
	prog.cb = xfer_cb;
	prog.arg = &x;
	log_info("pulling %s from %s: %zu files, %.1f MB", runid, s->u->display,
	    m->n, (double)x.total / 1e6);
	for (i = 0; i < m->n; i++) {
		const struct archive_entry *e = &m->entries[i];
		struct archive_manifest one = { m->runid, 1, (struct archive_entry *)e };

		if ((r = check_cancel(err)) != 0)
			break;
		full = xasprintf("%s/%s", tmpdir, e->path);
		if (fs_mkparents(full, 0755, err) != 0) {
			free(full);
			r = ARCHIVE_EPERM;
			break;
		}
		key = xasprintf("%s/%s", runid, e->path);
		r = s->be->get(s->state, key, full, e->size, &prog, err);
		if (r == ARCHIVE_ENOTFOUND) {
			free(*err);
			*err = xasprintf("%s/%s: listed in the manifest but missing in the archive",
			    s->u->display, key);
			r = ARCHIVE_ECORRUPT;
		} else if (r == ARCHIVE_ECORRUPT) {
			free(*err);
			*err = xasprintf("%s/%s: larger than the %llu bytes the manifest says",
			    s->u->display, key, (unsigned long long)e->size);
		}
		free(key);
		free(full);
		if (r == 0)
			r = archive_manifest_verify(&one, tmpdir, err);
		if (r != 0)
			break;
		xfer_file_done(&x, e->path, e->size);
	}
	xfer_end(&x);
	if (r != 0)
		goto out;
	mf = xasprintf("%s/%s", tmpdir, ARCHIVE_MANIFEST);
	len = strlen(text);
	if ((fd = open(mf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) == -1 ||
	    fs_full_write(fd, text, len) != 0 || close(fd) != 0) {
		*err = xasprintf("%s: %s", mf, strerror(errno));
		free(mf);
		r = ARCHIVE_EPERM;
		goto out;
	}
	free(mf);
	if ((r = check_cancel(err)) != 0)
		goto out;
	if (rename(tmpdir, dest) != 0) {
		*err = errno == EEXIST || errno == ENOTEMPTY ?
		    xasprintf("%s appeared while pulling: not replaced", dest) :
		    xasprintf("cannot rename into %s: %s", dest, strerror(errno));
		r = errno == EEXIST || errno == ENOTEMPTY ? ARCHIVE_EEXIST : ARCHIVE_EPERM;
		goto out;
	}
	free(tmpdir);
	tmpdir = NULL;
	log_info("pulled %s into %s (%zu files, %.1f MB, sums verified)", runid, dest,
	    m->n + 1, (double)x.total / 1e6);
 out:
	if (tmpdir != NULL)
		rm_tree(tmpdir);
	free(tmpdir);
	return r;
}

static int
pull_session(struct session *s, const char *runid, const char *dest, char **err)
{
	struct archive_manifest *m = NULL;
	char *text = NULL;
	int r;

	if ((r = run_manifest(s, runid, &text, &m, err)) == 0)
		r = pull_manifest(s, runid, dest, text, m, err);
	free(text);
	archive_manifest_free(m);
	return r;
}

int
archive_pull(const char *url, const char *runid, const char *destdir, char **err)
{
	struct session s;
	char *dest;
	int r;

	if (!archive_valid_runid(runid))
		return err_set(err, ARCHIVE_EINVAL, "'%s' is not a valid run id", runid);
	if ((r = session_open(&s, url, err)) != 0)
		return r;
	dest = destdir != NULL ? xstrdup(destdir) : xstrdup(runid);
	while (strlen(dest) > 1 && dest[strlen(dest) - 1] == '/')
		dest[strlen(dest) - 1] = '\0';
	r = pull_session(&s, runid, dest, err);
	session_scrub(&s, err);
	session_close(&s);
	free(dest);
	return r;
}

/* --- ls ------------------------------------------------------------------ */

int
archive_list(const char *url, char ***idsp, size_t *np, char **err)
{
	struct session s;
	char **top = NULL, **sub = NULL, **ids = NULL, *prefix;
	size_t ntop = 0, nsub = 0, n = 0, cap = 0, i, len;
	int r, complete;

	if ((r = session_open(&s, url, err)) != 0)
		return r;
	r = s.be->list(s.state, "", &top, &ntop, err);
	if (r == ARCHIVE_ENOTFOUND) {
		log_verbose("%s does not exist yet: no runs", s.u->display);
		free(*err);
		*err = NULL;
		r = 0;
		ntop = 0;
	}
	if (r != 0)
		goto out;
	for (i = 0; i < ntop; i++) {
		len = strlen(top[i]);
		if (len < 2 || top[i][len - 1] != '/')
			continue;
		top[i][len - 1] = '\0';
		if (!archive_valid_runid(top[i])) {
			log_debug("%s: skipping '%s' (not a run id)", s.u->display, top[i]);
			continue;
		}
		prefix = xasprintf("%s/", top[i]);
		r = s.be->list(s.state, prefix, &sub, &nsub, err);
		free(prefix);
		if (r == ARCHIVE_ENOTFOUND) {
			free(*err);
			*err = NULL;
			r = 0;
			continue;
		}
		if (r != 0)
			goto out;
		complete = strv_find(sub, nsub, ARCHIVE_MANIFEST) != STRV_NONE;
		strv_free(sub, nsub);
		sub = NULL;
		if (!complete) {
			log_verbose("%s/%s: incomplete (no %s), not listed", s.u->display,
			    top[i], ARCHIVE_MANIFEST);
			continue;
		}
		xgrow(&ids, &cap, n + 1, sizeof(*ids));
		ids[n++] = xstrdup(top[i]);
	}
	strv_sort(ids, n);
	*idsp = ids != NULL ? ids : xcalloc(1, sizeof(*ids));
	*np = n;
	ids = NULL;
	n = 0;
 out:
	session_scrub(&s, err);
	session_close(&s);
	strv_free(top, ntop);
	strv_free(ids, n);
	return r;
}

/* --- the hosts' qualifications ---------------------------------------------- */

static int
qualify_key(const char *host, char **key, char **err)
{
	if (!fleet_name_ok(host))
		return err_set(err, ARCHIVE_EINVAL, "'%s' is not a host name", host);
	*key = xasprintf("%s/%s.json", ARCHIVE_QUALIFY, host);
	return ARCHIVE_OK;
}

int
archive_put_qualify(const char *url, const char *host, const char *localpath, char **err)
{
	struct session s;
	char *key = NULL;
	int r;

	if ((r = qualify_key(host, &key, err)) != 0)
		return r;
	if ((r = session_open(&s, url, err)) == 0) {
		r = s.be->put(s.state, key, localpath, NULL, err);
		session_scrub(&s, err);
		session_close(&s);
	}
	free(key);
	return r;
}

int
archive_get_qualify(const char *url, const char *host, char **textp, size_t *lenp,
    char **err)
{
	struct session s;
	char *key = NULL, *tmp = NULL;
	int r;

	if ((r = qualify_key(host, &key, err)) != 0)
		return r;
	if ((r = session_open(&s, url, err)) != 0)
		goto out;
	if ((tmp = tmp_file()) == NULL)
		r = err_set(err, ARCHIVE_EPERM, "cannot create a temporary file: %s",
		    strerror(errno));
	else if ((r = s.be->get(s.state, key, tmp, ARCHIVE_QUALIFY_MAX, NULL, err)) == 0)
		r = read_small(tmp, ARCHIVE_QUALIFY_MAX, textp, lenp, err);
	session_scrub(&s, err);
	session_close(&s);
 out:
	if (tmp != NULL) {
		unlink(tmp);
		free(tmp);
	}
	free(key);
	return r;
}

/* --- fetch (the cache reports read from) --------------------------------- */

char *
archive_cache_dir(void)
{
	return xdg_cache_dir("archive");
}

/* A directory name for an archive: its display URL made safe, and unique. */
static char *
cache_name(const char *display)
{
	unsigned char md[DIGEST_SHA256_LEN];
	char *s = xmalloc(strlen(display) + 1), *out, hex[9];
	size_t i, o = 0;

	for (i = 0; display[i] != '\0' && o < 80; i++) {
		if (isalnum((unsigned char)display[i]) || strchr(".-_", display[i]) != NULL)
			s[o++] = display[i];
		else if (o > 0 && s[o - 1] != '_')
			s[o++] = '_';
	}
	s[o] = '\0';
	digest_sha256(display, strlen(display), md);
	digest_tohex(md, 4, hex);
	out = xasprintf("%s-%s", s, hex);
	free(s);
	return out;
}

/*
 * The cached copy is used only when its MANIFEST is, byte for byte, the
 * one the archive holds now and its files verify against it: the
 * archive's MANIFEST is small and fetched on every read, so a run pushed
 * again (resumed, completed) is pulled again rather than read stale.
 */
int
archive_fetch(const char *url, const char *runid, char **dirp, char **err)
{
	struct archive_manifest *m = NULL;
	struct session s;
	char *cache = NULL, *name = NULL, *dir = NULL, *e2 = NULL, *text = NULL;
	char *mine = NULL, *path = NULL;
	size_t len;
	int r;

	if (!archive_valid_runid(runid))
		return err_set(err, ARCHIVE_EINVAL, "'%s' is not a valid run id", runid);
	if ((r = session_open(&s, url, err)) != 0)
		return r;
	cache = archive_cache_dir();
	name = cache_name(s.u->display);
	dir = xasprintf("%s/%s/%s", cache, name, runid);
	if ((r = run_manifest(&s, runid, &text, &m, err)) != 0)
		goto out;
	path = xasprintf("%s/%s", dir, ARCHIVE_MANIFEST);
	if (read_small(path, ARCHIVE_MANIFEST_MAX, &mine, &len, &e2) == 0 &&
	    strcmp(mine, text) == 0 && archive_manifest_verify(m, dir, &e2) == 0) {
		log_verbose("%s/%s: from the cache %s", s.u->display, runid, dir);
		goto done;
	}
	if (access(dir, F_OK) == 0) {
		if (mine != NULL && strcmp(mine, text) != 0)
			log_info("%s/%s: the archive holds another manifest than the cached "
			    "copy (pushed again?); pulling it again", s.u->display, runid);
		else
			log_info("%s: the cached copy does not verify (%s); pulling it again", dir,
			    e2 != NULL ? e2 : "?");
		rm_tree(dir);
	}
	if (fs_mkparents(dir, 0700, err) != 0) {
		r = ARCHIVE_EPERM;
		goto out;
	}
	if ((r = pull_manifest(&s, runid, dir, text, m, err)) != 0)
		goto out;
 done:
	*dirp = dir;
	dir = NULL;
	r = 0;
 out:
	session_scrub(&s, err);
	session_close(&s);
	free(e2);
	free(mine);
	free(path);
	free(text);
	archive_manifest_free(m);
	free(cache);
	free(name);
	free(dir);
	return r;
}
