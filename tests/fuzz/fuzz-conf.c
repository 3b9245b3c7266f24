/*
 * fuzz-conf.c: the YAML layer (src/conf.c).  Parse the input as a
 * configuration document, then run every typed getter on every node, as
 * the plan and fleet loaders would on a file a user wrote.
 */
#include <stdlib.h>

#include "conf.h"
#include "fuzz.h"

static const char *const known[] = {
	"name", "hosts", "repeat", "benchmarks", "defaults", "address", NULL,
};

static void
getters(const struct conf_node *n)
{
	const char *s;
	long long ll;
	double d;
	size_t count, i;
	int b;
	char *err = NULL, *dym;

	/* each getter either succeeds or explains why, at a position */
#define TRY(call) do { err = NULL; if ((call) != 0) { if (err == NULL) abort(); free(err); } } while (0)
	TRY(conf_string(n, &s, &err));
	TRY(conf_int(n, -1000, 1000000, &ll, &err));
	TRY(conf_bool(n, &b, &err));
	TRY(conf_duration(n, 0, 86400000LL * 7, &ll, &err));
	TRY(conf_percent(n, &d, &err));
	TRY(conf_check_keys(n, "thing", known, &err));
	err = NULL;
	if (conf_scalar_list(n, &count, &err) == 0) {
		for (i = 0; i < count; i++)
			if (conf_list_at(n, i) == NULL)
				abort();
	} else
		free(err);
#undef TRY
	(void)conf_is_null(n);
	(void)conf_type_name(n);
	if (n->type == CONF_SCALAR) {
		dym = conf_did_you_mean(n->value, known, sizeof(known) / sizeof(known[0]) - 1);
		free(dym);
		(void)conf_get(n, "x");
	}
}

static void
walk(const struct conf_node *n, int depth)
{
	size_t i;

	if (depth > CONF_MAX_DEPTH + 1)
		abort();	/* deeper than the parser promises */
	getters(n);
	for (i = 0; n->type != CONF_SCALAR && i < n->n; i++) {
		if (n->type == CONF_MAPPING && i < 64) {	/* lookups are linear */
			if (n->keys[i]->type != CONF_SCALAR)
				abort();
			(void)conf_get(n, n->keys[i]->value);
			(void)conf_get_key(n, n->keys[i]->value);
		}
		walk(n->items[i], depth + 1);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf_doc *doc = NULL;
	char *err = NULL;

	if (conf_parse("fuzz.yaml", (const char *)data, size, &doc, &err) != 0) {
		if (err == NULL)
			abort();
		free(err);
		return 0;
	}
	walk(conf_root(doc), 0);
	conf_free(doc);
	return 0;
}
