/*
 * test-agentproto.c: the reader of agent output and the trial
 * accumulator: a real serve session (tests/data/agentproto/) read whole,
 * a byte at a time and in random chunks with the same events; every line
 * type; every kind of malformed line, each followed by a good line that
 * must still be read; too-long lines up to 100 MB with bounded memory;
 * random garbage; an unknown protocol; and trials turned into results
 * with their final status.
 *
 * Run from the top of the tree (fixtures are read from tests/data/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "agentproto.h"
#include "tap.h"
#include "wire.h"
#include "xmalloc.h"

static char *
slurp(const char *path, size_t *len)
{
	char *buf = tap_slurp(path, len);

	if (buf == NULL) {
		printf("Bail out! cannot read %s (run from the top of the tree)\n", path);
		exit(1);
	}
	return buf;
}

/* A short description of an event, to compare event streams. */
static void
describe(const struct ap_event *ev, char *out, size_t size)
{
	switch (ev->type) {
	case AP_HELLO:
	case AP_UNKNOWN_PROTO:
		snprintf(out, size, "%s:%lld:%s:%s;", ap_type_name(ev->type),
		    ev->u.hello.proto, ev->u.hello.agent, ev->u.hello.arch);
		break;
	case AP_HEADER:
		snprintf(out, size, "header:%s:%s:%zu;", ev->id ? ev->id : "-",
		    ev->u.header.bench, json_object_size(ev->u.header.params));
		break;
	case AP_METRIC:
		snprintf(out, size, "metric:%s:%s:%s:%.10g:%zu:%.10g;", ev->id ? ev->id : "-",
		    ev->u.metric.bench, ev->u.metric.name, ev->u.metric.value,
		    ev->u.metric.nsamples, ev->u.metric.samples[ev->u.metric.nsamples - 1]);
		break;
	case AP_END:
		snprintf(out, size, "end:%s:%s;", ev->id ? ev->id : "-", ev->u.end.status_text);
		break;
	case AP_ERROR:
		snprintf(out, size, "error:%s:%s;", ev->u.error.cls, ev->u.error.message);
		break;
	case AP_BENCH:
		snprintf(out, size, "bench:%s;", ev->u.bench.name);
		break;
	case AP_BAD_OUTPUT:
		snprintf(out, size, "bad:%d:%zu;", ev->u.bad.reason, ev->line);
		break;
	default:
		snprintf(out, size, "%s:%zu;", ap_type_name(ev->type), ev->line);
		break;
	}
}

struct seen {
	char	*sig;
	size_t	 len, cap;
	size_t	 count[AP_BAD_OUTPUT + 1];
};

static void
seen_add(struct seen *s, const struct ap_event *ev)
{
	char d[512];
	size_t n;

	describe(ev, d, sizeof(d));
	n = strlen(d);
	xgrow(&s->sig, &s->cap, s->len + n + 1, 1);
	memcpy(s->sig + s->len, d, n + 1);
	s->len += n;
	s->count[ev->type]++;
}

/* Feed data in chunks of `chunk` bytes (0: random sizes), then EOF. */
static void
read_all(const char *data, size_t len, size_t chunk, struct seen *s)
{
	struct agentproto *ap = agentproto_new();
	struct ap_event ev;
	size_t off = 0, n, used;
	unsigned int seed = 12345;

	memset(s, 0, sizeof(*s));
	while (off < len) {
		if (chunk)
			n = chunk;
		else {
			seed = seed * 1103515245 + 12345;
			n = 1 + (seed >> 8) % 700;
		}
		if (n > len - off)
			n = len - off;
		while (n > 0) {
			used = agentproto_feed(ap, data + off, n);
			off += used;
			n -= used;
			while (agentproto_next(ap, &ev) > 0)
				seen_add(s, &ev);
		}
	}
	agentproto_eof(ap);
	while (agentproto_next(ap, &ev) > 0)
		seen_add(s, &ev);
	agentproto_free(ap);
}

/*
 * The first event of a line (given without its newline) read by a fresh
 * reader, with a "bye" line after it; rest_is_bye() then checks that the
 * reader goes on to read that bye line.
 */
static struct agentproto *one_ap;
static char *one_buf;
static size_t one_len, one_off;
static struct ap_event one_ev;

static const struct ap_event *
one(const char *line)
{
	agentproto_free(one_ap);
	free(one_buf);
	one_ap = agentproto_new();
	one_buf = xasprintf("%s\n{\"type\":\"bye\"}\n", line);
	one_len = strlen(one_buf);
	one_off = 0;
	while (one_off < one_len) {
		one_off += agentproto_feed(one_ap, one_buf + one_off, one_len - one_off);
		if (agentproto_next(one_ap, &one_ev) > 0)
			return &one_ev;
	}
	return NULL;
}

static int
rest_is_bye(void)
{
	struct ap_event ev;
	int byes = 0, others = 0;

	while (one_off < one_len) {
		one_off += agentproto_feed(one_ap, one_buf + one_off, one_len - one_off);
		while (agentproto_next(one_ap, &ev) > 0) {
			byes += ev.type == AP_BYE;
			others += ev.type != AP_BYE;
		}
	}
	agentproto_eof(one_ap);
	while (agentproto_next(one_ap, &ev) > 0)
		others++;
	return byes == 1 && others == 0;
}

static int
bad_as(const char *line, enum ap_bad reason, const char *words)
{
	const struct ap_event *ev = one(line);
	const char *m;
	int r;

	r = ev != NULL && ev->type == AP_BAD_OUTPUT && ev->u.bad.reason == reason &&
	    (words == NULL || strstr(ev->u.bad.message, words) != NULL);
	if (!r)
		printf("#   got %s reason %d: %s\n", ev ? ap_type_name(ev->type) : "nothing",
		    ev && ev->type == AP_BAD_OUTPUT ? (int)ev->u.bad.reason : 0,
		    ev && ev->type == AP_BAD_OUTPUT ? ev->u.bad.message : "");
	/* Messages are safe to print: no control characters. */
	if (ev != NULL && ev->type == AP_BAD_OUTPUT)
		for (m = ev->u.bad.message; *m; m++)
			if ((unsigned char)*m < 0x20 || (unsigned char)*m >= 0x7f)
				r = 0;
	/* And the reader goes on with the next line. */
	if (!rest_is_bye()) {
		printf("#   the line after it was not read\n");
		r = 0;
	}
	return r;
}

