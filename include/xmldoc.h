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

/*
 * Whether n is an element called name in the namespace whose URI is ns
 * ("DAV:"); with ns NULL, in any namespace or none (S3's answers, read by
 * local name).
 */
int	 xmldoc_is(const xmlNode *n, const char *ns, const char *name);

/* The first child of n that xmldoc_is(child, ns, name), or NULL. */
const xmlNode *xmldoc_child(const xmlNode *n, const char *ns, const char *name);

#endif /* FLEETMARK_XMLDOC_H */
