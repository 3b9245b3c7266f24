/*
 * xmldoc.h: reading XML that a server sent (WebDAV PROPFIND answers, S3
 * listings and errors) with libxml2, the one way both archives need: from
 * memory, no network access, no entity loading, and not a word on stderr.
 */
#ifndef FLEETMARK_XMLDOC_H
#define FLEETMARK_XMLDOC_H

#include <stddef.h>

#include <libxml/parser.h>	/* the XML_PARSE_* options */
#include <libxml/tree.h>

/*
 * Parse len bytes of buf (len <= INT32_MAX, the caller bounds it lower)
 * with XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING plus
 * extra_opts.  libxml2's own messages (it prints some, such as encoding
 * errors, even with NOERROR) are dropped for this thread.  Returns the
 * document, to be freed with xmlFreeDoc(), or NULL when it is not
 * well-formed (or too long).
 */
xmlDoc	*xmldoc_read(const char *buf, size_t len, const char *name, int extra_opts);

#endif /* FLEETMARK_XMLDOC_H */