static void
test_session(void)
{
	struct seen whole, bytes, random_;
	size_t len;
	char *data = slurp("tests/data/agentproto/serve-session.jsonl", &len);
	struct agentproto *ap = agentproto_new();
	struct ap_event ev;
	size_t off = 0;
	int checked = 0;

	read_all(data, len, len, &whole);
	is_int(whole.count[AP_HELLO], 1, "session: one hello");
	is_int(whole.count[AP_HEADER], 2, "session: two headers");
	is_int(whole.count[AP_METRIC], 4, "session: four metrics");
	is_int(whole.count[AP_NOTE], 2, "session: two notes");
	is_int(whole.count[AP_ERROR], 1, "session: one error");
	is_int(whole.count[AP_END], 4, "session: four ends");
	is_int(whole.count[AP_ENV], 1, "session: env");
	ok(whole.count[AP_BENCH] > 30, "session: the benchmark list");
	is_int(whole.count[AP_BYE], 1, "session: bye");
	is_int(whole.count[AP_BAD_OUTPUT], 0, "session: nothing bad");

	read_all(data, len, 1, &bytes);
	ok(strcmp(whole.sig, bytes.sig) == 0, "a byte at a time: the same events");
	read_all(data, len, 0, &random_);
	ok(strcmp(whole.sig, random_.sig) == 0, "random chunks: the same events");
	free(whole.sig);
	free(bytes.sig);
	free(random_.sig);

	/* Fields, line by line. */
	while (off < len) {
		off += agentproto_feed(ap, data + off, len - off);
		while (agentproto_next(ap, &ev) > 0) {
			if (ev.type == AP_HELLO) {
				ok(ev.u.hello.proto == 1 && strcmp(ev.u.hello.agent, "0.1.0") == 0 &&
				    strcmp(ev.u.hello.arch, "x86_64") == 0 && ev.u.hello.pid > 0 &&
				    ev.u.hello.max_line == WIRE_MAX_LINE && ev.id == NULL &&
				    ev.line == 1, "hello: proto, agent, arch, pid, max_line");
				checked++;
			} else if (ev.type == AP_HEADER && strcmp(ev.id, "t2") == 0) {
				json_t *th = json_object_get(ev.u.header.params, "threads");

				ok(strcmp(ev.u.header.bench, "munmap") == 0 && json_is_integer(th) &&
				    json_integer_value(th) == 2 && ev.u.header.samples == 3 &&
				    ev.u.header.time > 1e9, "header: bench, params, samples, time");
				checked++;
			} else if (ev.type == AP_METRIC && strcmp(ev.u.metric.name, "ns_per_munmap") == 0) {
				ok(ev.u.metric.nsamples == 3 && ev.u.metric.count == 3 &&
				    ev.u.metric.iterations == 348 && !ev.u.metric.higher_better &&
				    strcmp(ev.u.metric.unit, "ns") == 0 &&
				    ev.u.metric.min <= ev.u.metric.value &&
				    ev.u.metric.value <= ev.u.metric.max,
				    "metric: unit, direction, summary, samples, iterations");
				is_num(ev.u.metric.samples[1], 29390.59218, 1e-6, "metric: samples in order taken");
				checked++;
			} else if (ev.type == AP_METRIC &&
			    strcmp(ev.u.metric.name, "accesses_per_thread_ms") == 0) {
				ok(ev.u.metric.higher_better && ev.u.metric.iterations == 0,
				    "metric: higher is better, no iterations");
				checked++;
			} else if (ev.type == AP_NOTE && strstr(ev.u.note.text, "THP")) {
				is_str(ev.u.note.bench, "munmap", "note: bench and text");
				checked++;
			} else if (ev.type == AP_ERROR) {
				ok(ev.u.error.status == AP_ST_BAD_REQUEST &&
				    strstr(ev.u.error.message, "nosuch"), "error: class and message");
				checked++;
			} else if (ev.type == AP_END && strcmp(ev.id, "t3") == 0) {
				ok(ev.u.end.status == AP_ST_BAD_REQUEST && ev.u.end.duration == -1 &&
				    ev.u.end.bench == NULL, "end without duration or bench");
				checked++;
			} else if (ev.type == AP_END && strcmp(ev.id, "t1") == 0) {
				ok(ev.u.end.status == AP_ST_OK && ev.u.end.duration > 0,
				    "end: status and duration");
				checked++;
			} else if (ev.type == AP_ENV) {
				ok(json_is_object(json_object_get(ev.u.env.obj, "uname")) &&
				    json_is_integer(json_object_get(ev.u.env.obj, "cpus")),
				    "env: the whole object");
				checked++;
			} else if (ev.type == AP_BENCH && strcmp(ev.u.bench.name, "munmap") == 0) {
				ok(json_is_array(json_object_get(ev.u.bench.obj, "params")),
				    "bench: the list entry");
				checked++;
			}
		}
	}
	is_int(checked, 10, "every line type was looked at");
	agentproto_free(ap);
	free(data);
}

static void
test_types(void)
{
	const struct ap_event *ev;

	ev = one("{\"type\":\"heartbeat\",\"id\":\"t1\",\"elapsed\":4.0}");
	ok(ev && ev->type == AP_HEARTBEAT && ev->u.heartbeat.elapsed == 4.0 &&
	    strcmp(ev->id, "t1") == 0, "heartbeat");
	ev = one("{\"type\":\"note\",\"text\":\"no bench\"}");
	ok(ev && ev->type == AP_NOTE && ev->u.note.bench == NULL && ev->id == NULL,
	    "note without bench or id");
	ev = one("{\"type\":\"bye\",\"later\":{\"members\":[1,2]}}");
	ok(ev && ev->type == AP_BYE, "unknown members are ignored");
	ev = one("{\"type\":\"error\",\"class\":\"overheated\",\"message\":\"m\"}");
	ok(ev && ev->type == AP_ERROR && ev->u.error.status == AP_ST_BENCH &&
	    strcmp(ev->u.error.cls, "overheated") == 0, "an unknown error class is a failure");
	ev = one("{\"type\":\"error\",\"class\":\"connect\",\"message\":\"m\"}");
	ok(ev && ev->u.error.status == AP_ST_BENCH, "the agent cannot claim an infrastructure class");
	ev = one("{\"type\":\"end\",\"status\":\"timeout\",\"duration\":300}");
	ok(ev && ev->type == AP_END && ev->u.end.status == AP_ST_TIMEOUT &&
	    ev->u.end.duration == 300, "end: integer duration, timeout");
	ev = one("{\"type\":\"metric\",\"bench\":\"b\",\"name\":\"m\",\"unit\":\"s\","
	    "\"direction\":\"higher\",\"value\":2,\"min\":1,\"max\":3,\"count\":3,"
	    "\"samples\":[1,2,3]}");
	ok(ev && ev->type == AP_METRIC && ev->u.metric.value == 2 &&
	    ev->u.metric.samples[2] == 3, "metric with integer numbers");
	ev = one("{\"type\":\"header\",\"bench\":\"b\",\"params\":{},\"samples\":0,"
	    "\"pid\":1,\"time\":1}\r");
	ok(ev && ev->type == AP_HEADER, "a CRLF line");
	ev = one("");
	ok(ev && ev->type == AP_BYE && ev->line == 2, "a blank line is no event");
	ev = one("{\"type\":\"hello\",\"proto\":1,\"agent\":\"0.2\",\"arch\":\"s390x\",\"pid\":9}");
	ok(ev && ev->type == AP_HELLO && ev->u.hello.max_line == 0, "hello without max_line");
}

