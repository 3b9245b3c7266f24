/*
 * test-yamldoc.c: the YAML layer: node positions, what it refuses, typed
 * getters (durations, percentages, booleans, integers), strict mappings
 * and "did you mean" suggestions.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yamldoc.h"
#include "tap.h"
#include "xmalloc.h"

/* Parse text; on failure return NULL and keep the message in last_err. */
static char *last_err;

static struct ydoc *
parse(const char *text)
{
	struct ydoc *doc = NULL;

	free(last_err);
	last_err = NULL;
	if (ydoc_parse("t.yaml", text, strlen(text), &doc, &last_err) != 0)
		return NULL;
	return doc;
}

/* Whether parsing text fails with a message containing want. */
static int
fails_with(const char *text, const char *want)
{
	struct ydoc *doc = parse(text);

	if (doc != NULL) {
		ydoc_free(doc);
		printf("#   parsed, expected \"%s\"\n", want);
		return 0;
	}
	if (strstr(last_err, want) == NULL) {
		printf("#   got \"%s\"\n#   want \"%s\"\n", last_err, want);
		return 0;
	}
	return 1;
}

static void
test_positions(void)
{
	struct ydoc *doc = parse("# comment\nname: x\nlist:\n  - a\n  -   \"b c\"\nmap: {k: 1}\n");
	const struct ydoc_node *root, *n;

	ok(doc != NULL, "a small document parses");
	if (doc == NULL)
		return;
	root = ydoc_root(doc);
	is_int(root->type, YDOC_MAPPING, "root is a mapping");
	is_int(root->n, 3, "three keys");
	is_str(root->keys[0]->value, "name", "keys in order");
	is_int(root->keys[0]->line, 2, "key line, 1-based");
	is_int(root->keys[0]->col, 1, "key column, 1-based");
	n = ydoc_get(root, "name");
	ok(n && n->line == 2 && n->col == 7 && !n->quoted, "scalar value position");
	n = ydoc_get(root, "list");
	ok(n && n->type == YDOC_SEQUENCE && n->n == 2, "sequence");
	if (n && n->n == 2) {
		ok(n->items[1]->line == 5 && n->items[1]->col == 7, "item position after extra blanks");
		ok(n->items[1]->quoted && strcmp(n->items[1]->value, "b c") == 0, "quoted scalar");
	}
	n = ydoc_get(root, "map");
	ok(n && n->type == YDOC_MAPPING && n->line == 6 && n->col == 6, "flow mapping position");
	is_str(ydoc_file(doc), "t.yaml", "file name kept");
	ok(ydoc_get(root, "nosuch") == NULL, "absent key is NULL");
	ok(ydoc_get_key(root, "map") == root->keys[2], "ydoc_get_key gives the key node");
	ydoc_free(doc);

	/* Columns count characters, not bytes. */
	doc = parse("k: [\xc3\xa9t\xc3\xa9, x]\n");
	ok(doc != NULL, "UTF-8 text parses");
	if (doc) {
		n = ydoc_get(ydoc_root(doc), "k");
		ok(n && n->n == 2 && n->items[1]->col == 10, "column after a multibyte character");
		ydoc_free(doc);
	}
}

