/*
 * test-trialread.c: the reader of trials.jsonl (src/trialread.c): exact
 * numbers, escapes, what makes a line corrupt, the field mask (members not
 * asked for are neither read nor type-checked), TRIAL_LENIENT and
 * TRIAL_REJECTS as reports use them, params as text, the profile as it is
 * written, the same lines from memory as from a file, long and truncated
 * lines, and the done set of --resume (tests/data/journal/).
 *
 * What the journal writes reading back as written is test-journal.c's.
 * Run from the top of the tree (fixtures are read from tests/data/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "trialread.h"
#include "xmalloc.h"

static const char *tmpdir;

static char *
write_tmp(const char *name, const char *text, size_t len)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
		printf("# cannot write %s\n", path);
		exit(1);
	}
	return path;
}

struct got {
	size_t		 n;
	char		 desc[8][1200];
};

static int
collect(const struct trial_line *l, void *arg)
{
	struct got *g = arg;
	char *d;
	size_t i, len, cap = sizeof(g->desc[0]);

	if (g->n >= 8)
		return 7;
	d = g->desc[g->n++];
	if (l->reject != TRIAL_OK) {
		snprintf(d, cap, "%zu|reject %d|%lld", l->lineno, (int)l->reject, l->format);
		return 0;
	}
	len = (size_t)snprintf(d, cap, "%zu|%s|%s|%s|%lld|%s|%s|%s|%d:%.17g|", l->lineno,
	    l->host, l->variant ? l->variant : "(null)", l->bench, l->rep,
	    l->key ? l->key : "(null)", l->metric ? l->metric : "(null)", l->status,
	    l->has_value, l->value);
	for (i = 0; i < l->nparams && len < cap - 100; i++)
		len += (size_t)snprintf(d + len, cap - len, "%s=%s,", l->keys[i], l->vals[i]);
	for (i = 0; i < l->nresolved && len < cap - 100; i++)
		len += (size_t)snprintf(d + len, cap - len, "%s:%s,", l->rkeys[i], l->rvals[i]);
	for (i = 0; i < l->nsamples && len < cap - 100; i++)
		len += (size_t)snprintf(d + len, cap - len, "%.17g;", l->samples[i]);
	if (l->message && len < cap - 100)
		len += (size_t)snprintf(d + len, cap - len, "|%s", l->message);
	if (l->params_text[0] != '\0' && len < cap - 100)
		len += (size_t)snprintf(d + len, cap - len, "|p:%.80s", l->params_text);
	if (l->profile != NULL && len < cap - 100)
		len += (size_t)snprintf(d + len, cap - len, "|prof:%.*s", (int)l->profile_len,
		    l->profile);
	if (l->kernel != NULL && len < cap - 100)
		snprintf(d + len, cap - len, "|kern:%.*s", (int)l->kernel_len, l->kernel);
	return 0;
}

/* Read text with fields from a file and from memory: the same lines and
 * counts both ways, or a note why not.  The file's into *g and *sc. */
static int
read_both(const char *text, size_t len, unsigned int fields, struct got *g,
    struct trial_scan *sc)
{
	char *path = write_tmp("both.jsonl", text, len), *err = NULL;
	struct got g2;
	struct trial_scan sc2;
	size_t i;
	int r, r2;

	memset(g, 0, sizeof(*g));
	memset(&g2, 0, sizeof(g2));
	r = trialread_file(path, fields, collect, g, sc, &err);
	r2 = trialread_buf(text, len, fields, collect, &g2, &sc2);
	free(path);
	if (r != r2 || g->n != g2.n || sc->lines != sc2.lines || sc->corrupt != sc2.corrupt ||
	    sc->first_corrupt != sc2.first_corrupt || sc->empty != sc2.empty ||
	    sc->other_format != sc2.other_format || sc->truncated != sc2.truncated ||
	    sc->good_size != sc2.good_size || strcmp(sc->first_why, sc2.first_why) != 0) {
		printf("#   file and memory disagree: %d/%d lines %zu/%zu corrupt %zu/%zu\n",
		    r, r2, sc->lines, sc2.lines, sc->corrupt, sc2.corrupt);
		return -1;
	}
	for (i = 0; i < g->n; i++)
		if (strcmp(g->desc[i], g2.desc[i]) != 0) {
			printf("#   file: %s\n#   memory: %s\n", g->desc[i], g2.desc[i]);
			return -1;
		}
	return r;
}