static void
test_malformed(void)
{
	const struct ap_event *ev;
	char *s;
	size_t i;

	ok(bad_as("this is not json", AP_BAD_JSON, "not JSON"), "not JSON");
	ok(bad_as("{\"type\":\"bye\"", AP_BAD_JSON, NULL), "cut JSON");
	ok(bad_as("{\"type\":\"bye\"} {}", AP_BAD_JSON, NULL), "two values on a line");
	ok(bad_as("[1,2]", AP_BAD_NOT_OBJECT, "not a JSON object"), "an array");
	ok(bad_as("42", AP_BAD_NOT_OBJECT, NULL), "a number");
	ok(bad_as("\"hello\"", AP_BAD_NOT_OBJECT, NULL), "a string");
	ok(bad_as("{\"id\":\"x\"}", AP_BAD_MEMBER, "'type' is missing"), "no type");
	ok(bad_as("{\"type\":5}", AP_BAD_MEMBER, "'type' is not a string"), "type not a string");
	ok(bad_as("{\"type\":\"frobnicate\"}", AP_BAD_TYPE, "unknown type 'frobnicate'"),
	    "unknown type");
	ok(bad_as("{\"type\":\"bye\",\"id\":7}", AP_BAD_MEMBER, "'id'"), "id not a string");
	s = xmalloc(200 + AP_MAX_ID);
	snprintf(s, 200 + AP_MAX_ID, "{\"type\":\"bye\",\"id\":\"%0*d\"}", AP_MAX_ID + 1, 0);
	ok(bad_as(s, AP_BAD_MEMBER, "longer than"), "id too long");
	snprintf(s, 200 + AP_MAX_ID, "{\"type\":\"bye\",\"id\":\"%0*d\"}", AP_MAX_ID, 0);
	ev = one(s);
	ok(ev && ev->type == AP_BYE && strlen(ev->id) == AP_MAX_ID, "id of the longest length");
	free(s);
	ok(bad_as("{\"type\":\"bye\",\"type\":\"bye\"}", AP_BAD_JSON, NULL), "duplicate keys");
	ok(bad_as("{\"type\":\"note\",\"text\":\"a\xff\xfe\"}", AP_BAD_JSON, NULL), "not UTF-8");
	ok(bad_as("{\"type\":\"note\",\"text\":\"a\\u0000b\"}", AP_BAD_JSON, NULL),
	    "an escaped NUL");
	{
		/* A raw NUL byte inside the line: fed with its length. */
		static const char nul[] = "{\"type\":\"note\",\"text\":\"a\0b\"}\n";
		struct agentproto *ap = agentproto_new();
		struct ap_event e;

		agentproto_feed(ap, nul, sizeof(nul) - 1);
		ok(agentproto_next(ap, &e) == 1 && e.type == AP_BAD_OUTPUT &&
		    e.u.bad.reason == AP_BAD_JSON && strstr(e.u.bad.message, "\\x00"),
		    "a raw NUL byte, quoted as \\x00");
		agentproto_free(ap);
	}
	ok(bad_as("{\"type\":\"heartbeat\",\"elapsed\":1e999}", AP_BAD_JSON, NULL),
	    "a number too large for a double");
	ok(bad_as("\x1b[2J\x1b]0;owned\x07", AP_BAD_JSON, "\\x1b"),
	    "terminal escapes are quoted, not passed on");

	ok(bad_as("{\"type\":\"metric\",\"bench\":\"b\",\"name\":\"m\",\"direction\":\"lower\","
	    "\"value\":1,\"min\":1,\"max\":1,\"count\":1,\"samples\":[1]}",
	    AP_BAD_MEMBER, "metric: 'unit' is missing"), "metric without unit");
	ok(bad_as("{\"type\":\"metric\",\"bench\":\"b\",\"name\":\"m\",\"unit\":3,\"direction\":\"lower\","
	    "\"value\":1,\"min\":1,\"max\":1,\"count\":1,\"samples\":[1]}",
	    AP_BAD_MEMBER, "'unit' is not a string"), "metric unit not a string");
	ok(bad_as("{\"type\":\"metric\",\"bench\":\"b\",\"name\":\"m\",\"unit\":\"s\",\"direction\":\"up\","
	    "\"value\":1,\"min\":1,\"max\":1,\"count\":1,\"samples\":[1]}",
	    AP_BAD_MEMBER, "direction"), "metric with a bad direction");
	ok(bad_as("{\"type\":\"metric\",\"bench\":\"b\",\"name\":\"m\",\"unit\":\"s\",\"direction\":\"lower\","
	    "\"value\":null,\"min\":1,\"max\":1,\"count\":1,\"samples\":[1]}",
	    AP_BAD_NUMBER, "'value' is not a finite number"), "a non-finite value (null)");
	ok(bad_as("{\"type\":\"metric\",\"bench\":\"b\",\"name\":\"m\",\"unit\":\"s\",\"direction\":\"lower\","
	    "\"value\":1,\"min\":1,\"max\":1,\"count\":2,\"samples\":[1,null]}",
	    AP_BAD_NUMBER, "sample 2"), "a non-finite sample");
	ok(bad_as("{\"type\":\"metric\",\"bench\":\"b\",\"name\":\"m\",\"unit\":\"s\",\"direction\":\"lower\","
	    "\"value\":1,\"min\":1,\"max\":1,\"count\":2,\"samples\":[1,\"2\"]}",
	    AP_BAD_MEMBER, "sample 2 is not a number"), "a sample that is text");
	ok(bad_as("{\"type\":\"metric\",\"bench\":\"b\",\"name\":\"m\",\"unit\":\"s\",\"direction\":\"lower\","
	    "\"value\":1,\"min\":1,\"max\":1,\"count\":3,\"samples\":[1,2]}",
	    AP_BAD_MEMBER, "'count' is 3 but there are 2 samples"), "count and samples disagree");
	ok(bad_as("{\"type\":\"metric\",\"bench\":\"b\",\"name\":\"m\",\"unit\":\"s\",\"direction\":\"lower\","
	    "\"value\":1,\"min\":1,\"max\":1,\"count\":1,\"samples\":[]}",
	    AP_BAD_SAMPLES, "no samples"), "no samples");
	ok(bad_as("{\"type\":\"metric\",\"bench\":\"b\",\"name\":\"m\",\"unit\":\"s\",\"direction\":\"lower\","
	    "\"value\":1,\"min\":1,\"max\":1,\"count\":1,\"samples\":7}",
	    AP_BAD_MEMBER, "'samples' is not an array"), "samples not an array");
	ok(bad_as("{\"type\":\"metric\",\"bench\":\"b\",\"name\":\"m\",\"unit\":\"s\",\"direction\":\"lower\","
	    "\"value\":1,\"min\":1,\"max\":1,\"count\":1,\"iterations\":-5,\"samples\":[1]}",
	    AP_BAD_MEMBER, "'iterations' is out of range"), "negative iterations");
	{
		/* WIRE_MAX_SAMPLES + 1 samples, on a line that fits. */
		size_t cap = 64 + 2 * (WIRE_MAX_SAMPLES + 1) + 256, n;

		s = xmalloc(cap);
		n = (size_t)snprintf(s, cap, "{\"type\":\"metric\",\"bench\":\"b\",\"name\":\"m\","
		    "\"unit\":\"s\",\"direction\":\"lower\",\"value\":1,\"min\":1,\"max\":1,"
		    "\"count\":%d,\"samples\":[", WIRE_MAX_SAMPLES + 1);
		for (i = 0; i <= WIRE_MAX_SAMPLES; i++)
			n += (size_t)snprintf(s + n, cap - n, "%s1", i ? "," : "");
		snprintf(s + n, cap - n, "]}");
		ok(bad_as(s, AP_BAD_SAMPLES, "1001 samples, more than 1000"),
		    "more than WIRE_MAX_SAMPLES samples");
		/* And exactly WIRE_MAX_SAMPLES is fine. */
		n = (size_t)snprintf(s, cap, "{\"type\":\"metric\",\"bench\":\"b\",\"name\":\"m\","
		    "\"unit\":\"s\",\"direction\":\"lower\",\"value\":1,\"min\":1,\"max\":1,"
		    "\"count\":%d,\"samples\":[", WIRE_MAX_SAMPLES);
		for (i = 0; i < WIRE_MAX_SAMPLES; i++)
			n += (size_t)snprintf(s + n, cap - n, "%s1", i ? "," : "");
		snprintf(s + n, cap - n, "]}");
		ev = one(s);
		ok(ev && ev->type == AP_METRIC && ev->u.metric.nsamples == WIRE_MAX_SAMPLES,
		    "exactly WIRE_MAX_SAMPLES samples");
		free(s);
	}
	ok(bad_as("{\"type\":\"header\",\"bench\":\"b\",\"params\":[],\"samples\":1,\"pid\":1,\"time\":1}",
	    AP_BAD_MEMBER, "'params' is not an object"), "header params not an object");
	ok(bad_as("{\"type\":\"header\",\"bench\":\"b\",\"params\":{\"x\":[1]},\"samples\":1,\"pid\":1,"
	    "\"time\":1}", AP_BAD_MEMBER, "parameter 'x'"), "a parameter that is a list");
	ok(bad_as("{\"type\":\"header\",\"bench\":\"b\",\"params\":{},\"samples\":1,\"pid\":1}",
	    AP_BAD_MEMBER, "'time' is missing"), "header without time");
	ok(bad_as("{\"type\":\"hello\",\"proto\":\"1\",\"agent\":\"a\",\"arch\":\"x\",\"pid\":1}",
	    AP_BAD_MEMBER, "'proto' is not an integer"), "hello with proto as text");
	ok(bad_as("{\"type\":\"hello\",\"proto\":1,\"arch\":\"x\",\"pid\":1}",
	    AP_BAD_MEMBER, "'agent' is missing"), "hello without agent");
	ok(bad_as("{\"type\":\"error\",\"class\":\"bench\"}", AP_BAD_MEMBER, "'message'"),
	    "error without message");
	ok(bad_as("{\"type\":\"heartbeat\",\"elapsed\":\"2\"}", AP_BAD_MEMBER, "'elapsed'"),
	    "heartbeat elapsed as text");
	ok(bad_as("{\"type\":\"end\",\"status\":\"ok\",\"duration\":-1}", AP_BAD_MEMBER,
	    "negative"), "end with a negative duration");
	ok(bad_as("{\"type\":\"end\",\"duration\":1}", AP_BAD_MEMBER, "'status' is missing"),
	    "end without status");
	ok(bad_as("{\"type\":\"bench\",\"summary\":\"x\"}", AP_BAD_MEMBER, "'name'"),
	    "bench without name");
	{
		/* Nesting as deep as a line allows: refused without a crash. */
		size_t n = WIRE_MAX_LINE / 2 - 16;

		s = xmalloc(2 * n + 32);
		memcpy(s, "{\"type\":\"bye\",\"x\":", 18);
		memset(s + 18, '[', n);
		memset(s + 18 + n, ']', n);
		memcpy(s + 18 + 2 * n, "}", 2);
		ok(bad_as(s, AP_BAD_JSON, NULL), "32000 levels of nesting");
		free(s);
	}
}