static void
test_rejections(void)
{
	char *big, *many, *deep;
	size_t i;

	ok(fails_with("a: 1\nb: 2\na: 3\n", "t.yaml:3:1: duplicate key 'a' (first at line 1)"),
	    "duplicate key, reported at the second");
	ok(fails_with("a: &x 1\n", "t.yaml:1:4: YAML anchors are not allowed (&x)"), "anchor");
	ok(fails_with("a: 1\nb: *x\n", "t.yaml:2:4: YAML aliases are not allowed"), "alias");
	ok(fails_with("a: !!int 1\n", "t.yaml:1:4: YAML tags are not allowed"), "tag");
	ok(fails_with("a: !foo 1\n", "YAML tags are not allowed (!foo)"), "local tag");
	ok(fails_with("a: 1\n---\nb: 2\n", "t.yaml:2:1: a second YAML document"), "two documents");
	ok(fails_with("", "t.yaml:1:1: empty file"), "empty file");
	ok(fails_with("# only\n# comments\n", "t.yaml:1:1: empty file"), "comments only");
	ok(fails_with("a:\n\t- b\n", "t.yaml:2:1: tab character"), "tab indentation");
	ok(fails_with("a: 1\n b: 2\n", "t.yaml:2:3: mapping values are not allowed"),
	    "bad indentation");
	ok(fails_with("a: [1, 2\n", "t.yaml:2:1:"), "unclosed flow sequence");
	ok(fails_with("? [a]\n: 1\n", "t.yaml:1:3: mapping keys must be plain strings"),
	    "non-scalar key");
	ok(fails_with("a: \"x\\0y\"\n", "t.yaml:1:4: NUL character"), "NUL in a string");
	ok(fails_with("a: \x01\n", "t.yaml:1:4: control characters are not allowed"),
	    "control character, position from the byte offset");
	ok(fails_with("a: \xff\xfe\n", "not a UTF-8 text file"), "invalid UTF-8");
	ok(fails_with("hosts: [@x]\n", "t.yaml:1:9: '@' cannot start a plain YAML value"),
	    "unquoted @label gets a hint");

	deep = xmalloc(200);
	strcpy(deep, "a: ");
	for (i = 0; i < 32; i++)
		strcat(deep, "[");
	strcat(deep, "1");
	for (i = 0; i < 32; i++)
		strcat(deep, "]");
	strcat(deep, "\n");
	ok(fails_with(deep, "nesting deeper than 32 levels"), "33 levels are refused");
	strcpy(deep, "a: ");
	for (i = 0; i < 31; i++)
		strcat(deep, "[");
	strcat(deep, "1");
	for (i = 0; i < 31; i++)
		strcat(deep, "]");
	strcat(deep, "\n");
	{
		struct ydoc *doc = parse(deep);

		ok(doc != NULL, "32 levels are fine");
		ydoc_free(doc);
	}
	free(deep);

	many = xmalloc(2 * 100001 + 16);
	strcpy(many, "a: [");
	for (i = 0; i < 100000; i++)
		strcat(many + 4 + 2 * (i ? i - 1 : 0), i ? ",1" : "1");
	strcat(many, "]\n");
	ok(fails_with(many, "more than 100000 YAML nodes"), "too many nodes");
	free(many);

	big = xmalloc(YDOC_MAX_BYTES + 2);
	memset(big, '#', YDOC_MAX_BYTES + 1);
	big[YDOC_MAX_BYTES + 1] = '\0';
	{
		struct ydoc *doc = NULL;
		char *err = NULL;

		ok(ydoc_parse("big.yaml", big, YDOC_MAX_BYTES + 1, &doc, &err) != 0 &&
		    strstr(err, "big.yaml:1:1: file too large") != NULL, "over 1 MB is refused");
		free(err);
	}
	free(big);
	{
		struct ydoc *doc = NULL;
		char *err = NULL;

		ok(ydoc_load("/nonexistent/x.yaml", &doc, &err) != 0 &&
		    strstr(err, "/nonexistent/x.yaml: No such file") != NULL, "missing file");
		free(err);
	}
}

/* Run a getter on the value of "v" in "v: TEXT". */
static struct ydoc *
value_of(const char *text, const struct ydoc_node **n)
{
	char *buf = xasprintf("v: %s\n", text);
	struct ydoc *doc = parse(buf);

	free(buf);
	*n = doc ? ydoc_get(ydoc_root(doc), "v") : NULL;
	return doc;
}