#define TL(extra) "{\"format\":1,\"host\":\"h\",\"bench\":\"b\",\"key\":\"k\",\"status\":\"ok\"" extra "}\n"

/* One line that, with every member asked for, is not a trial line. */
static int
line_is_corrupt(const char *text)
{
	struct trial_scan sc;
	struct got g;
	int r = read_both(text, strlen(text), TRIAL_ALL, &g, &sc) == 0 && sc.lines == 1 &&
	    sc.corrupt == 1 && g.n == 0;

	if (!r)
		printf("#   read as a trial line: %s", text);
	return r;
}

/* One line read with fields: its description, or "" when none. */
static const char *
one(const char *text, unsigned int fields)
{
	static struct got g;
	struct trial_scan sc;

	if (read_both(text, strlen(text), fields, &g, &sc) != 0 || g.n != 1)
		return "";
	return g.desc[0];
}

static void
test_numbers(void)
{
	static const char *const numbers[] = {
		"0", "-0", "0.1", "1e-7", "5032.1", "1007099946.083", "0.09833218575",
		"123456789012345678901234567890", "2.2250738585072014e-308",
		"9007199254740993", "1.7976931348623157e308", "5e-324", "1E+2", "-1.5e-3",
		"0.000001234567890123456789", "12345678901234567890.5",
	};
	struct trial_scan sc;
	struct got g;
	size_t i;
	int exact = 1;

	/* Exact numbers, as strtod makes them. */
	for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		char *text = xasprintf(TL(",\"value\":%s,\"samples\":[%s,%s]"), numbers[i],
		    numbers[i], numbers[i]);
		double want = strtod(numbers[i], NULL);

		if (read_both(text, strlen(text), TRIAL_ALL, &g, &sc) != 0 || g.n != 1)
			exact = 0;
		else {
			char w[64];

			snprintf(w, sizeof(w), "%.17g", want);
			if (strstr(g.desc[0], w) == NULL) {
				printf("#   %s: want %s in %s\n", numbers[i], w, g.desc[0]);
				exact = 0;
			}
		}
		free(text);
	}
	ok(exact, "numbers are read exactly (fast path and fallback)");
	ok(line_is_corrupt(TL(",\"x\":1e999")), "a number too large, even in a member skipped");
	ok(strstr(one(TL(",\"x\":1e300,\"y\":-1e-999"), 0), "|h|") != NULL,
	    "a large number that is finite, and one too small, in members skipped");
}

static void
test_strings(void)
{
	static const char text[] = TL(",\"message\":\"a\\u00e9\\ud83d\\ude00\\n\\/\\\\\\\"\"")
	    TL(",\"unknown\":{\"a\":[1,{\"b\":[true,false,null]}],\"c\":\"\"},\"x\":[]")
	    TL(",\"params\":{},\"resolved\":{ \"n\" : 5 , \"s\" : \"t\" }");
	struct trial_scan sc;
	struct got g;

	ok(read_both(text, sizeof(text) - 1, TRIAL_ALL, &g, &sc) == 0 && g.n == 3 &&
	    strstr(g.desc[0], "|a\xc3\xa9\xf0\x9f\x98\x80\n/\\\"") != NULL,
	    "\\u escapes, surrogate pairs and the short escapes");
	ok(g.n == 3 && strstr(g.desc[1], "|h|(null)|b|0|k|(null)|ok|0:0|") != NULL,
	    "unknown members of any shape are skipped");
	ok(g.n == 3 && strstr(g.desc[2], "n:5,s:t,") != NULL, "blanks around resolved numbers");
	is_str(one("{\"\\u0066ormat\":1,\"h\\u006fst\":\"\\u0068\",\"bench\":\"b\",\"status\":"
	    "\"ok\",\"key\":\"\\\"k\\\"\"}\n", TRIAL_KEY), "1|h|(null)|b|0|\"k\"|(null)|ok|0:0|",
	    "escapes in member names, and after text that needed none");
}