static size_t
max_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (size_t)ru.ru_maxrss;
}

static void
test_long_lines(void)
{
	struct agentproto *ap = agentproto_new();
	struct ap_event ev;
	static char chunk[1 << 20];
	char *s;
	size_t i, n, used, rss0, events = 0, bad = 0;
	struct seen sn;

	/* A line of exactly WIRE_MAX_LINE bytes is read; one more is not. */
	s = xmalloc(WIRE_MAX_LINE + 64);
	n = (size_t)snprintf(s, 64, "{\"type\":\"note\",\"text\":\"");
	memset(s + n, 'a', WIRE_MAX_LINE - n - 2);
	memcpy(s + WIRE_MAX_LINE - 2, "\"}", 3);
	ok(one(s) && one_ev.type == AP_NOTE, "a line of WIRE_MAX_LINE bytes");
	memset(s + n, 'a', WIRE_MAX_LINE - n - 1);
	memcpy(s + WIRE_MAX_LINE - 1, "\"}", 3);
	ok(bad_as(s, AP_BAD_TOO_LONG, "longer than 65536 bytes"), "one byte more is too long");
	free(s);

	/* 10 MB line, then a good line: one event for the long one. */
	n = 10 * 1024 * 1024;
	s = xmalloc(n + 64);
	memset(s, 'x', n);
	memcpy(s, "{\"type\":\"note\",\"text\":\"", 23);
	n += (size_t)snprintf(s + n, 64, "\n{\"type\":\"bye\"}\n");
	read_all(s, n, 4096, &sn);
	ok(sn.count[AP_BAD_OUTPUT] == 1 && sn.count[AP_BYE] == 1 &&
	    strcmp(sn.sig, "bad:1:1;bye:2;") == 0, "a 10 MB line: one bad-output, then the next line");
	free(sn.sig);
	read_all(s, n, 1, &sn);
	ok(strcmp(sn.sig, "bad:1:1;bye:2;") == 0, "the same a byte at a time");
	free(sn.sig);
	read_all(s, n, 0, &sn);
	ok(strcmp(sn.sig, "bad:1:1;bye:2;") == 0, "the same in random chunks");
	free(sn.sig);
	free(s);

	/* 100 MB without a newline: memory does not grow with it. */
	memset(chunk, 'z', sizeof(chunk));
	rss0 = max_rss_kb();
	for (i = 0; i < 100; i++) {
		const char *p = chunk;

		n = sizeof(chunk);
		while (n > 0) {
			used = agentproto_feed(ap, p, n);
			p += used;
			n -= used;
			while (agentproto_next(ap, &ev) > 0) {
				events++;
				bad += ev.type == AP_BAD_OUTPUT && ev.u.bad.reason == AP_BAD_TOO_LONG;
			}
		}
	}
	used = agentproto_feed(ap, "\n{\"type\":\"bye\"}\n", 16);
	ok(events == 1 && bad == 1, "a 100 MB line is one bad-output event");
	ok(max_rss_kb() - rss0 < 4096, "and reading it took no memory");
	ok(used == 16 && agentproto_next(ap, &ev) == 1 && ev.type == AP_BYE && ev.line == 2,
	    "the line after it is read");
	agentproto_eof(ap);
	ok(agentproto_next(ap, &ev) == 0, "nothing after");
	agentproto_free(ap);
}

static void
test_garbage(void)
{
	size_t n = 4 * 1024 * 1024, i, off, used;
	unsigned int seed = 42;
	struct agentproto *ap = agentproto_new();
	struct ap_event ev;
	char *g = xmalloc(n);
	size_t events = 0, others = 0;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245 + 12345;
		g[i] = (char)(seed >> 16);
	}
	for (off = 0; off < n; off += used) {
		used = agentproto_feed(ap, g + off, n - off);
		while (agentproto_next(ap, &ev) > 0) {
			events++;
			others += ev.type != AP_BAD_OUTPUT;
		}
	}
	agentproto_eof(ap);
	while (agentproto_next(ap, &ev) > 0) {
		events++;
		others += ev.type != AP_BAD_OUTPUT;
	}
	ok(events > 1000 && others == 0, "4 MB of random bytes: only bad-output events");
	agentproto_free(ap);
	free(g);

	/* Every prefix of a good line, then EOF: bad-output (partial), no crash. */
	{
		const char *line = "{\"type\":\"end\",\"id\":\"t1\",\"status\":\"ok\",\"duration\":1.5}";
		size_t k, len = strlen(line), partial = 0;

		for (k = 1; k < len; k++) {
			ap = agentproto_new();
			agentproto_feed(ap, line, k);
			agentproto_eof(ap);
			if (agentproto_next(ap, &ev) == 1 && ev.type == AP_BAD_OUTPUT &&
			    ev.u.bad.reason == AP_BAD_PARTIAL && agentproto_next(ap, &ev) == 0)
				partial++;
			agentproto_free(ap);
		}
		is_int(partial, len - 1, "every cut line at EOF is one partial bad-output");
	}
	/* Mutations of a good line: each byte replaced by each of a few bytes. */
	{
		char line[] = "{\"type\":\"metric\",\"id\":\"t\",\"bench\":\"b\",\"name\":\"m\","
		    "\"unit\":\"s\",\"direction\":\"lower\",\"value\":1.5,\"min\":1,\"max\":2,"
		    "\"count\":2,\"samples\":[1,2]}";
		static const char subst[] = { '"', '{', '}', ':', ',', '0', '\\', '\0', '\n', 'x' };
		size_t k, len = strlen(line), total = 0, sane = 0;
		unsigned j;

		ap = agentproto_new();
		for (k = 0; k < len; k++)
			for (j = 0; j < sizeof(subst); j++) {
				char save = line[k];

				line[k] = subst[j];
				for (off = 0; off < len; off += used) {
					used = agentproto_feed(ap, line + off, len - off);
					while (agentproto_next(ap, &ev) > 0) {
						total++;
						sane += ev.type == AP_BAD_OUTPUT ||
						    (ev.type == AP_METRIC &&
						    (long long)ev.u.metric.nsamples == ev.u.metric.count);
					}
				}
				agentproto_feed(ap, "\n", 1);
				while (agentproto_next(ap, &ev) > 0) {
					total++;
					sane += ev.type == AP_BAD_OUTPUT || ev.type == AP_METRIC;
				}
				line[k] = save;
			}
		ok(total > 0 && sane == total, "mutated lines: bad-output or a valid event, no crash");
		agentproto_free(ap);
	}
}

static void
test_proto(void)
{
	size_t len;
	char *data = slurp("tests/data/agentproto/proto7.jsonl", &len);
	const struct ap_event *ev;
	struct seen s;

	read_all(data, len, 7, &s);
	is_str(s.sig, "unknown-proto:7:0.9.0:riscv64;", "a hello of protocol 7 is refused, not bad output");
	ev = one("{\"type\":\"hello\",\"proto\":3,\"agent\":\"0.1.0\",\"arch\":\"x86_64\",\"pid\":9}");
	ok(ev && ev->type == AP_HELLO && ev->u.hello.proto == 3,
	    "protocol 3 (no programs, no monitors) is still spoken");
	ev = one("{\"type\":\"hello\",\"proto\":1,\"agent\":\"0.1.0\",\"arch\":\"x86_64\",\"pid\":9}");
	ok(ev && ev->type == AP_HELLO && ev->u.hello.proto == 1,
	    "protocol 1 (no profiles) is still spoken");
	free(s.sig);
	free(data);
	ev = one("{\"type\":\"hello\",\"proto\":0}");
	ok(ev && ev->type == AP_UNKNOWN_PROTO && ev->u.hello.proto == 0 &&
	    strcmp(ev->u.hello.agent, "") == 0, "protocol 0 with nothing else");
}

