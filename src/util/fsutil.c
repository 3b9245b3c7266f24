/*
 * fsutil.c: atomic file replacement, full writes, directory syncs, mkdir -p,
 * whole-file reads and directory listings (fsutil.h).
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "strbuf.h"
#include "strv.h"
#include "xmalloc.h"

int
fs_full_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
fs_fsync_dir(const char *path)
{
	int fd, r, e;

	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	r = fsync(fd);
	e = errno;
	close(fd);
	errno = e;
	return r;
}

char *
fs_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* Fail with errno kept and a message. */
static int
fail(char **err, const char *what, const char *path)
{
	int e = errno;

	*err = xasprintf("%s %s: %s", what, path, strerror(e));
	errno = e;
	return -1;
}

int
fs_atomic_open(struct fs_atomic *a, const char *path, mode_t mode, int flags,
    char **err)
{
	const char *slash = strrchr(path, '/');
	int dl = slash != NULL ? (int)(slash - path + 1) : 0;
	struct stat st;

	a->path = xstrdup(path);
	a->flags = flags;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		/* a device or a pipe (-o /dev/null): written to, never replaced */
		a->tmp = NULL;
		if ((a->fd = open(path, O_WRONLY | O_CLOEXEC)) < 0) {
			fail(err, "cannot open", path);
			free(a->path);
			a->path = NULL;
			return -1;
		}
		return 0;
	}
	if (flags & FS_UNIQUE) {
		a->tmp = xasprintf("%.*s.%s.XXXXXX", dl, path, path + dl);
		if ((a->fd = mkostemp(a->tmp, O_CLOEXEC)) >= 0 &&
		    fchmod(a->fd, mode) != 0) {
			fail(err, "cannot create", a->tmp);
			fs_atomic_abort(a);
			return -1;
		}
	} else {
		a->tmp = xasprintf("%.*s.%s.tmp", dl, path, path + dl);
		a->fd = open(a->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	}
	if (a->fd < 0) {
		fail(err, "cannot create", a->tmp);
		free(a->tmp);
		free(a->path);
		a->tmp = a->path = NULL;
		return -1;
	}
	return 0;
}

FILE *
fs_atomic_stream(struct fs_atomic *a)
{
	FILE *fp;
	int fd, e;

	if ((fd = dup(a->fd)) < 0)
		return NULL;
	if ((fp = fdopen(fd, "w")) == NULL) {
		e = errno;
		close(fd);
		errno = e;
	}
	return fp;
}

void
fs_atomic_abort(struct fs_atomic *a)
{
	int e = errno;

	if (a->fd >= 0)
		close(a->fd);
	if (a->tmp != NULL)
		unlink(a->tmp);
	free(a->tmp);
	free(a->path);
	a->tmp = a->path = NULL;
	a->fd = -1;
	errno = e;
}

int
fs_atomic_commit(struct fs_atomic *a, char **err)
{
	char *dir = NULL;
	int r = -1;

	if (a->tmp == NULL) {	/* not a file: nothing to sync or rename */
		r = close(a->fd);
		a->fd = -1;
		if (r != 0)
			fail(err, "cannot write", a->path);
		fs_atomic_abort(a);
		return r != 0 ? -1 : 0;
	}
	if (!(a->flags & FS_NOSYNC) && fsync(a->fd) != 0) {
		fail(err, "cannot write", a->tmp);
		goto out;
	}
	if (close(a->fd) != 0) {
		a->fd = -1;
		fail(err, "cannot write", a->tmp);
		goto out;
	}
	a->fd = -1;
	if (rename(a->tmp, a->path) != 0) {
		int e = errno;

		*err = xasprintf("cannot rename %s to %s: %s", a->tmp, a->path, strerror(e));
		errno = e;
		goto out;
	}
	free(a->tmp);
	a->tmp = NULL;
	dir = fs_dirname(a->path);
	if (!(a->flags & FS_NOSYNC) && fs_fsync_dir(dir) != 0) {
		fail(err, "cannot sync", dir);
		goto out;
	}
	r = 0;
 out:
	free(dir);
	fs_atomic_abort(a);
	return r;
}

int
fs_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
    int flags, char **err)
{
	struct fs_atomic a;

	if (fs_atomic_open(&a, path, mode, flags, err) != 0)
		return -1;
	if (fs_full_write(a.fd, data, len) != 0) {
		fail(err, "cannot write", a.tmp ? a.tmp : a.path);
		fs_atomic_abort(&a);
		return -1;
	}
	return fs_atomic_commit(&a, err);
}

/* mkdir each prefix of path that ends before a '/', and path itself if all. */
static int
mkdirs(const char *path, mode_t mode, int all, char **err)
{
	char *p = xstrdup(path), *s;
	int r = 0;

	for (s = p + 1; *s != '\0' || all; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, mode) != 0 && errno != EEXIST) {
			r = fail(err, "cannot create", p);
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return r;
}

int
fs_mkdir_p(const char *path, mode_t mode, char **err)
{
	struct stat st;

	if (*path == '\0') {
		errno = ENOENT;
		*err = xstrdup("cannot create a directory without a name");
		return -1;
	}
	if (mkdirs(path, mode, 1, err) != 0)
		return -1;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		*err = xasprintf("%s is not a directory", path);
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

int
fs_mkparents(const char *path, mode_t mode, char **err)
{
	if (*path == '\0')
		return 0;
	return mkdirs(path, mode, 0, err);
}

int
fs_read_file(const char *path, size_t max, char **data, size_t *len, char **err)
{
	struct strbuf sb;
	struct stat st;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return fail(err, "cannot read", path);
	strbuf_init_max(&sb, max);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (max == 0 || (uint64_t)st.st_size <= max))
		(void)strbuf_grow(&sb, (size_t)st.st_size);
	if (strbuf_read_fd(&sb, fd) != 0) {
		e = errno;
		if (e == EFBIG)
			*err = xasprintf("%s: larger than %zu bytes", path, max);
		else
			*err = xasprintf("cannot read %s: %s", path, strerror(e));
		close(fd);
		strbuf_release(&sb);
		errno = e;
		return -1;
	}
	close(fd);
	*data = strbuf_detach(&sb, len);
	return 0;
}

int
fs_list_dir(const char *dir, char ***names, size_t *n, char **err)
{
	struct dirent *de;
	char **v = NULL;
	size_t cap = 0, k = 0;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return fail(err, "cannot open", dir);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		xgrow(&v, &cap, k + 1, sizeof(*v));
		v[k++] = xstrdup(de->d_name);
	}
	closedir(d);
	strv_sort(v, k);
	*names = v;
	*n = k;
	return 0;
}

int
fs_check_owner(const char *path, const struct stat *st, char **err)
{
	if (st->st_uid != getuid() && st->st_uid != 0) {
		*err = xasprintf("%s: owned by uid %u, neither you nor root", path,
		    (unsigned)st->st_uid);
		return -1;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		*err = xasprintf("%s: writable by group or others (mode %04o)", path,
		    (unsigned)(st->st_mode & 07777));
		return -1;
	}
	return 0;
}

const char *
fs_tmpdir(void)
{
	const char *t = getenv("TMPDIR");

	return t != NULL && *t == '/' ? t : "/tmp";
}