static void
test_corrupt(void)
{
	struct trial_scan sc;
	struct got g;
	char *text;

	ok(line_is_corrupt(TL(",\"value\":01")), "a leading zero");
	ok(line_is_corrupt(TL(",\"value\":1.")), "a bare decimal point");
	ok(line_is_corrupt(TL(",\"value\":.5")), "no integer part");
	ok(line_is_corrupt(TL(",\"value\":NaN")), "NaN");
	ok(line_is_corrupt(TL(",\"value\":Infinity")), "Infinity");
	ok(line_is_corrupt(TL(",\"value\":+1")), "a plus sign");
	ok(line_is_corrupt(TL(",\"value\":1e999")), "a number too large");
	ok(line_is_corrupt(TL(",\"rep\":1.5")), "rep not an integer");
	ok(line_is_corrupt(TL(",\"message\":\"a\tb\"")), "a raw tab in a string");
	ok(line_is_corrupt(TL(",\"message\":\"\xff\"")), "not UTF-8");
	ok(line_is_corrupt(TL(",\"message\":\"\\u0000\"")), "an escaped NUL");
	ok(line_is_corrupt(TL(",\"message\":\"\\ud83d\"")), "a lone surrogate");
	ok(line_is_corrupt(TL(",\"message\":\"\\x41\"")), "an unknown escape");
	ok(line_is_corrupt(TL(",\"samples\":[1,,2]")), "an empty array element");
	ok(line_is_corrupt(TL(",\"samples\":[1,\"2\"]")), "a sample that is text");
	ok(line_is_corrupt(TL(",\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]")),
	    "nesting deeper than 32");
	ok(line_is_corrupt("{\"format\":1,\"host\":\"h\",\"bench\":\"b\",\"key\":\"k\",\"status\":\"ok\"} x\n"),
	    "something after the object");
	ok(line_is_corrupt("{\"format\":2,\"host\":\"h\",\"bench\":\"b\",\"key\":\"k\",\"status\":\"ok\"}\n"),
	    "another format");
	ok(line_is_corrupt("{\"format\":1,\"bench\":\"b\",\"key\":\"k\",\"status\":\"ok\"}\n"),
	    "no host");
	ok(line_is_corrupt(TL(",\"part\":3,\"parts\":2")), "part past parts");
	ok(line_is_corrupt("[1,2,3]\n"), "not an object");
	ok(line_is_corrupt("{}\n"), "an empty object");
	ok(line_is_corrupt("\n"), "an empty line");
	ok(line_is_corrupt(TL(",\"key\":null")), "a key that is null");
	ok(line_is_corrupt(TL(",\"variant\":5")), "a variant that is a number");
	ok(line_is_corrupt("{\"format\":1.0,\"host\":\"h\",\"bench\":\"b\",\"key\":\"k\","
	    "\"status\":\"ok\"}\n"), "a format that is not an integer");
	{
		static const char nul[] = "{\"format\":1,\"host\":\"h\",\"bench\":\"b\",\"key\":\"k\","
		    "\"status\":\"o\0k\"}\n" TL("");

		ok(read_both(nul, sizeof(nul) - 1, TRIAL_ALL, &g, &sc) == 0 && sc.corrupt == 1 &&
		    sc.first_corrupt == 1 && g.n == 1, "a NUL byte in a line");
	}
	{
		static const char after[] = "{\"format\":1,\"host\":\"h\",\"bench\":\"b\",\"key\":\"k\","
		    "\"status\":\"ok\"}\0 x\n\0\n";

		ok(read_both(after, sizeof(after) - 1, TRIAL_ALL, &g, &sc) == 0 && sc.corrupt == 2 &&
		    sc.empty == 0 && g.n == 0, "a NUL after the object, and a line of only a NUL");
	}
	ok(strstr(one(TL(",\"rep\":9223372036854775807,\"iterations\":-9223372036854775808"),
	    TRIAL_ALL), "|9223372036854775807|") != NULL, "integers as large as long long");
	ok(line_is_corrupt(TL(",\"rep\":9223372036854775808")), "an integer larger");
	text = xasprintf("%s", TL("") TL("") TL("") TL("") TL("") TL("") TL("") TL("") TL(""));
	is_int(read_both(text, strlen(text), TRIAL_ALL, &g, &sc), 7,
	    "a callback's non-zero return stops");
	free(text);
}

