/*
 * webdav.h: reading a WebDAV PROPFIND answer (RFC 4918 section 9.1), for
 * the http(s):// archive backend (src/archive-webdav.c).
 *
 * The answer comes from a server, so it is untrusted: it is parsed with
 * libxml2 without network access, DTD loading or entity substitution,
 * only up to WEBDAV_MAX_XML bytes, and only the names that are direct
 * children of the collection asked about, each one path component, are
 * returned.
 */
#ifndef FLEETMARK_WEBDAV_H
#define FLEETMARK_WEBDAV_H

#include <stddef.h>

#define WEBDAV_MAX_XML	(16 * 1024 * 1024)

/*
 * Parse a 207 multistatus body listing the collection whose URL path is
 * `dir` (percent-decoded, e.g. "/runs/20261130-041500-x-3f2a" or "/runs/";
 * a trailing slash does not matter).  *names is a new array of *n new
 * strings: "NAME/" for a sub-collection, "NAME" for anything else.  The
 * collection itself, hrefs elsewhere and names with '/' or NUL in them
 * are left out.  -1 with *err set when the body is not a multistatus
 * document.
 */
int	webdav_parse_listing(const char *xml, size_t len, const char *dir,
	    char ***names, size_t *n, char **err);

#endif /* FLEETMARK_WEBDAV_H */
