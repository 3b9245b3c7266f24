/*
 * fuzz-yamldoc.c: the YAML layer (src/yamldoc.c).  Parse the input as a
 * configuration document, then run every typed getter on every node, as
 * the plan and fleet loaders would on a file a user wrote.
 */
#include <stdlib.h>

#include "yamldoc.h"
#include "fuzz.h"

static const char *const known[] = {
	"name", "hosts", "repeat", "benchmarks", "defaults", "address", NULL,
};

static void
getters(const struct ydoc_node *n)
{
	const char *s;
	long long ll;
	double d;
	size_t count, i;
	int b;
	char *err = NULL, *dym;

	/* each getter either succeeds or explains why, at a position */
#define TRY(call) do { err = NULL; if ((call) != 0) { if (err == NULL) abort(); free(err); } } while (0)
	TRY(ydoc_string(n, &s, &err));
	TRY(ydoc_int(n, -1000, 1000000, &ll, &err));
	TRY(ydoc_bool(n, &b, &err));
	TRY(ydoc_duration(n, 0, 86400000LL * 7, &ll, &err));
	TRY(ydoc_percent(n, 1000, &d, &err));
	TRY(ydoc_check_keys(n, "thing", known, &err));
	err = NULL;
	if (ydoc_scalar_list(n, &count, &err) == 0) {
		for (i = 0; i < count; i++)
			if (ydoc_list_at(n, i) == NULL)
				abort();
	} else
		free(err);
#undef TRY
	(void)ydoc_is_null(n);
	(void)ydoc_type_name(n);
	if (n->type == YDOC_SCALAR) {
		dym = ydoc_did_you_mean(n->value, known, sizeof(known) / sizeof(known[0]) - 1);
		free(dym);
		(void)ydoc_get(n, "x");
	}
}

static void
walk(const struct ydoc_node *n, int depth)
{
	size_t i;

	if (depth > YDOC_MAX_DEPTH + 1)
		abort();	/* deeper than the parser promises */
	getters(n);
	for (i = 0; n->type != YDOC_SCALAR && i < n->n; i++) {
		if (n->type == YDOC_MAPPING && i < 64) {	/* lookups are linear */
			if (n->keys[i]->type != YDOC_SCALAR)
				abort();
			(void)ydoc_get(n, n->keys[i]->value);
			(void)ydoc_get_key(n, n->keys[i]->value);
		}
		walk(n->items[i], depth + 1);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ydoc *doc = NULL;
	char *err = NULL;

	if (ydoc_parse("fuzz.yaml", (const char *)data, size, &doc, &err) != 0) {
		if (err == NULL)
			abort();
		free(err);
		return 0;
	}
	walk(ydoc_root(doc), 0);
	ydoc_free(doc);
	return 0;
}