static void
test_feed_contract(void)
{
	struct agentproto *ap = agentproto_new();
	struct ap_event ev;
	const char *two = "{\"type\":\"bye\"}\n{\"type\":\"bye\"}\n";

	is_int(agentproto_feed(ap, two, strlen(two)), 15, "feeding stops after a line");
	is_int(agentproto_feed(ap, two + 15, strlen(two) - 15), 0,
	    "and takes nothing until its event is taken");
	ok(agentproto_next(ap, &ev) == 1 && ev.type == AP_BYE && ev.line == 1, "the event");
	ok(agentproto_next(ap, &ev) == 0, "then no more");
	is_int(agentproto_feed(ap, two + 15, strlen(two) - 15), 15, "then the next line");
	ok(agentproto_next(ap, &ev) == 1 && ev.line == 2, "line numbers count");
	agentproto_eof(ap);
	ok(agentproto_next(ap, &ev) == 0, "EOF after whole lines: nothing");
	is_int(agentproto_feed(ap, "x", 1), 1, "bytes after EOF are dropped");
	ok(agentproto_next(ap, &ev) == 0, "without events");
	agentproto_free(ap);
	agentproto_free(NULL);
}

/* --- The accumulator ------------------------------------------------------- */

/* Run a trial over text: every event goes to t; returns t. */
static struct ap_trial *
trial_over(const char *text, const char *id, size_t *foreign)
{
	struct agentproto *ap = agentproto_new();
	struct ap_trial *t = ap_trial_new(id);
	struct ap_event ev;
	size_t off = 0, len = strlen(text);

	if (foreign)
		*foreign = 0;
	while (off < len) {
		off += agentproto_feed(ap, text + off, len - off);
		while (agentproto_next(ap, &ev) > 0)
			if (ap_trial_add(t, &ev) == AP_TRIAL_FOREIGN && foreign)
				(*foreign)++;
	}
	agentproto_eof(ap);
	while (agentproto_next(ap, &ev) > 0)
		if (ap_trial_add(t, &ev) == AP_TRIAL_FOREIGN && foreign)
			(*foreign)++;
	agentproto_free(ap);
	return t;
}

#define HDR(id, b)	"{\"type\":\"header\",\"id\":\"" id "\",\"bench\":\"" b "\"," \
			"\"params\":{\"n\":1},\"samples\":2,\"pid\":10,\"time\":1007099946.5}\n"
#define MET(id, b, m)	"{\"type\":\"metric\",\"id\":\"" id "\",\"bench\":\"" b "\",\"name\":\"" m "\"," \
			"\"unit\":\"ns\",\"direction\":\"lower\",\"value\":1.5,\"min\":1,\"max\":2," \
			"\"count\":2,\"samples\":[2,1]}\n"
#define END(id, st)	"{\"type\":\"end\",\"id\":\"" id "\",\"status\":\"" st "\",\"duration\":0.5}\n"
#define ERR(id, c, m)	"{\"type\":\"error\",\"id\":\"" id "\",\"class\":\"" c "\",\"message\":\"" m "\"}\n"

static void
test_trials(void)
{
	struct ap_trial *t;
	const struct ap_result *r;
	size_t len, foreign, i;
	char *data;
	struct ap_event ev;

	data = slurp("tests/data/agentproto/serve-session.jsonl", &len);
	t = trial_over(data, "t2", &foreign);
	r = ap_trial_result(t);
	ok(ap_trial_done(t) && r->status == AP_ST_OK && r->message == NULL, "t2: ok");
	ok(r->npoints == 1 && r->points[0].nmetrics == 3 && r->nmetrics == 3 &&
	    strcmp(r->points[0].bench, "munmap") == 0, "t2: one point, three metrics");
	ok(json_integer_value(json_object_get(r->points[0].params, "region")) == 16777216,
	    "t2: the resolved params are kept");
	ok(r->points[0].metrics[0].nsamples == 3 && r->points[0].metrics[0].iterations == 348 &&
	    strcmp(r->points[0].metrics[1].name, "ns_per_access") == 0, "t2: samples and names");
	ok(r->nnotes == 2 && strstr(r->notes[0], "THP"), "t2: notes");
	is_num(r->duration, 0.104348307, 1e-9, "t2: the agent's duration");
	ok(foreign > 10, "lines of other trials and of no trial are foreign");
	ap_trial_free(t);

	t = trial_over(data, "t3", NULL);
	r = ap_trial_result(t);
	ok(r->status == AP_ST_BAD_REQUEST && strstr(r->message, "unknown benchmark 'nosuch'"),
	    "t3: bad-request with the agent's message");
	ok(ap_status_kind(r->status) == AP_KIND_BENCHMARK, "a bad request is the benchmark's kind");
	ap_trial_free(t);
	free(data);

	data = slurp("tests/data/agentproto/crash.jsonl", &len);
	t = trial_over(data, "t9", NULL);
	r = ap_trial_result(t);
	ok(r->status == AP_ST_CRASH && strcmp(r->message, "munmap died of signal 11") == 0 &&
	    r->heartbeats == 2 && r->elapsed == 4.0, "a crash: agent-crash, why, heartbeats");
	ok(r->npoints == 1 && r->points[0].status == AP_ST_CRASH, "the point carries the error");
	ap_trial_free(t);
	free(data);

	data = slurp("tests/data/agentproto/suite.jsonl", &len);
	t = trial_over(data, "s1", NULL);
	r = ap_trial_result(t);
	ok(r->status == AP_ST_OK && r->npoints == 3 && r->nmetrics == 2, "a suite: ok, three points");
	ok(r->points[1].status == AP_ST_UNSUPPORTED && r->points[1].nmetrics == 0 &&
	    strstr(r->points[1].message, "TCP loopback"), "a member that could not run");
	ok(r->points[2].status == AP_ST_OK && r->points[2].metrics[0].value == 166,
	    "the next member is fine");
	ap_trial_free(t);
	free(data);

	t = trial_over(HDR("a", "b") "{\"type\":\"heartbeat\",\"id\":\"a\",\"elapsed\":2}\n"
	    ERR("a", "timeout", "b did not finish within its deadline") END("a", "timeout"),
	    "a", NULL);
	r = ap_trial_result(t);
	ok(r->status == AP_ST_TIMEOUT && strstr(r->message, "deadline"), "timeout");
	ap_trial_free(t);

	t = trial_over(HDR("a", "b") END("a", "ok"), "a", NULL);
	r = ap_trial_result(t);
	ok(r->status == AP_ST_BAD_OUTPUT && strstr(r->message, "without a metric"),
	    "ok without any metric is bad output");
	ap_trial_free(t);

	t = trial_over(HDR("a", "b") MET("a", "b", "m") "garbage\n" END("a", "ok"), "a", NULL);
	r = ap_trial_result(t);
	ok(r->status == AP_ST_BAD_OUTPUT && r->bad_lines == 1 && strstr(r->message, "not JSON") &&
	    r->nmetrics == 1, "a bad line inside an ok trial makes it bad output");
	ap_trial_free(t);

	t = trial_over(HDR("a", "b") "garbage\n" ERR("a", "timeout", "late") END("a", "timeout"),
	    "a", NULL);
	ok(ap_trial_result(t)->status == AP_ST_TIMEOUT, "garbage then a timeout: a timeout");
	ap_trial_free(t);

	t = trial_over(MET("a", "b", "m") END("a", "ok"), "a", NULL);
	r = ap_trial_result(t);
	ok(r->status == AP_ST_BAD_OUTPUT && strstr(r->message, "before any header"),
	    "a metric without a header");
	ap_trial_free(t);

	t = trial_over(HDR("a", "b") MET("a", "c", "m") END("a", "ok"), "a", NULL);
	ok(ap_trial_result(t)->status == AP_ST_BAD_OUTPUT, "a metric of another benchmark");
	ap_trial_free(t);

	t = trial_over(HDR("a", "b") MET("a", "b", "m") MET("a", "b", "m") END("a", "ok"), "a", NULL);
	r = ap_trial_result(t);
	ok(r->status == AP_ST_BAD_OUTPUT && strstr(r->message, "twice"), "a metric twice");
	ap_trial_free(t);

	t = trial_over(HDR("a", "b") MET("z", "b", "m") MET("a", "b", "m") END("z", "timeout")
	    END("a", "ok") END("a", "ok"), "a", &foreign);
	r = ap_trial_result(t);
	ok(r->status == AP_ST_OK && r->nmetrics == 1 && foreign == 3,
	    "lines of another id, and after the end, are foreign");
	ap_trial_free(t);

	t = trial_over(HDR("a", "b") END("a", "melted"), "a", NULL);
	r = ap_trial_result(t);
	ok(r->status == AP_ST_BENCH && strstr(r->message, "the agent reported bench"),
	    "an unknown end status is a benchmark failure");
	ap_trial_free(t);

	t = trial_over("{\"type\":\"header\",\"bench\":\"b\",\"params\":{},\"samples\":1,\"pid\":1,"
	    "\"time\":1}\n{\"type\":\"metric\",\"bench\":\"b\",\"name\":\"m\",\"unit\":\"s\","
	    "\"direction\":\"lower\",\"value\":1,\"min\":1,\"max\":1,\"count\":1,\"samples\":[1]}\n"
	    "{\"type\":\"end\",\"status\":\"ok\"}\n", NULL, NULL);
	r = ap_trial_result(t);
	ok(r->status == AP_ST_OK && r->duration == -1 && r->id == NULL,
	    "a trial of `run` mode, without ids or duration");
	ap_trial_free(t);

	/* The engine ends a trial: the stream went away. */
	t = trial_over(HDR("a", "b") MET("a", "b", "m"), "a", NULL);
	ok(!ap_trial_done(t), "no end yet: not done");
	ap_trial_fail(t, AP_ST_AGENT_LOST, "the connection to lab-03 was lost");
	r = ap_trial_result(t);
	ok(ap_trial_done(t) && r->status == AP_ST_AGENT_LOST &&
	    ap_status_kind(r->status) == AP_KIND_INFRA &&
	    strstr(r->message, "lost"), "ap_trial_fail: agent-lost, infrastructure");
	memset(&ev, 0, sizeof(ev));
	ev.type = AP_END;
	ev.u.end.status = AP_ST_OK;
	ok(ap_trial_add(t, &ev) == AP_TRIAL_FOREIGN, "nothing is taken after that");
	ap_trial_fail(t, AP_ST_TIMEOUT, "x");
	ok(ap_trial_result(t)->status == AP_ST_AGENT_LOST, "and it is not failed twice");
	ap_trial_free(t);

	/* Bounds: more metrics than allowed, more notes than kept. */
	{
		struct agentproto *ap = agentproto_new();
		char line[512];
		size_t n;
		int r2;

		t = ap_trial_new("a");
		n = (size_t)snprintf(line, sizeof(line), HDR("a", "b"));
		agentproto_feed(ap, line, n);
		agentproto_next(ap, &ev);
		ap_trial_add(t, &ev);
		for (i = 0; i < AP_TRIAL_MAX_METRICS + 10; i++) {
			n = (size_t)snprintf(line, sizeof(line), "{\"type\":\"metric\",\"id\":\"a\","
			    "\"bench\":\"b\",\"name\":\"m%zu\",\"unit\":\"ns\",\"direction\":\"lower\","
			    "\"value\":1,\"min\":1,\"max\":1,\"count\":1,\"samples\":[1]}\n", i);
			agentproto_feed(ap, line, n);
			agentproto_next(ap, &ev);
			ap_trial_add(t, &ev);
		}
		for (i = 0; i < AP_TRIAL_MAX_NOTES + 10; i++) {
			n = (size_t)snprintf(line, sizeof(line),
			    "{\"type\":\"note\",\"id\":\"a\",\"text\":\"n%zu\"}\n", i);
			agentproto_feed(ap, line, n);
			agentproto_next(ap, &ev);
			ap_trial_add(t, &ev);
		}
		n = (size_t)snprintf(line, sizeof(line), END("a", "ok"));
		agentproto_feed(ap, line, n);
		agentproto_next(ap, &ev);
		r2 = ap_trial_add(t, &ev);
		r = ap_trial_result(t);
		ok(r2 == AP_TRIAL_DONE && r->nmetrics == AP_TRIAL_MAX_METRICS &&
		    r->status == AP_ST_BAD_OUTPUT, "past AP_TRIAL_MAX_METRICS: kept bounded, bad output");
		is_int(r->nnotes, AP_TRIAL_MAX_NOTES, "notes are kept up to AP_TRIAL_MAX_NOTES");
		ap_trial_free(t);
		agentproto_free(ap);
	}
	ap_trial_free(NULL);
}