/* Only what is asked for is read, and only that is checked. */
static void
test_fields(void)
{
	static const char full[] = "{\"format\":1,\"run\":\"r\",\"host\":\"h\",\"variant\":\"v\","
	    "\"bench\":\"b\",\"params\":{\"t\":\"4\",\"p\":16},\"rep\":2,\"key\":\"k\","
	    "\"metric\":\"m\",\"unit\":\"ns\",\"direction\":\"higher\",\"value\":5.5,"
	    "\"samples\":[5,6],\"resolved\":{\"t\":4},\"start\":10.5,\"duration\":1.5,"
	    "\"status\":\"ok\",\"kind\":\"ok\",\"message\":null,\"notes\":[\"n\"],"
	    "\"part\":1,\"parts\":2,\"profile\":{\"absent\":\"x\"}}\n";
	const char *d;

	is_str(one(full, 0), "1|h|(null)|b|0|(null)|(null)|ok|0:0|",
	    "no fields: format, host, bench and status only");
	is_str(one(full, TRIAL_ALL), "1|h|v|b|2|k|m|ok|1:5.5|t=4,p=16,t:4,5;6;|p:t=4,p=16"
	    "|prof:{\"absent\":\"x\"}", "every field");
	is_str(one(full, TRIAL_METRIC | TRIAL_VALUE), "1|h|(null)|b|0|(null)|m|ok|1:5.5|",
	    "the metric and its value only");
	is_str(one(full, TRIAL_PARAMS_TEXT), "1|h|(null)|b|0|(null)|(null)|ok|0:0||p:t=4,p=16",
	    "params as text without the pairs");
	ok(strstr(one(TL(",\"rep\":1.5,\"samples\":[\"x\"],\"variant\":5"), 0), "|h|") != NULL,
	    "members not asked for are not type-checked");
	is_str(one(TL(",\"rep\":1.5"), TRIAL_KEY), "1|h|(null)|b|0|k|(null)|ok|0:0|",
	    "nor is rep when only the key is asked for");
	ok(strstr(one("{\"format\":1,\"host\":\"h\",\"bench\":\"b\",\"status\":\"ok\"}\n", 0),
	    "|h|") != NULL, "a line without a key is one when the key is not asked for");
	is_str(one("{\"format\":1,\"host\":\"h\",\"bench\":\"b\",\"status\":\"ok\"}\n", TRIAL_KEY),
	    "", "and is not when it is");
	is_str(one(TL(",\"part\":3,\"parts\":2"), TRIAL_KEY), "1|h|(null)|b|0|k|(null)|ok|0:0|",
	    "parts are checked only when asked for");
	d = one(TL(",\"profile\":{\"top\":[{\"sym\":\"a\\u00e9\",\"pct\":4.5}], \"n\":null}"),
	    TRIAL_PROFILE);
	ok(strstr(d, "|prof:{\"top\":[{\"sym\":\"a\\u00e9\",\"pct\":4.5}], \"n\":null}") != NULL,
	    "the profile as written, escapes and all");
	d = one(TL(",\"kernel\":{\"counts\":{\"warning\":1},\"lines\":[\"W\"]}"), TRIAL_KERNEL);
	ok(strstr(d, "|kern:{\"counts\":{\"warning\":1},\"lines\":[\"W\"]}") != NULL,
	    "the kernel member as written");
	d = one(TL(",\"kernel\":{\"counts\":{\"warning\":1}}"), TRIAL_PROFILE);
	ok(d != NULL && strstr(d, "|kern:") == NULL, "and not when it is not asked for");
	d = one(TL(",\"kernel\":{\"counts\":[1,}"), TRIAL_KERNEL);
	ok(d != NULL && strstr(d, "|kern:") == NULL, "a malformed kernel member makes no kernel");
}

