/*
 * csv.c: CSV fields (csv.h).
 */
#include <stdio.h>
#include <string.h>

#include "csv.h"

void
csv_field(FILE *out, const char *s)
{
	size_t n = strlen(s);

	if (strpbrk(s, ",\"\r\n") == NULL && (n == 0 || (s[0] != ' ' && s[n - 1] != ' '))) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}
