/*
 * bootspec.c: parse how a host comes up running a kernel (bootspec.h):
 * a command, a kexec, or the name of a `boot:` entry.
 */
#include <stdlib.h>
#include <string.h>

#include "bootspec.h"
#include "fleet.h"
#include "strbuf.h"
#include "xmalloc.h"
#include "yamldoc.h"

/* Whether s[0..n) holds a control character (a newline, a tab, DEL...). */
static int
has_control(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 1;
	return 0;
}

/* An absolute path of s[0..n) for `what` into *out. */
static int
kexec_path(const char *what, const char *s, size_t n, char **out, char **err)
{
	if (n == 0) {
		*err = xasprintf("kexec: %s is empty", what);
		return -1;
	}
	if (s[0] != '/') {
		*err = xasprintf("kexec: %s '%.*s' is not an absolute path", what, (int)n, s);
		return -1;
	}
	*out = xstrndup(s, n);
	return 0;
}

/* The part after "kexec:": KERNEL[,initrd=FILE][,append=ARGS]. */
static int
parse_kexec(const char *s, struct bootspec *b, char **err)
{
	const char *p = s, *e;

	e = p + strcspn(p, ",");
	if (kexec_path("the kernel", p, (size_t)(e - p), &b->kernel, err) != 0)
		return -1;
	while (*e == ',') {
		p = e + 1;
		if (strncmp(p, "append=", 7) == 0) {
			if (p[7] == '\0') {
				*err = xstrdup("kexec: append= is empty (leave it out for "
				    "no command line)");
				return -1;
			}
			b->append = xstrdup(p + 7);
			return 0;
		}
		e = p + strcspn(p, ",");
		if (strncmp(p, "initrd=", 7) == 0) {
			if (b->initrd != NULL) {
				*err = xstrdup("kexec: initrd= is given twice");
				return -1;
			}
			if (kexec_path("the initrd", p + 7, (size_t)(e - p - 7), &b->initrd,
			    err) != 0)
				return -1;
			continue;
		}
		*err = e == p ? xstrdup("kexec: an empty option (expected initrd=FILE or "
		    "append=ARGS after a comma)") : xasprintf("kexec: unknown option '%.*s' "
		    "(expected initrd=FILE or append=ARGS)", (int)strcspn(p, ",="), p);
		return -1;
	}
	return 0;
}

int
bootspec_parse(const char *text, int names, struct bootspec *out, char **err)
{
	struct bootspec b;
	const size_t plen = strlen(BOOTSPEC_KEXEC_PREFIX);

	memset(&b, 0, sizeof(b));
	memset(out, 0, sizeof(*out));
	b.text = xstrdup(text);
	if (has_control(text, strlen(text))) {
		*err = xstrdup("a control character (a newline, a tab...): the side must "
		    "be one line");
		goto fail;
	}
	if (strncmp(text, BOOTSPEC_KEXEC_PREFIX, plen) == 0) {
		b.kind = BOOTSPEC_KEXEC;
		if (parse_kexec(text + plen, &b, err) != 0)
			goto fail;
	} else if (strspn(text, " ") == strlen(text)) {
		*err = xstrdup("an empty command");
		goto fail;
	} else if (names && fleet_name_ok(text)) {
		b.kind = BOOTSPEC_ENTRY;
		b.entry = xstrdup(text);
	} else {
		b.kind = BOOTSPEC_COMMAND;
		b.command = xstrdup(text);
	}
	*out = b;
	return 0;
 fail:
	bootspec_release(&b);
	return -1;
}

void
bootspec_release(struct bootspec *b)
{
	if (b == NULL)
		return;
	free(b->text);
	free(b->command);
	free(b->kernel);
	free(b->initrd);
	free(b->append);
	free(b->entry);
	memset(b, 0, sizeof(*b));
}

char *
bootspec_expand(const char *cmd, const char *host)
{
	struct strbuf sb = STRBUF_INIT;
	const size_t wlen = strlen(BOOTSPEC_HOST_WORD);
	const char *p = cmd, *q;

	while ((q = strstr(p, BOOTSPEC_HOST_WORD)) != NULL) {
		strbuf_add(&sb, p, (size_t)(q - p));
		strbuf_addstr(&sb, host);
		p = q + wlen;
	}
	strbuf_addstr(&sb, p);
	return strbuf_detach(&sb, NULL);
}
