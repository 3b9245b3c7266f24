/*
 * test-agent-json.c: the agent's JSON line writer and request parser.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jline.h"
#include "jparse.h"
#include "tap.h"

/* Emit j through a pipe and return the line (static buffer). */
static const char *
emitted(struct jline *j)
{
	static char out[WIRE_MAX_LINE + 2];
	int p[2];
	ssize_t n;

	if (pipe(p) != 0)
		return "";
	jl_emit(j, p[1]);
	close(p[1]);
	n = read(p[0], out, sizeof(out) - 1);
	close(p[0]);
	out[n > 0 ? n : 0] = '\0';
	return out;
}

static void
test_writer(void)
{
	struct jline j;
	char big[JLINE_MAX_STR * 2];
	int i;

	jl_begin(&j, "metric", "t1");
	jl_str(&j, "name", "lat\"ency\\\n\t\x01");
	jl_num(&j, "value", 0.5);
	jl_num(&j, "nan", 0.0 / 0.0);
	jl_int(&j, "count", -3);
	jl_arr(&j, "samples");
	jl_num(&j, NULL, 1);
	jl_num(&j, NULL, 2.25);
	jl_close(&j);
	jl_obj(&j, "params");
	jl_bool(&j, "b", 1);
	jl_null(&j, "n");
	is_str(emitted(&j), "{\"type\":\"metric\",\"id\":\"t1\",\"name\":\"lat\\\"ency\\\\\\n\\t\\u0001\","
	    "\"value\":0.5,\"nan\":null,\"count\":-3,\"samples\":[1,2.25],"
	    "\"params\":{\"b\":true,\"n\":null}}\n", "objects, arrays, escapes, open containers closed");

	jl_begin(&j, "note", NULL);
	jl_str(&j, "text", "caf\xc3\xa9 \xff\xfe \xe2\x82");
	is_str(emitted(&j), "{\"type\":\"note\",\"text\":\"caf\xc3\xa9 \\ufffd\\ufffd \\ufffd\\ufffd\"}\n",
	    "invalid UTF-8 becomes U+FFFD, valid kept");

	jl_begin(&j, "header", NULL);
	jl_num(&j, "time", 1007099946.125);
	is_str(emitted(&j), "{\"type\":\"header\",\"time\":1007099946.125}\n",
	    "epoch times keep milliseconds");

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	jl_begin(&j, "note", NULL);
	jl_str(&j, "text", big);
	ok(strlen(emitted(&j)) < JLINE_MAX_STR + 64, "long strings are cut at JLINE_MAX_STR");

	jl_begin(&j, "metric", NULL);
	jl_arr(&j, "samples");
	for (i = 0; i < 20000; i++)
		jl_num(&j, NULL, 123456.789);
	ok(strstr(emitted(&j), "line too long") != NULL, "overflowing line becomes an error line");
}

static void
test_parser(void)
{
	static const char *bad[] = {
		"", "{", "{\"a\":}", "{\"a\" 1}", "[1,]", "{\"a\":1}x", "\"\\x\"", "\"\\ud800\"",
		"\"a\nb\"", "01x", "-", "[[[[[[[[[[1]]]]]]]]]]", "{\"a\":tru}", "nul", "1e999",
	};
	struct jv *v = NULL;
	const struct jv *p;
	char err[128];
	size_t i;
	const char *req = "{\"type\":\"trial\",\"id\":\"t\\u00e9\\ud83d\\ude00\",\"bench\":\"munmap\","
	    "\"params\":{\"threads\":4,\"cmd\":\"a;b $(x)\"},\"samples\":5,\"ok\":true,\"no\":false,\"z\":null}";

	ok(jv_parse(req, strlen(req), &v, err, sizeof(err)) == 0, "a trial request parses");
	is_str(jv_get_str(v, "type"), "trial", "member string");
	is_str(jv_get_str(v, "id"), "t\xc3\xa9\xf0\x9f\x98\x80", "\\u escapes and surrogate pairs decode to UTF-8");
	p = jv_get(v, "params");
	ok(p != NULL && p->type == JV_OBJ && p->len == 2, "nested object");
	is_num(jv_get(p, "threads")->num, 4, 0, "number member");
	is_str(jv_get_str(p, "cmd"), "a;b $(x)", "shell metacharacters are plain data");
	is_num(jv_get(v, "ok")->num, 1, 0, "true");
	is_num(jv_get(v, "no")->num, 0, 0, "false");
	ok(jv_get(v, "z")->type == JV_NULL, "null");
	ok(jv_get(v, "missing") == NULL && jv_get_str(v, "samples") == NULL, "absent and mistyped members");
	jv_free(v);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char what[96];

		v = NULL;
		snprintf(what, sizeof(what), "rejects malformed input #%zu", i);
		ok(jv_parse(bad[i], strlen(bad[i]), &v, err, sizeof(err)) != 0 && v == NULL && err[0],
		    what);
	}
	ok(jv_parse("{\"a\":\"x\\u0000y\"}", 16, &v, err, sizeof(err)) == 0 &&
	    jv_get(v, "a")->len == 3, "embedded NUL keeps its length (callers reject it)");
	jv_free(v);
}

int
main(void)
{
	test_writer();
	test_parser();
	return tap_done();
}
