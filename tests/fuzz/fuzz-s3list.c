/*
 * fuzz-s3list.c: the readers of S3's answers (src/s3.c): a ListObjectsV2
 * page and an error document, as a hostile or broken server could send
 * them.  A page that parses must keep the promises of s3.h: names within
 * the bounds, and a token whenever the page says it is truncated.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "s3.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct s3_listing l;
	char *err = NULL, *code = NULL, *msg = NULL;
	size_t i;

	if (s3_list_parse((const char *)data, size, &l, &err) == 0) {
		if (l.nkeys + l.nprefixes > S3_MAX_NAMES)
			abort();
		for (i = 0; i < l.nkeys; i++)
			if (strlen(l.keys[i]) > S3_MAX_TEXT)
				abort();
		for (i = 0; i < l.nprefixes; i++)
			if (strlen(l.prefixes[i]) > S3_MAX_TEXT)
				abort();
		if (l.truncated && (l.next_token == NULL || l.next_token[0] == '\0'))
			abort();
		s3_listing_release(&l);
	} else {
		if (err == NULL)
			abort();
		free(err);
	}
	if (s3_error_parse((const char *)data, size, &code, &msg) == 0) {
		if (code == NULL || code[0] == '\0')
			abort();
		for (i = 0; code[i] != '\0'; i++)
			if (code[i] < 0x20 || code[i] >= 0x7f)
				abort();
		free(code);
		free(msg);
	} else if (code != NULL || msg != NULL)
		abort();
	return 0;
}