/* What reports ask for: wrong types read as absent, every line seen. */
static void
test_lenient(void)
{
	static const char lines[] = TL(",\"variant\":5,\"rep\":\"x\",\"value\":\"1\"")
	    "\n"
	    "{\"format\":2,\"host\":{\"a\":1}}\n"
	    "{\"format\":\"1\",\"host\":\"h\",\"bench\":\"b\",\"status\":\"ok\"}\n"
	    "not json\n"
	    TL(",\"params\":{\"a\":true,\"b\":\"x\",\"c\":[1],\"d\":2.50,\"e\":-0,\"f\":1E2}")
	    TL(",\"host\":5");
	unsigned int f = TRIAL_VARIANT | TRIAL_REP | TRIAL_VALUE | TRIAL_PARAMS_TEXT |
	    TRIAL_LENIENT | TRIAL_REJECTS;
	struct trial_scan sc;
	struct got g;

	ok(read_both(lines, sizeof(lines) - 1, f, &g, &sc) == 0 && g.n == 7 && sc.lines == 7,
	    "lenient, with rejects: every line handed out");
	is_str(g.desc[0], "1|h|(null)|b|0|(null)|(null)|ok|0:0|",
	    "a variant, rep and value of the wrong type read as absent");
	is_str(g.desc[1], "2|reject 1|0", "an empty line");
	is_str(g.desc[2], "3|reject 2|2", "another format, whatever its members hold");
	is_str(g.desc[3], "4|reject 3|0", "a format that is text: corrupt");
	is_str(g.desc[4], "5|reject 3|0", "not JSON: corrupt");
	is_str(g.desc[5], "6|h|(null)|b|0|(null)|(null)|ok|0:0||p:b=x,d=2.5,e=-0,f=100",
	    "params: text, integers as written, reals as %g, the rest left out");
	is_str(g.desc[6], "7|reject 3|0", "a host that is not text: corrupt");
	ok(sc.corrupt == 5 && sc.first_corrupt == 2 && sc.empty == 1 && sc.other_format == 1,
	    "counted: 5 not trial lines, 1 empty, 1 of another format");
	ok(read_both(lines, sizeof(lines) - 1, f & ~(TRIAL_LENIENT | TRIAL_REJECTS), &g,
	    &sc) == 0 && g.n == 0 && sc.corrupt == 7, "strict: the same lines are all corrupt");
}

static int
keep_text(const struct trial_line *l, void *arg)
{
	snprintf(arg, TRIALREAD_PARAMS_TEXT + 16, "%s", l->params_text);
	return 0;
}

static int
last_param(const struct trial_line *l, void *arg)
{
	snprintf(arg, 64, "%zu %s=%s", l->nparams, l->keys[l->nparams - 1],
	    l->vals[l->nparams - 1]);
	return 0;
}

/* A line of n params "kNNN":"vvvvvvv" (new), and its params text in *want. */
static char *
many_params(size_t n, char **want)
{
	char *text = xstrdup(""), *w = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < n; i++) {
		t = xasprintf("%s%s\"k%03zu\":\"vvvvvvv\"", text, i ? "," : "", i);
		free(text);
		text = t;
		t = xasprintf("%s%sk%03zu=vvvvvvv", w, i ? "," : "", i);
		free(w);
		w = t;
	}
	t = xasprintf(TL(",\"params\":{%s}"), text);
	free(text);
	*want = w;
	return t;
}