static void
test_getters(void)
{
	static const struct { const char *text; long long ms; } durations[] = {
		{ "90s", 90000 }, { "5m", 300000 }, { "1h", 3600000 }, { "500ms", 500 },
		{ "30", 30000 }, { "1.5s", 1500 }, { "0.5", 500 }, { "2h", 7200000 },
	};
	static const char *const bad_durations[] = {
		"5 m", "5min", "s", "-1s", "1.2.3s", ".5s", "5.s", "1e3s", "\"\"", "[1]", "10d",
	};
	const struct ydoc_node *n;
	struct ydoc *doc;
	char *err = NULL;
	long long v;
	double d;
	int b;
	size_t i, count;

	for (i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		char what[64];

		doc = value_of(durations[i].text, &n);
		snprintf(what, sizeof(what), "duration %s", durations[i].text);
		v = -1;
		ok(ydoc_duration(n, 0, LLONG_MAX, &v, &err) == 0 && v == durations[i].ms, what);
		ydoc_free(doc);
	}
	for (i = 0; i < sizeof(bad_durations) / sizeof(bad_durations[0]); i++) {
		char what[64];

		doc = value_of(bad_durations[i], &n);
		snprintf(what, sizeof(what), "not a duration: %s", bad_durations[i]);
		ok(ydoc_duration(n, 0, LLONG_MAX, &v, &err) != 0 &&
		    strstr(err, "t.yaml:1:4:") == err, what);
		free(err);
		err = NULL;
		ydoc_free(doc);
	}
	doc = value_of("2h", &n);
	ok(ydoc_duration(n, 1000, 3600000, &v, &err) != 0 &&
	    strstr(err, "out of range (1s to 1h)") != NULL, "duration range, said in units");
	free(err);
	err = NULL;
	ydoc_free(doc);

	doc = value_of("5%", &n);
	ok(ydoc_percent(n, 100, &d, &err) == 0 && d == 5.0, "5%");
	ydoc_free(doc);
	doc = value_of("2.5%", &n);
	ok(ydoc_percent(n, 100, &d, &err) == 0 && d == 2.5, "2.5%");
	ydoc_free(doc);
	doc = value_of("5", &n);
	ok(ydoc_percent(n, 100, &d, &err) != 0 && strstr(err, "'5' is not a percentage") != NULL,
	    "a percentage needs its %");
	free(err);
	err = NULL;
	ydoc_free(doc);
	doc = value_of("101%", &n);
	ok(ydoc_percent(n, 100, &d, &err) != 0 && strstr(err, "over 100%") != NULL, "101% refused");
	free(err);
	err = NULL;
	ydoc_free(doc);

	doc = value_of("yes", &n);
	ok(ydoc_bool(n, &b, &err) == 0 && b == 1, "yes");
	ydoc_free(doc);
	doc = value_of("False", &n);
	ok(ydoc_bool(n, &b, &err) == 0 && b == 0, "False");
	ydoc_free(doc);
	doc = value_of("maybe", &n);
	ok(ydoc_bool(n, &b, &err) != 0 && strstr(err, "t.yaml:1:4: 'maybe' is not a boolean"),
	    "not a boolean");
	free(err);
	err = NULL;
	ydoc_free(doc);

	doc = value_of("-12", &n);
	ok(ydoc_int(n, -100, 100, &v, &err) == 0 && v == -12, "negative integer");
	ydoc_free(doc);
	doc = value_of("12x", &n);
	ok(ydoc_int(n, 0, 100, &v, &err) != 0 && strstr(err, "'12x' is not an integer"),
	    "not an integer");
	free(err);
	err = NULL;
	ydoc_free(doc);
	doc = value_of("99999999999999999999", &n);
	ok(ydoc_int(n, 0, LLONG_MAX, &v, &err) != 0, "overflowing integer");
	free(err);
	err = NULL;
	ydoc_free(doc);
	doc = value_of("[1, 2]", &n);
	ok(ydoc_int(n, 0, 9, &v, &err) != 0 && strstr(err, "expected an integer, found a list"),
	    "a list is not an integer");
	free(err);
	err = NULL;
	ydoc_free(doc);

	doc = value_of("", &n);
	ok(ydoc_is_null(n), "an empty value is null");
	ok(ydoc_string(n, &(const char *){ NULL }, &err) != 0 &&
	    strstr(err, "expected a string, found null"), "null is not a string");
	free(err);
	err = NULL;
	ydoc_free(doc);
	doc = value_of("\"\"", &n);
	ok(!ydoc_is_null(n), "a quoted empty string is not null");
	ydoc_free(doc);

	doc = value_of("one", &n);
	ok(ydoc_scalar_list(n, &count, &err) == 0 && count == 1 &&
	    ydoc_list_at(n, 0) == n, "a scalar is a one-element list");
	ydoc_free(doc);
	doc = value_of("[a, b, c]", &n);
	ok(ydoc_scalar_list(n, &count, &err) == 0 && count == 3 &&
	    strcmp(ydoc_list_at(n, 2)->value, "c") == 0 && ydoc_list_at(n, 3) == NULL,
	    "a sequence is a list");
	ydoc_free(doc);
	doc = value_of("[a, [b]]", &n);
	ok(ydoc_scalar_list(n, &count, &err) != 0 && strstr(err, "t.yaml:1:8: expected a single"),
	    "a nested list is refused at the element");
	free(err);
	err = NULL;
	ydoc_free(doc);
}

