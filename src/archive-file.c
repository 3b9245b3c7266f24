/*
 * archive-file.c: file:// archives, a directory on a local or mounted
 * file system.  Plain POSIX calls rather than libcurl's file:// (which
 * neither creates directories nor lists them): every file is written to a
 * hidden temporary name, synced and renamed (fsutil.h's atomic
 * replacement), so a reader never sees half of one.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive.h"
#include "fsutil.h"
#include "xmalloc.h"

static int
errno_class(int e)
{
	return e == ENOENT || e == ENOTDIR ? ARCHIVE_ENOTFOUND : ARCHIVE_EPERM;
}

static int
file_open(const struct archive_url *u, const struct userconf *uc, void **statep,
    char **err)
{
	(void)uc;
	(void)err;
	*statep = xstrdup(u->path);
	return ARCHIVE_OK;
}

static void
file_close(void *state)
{
	free(state);
}

/* Copy fd in to fd out, at most max bytes (more is ARCHIVE_ECORRUPT). */
static int
copy_fd(int in, int out, uint64_t max, const struct archive_progress *p,
    const char *name, char **err)
{
	char buf[65536];
	uint64_t done = 0;
	ssize_t n;

	for (;;) {
		if (archive_cancelled())
			return err_set(err, ARCHIVE_ECANCELED, "%s: interrupted", name);
		if ((n = read(in, buf, sizeof(buf))) < 0) {
			if (errno == EINTR)
				continue;
			*err = xasprintf("%s: %s", name, strerror(errno));
			return ARCHIVE_EPERM;
		}
		if (n == 0)
			return ARCHIVE_OK;
		if (done + (uint64_t)n > max)
			return err_set(err, ARCHIVE_ECORRUPT, "%s: larger than %llu bytes", name,
			    (unsigned long long)max);
		if (fs_full_write(out, buf, (size_t)n) != 0)
			return err_set(err, ARCHIVE_EPERM, "%s: %s", name, strerror(errno));
		done += (uint64_t)n;
		if (p != NULL && p->cb != NULL)
			p->cb(p->arg, done);
	}
}

static int
file_put(void *state, const char *key, const char *localpath,
    const struct archive_progress *p, char **err)
{
	struct fs_atomic a;
	char *dest;
	int in = -1, r = ARCHIVE_EPERM;

	dest = xasprintf("%s/%s", (const char *)state, key);
	if (fs_mkparents(dest, 0755, err) != 0)
		goto out;
	if ((in = open(localpath, O_RDONLY | O_CLOEXEC)) == -1) {
		*err = xasprintf("%s: %s", localpath, strerror(errno));
		goto out;
	}
	/* a temporary of its own: other pushes may write the same archive */
	if (fs_atomic_open(&a, dest, 0644, FS_UNIQUE, err) != 0)
		goto out;
	if ((r = copy_fd(in, a.fd, ARCHIVE_MAX_FILE_SIZE, p, localpath, err)) != 0) {
		fs_atomic_abort(&a);
		goto out;
	}
	r = fs_atomic_commit(&a, err) == 0 ? ARCHIVE_OK : ARCHIVE_EPERM;
 out:
	if (in != -1)
		close(in);
	free(dest);
	return r;
}

static int
file_get(void *state, const char *key, const char *localpath, uint64_t max,
    const struct archive_progress *p, char **err)
{
	char *src = xasprintf("%s/%s", (const char *)state, key);
	struct stat st;
	int in, out, r;

	if ((in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		r = errno_class(errno);
		*err = xasprintf("%s: %s", src, strerror(errno));
		free(src);
		return r;
	}
	if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
		*err = xasprintf("%s: not a regular file", src);
		close(in);
		free(src);
		return ARCHIVE_EPERM;
	}
	if ((out = open(localpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) == -1) {
		*err = xasprintf("%s: %s", localpath, strerror(errno));
		close(in);
		free(src);
		return ARCHIVE_EPERM;
	}
	r = copy_fd(in, out, max, p, src, err);
	if (close(out) != 0 && r == 0) {
		*err = xasprintf("%s: %s", localpath, strerror(errno));
		r = ARCHIVE_EPERM;
	}
	close(in);
	free(src);
	return r;
}

static int
file_list(void *state, const char *prefix, char ***namesp, size_t *np, char **err)
{
	char *dir = xasprintf("%s/%s", (const char *)state, prefix), *full;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int r;

	if ((d = opendir(dir)) == NULL) {
		r = errno_class(errno);
		*err = xasprintf("%s: %s", dir, strerror(errno));
		free(dir);
		return r;
	}
	while ((de = readdir(d)) != NULL && n < ARCHIVE_MAX_LIST) {
		if (de->d_name[0] == '.')
			continue;
		full = xasprintf("%s/%s", dir, de->d_name);
		xgrow(&names, &cap, n + 1, sizeof(*names));
		if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode))
			names[n++] = xasprintf("%s/", de->d_name);
		else
			names[n++] = xstrdup(de->d_name);
		free(full);
	}
	closedir(d);
	free(dir);
	*namesp = names;
	*np = n;
	return ARCHIVE_OK;
}

static int
file_del(void *state, const char *key, char **err)
{
	char *path = xasprintf("%s/%s", (const char *)state, key);
	int r = ARCHIVE_OK;

	if (unlink(path) != 0) {
		r = errno_class(errno);
		*err = xasprintf("%s: %s", path, strerror(errno));
	}
	free(path);
	return r;
}

const struct archive_backend archive_backend_file = {
	"file", file_open, file_put, file_get, file_list, file_del, file_close,
};
