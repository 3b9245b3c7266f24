/*
 * restore.c: restore/HOST in a run directory, the old contents a variant
 * overwrote on a host, kept until the variant is undone (restore.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"
#include "fsutil.h"
#include "journal-int.h"
#include "restore.h"
#include "rundir.h"
#include "strv.h"
#include "xmalloc.h"

static char *
hex_encode(const char *s)
{
	size_t n = strlen(s);
	char *h = xmalloc(2 * n + 1);

	digest_tohex(s, n, h);
	return h;
}

/* The string of hex digits h..h+len, or NULL when they are not that. */
static char *
hex_decode(const char *h, size_t len)
{
	char *s, digits[3] = { 0, 0, 0 };
	size_t i;

	if (len % 2 != 0 || strspn(h, "0123456789abcdef") < len)
		return NULL;
	s = xmalloc(len / 2 + 1);
	for (i = 0; i < len / 2; i++) {
		memcpy(digits, h + 2 * i, 2);
		s[i] = (char)strtoul(digits, NULL, 16);
		if (s[i] == '\0') {
			free(s);
			return NULL;
		}
	}
	s[len / 2] = '\0';
	return s;
}

/* The directory of a set of entries (RUNDIR_RESTORE...). */
static const char *
set_dir(enum journal_restore_set set)
{
	return set == JOURNAL_RESTORE_TUNE ? RUNDIR_RESTORE_TUNE : RUNDIR_RESTORE;
}

static char *
set_file(struct journal *j, enum journal_restore_set set, const char *host)
{
	return xasprintf("%s/%s/%s", j->dir, set_dir(set), host);
}

int
journal_restore_list(struct journal *j, const char *host, char ***paths, char ***olds,
    size_t *n, char **err)
{
	return journal_restore_list_in(j, JOURNAL_RESTORE_VARIANT, host, paths, olds, n, err);
}

int
journal_restore_list_in(struct journal *j, enum journal_restore_set set, const char *host,
    char ***paths, char ***olds, size_t *n, char **err)
{
	char *file = set_file(j, set, host);
	char *line = NULL, *sp, *p, *o;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int r = 0;

	*paths = *olds = NULL;
	*n = 0;
	if (!journal_valid_host(host)) {
		*err = xasprintf("bad host name '%.64s'", host);
		free(file);
		return -1;
	}
	if ((f = fopen(file, "re")) == NULL) {
		if (errno != ENOENT) {
			*err = xasprintf("cannot read %s: %s", file, strerror(errno));
			r = -1;
		}
		free(file);
		return r;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] != '\n')
			break;	/* cut by a crash while it was written: never acted on */
		line[--len] = '\0';
		p = o = NULL;
		if ((sp = strchr(line, ' ')) == NULL ||
		    (p = hex_decode(line, (size_t)(sp - line))) == NULL ||
		    (o = hex_decode(sp + 1, strlen(sp + 1))) == NULL) {
			free(p);
			*err = xasprintf("%s: line %zu is damaged", file, *n + 1);
			r = -1;
			break;
		}
		if (strv_find(*paths, *n, p) != STRV_NONE) {
			free(p);
			free(o);
			continue;
		}
		*paths = xreallocarray(*paths, *n + 1, sizeof(**paths));
		*olds = xreallocarray(*olds, *n + 1, sizeof(**olds));
		(*paths)[*n] = p;
		(*olds)[*n] = o;
		(*n)++;
	}
	if (r == 0 && ferror(f)) {
		*err = xasprintf("cannot read %s: %s", file, strerror(errno));
		r = -1;
	}
	if (r != 0) {
		strv_free(*paths, *n);
		strv_free(*olds, *n);
		*paths = *olds = NULL;
		*n = 0;
	}
	free(line);
	fclose(f);
	free(file);
	return r;
}

int
journal_restore_save(struct journal *j, const char *host, const char *path,
    const char *old, char **err)
{
	return journal_restore_save_in(j, JOURNAL_RESTORE_VARIANT, host, path, old, err);
}

int
journal_restore_save_in(struct journal *j, enum journal_restore_set set, const char *host,
    const char *path, const char *old, char **err)
{
	char *dir = rundir_path(j->dir, set_dir(set));
	char *file = set_file(j, set, host), *hp, *ho, *line = NULL;
	int fd = -1, r = -1, created = 0, tries;

	if (!journal_valid_host(host)) {
		*err = xasprintf("bad host name '%.64s'", host);
		goto out;
	}
	/* Another host's thread may remove restore/ when its file was the
	 * last one (journal_restore_clear()): make it again then. */
	for (tries = 0; fd < 0 && tries < 5; tries++) {
		if (mkdir(dir, RUNDIR_DIR_MODE) != 0 && errno != EEXIST) {
			*err = xasprintf("cannot create %s: %s", dir, strerror(errno));
			goto out;
		}
		if ((fd = open(file, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0 && errno == ENOENT) {
			fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
			created = 1;
		}
		if (fd < 0 && errno != ENOENT)
			break;
	}
	if (fd < 0) {
		*err = xasprintf("cannot create %s: %s", file, strerror(errno));
		goto out;
	}
	hp = hex_encode(path);
	ho = hex_encode(old);
	line = xasprintf("%s %s\n", hp, ho);
	free(hp);
	free(ho);
	if (fs_full_write(fd, line, strlen(line)) != 0 || fsync(fd) != 0 ||
	    (created && fs_fsync_dir(dir) != 0)) {
		*err = xasprintf("cannot write %s: %s", file, strerror(errno));
		goto out;
	}
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	free(line);
	free(file);
	free(dir);
	return r;
}

int
journal_restore_clear(struct journal *j, const char *host, char **err)
{
	return journal_restore_clear_in(j, JOURNAL_RESTORE_VARIANT, host, err);
}

int
journal_restore_clear_in(struct journal *j, enum journal_restore_set set, const char *host,
    char **err)
{
	char *dir = rundir_path(j->dir, set_dir(set));
	char *file = set_file(j, set, host);
	int r = 0;

	if (!journal_valid_host(host)) {
		*err = xasprintf("bad host name '%.64s'", host);
		r = -1;
	} else if (unlink(file) == 0) {
		(void)rmdir(dir);	/* when it was the last host's */
		(void)fs_fsync_dir(j->dir);
	} else if (errno != ENOENT) {
		*err = xasprintf("cannot remove %s: %s", file, strerror(errno));
		r = -1;
	}
	free(file);
	free(dir);
	return r;
}