static void
test_statuses(void)
{
	int i, round = 1;

	for (i = 0; i < AP_ST_COUNT; i++)
		round = round && ap_status_parse(ap_status_name((enum ap_status)i)) == i;
	ok(round, "every status name parses back");
	ok(ap_status_parse("nonsense") == -1 && ap_status_parse(NULL) == -1, "unknown names");
	is_str(ap_status_name(AP_ST_CRASH), "agent-crash", "agent-crash");
	is_str(ap_status_name(AP_ST_BAD_OUTPUT), "bad-output", "bad-output");
	ok(ap_status_kind(AP_ST_OK) == AP_KIND_OK &&
	    ap_status_kind(AP_ST_TIMEOUT) == AP_KIND_BENCHMARK &&
	    ap_status_kind(AP_ST_CRASH) == AP_KIND_BENCHMARK &&
	    ap_status_kind(AP_ST_BAD_OUTPUT) == AP_KIND_BENCHMARK &&
	    ap_status_kind(AP_ST_UNSUPPORTED) == AP_KIND_BENCHMARK, "benchmark failures");
	ok(ap_status_kind(AP_ST_CONNECT) == AP_KIND_INFRA &&
	    ap_status_kind(AP_ST_AUTH) == AP_KIND_INFRA &&
	    ap_status_kind(AP_ST_HOSTKEY) == AP_KIND_INFRA &&
	    ap_status_kind(AP_ST_DEPLOY) == AP_KIND_INFRA &&
	    ap_status_kind(AP_ST_SETUP) == AP_KIND_INFRA &&
	    ap_status_kind(AP_ST_AGENT_LOST) == AP_KIND_INFRA &&
	    ap_status_kind(AP_ST_CANCELLED) == AP_KIND_INFRA, "infrastructure failures");
	is_str(ap_kind_name(AP_KIND_INFRA), "infrastructure", "kind names");
}

#define PROF(id, rest)	"{\"type\":\"profile\",\"id\":\"" id "\",\"bench\":\"b\"," \
			"\"profiler\":\"perf\"," rest "}\n"

