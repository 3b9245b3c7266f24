/*
 * manifest.c: the MANIFEST of a run (archive.h, "Manifests"): built from a
 * run directory with the sha256 of every file, formatted, parsed back from
 * an archive (untrusted input, within the ARCHIVE_MAX_* limits) and
 * verified against a directory.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive.h"
#include "digest.h"
#include "strbuf.h"
#include "xmalloc.h"

int
archive_sha256_file(const char *path, char out[65], uint64_t *size, char **err)
{
	if (digest_sha256_file(path, DIGEST_NOFOLLOW, out, size, err) == 0)
		return ARCHIVE_OK;
	return errno == ENOENT ? ARCHIVE_ENOTFOUND : ARCHIVE_EPERM;
}

void
archive_manifest_free(struct archive_manifest *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++)
		free(m->entries[i].path);
	free(m->entries);
	free(m->runid);
	free(m);
}

static int
entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct archive_entry *)a)->path,
	    ((const struct archive_entry *)b)->path);
}

struct walk {
	const char		*top;
	struct archive_manifest	*m;
	size_t			 cap;
};

static int
walk_dir(struct walk *w, const char *rel, int depth, char **err)
{
	char *dpath, *child, *full;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int r = 0;

	dpath = rel[0] ? xasprintf("%s/%s", w->top, rel) : xstrdup(w->top);
	if ((d = opendir(dpath)) == NULL) {
		*err = xasprintf("cannot read %s: %s", dpath, strerror(errno));
		free(dpath);
		return ARCHIVE_EPERM;
	}
	while (r == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;	/* ".", "..", and hidden files: not the run's */
		if (depth == 0 && strcmp(de->d_name, ARCHIVE_MANIFEST) == 0)
			continue;	/* a pulled run's own manifest */
		child = rel[0] ? xasprintf("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
		full = xasprintf("%s/%s", dpath, de->d_name);
		if (lstat(full, &st) != 0) {
			*err = xasprintf("%s: %s", full, strerror(errno));
			r = ARCHIVE_EPERM;
		} else if (S_ISDIR(st.st_mode)) {
			if (depth + 1 >= ARCHIVE_MAX_DEPTH) {
				*err = xasprintf("%s: directories nested too deep for an archive", full);
				r = ARCHIVE_EINVAL;
			} else
				r = walk_dir(w, child, depth + 1, err);
		} else if (!S_ISREG(st.st_mode)) {
			*err = xasprintf("%s: not a regular file (links and devices are not archived)", full);
			r = ARCHIVE_EINVAL;
		} else if (!archive_valid_path(child)) {
			*err = xasprintf("%s: name not allowed in an archive (letters, digits and ._+@=,- only)", full);
			r = ARCHIVE_EINVAL;
		} else if (w->m->n >= ARCHIVE_MAX_FILES) {
			*err = xasprintf("%s: more than %d files", w->top, ARCHIVE_MAX_FILES);
			r = ARCHIVE_EINVAL;
		} else {
			xgrow(&w->m->entries, &w->cap, w->m->n + 1, sizeof(*w->m->entries));
			memset(&w->m->entries[w->m->n], 0, sizeof(*w->m->entries));
			w->m->entries[w->m->n].path = child;
			child = NULL;
			w->m->n++;
		}
		free(child);
		free(full);
	}
	closedir(d);
	free(dpath);
	return r;
}

int
archive_manifest_build(const char *dir, const char *runid,
    struct archive_manifest **mp, char **err)
{
	struct archive_manifest *m;
	struct walk w;
	char *full;
	size_t i;
	int r;

	m = xcalloc(1, sizeof(*m));
	m->runid = xstrdup(runid);
	w.top = dir;
	w.m = m;
	w.cap = 0;
	if ((r = walk_dir(&w, "", 0, err)) != 0)
		goto fail;
	if (m->n > 1)
		qsort(m->entries, m->n, sizeof(*m->entries), entry_cmp);
	for (i = 0; i < m->n; i++) {
		full = xasprintf("%s/%s", dir, m->entries[i].path);
		r = archive_sha256_file(full, m->entries[i].sha256,
		    &m->entries[i].size, err);
		free(full);
		if (r != 0)
			goto fail;
	}
	*mp = m;
	return ARCHIVE_OK;
 fail:
	archive_manifest_free(m);
	return r;
}

char *
archive_manifest_format(const struct archive_manifest *m, size_t *lenp)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	strbuf_addf(&sb, "fleetmark-manifest 1\nrun %s\nfiles %zu\n", m->runid, m->n);
	for (i = 0; i < m->n; i++)
		strbuf_addf(&sb, "%s  %llu  %s\n", m->entries[i].sha256,
		    (unsigned long long)m->entries[i].size, m->entries[i].path);
	strbuf_addstr(&sb, "end\n");
	return strbuf_detach(&sb, lenp);
}

static int
mf_error(char **err, const char *name, size_t line, const char *what)
{
	*err = xasprintf("%s:%zu: %s", name, line, what);
	return ARCHIVE_ECORRUPT;
}