static void
test_keys(void)
{
	static const char *const known[] = { "hosts", "repeat", "samples", "description", NULL };
	struct ydoc *doc;
	char *err = NULL, *s;

	doc = parse("repeat: 1\nhots: [a]\n");
	ok(doc && ydoc_check_keys(ydoc_root(doc), "plan", known, &err) != 0, "unknown key");
	is_str(err, "t.yaml:2:1: unknown key 'hots' in plan (did you mean 'hosts'?)",
	    "the message names file, line, column, key and suggestion");
	free(err);
	err = NULL;
	ydoc_free(doc);
	doc = parse("zzzzzz: 1\n");
	ok(doc && ydoc_check_keys(ydoc_root(doc), "plan", known, &err) != 0, "unknown key");
	is_str(err, "t.yaml:1:1: unknown key 'zzzzzz' in plan", "no suggestion when nothing is near");
	free(err);
	err = NULL;
	ydoc_free(doc);
	doc = parse("- a\n");
	ok(doc && ydoc_check_keys(ydoc_root(doc), "plan", known, &err) != 0 &&
	    strstr(err, "expected a mapping for plan, found a list"), "not a mapping");
	free(err);
	ydoc_free(doc);

	is_int(ydoc_edit_distance("kitten", "sitting"), 3, "kitten/sitting");
	is_int(ydoc_edit_distance("", "abc"), 3, "from empty");
	is_int(ydoc_edit_distance("hosts", "hosts"), 0, "same");
	is_int(ydoc_edit_distance("hots", "hosts"), 1, "one insertion");
	is_int(ydoc_edit_distance("smaples", "samples"), 2, "a transposition is two edits");
	ok(ydoc_suggest("smaples", known, 4) == known[2], "suggest within 2 edits");
	ok(ydoc_suggest("repeatxyz", known, 4) == NULL, "nothing beyond 2 edits");
	ok(ydoc_suggest("x", known, 4) == NULL, "one letter suggests nothing");
	ok(ydoc_suggest("desc", known, 4) == known[3], "a unique abbreviation");
	s = ydoc_did_you_mean("hots", known, 4);
	is_str(s, " (did you mean 'hosts'?)", "did-you-mean text");
	free(s);
	s = ydoc_did_you_mean("qqqq", known, 4);
	is_str(s, "", "empty when no suggestion");
	free(s);
}

static void
test_names(void)
{
	ok(ydoc_name_ok("p690-a_1.lab", 64), "a name of letters, digits, '-', '_', '.'");
	ok(ydoc_name_ok("9lives", 64), "a name may start with a digit");
	ok(!ydoc_name_ok("", 64), "an empty name is refused");
	ok(!ydoc_name_ok("-x", 64) && !ydoc_name_ok(".x", 64) && !ydoc_name_ok("_x", 64),
	    "a name starting with '-', '.' or '_' is refused");
	ok(!ydoc_name_ok("a b", 64) && !ydoc_name_ok("a/b", 64) && !ydoc_name_ok("a\303\251", 64),
	    "blanks, slashes and non-ASCII bytes are refused");
	ok(ydoc_name_ok("abcd", 4) && !ydoc_name_ok("abcde", 4), "at most max bytes");
}

int
main(void)
{
	test_positions();
	test_rejections();
	test_getters();
	test_keys();
	test_names();
	free(last_err);
	return tap_done();
}
