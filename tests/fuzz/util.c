/*
 * util.c: helpers the fuzz targets share (see fuzz.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

char *
fuzz_read_data(const char *name, size_t *len)
{
	char path[4096], *buf;
	FILE *fp;
	long n;

	snprintf(path, sizeof(path), "%s/%s", FUZZ_DATA_DIR, name);
	if ((fp = fopen(path, "rb")) == NULL || fseek(fp, 0, SEEK_END) != 0 ||
	    (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0 ||
	    (buf = malloc((size_t)n + 1)) == NULL ||
	    fread(buf, 1, (size_t)n, fp) != (size_t)n) {
		fprintf(stderr, "fuzz: cannot read %s\n", path);
		exit(2);
	}
	fclose(fp);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

char *
fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}