static void
test_params_text(void)
{
	char got[TRIALREAD_PARAMS_TEXT + 16], *text, *want;
	struct trial_scan sc;

	text = many_params(100, &want);
	got[0] = '\0';
	ok(trialread_buf(text, strlen(text), TRIAL_PARAMS_TEXT, keep_text, got, &sc) == 0 &&
	    strlen(want) > TRIALREAD_PARAMS_TEXT && strlen(got) == TRIALREAD_PARAMS_TEXT - 1 &&
	    strncmp(got, want, TRIALREAD_PARAMS_TEXT - 1) == 0,
	    "params text longer than TRIALREAD_PARAMS_TEXT is cut, one byte short of it");
	ok(trialread_buf(text, strlen(text), TRIAL_PARAMS, last_param, got, &sc) == 0 &&
	    strcmp(got, "100 k099=vvvvvvv") == 0, "and the pairs are all there");
	free(text);
	free(want);
	text = many_params(TRIALREAD_MAX_PARAMS + 1, &want);
	is_str(one(text, TRIAL_PARAMS), "", "more pairs than TRIALREAD_MAX_PARAMS: corrupt");
	ok(strstr(one(text, TRIAL_PARAMS_TEXT), "|p:k000=vvvvvvv,k001") != NULL,
	    "but as text only, there is no limit");
	free(text);
	free(want);
}

/* Long lines, truncated lines, and the sizes --resume cuts to. */
static void
test_sizes(void)
{
	size_t big = TRIALREAD_MAX_LINE + 1024, n1 = strlen(TL(""));
	char *text = xmalloc(big + 3 * n1 + 1);
	struct trial_scan sc;
	struct got g;

	memcpy(text, TL(""), n1);
	memset(text + n1, 'x', big);
	text[n1 + big - 1] = '\n';
	memcpy(text + n1 + big, TL(""), n1);
	memcpy(text + n1 + big + n1, TL(""), n1 - 5);
	ok(read_both(text, n1 + big + 2 * n1 - 5, TRIAL_ALL, &g, &sc) == 0 && g.n == 2 &&
	    sc.lines == 3 && sc.corrupt == 1 && sc.first_corrupt == 2 && sc.truncated &&
	    sc.good_size == (off_t)(n1 + big + n1),
	    "a line longer than TRIALREAD_MAX_LINE is corrupt, the next is read, the "
	    "truncated last is not");
	is_str(sc.first_why, "longer than 16777216 bytes", "... and the warning says why");
	ok(read_both(text, n1, TRIAL_ALL, &g, &sc) == 0 && g.n == 1 && !sc.truncated &&
	    sc.good_size == (off_t)n1, "one whole line");
	ok(read_both(text, 0, TRIAL_ALL, &g, &sc) == 0 && g.n == 0 && sc.lines == 0 &&
	    !sc.truncated, "nothing");
	free(text);
}

