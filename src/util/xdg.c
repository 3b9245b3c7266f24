/*
 * xdg.c: the user's cache directory (xdg.h).
 */
#include <stdlib.h>

#include "xdg.h"
#include "xmalloc.h"

char *
xdg_cache_dir(const char *name)
{
	const char *p;

	if ((p = getenv("XDG_CACHE_HOME")) != NULL && *p == '/')
		return xasprintf("%s/fleetmark/%s", p, name);
	if ((p = getenv("HOME")) == NULL || *p == '\0')
		p = "/tmp";
	return xasprintf("%s/.cache/fleetmark/%s", p, name);
}