static void
test_profiles(void)
{
	struct ap_trial *t;
	const struct ap_result *r;
	const struct ap_event *ev;
	char *data, *big;
	size_t len, i;
	struct strbuild { char *s; } b;

	data = slurp("tests/data/agentproto/profile.jsonl", &len);
	t = trial_over(data, "t1", NULL);
	r = ap_trial_result(t);
	ok(r->status == AP_ST_OK && r->profile != NULL && r->profile->absent == NULL &&
	    r->profile->samples == 5085 && r->profile->ntop == 3 &&
	    strcmp(r->profile->event, "cpu-clock") == 0, "t1: a profile with three functions");
	ok(r->profile && r->profile->ntop == 3 && strcmp(r->profile->top[0].sym,
	    "clear_page_erms") == 0 && r->profile->top[0].hits == 296 &&
	    r->profile->top[0].pct == 5.82 && strcmp(r->profile->top[2].sym,
	    "\xc3\xbf-utf8-\xce\xa9") == 0, "t1: names, hits and percentages kept");
	ap_trial_free(t);
	t = trial_over(data, "t2", NULL);
	r = ap_trial_result(t);
	ok(r->status == AP_ST_OK && r->profile != NULL && r->profile->ntop == 0 &&
	    r->profile->absent && strstr(r->profile->absent, "perf_event_paranoid=2"),
	    "t2: an absent profile says why, and the trial is ok");
	ap_trial_free(t);
	free(data);

	t = trial_over(HDR("t1", "b") MET("t1", "b", "m")
	    PROF("t1", "\"absent\":\"perf not found\"")
	    PROF("t1", "\"absent\":\"perf not found\"") END("t1", "ok"), "t1", NULL);
	ok(ap_trial_result(t)->status == AP_ST_BAD_OUTPUT, "two profile lines: bad output");
	ap_trial_free(t);

	ok(bad_as(PROF("t1", "\"event\":\"cpu-clock\",\"samples\":10,\"top\":"
	    "[{\"sym\":\"a\",\"hits\":8,\"pct\":80},{\"sym\":\"b\",\"hits\":8,\"pct\":80}]"),
	    AP_BAD_MEMBER, "more hits"), "more hits than samples: bad");
	ok(bad_as(PROF("t1", "\"event\":\"cpu-clock\",\"samples\":10,\"top\":"
	    "[{\"sym\":\"a\",\"hits\":1,\"pct\":101}]"), AP_BAD_MEMBER, "pct"),
	    "a percentage over 100: bad");
	ok(bad_as(PROF("t1", "\"event\":\"cpu-clock\",\"samples\":10,\"top\":"
	    "[{\"sym\":\"\",\"hits\":1,\"pct\":10}]"), AP_BAD_MEMBER, "sym"),
	    "an empty function name: bad");
	ok(bad_as(PROF("t1", "\"event\":\"cpu-clock\",\"samples\":-1,\"top\":[]"),
	    AP_BAD_MEMBER, "samples"), "negative samples: bad");
	ok(bad_as(PROF("t1", "\"event\":\"cpu-clock\",\"samples\":1,\"top\":"
	    "[{\"sym\":\"a\",\"hits\":1,\"pct\":null}]"), AP_BAD_NUMBER, NULL),
	    "a null percentage: bad");
	ok(bad_as("{\"type\":\"profile\",\"profiler\":\"gprof\",\"absent\":\"x\"}",
	    AP_BAD_MEMBER, "profiler"), "an unknown profiler: bad");
	ok(bad_as(PROF("t1", "\"absent\":\"\""), AP_BAD_MEMBER, "absent"),
	    "an empty absence reason: bad");
	ok(bad_as("{\"type\":\"profile\",\"profiler\":\"perf\",\"absent\":\"\xff\xfe\"}",
	    AP_BAD_JSON, NULL), "not UTF-8: bad");

	/* 31 functions, one more than a profile line may carry */
	b.s = xstrdup("");
	for (i = 0; i <= WIRE_PROFILE_TOP; i++) {
		char *n = xasprintf("%s%s{\"sym\":\"f%zu\",\"hits\":1,\"pct\":1}", b.s,
		    i ? "," : "", i);

		free(b.s);
		b.s = n;
	}
	big = xasprintf(PROF("t1", "\"event\":\"e\",\"samples\":100,\"top\":[%s]"), b.s);
	big[strlen(big) - 1] = '\0';
	ok(bad_as(big, AP_BAD_MEMBER, "more than"), "31 functions: bad");
	free(big);
	free(b.s);
	/* a name longer than WIRE_MAX_SYMBOL */
	b.s = xcalloc(1, WIRE_MAX_SYMBOL + 2);
	memset(b.s, 'x', WIRE_MAX_SYMBOL + 1);
	big = xasprintf(PROF("t1", "\"event\":\"e\",\"samples\":1,\"top\":"
	    "[{\"sym\":\"%s\",\"hits\":1,\"pct\":100}]"), b.s);
	big[strlen(big) - 1] = '\0';
	ok(bad_as(big, AP_BAD_MEMBER, "sym"), "a function name over the limit: bad");
	free(big);
	free(b.s);
	ev = one(PROF("t1", "\"event\":\"e\",\"samples\":0,\"top\":[]"));
	ok(ev && ev->type == AP_PROFILE && ev->u.profile.samples == 0 &&
	    json_array_size(ev->u.profile.top) == 0, "an empty profile is a profile");
}

#define MON(id, rest)	"{\"type\":\"monitor\",\"id\":\"" id "\",\"bench\":\"b\"," rest "}\n"

static void
test_monitors(void)
{
	struct ap_trial *t;
	const struct ap_result *r;
	const struct ap_metric *m;
	size_t i;

	t = trial_over(HDR("t1", "b") MET("t1", "b", "m")
	    MON("t1", "\"monitor\":\"interrupts\",\"seconds\":0.5,\"ops\":200,"
	    "\"counters\":{\"tlb_shootdowns\":50,\"call_ipis\":0}")
	    MON("t1", "\"monitor\":\"vmstat\",\"seconds\":0.5,\"counters\":{\"pgfault\":100}")
	    MON("t1", "\"monitor\":\"perf-stat\",\"seconds\":0.5,\"absent\":\"cycles: not "
	    "permitted\"") END("t1", "ok"), "t1", NULL);
	r = ap_trial_result(t);
	m = r->npoints == 1 && r->points[0].nmetrics == 4 ? r->points[0].metrics : NULL;
	ok(r->status == AP_ST_OK && m != NULL && m[0].monitor == NULL &&
	    strcmp(m[1].name, "interrupts:tlb_shootdowns") == 0 && strcmp(m[1].unit, "/op") == 0 &&
	    m[1].value == 0.25 && m[1].delta == 50 && m[1].ops == 200 && m[1].seconds == 0.5 &&
	    strcmp(m[1].monitor, "interrupts") == 0 && m[2].value == 0,
	    "a monitor's counters become the point's metrics, per operation, the delta kept");
	ok(m != NULL && strcmp(m[3].name, "vmstat:pgfault") == 0 && strcmp(m[3].unit, "/s") == 0 &&
	    m[3].value == 200, "without an operation count: per second");
	for (i = 0; i < r->nnotes; i++)
		if (strcmp(r->notes[i], "monitor perf-stat: cycles: not permitted") == 0)
			break;
	ok(i < r->nnotes && r->monitors == 7, "an absent monitor is a note; every monitor "
	    "that sent a line is known");
	ap_trial_free(t);
	ok(bad_as(MON("t1", "\"monitor\":\"iostat\",\"counters\":{}"), AP_BAD_MEMBER,
	    "unknown monitor"), "an unknown monitor: bad");
	ok(bad_as(MON("t1", "\"monitor\":\"vmstat\""), AP_BAD_MEMBER, "neither"),
	    "neither counters nor absent: bad");
	ok(bad_as(MON("t1", "\"monitor\":\"vmstat\",\"counters\":{\"pgfault\":-1}"),
	    AP_BAD_MEMBER, "pgfault"), "a negative counter: bad");
	ok(bad_as(MON("t1", "\"monitor\":\"vmstat\",\"counters\":{\"a b\":1}"),
	    AP_BAD_MEMBER, "counter name"), "a counter name with a space: bad");
	ok(bad_as(MON("t1", "\"monitor\":\"vmstat\",\"counters\":{\"x\":1.5}"),
	    AP_BAD_MEMBER, "x"), "a counter that is not an integer: bad");
}

static void
test_kernel_and_lease(void)
{
	const struct ap_event *ev;
	struct ap_trial *t;
	const struct ap_result *r;

	ev = one("{\"type\":\"kernel\",\"id\":\"t1\",\"bench\":\"exec\",\"counts\":"
	    "{\"warning\":2,\"soft_lockup\":1},\"lines\":[\"WARNING: x\",\"BUG: soft lockup\"]}");
	ok(ev && ev->type == AP_KERNEL && json_object_size(ev->u.kernel.counts) == 2 &&
	    json_array_size(ev->u.kernel.lines) == 2, "a kernel line");
	ok(bad_as("{\"type\":\"kernel\",\"counts\":{},\"lines\":[]}", AP_BAD_MEMBER, "counts"),
	    "no kinds: bad");
	ok(bad_as("{\"type\":\"kernel\",\"counts\":{\"warning\":0},\"lines\":[]}",
	    AP_BAD_MEMBER, "below 1"), "a zero count: bad");
	ok(bad_as("{\"type\":\"kernel\",\"counts\":{\"Warn ing\":1},\"lines\":[]}",
	    AP_BAD_MEMBER, "bad kind"), "a kind that is not a name: bad");
	ok(bad_as("{\"type\":\"kernel\",\"counts\":{\"warning\":1},\"lines\":"
	    "[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\"]}", AP_BAD_MEMBER, "lines"),
	    "more lines than WIRE_KERNEL_LINES: bad");
	ok(bad_as("{\"type\":\"kernel\",\"counts\":{\"warning\":1}}", AP_BAD_MEMBER, "lines"),
	    "no lines: bad");

	/* The trial keeps it. */
	t = ap_trial_new("t1");
	ev = one("{\"type\":\"kernel\",\"id\":\"t1\",\"counts\":{\"oops\":1},\"lines\":[\"Oops\"]}");
	ok(ev && ap_trial_add(t, ev) == AP_TRIAL_MORE, "a trial takes its kernel line");
	ev = one("{\"type\":\"kernel\",\"id\":\"t2\",\"counts\":{\"oops\":1},\"lines\":[]}");
	ok(ev && ap_trial_add(t, ev) == AP_TRIAL_FOREIGN, "not another trial's");
	ev = one("{\"type\":\"end\",\"id\":\"t1\",\"status\":\"bench\"}");
	ok(ev && ap_trial_add(t, ev) == AP_TRIAL_DONE, "the trial ends");
	r = ap_trial_result(t);
	ok(r->kernel != NULL && json_integer_value(json_object_get(json_object_get(r->kernel,
	    "counts"), "oops")) == 1, "the result has the counts, failed trial or not");
	ap_trial_free(t);

	ev = one("{\"type\":\"lease\",\"id\":\"k\",\"status\":\"held\",\"owner\":\"ann@lap\","
	    "\"run\":\"20011130-020000-smoke-0001\",\"since\":1007085600.5,\"pid\":42}");
	ok(ev && ev->type == AP_LEASE && strcmp(ev->u.lease.status, "held") == 0 &&
	    strcmp(ev->u.lease.owner, "ann@lap") == 0 && ev->u.lease.pid == 42 &&
	    ev->u.lease.since > 1e9, "a lease held by another run");
	ev = one("{\"type\":\"lease\",\"id\":\"k\",\"status\":\"ok\"}");
	ok(ev && ev->type == AP_LEASE && strcmp(ev->u.lease.owner, "") == 0, "a lease taken");
	ok(bad_as("{\"type\":\"lease\",\"status\":\"maybe\"}", AP_BAD_MEMBER, "status"),
	    "a lease status that is neither: bad");
}

