/*
 * archive-file.c: file:// archives, a directory on a local or mounted
 * file system.  Plain POSIX calls rather than libcurl's file:// (which
 * neither creates directories nor lists them): every file is written to a
 * hidden temporary name, synced and renamed (fsutil.h's atomic
 * replacement), so a reader never sees half of one.
 *
 * The archive directory is not trusted (anyone who may write it): every
 * key is resolved beneath it without following a symbolic link on the
 * way (openat2's RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, else openat with
 * O_NOFOLLOW one component at a time), so a symlinked run or logs
 * directory cannot make a pull copy, or its size and sum errors describe,
 * a file outside the archive; and a file is opened O_NONBLOCK and must
 * be a regular file, so a FIFO cannot hang a reader.
 */
#include <sys/stat.h>
#include <sys/syscall.h>

#ifdef SYS_openat2
#include <linux/openat2.h>
#endif
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

/*
 * Open rel ("a/b/c", no "..", no leading '/'; "" is root itself) beneath
 * the directory root with flags (O_CLOEXEC and O_NOFOLLOW added), no
 * symbolic link followed on the way: -1 with errno ELOOP for one, EXDEV
 * for a path out of root.
 */
static int
open_beneath(const char *root, const char *rel, int flags)
{
	char *copy = NULL, *comp, *next;
	int rfd, dfd, fd = -1, e;

	if ((rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	if (*rel == '\0') {
		if ((flags & O_DIRECTORY) == 0) {
			close(rfd);
			errno = EISDIR;
			return -1;
		}
		return rfd;
	}
#ifdef SYS_openat2
	{
		struct open_how how;

		memset(&how, 0, sizeof(how));
		how.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW);
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
		fd = (int)syscall(SYS_openat2, rfd, rel, &how, sizeof(how));
		/* an old kernel (or a seccomp filter) without openat2: walk instead */
		if (fd != -1 || (errno != ENOSYS && errno != EPERM)) {
			e = errno;
			close(rfd);
			errno = e;
			return fd;
		}
	}
#endif
	copy = xstrdup(rel);
	dfd = rfd;
	for (comp = copy; ; comp = next) {
		if ((next = strchr(comp, '/')) != NULL)
			*next++ = '\0';
		if (*comp == '\0' || strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0) {
			errno = EXDEV;
			fd = -1;
			break;
		}
		if (next == NULL) {
			fd = openat(dfd, comp, flags | O_CLOEXEC | O_NOFOLLOW);
			break;
		}
		fd = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (fd == -1)
			break;
		close(dfd);
		dfd = fd;
	}
	e = errno;
	close(dfd);
	free(copy);
	errno = e;
	return fd;
}

/* What went wrong opening path: errno's text, or what a refusal means. */
static char *
open_error(const char *path, int e)
{
	if (e == ELOOP)
		return xasprintf("%s: a symbolic link on the way (refused: only plain files "
		    "and directories in an archive)", path);
	if (e == EXDEV)
		return xasprintf("%s: outside the archive (refused)", path);
	return xasprintf("%s: %s", path, strerror(e));
}

/* A key's parent within the archive ("" for the top), newly allocated. */
static char *
key_dir(const char *key)
{
	const char *slash = strrchr(key, '/');

	return slash != NULL ? xstrndup(key, (size_t)(slash - key)) : xstrdup("");
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
	char *dest, *parent = NULL;
	int in = -1, dfd, r = ARCHIVE_EPERM;

	dest = xasprintf("%s/%s", (const char *)state, key);
	if (fs_mkparents(dest, 0755, err) != 0)
		goto out;
	/* not through a symbolic link out of the archive */
	parent = key_dir(key);
	if ((dfd = open_beneath(state, parent, O_RDONLY | O_DIRECTORY)) == -1) {
		*err = open_error(dest, errno);
		goto out;
	}
	close(dfd);
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
	free(parent);
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

	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	if ((in = open_beneath(state, key, O_RDONLY | O_NONBLOCK)) == -1) {
		r = errno_class(errno);
		*err = open_error(src, errno);
		free(src);
		return r;
	}
	if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode) ||
	    fcntl(in, F_SETFL, fcntl(in, F_GETFL) & ~O_NONBLOCK) == -1) {
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
	char *dir = xasprintf("%s/%s", (const char *)state, prefix), *rel;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat st;
	DIR *d = NULL;
	int r, fd, e;

	rel = xstrdup(prefix);
	if (*rel != '\0' && rel[strlen(rel) - 1] == '/')
		rel[strlen(rel) - 1] = '\0';
	fd = open_beneath(state, rel, O_RDONLY | O_DIRECTORY);
	free(rel);
	if (fd == -1 || (d = fdopendir(fd)) == NULL) {
		e = errno;
		if (fd != -1)
			close(fd);
		r = errno_class(e);
		*err = open_error(dir, e);
		free(dir);
		return r;
	}
	while ((de = readdir(d)) != NULL && n < ARCHIVE_MAX_LIST) {
		if (de->d_name[0] == '.')
			continue;
		xgrow(&names, &cap, n + 1, sizeof(*names));
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode))
			names[n++] = xasprintf("%s/", de->d_name);
		else
			names[n++] = xstrdup(de->d_name);
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
	char *path = xasprintf("%s/%s", (const char *)state, key), *parent = key_dir(key);
	const char *base = strrchr(key, '/') != NULL ? strrchr(key, '/') + 1 : key;
	int r = ARCHIVE_OK, dfd;

	if ((dfd = open_beneath(state, parent, O_RDONLY | O_DIRECTORY)) == -1 ||
	    unlinkat(dfd, base, 0) != 0) {
		r = errno_class(errno);
		*err = open_error(path, errno);
	}
	if (dfd != -1)
		close(dfd);
	free(parent);
	free(path);
	return r;
}

const struct archive_backend archive_backend_file = {
	"file", file_open, file_put, file_get, file_list, file_del, file_close,
};