/* A decimal with no sign, no leading zero, at most max. */
static int
parse_u64(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 20 || (n > 1 && s[0] == '0'))
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (max - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

int
archive_manifest_parse(const char *name, const char *text, size_t len,
    struct archive_manifest **mp, char **err)
{
	struct archive_manifest *m;
	struct archive_entry *e;
	const char *p = text, *end = text + len, *nl, *f2, *f3;
	size_t lineno = 0, llen, i;
	uint64_t nfiles = 0;
	char *line = NULL;
	int r = ARCHIVE_ECORRUPT, state = 0;	/* 0 header, 1 run, 2 files, 3 entries, 4 end */

	if (len > ARCHIVE_MANIFEST_MAX)
		return mf_error(err, name, 0, "manifest too large");
	m = xcalloc(1, sizeof(*m));
	while (p < end) {
		lineno++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
			r = mf_error(err, name, lineno, "truncated: the last line has no newline");
			goto fail;
		}
		llen = (size_t)(nl - p);
		free(line);
		line = xstrndup(p, llen);
		if (strlen(line) != llen) {
			r = mf_error(err, name, lineno, "NUL byte");
			goto fail;
		}
		p = nl + 1;
		switch (state) {
		case 0:
			if (strcmp(line, "fleetmark-manifest 1") != 0) {
				r = mf_error(err, name, lineno, strncmp(line, "fleetmark-manifest ", 19) == 0 ?
				    "unsupported manifest version (this fleetmark reads version 1)" :
				    "not a fleetmark manifest (no 'fleetmark-manifest 1' header)");
				goto fail;
			}
			state = 1;
			break;
		case 1:
			if (strncmp(line, "run ", 4) != 0 || !archive_valid_runid(line + 4)) {
				r = mf_error(err, name, lineno, "expected 'run RUNID' with a valid run id");
				goto fail;
			}
			m->runid = xstrdup(line + 4);
			state = 2;
			break;
		case 2:
			if (strncmp(line, "files ", 6) != 0 ||
			    parse_u64(line + 6, llen - 6, ARCHIVE_MAX_FILES, &nfiles) != 0) {
				r = mf_error(err, name, lineno, "expected 'files N' with N at most 100000");
				goto fail;
			}
			m->entries = xcalloc(nfiles ? (size_t)nfiles : 1, sizeof(*m->entries));
			state = nfiles ? 3 : 4;
			break;
		case 3:
			/* HEX64, two spaces, SIZE, two spaces, PATH */
			if (llen < 64 + 2 + 1 + 2 + 1 || line[64] != ' ' || line[65] != ' ') {
				r = mf_error(err, name, lineno, "expected 'SHA256  SIZE  PATH'");
				goto fail;
			}
			for (i = 0; i < 64; i++) {
				if (!((line[i] >= '0' && line[i] <= '9') || (line[i] >= 'a' && line[i] <= 'f'))) {
					r = mf_error(err, name, lineno, "bad sha256 (64 lowercase hex digits)");
					goto fail;
				}
			}
			f2 = line + 66;
			if ((f3 = strstr(f2, "  ")) == NULL) {
				r = mf_error(err, name, lineno, "expected 'SHA256  SIZE  PATH'");
				goto fail;
			}
			e = &m->entries[m->n];
			if (parse_u64(f2, (size_t)(f3 - f2), ARCHIVE_MAX_FILE_SIZE, &e->size) != 0) {
				r = mf_error(err, name, lineno, "bad size");
				goto fail;
			}
			f3 += 2;
			if (!archive_valid_path(f3) || strcmp(f3, ARCHIVE_MANIFEST) == 0) {
				r = mf_error(err, name, lineno, "path not allowed (absolute, '..', hidden, odd characters or too long)");
				goto fail;
			}
			if (m->n > 0 && strcmp(m->entries[m->n - 1].path, f3) >= 0) {
				r = mf_error(err, name, lineno, "paths out of order or repeated");
				goto fail;
			}
			memcpy(e->sha256, line, 64);
			e->sha256[64] = '\0';
			e->path = xstrdup(f3);
			if (++m->n == nfiles)
				state = 4;
			break;
		case 4:
			if (strcmp(line, "end") != 0) {
				r = mf_error(err, name, lineno, "expected 'end' after the files");
				goto fail;
			}
			state = 5;
			break;
		default:
			r = mf_error(err, name, lineno, "text after 'end'");
			goto fail;
		}
	}
	if (state != 5) {
		r = mf_error(err, name, lineno, "truncated: no 'end' line");
		goto fail;
	}
	free(line);
	*mp = m;
	return ARCHIVE_OK;
 fail:
	free(line);
	archive_manifest_free(m);
	return r;
}

int
archive_manifest_verify(const struct archive_manifest *m, const char *dir,
    char **err)
{
	char sum[65], *full, *e2 = NULL;
	uint64_t size;
	size_t i;
	int r;

	for (i = 0; i < m->n; i++) {
		full = xasprintf("%s/%s", dir, m->entries[i].path);
		r = archive_sha256_file(full, sum, &size, &e2);
		free(full);
		if (r != 0) {
			*err = xasprintf("%s/%s: %s", m->runid, m->entries[i].path,
			    r == ARCHIVE_ENOTFOUND ? "missing" : e2);
			free(e2);
			return ARCHIVE_ECORRUPT;
		}
		if (size != m->entries[i].size)
			return err_set(err, ARCHIVE_ECORRUPT,
			    "%s/%s: %llu bytes, the manifest says %llu%s",
			    m->runid, m->entries[i].path, (unsigned long long)size,
			    (unsigned long long)m->entries[i].size,
			    size < m->entries[i].size ? " (truncated)" : "");
		if (strcmp(sum, m->entries[i].sha256) != 0)
			return err_set(err, ARCHIVE_ECORRUPT,
			    "%s/%s: sha256 %s differs from the manifest's %s",
			    m->runid, m->entries[i].path, sum, m->entries[i].sha256);
	}
	return ARCHIVE_OK;
}
