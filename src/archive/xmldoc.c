/*
 * xmldoc.c: libxml2 set up once, quiet, for documents servers send.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include "xmldoc.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void
init(void)
{
	xmlInitParser();
}

static void
quiet(void *ctx, const char *fmt, ...)
{
	(void)ctx;
	(void)fmt;
}

static void
quiet_structured(void *ctx, xmlErrorPtr e)
{
	(void)ctx;
	(void)e;
}

xmlDoc *
xmldoc_read(const char *buf, size_t len, const char *name, int extra_opts)
{
	if (len > INT32_MAX)
		return NULL;
	pthread_once(&once, init);
	/* Per thread in libxml2: set each time, cheap. */
	xmlSetGenericErrorFunc(NULL, quiet);
	xmlSetStructuredErrorFunc(NULL, quiet_structured);
	return xmlReadMemory(buf, (int)len, name, NULL,
	    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | extra_opts);
}

int
xmldoc_is(const xmlNode *n, const char *ns, const char *name)
{
	if (n->type != XML_ELEMENT_NODE || strcmp((const char *)n->name, name) != 0)
		return 0;
	return ns == NULL || (n->ns != NULL && n->ns->href != NULL &&
	    strcmp((const char *)n->ns->href, ns) == 0);
}

const xmlNode *
xmldoc_child(const xmlNode *n, const char *ns, const char *name)
{
	const xmlNode *c;

	for (c = n->children; c != NULL; c = c->next)
		if (xmldoc_is(c, ns, name))
			return c;
	return NULL;
}
