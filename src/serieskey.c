/*
 * serieskey.c: the names of a series (serieskey.h).
 */
#include <stdlib.h>
#include <string.h>

#include "serieskey.h"
#include "strbuf.h"
#include "xmalloc.h"

#define US		"\x1f"	/* between the parts of a key's text */
#define NOVARIANT	"\x1e"	/* a text's variant when the plan has none */

void
series_key_dup(struct series_key *dst, const struct series_key *src)
{
	dst->host = xstrdup(src->host);
	dst->variant = xstrdup_null(src->variant);
	dst->bench = xstrdup(src->bench);
	dst->params = xstrdup(src->params != NULL ? src->params : "");
	dst->metric = xstrdup(src->metric);
	dst->unit = xstrdup(src->unit != NULL ? src->unit : "");
}

void
series_key_release(struct series_key *k)
{
	free((char *)k->host);
	free((char *)k->variant);
	free((char *)k->bench);
	free((char *)k->params);
	free((char *)k->metric);
	free((char *)k->unit);
	memset(k, 0, sizeof(*k));
}

int
series_key_cmp(const struct series_key *a, const struct series_key *b)
{
	int c;

	if ((c = strcmp(a->bench, b->bench)) != 0 ||
	    (c = strverscmp(a->params, b->params)) != 0 ||
	    (c = strcmp(a->metric, b->metric)) != 0 ||
	    (c = strverscmp(a->host, b->host)) != 0)
		return c;
	if (a->variant == NULL || b->variant == NULL)
		return (a->variant != NULL) - (b->variant != NULL);
	return strcmp(a->variant, b->variant);
}

void
series_key_text(const struct series_key *k, struct strbuf *sb)
{
	strbuf_reset(sb);
	strbuf_addstr(sb, k->host);
	strbuf_addstr(sb, US);
	strbuf_addstr(sb, k->variant != NULL ? k->variant : NOVARIANT);
	strbuf_addstr(sb, US);
	strbuf_addstr(sb, k->bench);
	strbuf_addstr(sb, US);
	strbuf_addstr(sb, k->params);
	strbuf_addstr(sb, US);
	strbuf_addstr(sb, k->metric);
}