/* An agent that misbehaves: an end for another trial, a line that never
 * ends, metrics that cannot be negative; the lease line's watchdog members. */
static void
test_misbehaving(void)
{
	const struct ap_event *ev;
	struct agentproto *ap;
	struct ap_trial *t;
	struct ap_event e;
	const struct ap_result *r;
	char *big;
	size_t i;

	/* The agent ends "t9999" while t1 runs: t1 is bad output, and done. */
	t = ap_trial_new("t1");
	ev = one("{\"type\":\"end\",\"id\":\"t9999\",\"status\":\"ok\",\"duration\":0.5}");
	ok(ev && ap_trial_add(t, ev) == AP_TRIAL_FOREIGN, "an end of another id is not t1's");
	ok(ev && ap_trial_stray(t, ev) == AP_TRIAL_DONE, "... but it ends t1");
	r = ap_trial_result(t);
	ok(ap_trial_done(t) && r->status == AP_ST_BAD_OUTPUT &&
	    ap_status_kind(r->status) == AP_KIND_BENCHMARK, "... as bad-output, not agent-lost");
	is_str(r->message, "end for unknown trial t9999", "... saying which end came");
	ap_trial_free(t);

	/* Other stray lines are only ignored: a metric for a trial never asked for. */
	t = ap_trial_new("t1");
	ev = one("{\"type\":\"metric\",\"id\":\"t9999\",\"bench\":\"b\",\"name\":\"m\","
	    "\"unit\":\"ns\",\"direction\":\"lower\",\"value\":1,\"min\":1,\"max\":1,"
	    "\"count\":1,\"samples\":[1]}");
	ok(ev && ap_trial_stray(t, ev) == AP_TRIAL_FOREIGN && !ap_trial_done(t),
	    "a metric for an unknown trial is ignored");
	ap_trial_free(t);

	/* An id with control characters is quoted printable and cut. */
	t = ap_trial_new("t1");
	ev = one("{\"type\":\"end\",\"id\":\"\\u001b[2Jxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\","
	    "\"status\":\"ok\"}");
	ok(ev && ap_trial_stray(t, ev) == AP_TRIAL_DONE &&
	    strcmp(ap_trial_result(t)->message, "end for unknown trial ?[2Jxxxxxxxxxxxxxxxxxxxxxxxxxxxx...") == 0,
	    "the stray id is printable and cut");
	ap_trial_free(t);

	/* A line that never ends: the reader is inside it until its newline. */
	ap = agentproto_new();
	big = xmalloc(WIRE_MAX_LINE + 100);
	memset(big, 'x', WIRE_MAX_LINE + 100);
	ok(!agentproto_in_long_line(ap), "a new reader is in no line");
	for (i = 0; i < 3; i++)
		agentproto_feed(ap, big, WIRE_MAX_LINE + 100);
	ok(agentproto_next(ap, &e) > 0 && e.type == AP_BAD_OUTPUT && e.u.bad.reason == AP_BAD_TOO_LONG,
	    "a line past the limit is bad output at once");
	agentproto_feed(ap, big, WIRE_MAX_LINE + 100);
	ok(agentproto_in_long_line(ap), "... and the reader is still inside it");
	agentproto_feed(ap, "\n", 1);
	ok(!agentproto_in_long_line(ap), "until it ends");
	free(big);
	agentproto_free(ap);

	/* Times and rates are never negative; a program's own unit may be. */
	ok(bad_as("{\"type\":\"metric\",\"id\":\"a\",\"bench\":\"b\",\"name\":\"latency\","
	    "\"unit\":\"us\",\"direction\":\"lower\",\"value\":-1,\"min\":-1,\"max\":-1,"
	    "\"count\":3,\"samples\":[-1,-1,-1]}", AP_BAD_MEMBER, "negative"),
	    "negative latency samples: bad output");
	ok(bad_as("{\"type\":\"metric\",\"id\":\"a\",\"bench\":\"b\",\"name\":\"bw\","
	    "\"unit\":\"MB/s\",\"direction\":\"higher\",\"value\":-5,\"min\":-5,\"max\":-5,"
	    "\"count\":1,\"samples\":[-5]}", AP_BAD_MEMBER, "negative"),
	    "a negative bandwidth: bad output");
	ok(bad_as("{\"type\":\"metric\",\"id\":\"a\",\"bench\":\"b\",\"name\":\"t\","
	    "\"unit\":\"ns\",\"direction\":\"lower\",\"value\":-2,\"min\":1,\"max\":3,"
	    "\"count\":1,\"samples\":[2]}", AP_BAD_MEMBER, "negative"),
	    "a negative median of positive samples: bad output");
	ev = one("{\"type\":\"metric\",\"id\":\"a\",\"bench\":\"b\",\"name\":\"delta\","
	    "\"unit\":\"%\",\"direction\":\"lower\",\"value\":-1,\"min\":-2,\"max\":0,"
	    "\"count\":2,\"samples\":[-2,0]}");
	ok(ev && ev->type == AP_METRIC && ev->u.metric.value == -1,
	    "a negative percentage is a value");
	ev = one("{\"type\":\"metric\",\"id\":\"a\",\"bench\":\"b\",\"name\":\"latency\","
	    "\"unit\":\"us\",\"direction\":\"lower\",\"value\":0,\"min\":0,\"max\":0,"
	    "\"count\":1,\"samples\":[0]}");
	ok(ev && ev->type == AP_METRIC, "a latency of 0 (a subtraction took all) is a value");

	/* The lease line: the holder's idle limit, its silence, a file not to trust. */
	ev = one("{\"type\":\"lease\",\"id\":\"k\",\"status\":\"held\",\"owner\":\"ann@lap\","
	    "\"idle\":120,\"silent\":31,\"file_uid\":1002}");
	ok(ev && ev->type == AP_LEASE && ev->u.lease.idle == 120 && ev->u.lease.silent == 31 &&
	    ev->u.lease.file_uid == 1002, "a lease line's idle, silent and file_uid");
	ev = one("{\"type\":\"lease\",\"id\":\"k\",\"status\":\"held\"}");
	ok(ev && ev->type == AP_LEASE && ev->u.lease.idle == 0 && ev->u.lease.silent < 0 &&
	    ev->u.lease.file_uid < 0, "... absent: an older agent's");
	ok(bad_as("{\"type\":\"lease\",\"status\":\"held\",\"idle\":-1}", AP_BAD_MEMBER, "idle"),
	    "a negative idle limit: bad");
}

int
main(void)
{
	test_session();
	test_kernel_and_lease();
	test_types();
	test_malformed();
	test_long_lines();
	test_garbage();
	test_proto();
	test_feed_contract();
	test_trials();
	test_profiles();
	test_monitors();
	test_statuses();
	test_misbehaving();
	agentproto_free(one_ap);
	free(one_buf);
	return tap_done();
}