static void
test_done(void)
{
	struct trial_done *d = NULL, *d2;
	struct trial_scan sc, sc2;
	char *err = NULL, *text;
	FILE *f;
	size_t len = 0;

	/* Corrupt lines and a broken group. */
	ok(trial_done_read("tests/data/journal/trials-corrupt.jsonl", &d, &sc, &err) == 0 &&
	    sc.lines == 5 && sc.corrupt == 1 && sc.first_corrupt == 2 && !sc.truncated &&
	    trial_done_count(d, NULL) == 1 &&
	    trial_done_has(d, "lab-03", "-/munmap/threads=4,pages=16/2") &&
	    !trial_done_has(d, "lab-03", "-/munmap/threads=4,pages=16/1"),
	    "a corrupt line is skipped and breaks the trial it cut");
	if ((f = fopen("tests/data/journal/trials-corrupt.jsonl", "rb")) == NULL) {
		printf("# cannot read tests/data/journal (run from the top of the tree)\n");
		exit(1);
	}
	text = xmalloc(1 << 16);
	len = fread(text, 1, 1 << 16, f);
	fclose(f);
	d2 = trial_done_read_buf(text, len, &sc2);
	ok(trial_done_count(d2, NULL) == 1 &&
	    trial_done_has(d2, "lab-03", "-/munmap/threads=4,pages=16/2") &&
	    sc2.lines == sc.lines && sc2.corrupt == sc.corrupt && sc2.trials_ok == 1,
	    "the same from memory");
	trial_done_free(d2);
	trial_done_free(d);
	free(text);
	d = NULL;
	ok(trial_done_read("/nonexistent/trials.jsonl", &d, &sc, &err) == 0 &&
	    trial_done_count(d, NULL) == 0 && sc.lines == 0, "a missing file is an empty journal");
	trial_done_free(d);
	ok(trialread_file("/nonexistent/trials.jsonl", TRIAL_ALL, collect, NULL, &sc,
	    &err) == 0 && sc.lines == 0, "and has no lines");
	ok(trialread_file(tmpdir, TRIAL_ALL, collect, NULL, &sc, &err) == -1 && err != NULL &&
	    strstr(err, "cannot read") != NULL, "a directory cannot be read");
	free(err);
	trial_done_free(NULL);
}

/* What is wrong with the first line of text that is not a trial line. */
static const char *
why(const char *text)
{
	static struct trial_scan sc;
	struct got g;

	if (read_both(text, strlen(text), TRIAL_ALL, &g, &sc) != 0 || sc.corrupt == 0)
		return "(read as a trial line)";
	return sc.first_why;
}

/* A rejected line says what is wrong with it, for the warning. */
static void
test_why(void)
{
	is_str(why("{\"format\":1,\"host\":\"h\",\"value\":NaN}\n"),
	    "not JSON: not a JSON value at byte 32", "NaN: not JSON, and where");
	is_str(why("{\"format\":1,\"host\":\"h\xff\"}\n"),
	    "not JSON: invalid UTF-8 at byte 22", "invalid UTF-8, and at which byte");
	is_str(why("{\"format\":1,\"value\":1e999}\n"),
	    "not JSON: a number out of range at byte 21", "1e999: out of range");
	is_str(why("{\"format\":1,\"host\":\"a\x1b[2J\"}\n"),
	    "not JSON: a control character in a string at byte 22", "a raw control");
	is_str(why("[1]\n"), "not JSON: not a JSON object at byte 1", "an array");
	is_str(why(TL(",\"variant\":5")), "\"variant\" is of the wrong type",
	    "a member of the wrong type, named");
	is_str(why("{\"format\":1,\"host\":\"../../etc/x\",\"bench\":\"b\",\"key\":\"k\","
	    "\"status\":\"ok\"}\n"),
	    "\"host\" is not a host name (letters, digits, '-', '_', '.')",
	    "a host name that is a path is refused");
	ok(line_is_corrupt("{\"format\":1,\"host\":\".\",\"bench\":\"b\",\"key\":\"k\","
	    "\"status\":\"ok\"}\n"), "... so is \".\"");
	is_str(why(TL(",\"rep\":-1")), "a negative \"rep\"", "a negative rep is refused");
	is_str(why("{\"format\":1,\"bench\":\"b\",\"status\":\"ok\"}\n"),
	    "no \"host\" string", "no host");
	is_str(why("{\"host\":\"h\"}\n"), "no integer \"format\"", "no format");
}

int
main(void)
{
	if ((tmpdir = tap_tmpdir("fm-trialread")) == NULL) {
		printf("# cannot make a temporary directory\n");
		return 1;
	}
	test_numbers();
	test_strings();
	test_corrupt();
	test_fields();
	test_lenient();
	test_params_text();
	test_sizes();
	test_why();
	test_done();
	return tap_done();
}
