/*
 * fuzz-archive.c: what an archive server sends back (src/manifest.c,
 * src/archive-webdav.c).  The first byte picks the reader: 'M' a run's
 * MANIFEST (archive_manifest_parse()), anything else a WebDAV PROPFIND
 * answer (webdav_parse_listing()), on the rest of the input.
 *
 * Invariants checked: a manifest that parses is canonical (formatting it
 * gives back the input byte for byte), and every entry is a valid
 * relative path with a 64-digit sum; every listed name is one non-empty
 * path component, "NAME/" for a collection.
 */
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "fuzz.h"
#include "webdav.h"

static void
manifest(const char *text, size_t len)
{
	struct archive_manifest *m = NULL;
	char *err = NULL, *out;
	size_t i, olen;

	if (archive_manifest_parse("M", text, len, &m, &err) != 0) {
		if (err == NULL || m != NULL)
			abort();
		free(err);
		return;
	}
	if (!archive_valid_runid(m->runid))
		abort();
	for (i = 0; i < m->n; i++) {
		if (!archive_valid_path(m->entries[i].path) ||
		    strlen(m->entries[i].sha256) != 64 ||
		    m->entries[i].size > ARCHIVE_MAX_FILE_SIZE)
			abort();
	}
	out = archive_manifest_format(m, &olen);
	if (olen != len || memcmp(out, text, len) != 0)
		abort();
	free(out);
	archive_manifest_free(m);
}

static void
listing(const char *xml, size_t len)
{
	char **names = NULL, *err = NULL, *slash;
	size_t n = 0, i, l;

	if (webdav_parse_listing(xml, len, "/dav/runs", &names, &n, &err) != 0) {
		if (err == NULL)
			abort();
		free(err);
		return;
	}
	for (i = 0; i < n; i++) {
		l = strlen(names[i]);
		slash = strchr(names[i], '/');
		if (l == 0 || (slash != NULL && slash != names[i] + l - 1) ||
		    names[i][0] == '/' || l > ARCHIVE_MAX_COMPONENT + 1)
			abort();
		free(names[i]);
	}
	free(names);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] == 'M')
		manifest((const char *)data + 1, size - 1);
	else
		listing((const char *)data + 1, size - 1);
	return 0;
}
