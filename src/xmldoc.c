/*
 * xmldoc.c: libxml2 set up once, quiet, for documents servers send.
 */
#include <pthread.h>
#include <stdint.h>

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
