/*
 * agentproto.c: reading an agent's JSON lines defensively, and turning a
 * trial's lines into its results (see agentproto.h).
 *
 * The reader holds at most one line: feeding stops at each newline until
 * the line's event is taken, and a line longer than WIRE_MAX_LINE is
 * dropped byte by byte as it arrives.  Lines are parsed with jansson
 * (which checks UTF-8, refuses NUL bytes and bounds nesting); this file
 * then checks every member it uses for presence, type and range.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "agentproto.h"
#include "strv.h"
#include "utf8.h"
#include "wire.h"
#include "xmalloc.h"

/* --- Statuses -------------------------------------------------------------- */

static const char *const status_names[AP_ST_COUNT] = {
	[AP_ST_OK]		= WIRE_STATUS_OK,
	[AP_ST_BENCH]		= WIRE_ERR_BENCH,
	[AP_ST_UNSUPPORTED]	= WIRE_ERR_UNSUPPORTED,
	[AP_ST_TIMEOUT]		= WIRE_ERR_TIMEOUT,
	[AP_ST_CRASH]		= WIRE_ERR_CRASH,
	[AP_ST_CANCELLED]	= WIRE_ERR_CANCELLED,
	[AP_ST_BAD_REQUEST]	= WIRE_ERR_REQUEST,
	[AP_ST_BAD_OUTPUT]	= "bad-output",
	[AP_ST_CONNECT]		= "connect",
	[AP_ST_AUTH]		= "auth",
	[AP_ST_HOSTKEY]		= "hostkey",
	[AP_ST_DEPLOY]		= "deploy",
	[AP_ST_SETUP]		= "setup",
	[AP_ST_AGENT_LOST]	= "agent-lost",
	[AP_ST_HANG]		= "hang",
	[AP_ST_BOOT]		= "boot",
	[AP_ST_LOCKED]		= "locked",
};

const char *
ap_status_name(enum ap_status st)
{
	if ((int)st < 0 || st >= AP_ST_COUNT)
		return "unknown";
	return status_names[st];
}

int
ap_status_parse(const char *s)
{
	int i;

	if (s == NULL)
		return -1;
	for (i = 0; i < AP_ST_COUNT; i++)
		if (strcmp(s, status_names[i]) == 0)
			return i;
	return -1;
}

enum ap_status
ap_status_from_wire(const char *cls)
{
	int st = ap_status_parse(cls);

	/* Only the agent's own classes: it cannot claim a connect failure
	 * (bad-output: a program's output that did not parse, protocol 4). */
	if (st < 0 || (st > AP_ST_BAD_REQUEST && st != AP_ST_BAD_OUTPUT))
		return AP_ST_BENCH;
	return (enum ap_status)st;
}

enum ap_kind
ap_status_kind(enum ap_status st)
{
	switch (st) {
	case AP_ST_OK:
		return AP_KIND_OK;
	case AP_ST_BENCH:
	case AP_ST_UNSUPPORTED:
	case AP_ST_TIMEOUT:
	case AP_ST_CRASH:
	case AP_ST_BAD_REQUEST:
	case AP_ST_BAD_OUTPUT:
		return AP_KIND_BENCHMARK;
	case AP_ST_CANCELLED:
	case AP_ST_CONNECT:
	case AP_ST_AUTH:
	case AP_ST_HOSTKEY:
	case AP_ST_DEPLOY:
	case AP_ST_SETUP:
	case AP_ST_AGENT_LOST:
	case AP_ST_HANG:
	case AP_ST_BOOT:
	case AP_ST_LOCKED:
		break;
	}
	return AP_KIND_INFRA;
}

const char *
ap_kind_name(enum ap_kind k)
{
	switch (k) {
	case AP_KIND_OK:
		return "ok";
	case AP_KIND_BENCHMARK:
		return "benchmark";
	case AP_KIND_INFRA:
		break;
	}
	return "infrastructure";
}

const char *
ap_type_name(enum ap_type t)
{
	switch (t) {
	case AP_HELLO:		return WIRE_HELLO;
	case AP_UNKNOWN_PROTO:	return "unknown-proto";
	case AP_HEADER:		return WIRE_HEADER;
	case AP_METRIC:		return WIRE_METRIC;
	case AP_NOTE:		return WIRE_NOTE;
	case AP_HEARTBEAT:	return WIRE_HEARTBEAT;
	case AP_PROFILE:	return WIRE_PROFILE;
	case AP_MONITOR:	return WIRE_MONITOR;
	case AP_KERNEL:		return WIRE_KERNEL;
	case AP_LEASE:		return WIRE_LEASE;
	case AP_DETACHED:	return WIRE_DETACHED;
	case AP_ERROR:		return WIRE_ERROR;
	case AP_END:		return WIRE_END;
	case AP_ENV:		return WIRE_ENV;
	case AP_BENCH:		return WIRE_BENCH;
	case AP_BYE:		return WIRE_BYE;
	case AP_BAD_OUTPUT:	return "bad-output";
	}
	return "unknown";
}

/* --- The reader ------------------------------------------------------------ */

#define MSG_MAX		512

struct agentproto {
	char		*buf;		/* WIRE_MAX_LINE + 1: the line being read */
	size_t		 len;
	int		 ready;		/* buf holds a whole line, not parsed yet */
	int		 skipping;	/* dropping the rest of a too-long line */
	int		 eof;
	enum ap_bad	 pending;	/* a bad-output event found while feeding */
	size_t		 pending_line;
	size_t		 lines;		/* lines completed */
	json_t		*cur;		/* the tree the last event borrows from */
	double		*samples;	/* WIRE_MAX_SAMPLES */
	char		 msg[MSG_MAX];	/* the last bad-output message */
};

struct agentproto *
agentproto_new(void)
{
	struct agentproto *ap = xcalloc(1, sizeof(*ap));

	ap->buf = xmalloc(WIRE_MAX_LINE + 1);
	ap->samples = xcalloc(WIRE_MAX_SAMPLES, sizeof(*ap->samples));
	return ap;
}

void
agentproto_free(struct agentproto *ap)
{
	if (ap == NULL)
		return;
	json_decref(ap->cur);
	free(ap->buf);
	free(ap->samples);
	free(ap);
}

size_t
agentproto_lines(const struct agentproto *ap)
{
	return ap->lines;
}

/*
 * Append to ap->msg an excerpt of a line for people: printable ASCII as
 * it is, anything else as \xNN, cut after AP_MAX_EXCERPT bytes.
 */
static void
msg_excerpt(struct agentproto *ap, const char *s, size_t n, int more)
{
	size_t len = strlen(ap->msg), i;

	for (i = 0; i < n && i < AP_MAX_EXCERPT && len + 8 < sizeof(ap->msg); i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			ap->msg[len++] = (char)c;
		else
			len += (size_t)snprintf(ap->msg + len, sizeof(ap->msg) - len,
			    "\\x%02x", c);
	}
	if ((i < n || more) && len + 4 < sizeof(ap->msg)) {
		memcpy(ap->msg + len, "...", 3);
		len += 3;
	}
	ap->msg[len] = '\0';
}

/* Replace what a terminal could take for a command: the message may quote
 * jansson, which quotes the input. */
static void
msg_sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

size_t
agentproto_feed(struct agentproto *ap, const void *data, size_t len)
{
	const char *p = data, *nl;
	size_t used = 0, take;

	if (ap->eof)
		return len;
	if (ap->ready || ap->pending)
		return 0;
	if (ap->skipping) {
		if ((nl = memchr(p, '\n', len)) == NULL)
			return len;
		ap->skipping = 0;
		ap->lines++;
		used = (size_t)(nl - p) + 1;
	}
	if (used == len)
		return used;
	nl = memchr(p + used, '\n', len - used);
	take = nl ? (size_t)(nl - (p + used)) : len - used;
	if (ap->len + take > WIRE_MAX_LINE) {
		/* Quote the start of the line, wherever it is. */
		ap->pending = AP_BAD_TOO_LONG;
		ap->pending_line = ap->lines + 1;
		snprintf(ap->msg, sizeof(ap->msg), "line %zu: longer than %d bytes, "
		    "discarded: ", ap->pending_line, WIRE_MAX_LINE);
		if (ap->len > 0)
			msg_excerpt(ap, ap->buf, ap->len, 1);
		else
			msg_excerpt(ap, p + used, take, 1);
		ap->len = 0;
		if (nl) {
			ap->lines++;
			return (size_t)(nl - p) + 1;
		}
		ap->skipping = 1;
		return len;
	}
	memcpy(ap->buf + ap->len, p + used, take);
	ap->len += take;
	if (nl == NULL)
		return len;
	ap->ready = 1;
	return (size_t)(nl - p) + 1;
}

void
agentproto_eof(struct agentproto *ap)
{
	if (ap->eof)
		return;
	ap->eof = 1;
	if (ap->ready || ap->skipping || ap->len == 0)
		return;
	/* A partial line waits behind a pending too-long event?  Impossible:
	 * feeding stops at a too-long line with its bytes dropped. */
	ap->pending = AP_BAD_PARTIAL;
	ap->pending_line = ap->lines + 1;
	snprintf(ap->msg, sizeof(ap->msg), "line %zu: the output ended inside a "
	    "line: ", ap->pending_line);
	msg_excerpt(ap, ap->buf, ap->len, 0);
	ap->len = 0;
}

int
agentproto_in_long_line(const struct agentproto *ap)
{
	return ap->skipping;
}

/* --- Parsing one line ------------------------------------------------------ */

struct line {
	struct agentproto	*ap;
	struct ap_event		*ev;
	const char		*text;	/* the line, for excerpts */
	size_t			 len;
	const char		*type;
};

static int
bad(struct line *l, enum ap_bad reason, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Make l->ev a bad-output event; returns -1 for `return bad(...)`. */
static int
bad(struct line *l, enum ap_bad reason, const char *fmt, ...)
{
	struct agentproto *ap = l->ap;
	size_t n;
	va_list va;

	n = (size_t)snprintf(ap->msg, sizeof(ap->msg), "line %zu: ", l->ev->line);
	if (l->type != NULL && n < sizeof(ap->msg))
		n += (size_t)snprintf(ap->msg + n, sizeof(ap->msg) - n, "%.20s: ", l->type);
	if (n < sizeof(ap->msg)) {
		va_start(va, fmt);
		vsnprintf(ap->msg + n, sizeof(ap->msg) - n, fmt, va);
		va_end(va);
	}
	msg_sanitize(ap->msg);
	n = strlen(ap->msg);
	if (n + 3 < sizeof(ap->msg)) {
		memcpy(ap->msg + n, ": ", 3);
		msg_excerpt(ap, l->text, l->len, 0);
	}
	l->ev->type = AP_BAD_OUTPUT;
	l->ev->id = NULL;
	memset(&l->ev->u, 0, sizeof(l->ev->u));
	l->ev->u.bad.reason = reason;
	l->ev->u.bad.message = ap->msg;
	return -1;
}

#define ANY_TYPE	(-1)	/* member(): the caller checks the type */

/*
 * The member key of o in *vp, NULL when it is absent: -1 (a bad line) when
 * it is absent but required, or there but not of the JSON type `type`
 * (JSON_OBJECT, JSON_ARRAY, JSON_STRING, JSON_INTEGER, or ANY_TYPE).
 */
static int
member(struct line *l, json_t *o, const char *key, int required, int type, json_t **vp)
{
	static const char *const names[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
		[JSON_STRING] = "a string", [JSON_INTEGER] = "an integer",
	};
	json_t *v = json_object_get(o, key);

	*vp = v;
	if (v == NULL)
		return required ? bad(l, AP_BAD_MEMBER, "'%s' is missing", key) : 0;
	if (type != ANY_TYPE && (int)json_typeof(v) != type)
		return bad(l, AP_BAD_MEMBER, "'%s' is not %s", key, names[type]);
	return 0;
}

static int
get_str(struct line *l, json_t *o, const char *key, int required, const char **out)
{
	json_t *v;

	*out = NULL;
	if (member(l, o, key, required, JSON_STRING, &v) != 0)
		return -1;
	if (v != NULL)
		*out = json_string_value(v);
	return 0;
}

static int
get_int(struct line *l, json_t *o, const char *key, int required, long long min,
    long long *out)
{
	json_t *v;

	if (member(l, o, key, required, JSON_INTEGER, &v) != 0)
		return -1;
	if (v == NULL)
		return 0;
	if (json_integer_value(v) < min)
		return bad(l, AP_BAD_MEMBER, "'%s' is out of range", key);
	*out = (long long)json_integer_value(v);
	return 0;
}

static int
number(struct line *l, json_t *v, const char *what, double *out)
{
	if (json_is_null(v))
		return bad(l, AP_BAD_NUMBER, "%s is not a finite number", what);
	if (!json_is_number(v))
		return bad(l, AP_BAD_MEMBER, "%s is not a number", what);
	*out = json_number_value(v);
	if (!isfinite(*out))
		return bad(l, AP_BAD_NUMBER, "%s is not a finite number", what);
	return 0;
}

static int
get_num(struct line *l, json_t *o, const char *key, int required, double *out)
{
	json_t *v;
	char what[48];

	if (member(l, o, key, required, ANY_TYPE, &v) != 0)
		return -1;
	if (v == NULL)
		return 0;
	snprintf(what, sizeof(what), "'%s'", key);
	return number(l, v, what, out);
}

static int
parse_hello(struct line *l, json_t *o)
{
	struct ap_event *ev = l->ev;
	long long proto = 0;

	if (get_int(l, o, "proto", 1, 0, &proto) != 0)
		return -1;
	ev->u.hello.proto = proto;
	if (proto < WIRE_PROTO_MIN || proto > WIRE_PROTO) {
		/* Say what can be said about an agent we cannot talk to. */
		json_t *v;

		ev->type = AP_UNKNOWN_PROTO;
		v = json_object_get(o, "agent");
		ev->u.hello.agent = json_is_string(v) ? json_string_value(v) : "";
		v = json_object_get(o, "arch");
		ev->u.hello.arch = json_is_string(v) ? json_string_value(v) : "";
		v = json_object_get(o, "pid");
		ev->u.hello.pid = json_is_integer(v) ? (long long)json_integer_value(v) : 0;
		return 0;
	}
	if (get_str(l, o, "agent", 1, &ev->u.hello.agent) != 0 ||
	    get_str(l, o, "arch", 1, &ev->u.hello.arch) != 0 ||
	    get_int(l, o, "pid", 1, 0, &ev->u.hello.pid) != 0 ||
	    get_int(l, o, "max_line", 0, 1, &ev->u.hello.max_line) != 0)
		return -1;
	return 0;
}

static int
parse_header(struct line *l, json_t *o)
{
	struct ap_event *ev = l->ev;
	json_t *params, *v;
	const char *k;

	if (get_str(l, o, "bench", 1, &ev->u.header.bench) != 0)
		return -1;
	if (member(l, o, "params", 1, JSON_OBJECT, &params) != 0)
		return -1;
	json_object_foreach(params, k, v) {
		if (!json_is_string(v) && !json_is_integer(v))
			return bad(l, AP_BAD_MEMBER, "parameter '%.40s' is neither a "
			    "string nor an integer", k);
	}
	ev->u.header.params = params;
	if (get_int(l, o, "samples", 1, 0, &ev->u.header.samples) != 0 ||
	    get_int(l, o, "pid", 1, 0, &ev->u.header.pid) != 0 ||
	    get_num(l, o, "time", 1, &ev->u.header.time) != 0)
		return -1;
	return 0;
}

/*
 * Whether a metric of this unit cannot be below zero: a time (ns, us, ms,
 * s) or a rate or bandwidth (MB/s, ops/s, runs/h, faults/touch: anything
 * per anything).  Other units (a program's "%" or "delta") may be.
 */
static int
unit_nonnegative(const char *unit)
{
	static const char *const times[] = { "ns", "us", "ms", "s", "min", "h" };
	size_t i;

	if (strchr(unit, '/') != NULL)
		return 1;
	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		if (strcmp(unit, times[i]) == 0)
			return 1;
	return 0;
}

static int
parse_metric(struct line *l, json_t *o)
{
	struct ap_event *ev = l->ev;
	const char *dir;
	json_t *arr, *v;
	size_t i, n;
	char what[32];

	if (get_str(l, o, "bench", 1, &ev->u.metric.bench) != 0 ||
	    get_str(l, o, "name", 1, &ev->u.metric.name) != 0 ||
	    get_str(l, o, "unit", 1, &ev->u.metric.unit) != 0 ||
	    get_str(l, o, "direction", 1, &dir) != 0)
		return -1;
	if (*ev->u.metric.name == '\0')
		return bad(l, AP_BAD_MEMBER, "'name' is empty");
	if (strcmp(dir, WIRE_HIGHER_BETTER) == 0)
		ev->u.metric.higher_better = 1;
	else if (strcmp(dir, WIRE_LOWER_BETTER) != 0)
		return bad(l, AP_BAD_MEMBER, "'direction' is neither lower nor higher");
	if (get_num(l, o, "value", 1, &ev->u.metric.value) != 0 ||
	    get_num(l, o, "min", 1, &ev->u.metric.min) != 0 ||
	    get_num(l, o, "max", 1, &ev->u.metric.max) != 0 ||
	    get_int(l, o, "count", 1, 1, &ev->u.metric.count) != 0 ||
	    get_int(l, o, "iterations", 0, 0, &ev->u.metric.iterations) != 0)
		return -1;
	if (member(l, o, "samples", 1, JSON_ARRAY, &arr) != 0)
		return -1;
	n = json_array_size(arr);
	if (n == 0)
		return bad(l, AP_BAD_SAMPLES, "no samples");
	if (n > WIRE_MAX_SAMPLES)
		return bad(l, AP_BAD_SAMPLES, "%zu samples, more than %d", n,
		    WIRE_MAX_SAMPLES);
	if ((long long)n != ev->u.metric.count)
		return bad(l, AP_BAD_MEMBER, "'count' is %lld but there are %zu samples",
		    ev->u.metric.count, n);
	json_array_foreach(arr, i, v) {
		snprintf(what, sizeof(what), "sample %zu", i + 1);
		if (number(l, v, what, &l->ap->samples[i]) != 0)
			return -1;
		if (l->ap->samples[i] < 0 && unit_nonnegative(ev->u.metric.unit))
			return bad(l, AP_BAD_MEMBER, "sample %zu is negative, which a metric in "
			    "%.16s cannot be", i + 1, ev->u.metric.unit);
	}
	if ((ev->u.metric.value < 0 || ev->u.metric.min < 0 || ev->u.metric.max < 0) &&
	    unit_nonnegative(ev->u.metric.unit))
		return bad(l, AP_BAD_MEMBER, "'value', 'min' or 'max' is negative, which a "
		    "metric in %.16s cannot be", ev->u.metric.unit);
	ev->u.metric.samples = l->ap->samples;
	ev->u.metric.nsamples = n;
	return 0;
}

/* A profile line: bounded and checked, as everything from a host. */
static int
parse_profile(struct line *l, json_t *o)
{
	struct ap_event *ev = l->ev;
	json_t *top, *f, *v;
	long long hits, sum = 0;
	double pct;
	size_t i;

	if (get_str(l, o, "bench", 0, &ev->u.profile.bench) != 0 ||
	    get_str(l, o, "profiler", 1, &ev->u.profile.profiler) != 0 ||
	    get_str(l, o, "absent", 0, &ev->u.profile.absent) != 0)
		return -1;
	if (strcmp(ev->u.profile.profiler, WIRE_PROFILE_PERF) != 0)
		return bad(l, AP_BAD_MEMBER, "unknown profiler '%.32s'",
		    ev->u.profile.profiler);
	if (ev->u.profile.absent != NULL) {
		v = json_object_get(o, "absent");
		if (json_string_length(v) == 0 || json_string_length(v) > WIRE_MAX_ABSENT)
			return bad(l, AP_BAD_MEMBER, "'absent' is empty or longer than %d "
			    "bytes", WIRE_MAX_ABSENT);
		return 0;
	}
	if (get_str(l, o, "event", 1, &ev->u.profile.event) != 0 ||
	    get_int(l, o, "samples", 1, 0, &ev->u.profile.samples) != 0)
		return -1;
	if (*ev->u.profile.event == '\0' || strlen(ev->u.profile.event) > 64)
		return bad(l, AP_BAD_MEMBER, "'event' is empty or too long");
	top = json_object_get(o, "top");
	if (!json_is_array(top))
		return bad(l, AP_BAD_MEMBER, "'top' is %s", top ? "not an array" :
		    "missing");
	if (json_array_size(top) > WIRE_PROFILE_TOP)
		return bad(l, AP_BAD_MEMBER, "'top' has more than %d functions",
		    WIRE_PROFILE_TOP);
	json_array_foreach(top, i, f) {
		if (!json_is_object(f))
			return bad(l, AP_BAD_MEMBER, "function %zu is not an object", i + 1);
		v = json_object_get(f, "sym");
		if (!json_is_string(v) || json_string_length(v) == 0 ||
		    json_string_length(v) > WIRE_MAX_SYMBOL)
			return bad(l, AP_BAD_MEMBER, "function %zu: 'sym' is not a name of "
			    "1 to %d bytes", i + 1, WIRE_MAX_SYMBOL);
		if (get_int(l, f, "hits", 1, 0, &hits) != 0 ||
		    get_num(l, f, "pct", 1, &pct) != 0)
			return -1;
		if (!(pct >= 0 && pct <= 100))
			return bad(l, AP_BAD_MEMBER, "function %zu: 'pct' is out of range",
			    i + 1);
		if (hits > ev->u.profile.samples - sum)
			return bad(l, AP_BAD_MEMBER, "the functions have more hits than "
			    "'samples'");
		sum += hits;
	}
	ev->u.profile.top = top;
	return 0;
}

/* The index of a monitor's wire name (the bit plan.h gives it), or -1. */
static int
monitor_index(const char *name)
{
	static const char *const names[] = { WIRE_MON_INTERRUPTS, WIRE_MON_VMSTAT,
		WIRE_MON_PERF_STAT };
	int i;

	for (i = 0; i < 3; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

/* A name of 1 to 64 bytes of letters, digits, '_' and '-'. */
static int
counter_name(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= 64 && strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

/* A monitor line: counters by name, or why there are none. */
static int
parse_monitor(struct line *l, json_t *o)
{
	struct ap_event *ev = l->ev;
	const char *k;
	json_t *c, *v;

	ev->u.monitor.seconds = -1;
	ev->u.monitor.ops = 0;
	if (get_str(l, o, "bench", 0, &ev->u.monitor.bench) != 0 ||
	    get_str(l, o, "monitor", 1, &ev->u.monitor.monitor) != 0 ||
	    get_str(l, o, "absent", 0, &ev->u.monitor.absent) != 0 ||
	    get_num(l, o, "seconds", 0, &ev->u.monitor.seconds) != 0 ||
	    get_int(l, o, "ops", 0, 0, &ev->u.monitor.ops) != 0 ||
	    member(l, o, "counters", 0, JSON_OBJECT, &c) != 0)
		return -1;
	if (monitor_index(ev->u.monitor.monitor) < 0)
		return bad(l, AP_BAD_MEMBER, "unknown monitor '%.32s'", ev->u.monitor.monitor);
	if (json_object_get(o, "seconds") != NULL && ev->u.monitor.seconds < 0)
		return bad(l, AP_BAD_MEMBER, "'seconds' is negative");
	v = json_object_get(o, "absent");
	if (v != NULL && (json_string_length(v) == 0 ||
	    json_string_length(v) > WIRE_MAX_ABSENT))
		return bad(l, AP_BAD_MEMBER, "'absent' is empty or longer than %d bytes",
		    WIRE_MAX_ABSENT);
	if (c == NULL && v == NULL)
		return bad(l, AP_BAD_MEMBER, "neither 'counters' nor 'absent'");
	if (c != NULL && json_object_size(c) > WIRE_MAX_COUNTERS)
		return bad(l, AP_BAD_MEMBER, "more than %d counters", WIRE_MAX_COUNTERS);
	json_object_foreach(c, k, v) {
		if (!counter_name(k))
			return bad(l, AP_BAD_MEMBER, "a counter name is not 1 to 64 letters, "
			    "digits, '_' or '-'");
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return bad(l, AP_BAD_MEMBER, "counter %.64s is not an integer >= 0", k);
	}
	ev->u.monitor.counters = c;
	return 0;
}

/* A kernel line: counts by kind and the first lines, bounded. */
static int
parse_kernel(struct line *l, json_t *o)
{
	struct ap_event *ev = l->ev;
	json_t *counts, *lines, *v;
	const char *k;
	size_t i;

	if (get_str(l, o, "bench", 0, &ev->u.kernel.bench) != 0)
		return -1;
	counts = json_object_get(o, "counts");
	if (!json_is_object(counts) || json_object_size(counts) == 0 ||
	    json_object_size(counts) > 16)
		return bad(l, AP_BAD_MEMBER, "'counts' is not an object of 1 to 16 kinds");
	json_object_foreach(counts, k, v) {
		if (*k == '\0' || strlen(k) > 32 || strspn(k, "abcdefghijklmnopqrstuvwxyz_") !=
		    strlen(k))
			return bad(l, AP_BAD_MEMBER, "'counts' has a bad kind");
		if (!json_is_integer(v) || json_integer_value(v) < 1)
			return bad(l, AP_BAD_MEMBER, "'counts' has a count below 1");
	}
	lines = json_object_get(o, "lines");
	if (!json_is_array(lines) || json_array_size(lines) > WIRE_KERNEL_LINES)
		return bad(l, AP_BAD_MEMBER, "'lines' is not an array of at most %d",
		    WIRE_KERNEL_LINES);
	json_array_foreach(lines, i, v)
		if (!json_is_string(v) || json_string_length(v) > WIRE_KERNEL_LINE_MAX)
			return bad(l, AP_BAD_MEMBER, "kernel line %zu is not a string of at "
			    "most %d bytes", i + 1, WIRE_KERNEL_LINE_MAX);
	ev->u.kernel.counts = counts;
	ev->u.kernel.lines = lines;
	return 0;
}

/* A lease line: taken, or held by someone else. */
static int
parse_lease(struct line *l, json_t *o)
{
	struct ap_event *ev = l->ev;

	ev->u.lease.silent = -1;
	ev->u.lease.file_uid = -1;
	if (get_str(l, o, "status", 1, &ev->u.lease.status) != 0 ||
	    get_str(l, o, "owner", 0, &ev->u.lease.owner) != 0 ||
	    get_str(l, o, "run", 0, &ev->u.lease.run) != 0 ||
	    get_num(l, o, "since", 0, &ev->u.lease.since) != 0 ||
	    get_int(l, o, "pid", 0, 0, &ev->u.lease.pid) != 0 ||
	    get_num(l, o, "idle", 0, &ev->u.lease.idle) != 0 ||
	    get_num(l, o, "silent", 0, &ev->u.lease.silent) != 0 ||
	    get_int(l, o, "file_uid", 0, 0, &ev->u.lease.file_uid) != 0 ||
	    get_str(l, o, "warning", 0, &ev->u.lease.warning) != 0)
		return -1;
	if (ev->u.lease.warning != NULL && strlen(ev->u.lease.warning) > 512)
		return bad(l, AP_BAD_MEMBER, "lease warning longer than 512 bytes");
	if (ev->u.lease.idle < 0 || ev->u.lease.idle > 7 * 86400)
		return bad(l, AP_BAD_MEMBER, "lease idle is not 0 to 7 days");
	if (strcmp(ev->u.lease.status, "ok") != 0 && strcmp(ev->u.lease.status, "held") != 0)
		return bad(l, AP_BAD_MEMBER, "lease status is neither ok nor held");
	if (ev->u.lease.owner == NULL)
		ev->u.lease.owner = "";
	if (ev->u.lease.run == NULL)
		ev->u.lease.run = "";
	if (strlen(ev->u.lease.owner) > 256 || strlen(ev->u.lease.run) > 256)
		return bad(l, AP_BAD_MEMBER, "lease owner or run longer than 256 bytes");
	ev->u.lease.detached = json_is_true(json_object_get(o, "detached"));
	return 0;
}

/* A detached run's state (proto 5). */
static int
parse_detached(struct line *l, json_t *o)
{
	static const char *const states[] = { "running", "done", "full", "failed", "gone",
		"missing", "forgotten" };
	struct ap_event *ev = l->ev;
	size_t i;

	ev->u.detached.pid = 0;
	ev->u.detached.trials = ev->u.detached.lines = -1;
	if (get_str(l, o, "state", 1, &ev->u.detached.state) != 0 ||
	    get_int(l, o, "pid", 0, 0, &ev->u.detached.pid) != 0 ||
	    get_int(l, o, "trials", 0, 0, &ev->u.detached.trials) != 0 ||
	    get_int(l, o, "lines", 0, 0, &ev->u.detached.lines) != 0)
		return -1;
	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (strcmp(ev->u.detached.state, states[i]) == 0)
			return 0;
	return bad(l, AP_BAD_MEMBER, "detached state '%.32s' is not one this controller "
	    "knows", ev->u.detached.state);
}

static int
parse_end(struct line *l, json_t *o)
{
	struct ap_event *ev = l->ev;

	ev->u.end.duration = -1;
	if (get_str(l, o, "status", 1, &ev->u.end.status_text) != 0 ||
	    get_str(l, o, "bench", 0, &ev->u.end.bench) != 0 ||
	    get_num(l, o, "duration", 0, &ev->u.end.duration) != 0)
		return -1;
	if (ev->u.end.duration < 0 && json_object_get(o, "duration") != NULL)
		return bad(l, AP_BAD_MEMBER, "'duration' is negative");
	ev->u.end.status = ap_status_from_wire(ev->u.end.status_text);
	return 0;
}

static int
parse_note(struct line *l, json_t *o)
{
	struct ap_event *ev = l->ev;

	return get_str(l, o, "text", 1, &ev->u.note.text) != 0 ||
	    get_str(l, o, "bench", 0, &ev->u.note.bench) != 0 ? -1 : 0;
}

static int
parse_heartbeat(struct line *l, json_t *o)
{
	return get_num(l, o, "elapsed", 1, &l->ev->u.heartbeat.elapsed);
}

static int
parse_error(struct line *l, json_t *o)
{
	struct ap_event *ev = l->ev;

	if (get_str(l, o, "class", 1, &ev->u.error.cls) != 0 ||
	    get_str(l, o, "message", 1, &ev->u.error.message) != 0)
		return -1;
	ev->u.error.status = ap_status_from_wire(ev->u.error.cls);
	if (ev->u.error.status == AP_ST_OK)
		ev->u.error.status = AP_ST_BENCH;	/* an error is not ok */
	return 0;
}

/* The whole object is the event: the host's facts, which the journal keeps. */
static int
parse_env(struct line *l, json_t *o)
{
	l->ev->u.env.obj = o;
	return 0;
}

static int
parse_bench(struct line *l, json_t *o)
{
	l->ev->u.bench.obj = o;
	return get_str(l, o, "name", 1, &l->ev->u.bench.name);
}

static int
parse_bye(struct line *l, json_t *o)
{
	(void)l;
	(void)o;
	return 0;
}

/* The line types: what each is called on the wire, its event, its parser. */
static const struct line_type {
	const char	*name;
	enum ap_type	 type;
	int		(*parse)(struct line *, json_t *);
} line_types[] = {
	{ WIRE_HELLO, AP_HELLO, parse_hello },
	{ WIRE_HEADER, AP_HEADER, parse_header },
	{ WIRE_METRIC, AP_METRIC, parse_metric },
	{ WIRE_NOTE, AP_NOTE, parse_note },
	{ WIRE_HEARTBEAT, AP_HEARTBEAT, parse_heartbeat },
	{ WIRE_ERROR, AP_ERROR, parse_error },
	{ WIRE_PROFILE, AP_PROFILE, parse_profile },
	{ WIRE_MONITOR, AP_MONITOR, parse_monitor },
	{ WIRE_KERNEL, AP_KERNEL, parse_kernel },
	{ WIRE_LEASE, AP_LEASE, parse_lease },
	{ WIRE_DETACHED, AP_DETACHED, parse_detached },
	{ WIRE_END, AP_END, parse_end },
	{ WIRE_ENV, AP_ENV, parse_env },
	{ WIRE_BENCH, AP_BENCH, parse_bench },
	{ WIRE_BYE, AP_BYE, parse_bye },
};

static int
parse_line(struct agentproto *ap, const char *text, size_t len, struct ap_event *ev)
{
	struct line l = { ap, ev, text, len, NULL };
	json_error_t jerr;
	json_t *o, *v;
	const char *t;
	size_t i;

	o = json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
	if (o == NULL)
		return bad(&l, AP_BAD_JSON, "not JSON (%s at column %d)", jerr.text,
		    jerr.column);
	ap->cur = o;
	if (!json_is_object(o))
		return bad(&l, AP_BAD_NOT_OBJECT, "not a JSON object");
	if (get_str(&l, o, "type", 1, &t) != 0 || member(&l, o, "id", 0, JSON_STRING, &v) != 0)
		return -1;
	if (v != NULL) {
		if (json_string_length(v) > AP_MAX_ID)
			return bad(&l, AP_BAD_MEMBER, "'id' is longer than %d bytes",
			    AP_MAX_ID);
		ev->id = json_string_value(v);
	}
	for (i = 0; i < sizeof(line_types) / sizeof(line_types[0]); i++)
		if (strcmp(t, line_types[i].name) == 0) {
			l.type = line_types[i].name;
			ev->type = line_types[i].type;
			return line_types[i].parse(&l, o);
		}
	return bad(&l, AP_BAD_TYPE, "unknown type '%.32s'", t);
}

int
agentproto_next(struct agentproto *ap, struct ap_event *ev)
{
	size_t n;

	json_decref(ap->cur);
	ap->cur = NULL;
	memset(ev, 0, sizeof(*ev));
	if (ap->pending) {
		ev->type = AP_BAD_OUTPUT;
		ev->line = ap->pending_line;
		ev->u.bad.reason = ap->pending;
		ev->u.bad.message = ap->msg;
		ap->pending = 0;
		return 1;
	}
	if (!ap->ready)
		return 0;
	ap->ready = 0;
	ap->lines++;
	n = ap->len;
	ap->len = 0;
	if (n > 0 && ap->buf[n - 1] == '\r')
		n--;
	if (n == 0)
		return 0;	/* blank lines are nothing */
	ev->line = ap->lines;
	parse_line(ap, ap->buf, n, ev);
	return 1;
}

/* --- A trial's results ----------------------------------------------------- */

struct ap_trial {
	struct ap_result r;
	int		 done;
	char		*bad;		/* why the trial's output is bad, or NULL */
	size_t		 pcap, ncap;
	size_t		 total_samples;
	char		*last_error[AP_ST_COUNT];	/* last message per class */
	int		 any_error;
	enum ap_status	 last_class;
};

/* A copy of s cut to AP_TRIAL_MAX_TEXT bytes on a UTF-8 boundary. */
static char *
text_copy(const char *s)
{
	size_t n = strlen(s);

	if (n <= AP_TRIAL_MAX_TEXT)
		return xstrdup(s);
	return xstrndup(s, utf8_cut(s, AP_TRIAL_MAX_TEXT));
}

static void
profile_free(struct ap_profile *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->ntop; i++)
		free(p->top[i].sym);
	free(p->top);
	free(p->profiler);
	free(p->absent);
	free(p->event);
	free(p);
}

struct ap_trial *
ap_trial_new(const char *id)
{
	struct ap_trial *t = xcalloc(1, sizeof(*t));

	t->r.id = xstrdup_null(id);
	t->r.status = AP_ST_OK;
	t->r.duration = -1;
	return t;
}

void
ap_trial_free(struct ap_trial *t)
{
	size_t i, j;

	if (t == NULL)
		return;
	for (i = 0; i < t->r.npoints; i++) {
		struct ap_point *p = &t->r.points[i];

		free(p->bench);
		json_decref(p->params);
		for (j = 0; j < p->nmetrics; j++) {
			free(p->metrics[j].name);
			free(p->metrics[j].unit);
			free(p->metrics[j].samples);
			free(p->metrics[j].monitor);
		}
		free(p->metrics);
		free(p->message);
	}
	free(t->r.points);
	profile_free(t->r.profile);
	json_decref(t->r.kernel);
	strv_free(t->r.notes, t->r.nnotes);
	for (i = 0; i < AP_ST_COUNT; i++)
		free(t->last_error[i]);
	free(t->r.id);
	free(t->r.message);
	free(t->bad);
	free(t);
}

int
ap_trial_done(const struct ap_trial *t)
{
	return t->done;
}

const struct ap_result *
ap_trial_result(const struct ap_trial *t)
{
	return &t->r;
}

static void
mark_bad(struct ap_trial *t, const char *why)
{
	if (t->bad == NULL)
		t->bad = text_copy(why);
}

static void
add_header(struct ap_trial *t, const struct ap_event *ev)
{
	struct ap_point *p;

	if (t->r.npoints >= AP_TRIAL_MAX_POINTS) {
		mark_bad(t, "more benchmark points than a trial may report");
		return;
	}
	xgrow(&t->r.points, &t->pcap, t->r.npoints + 1, sizeof(*t->r.points));
	p = &t->r.points[t->r.npoints++];
	memset(p, 0, sizeof(*p));
	p->bench = xstrdup(ev->u.header.bench);
	/* A private copy: the reader's tree goes with its next event. */
	p->params = json_deep_copy(ev->u.header.params);
	if (p->params == NULL)
		p->params = json_object();
	p->pid = ev->u.header.pid;
	p->time = ev->u.header.time;
	p->status = AP_ST_OK;
}

static void
add_metric(struct ap_trial *t, const struct ap_event *ev)
{
	struct ap_point *p;
	struct ap_metric *m;
	size_t i, n = ev->u.metric.nsamples;
	char why[160];

	if (t->r.npoints == 0) {
		mark_bad(t, "a metric came before any header");
		return;
	}
	p = &t->r.points[t->r.npoints - 1];
	if (strcmp(p->bench, ev->u.metric.bench) != 0) {
		snprintf(why, sizeof(why), "a metric of %.40s came after the header of %.40s",
		    ev->u.metric.bench, p->bench);
		mark_bad(t, why);
		return;
	}
	for (i = 0; i < p->nmetrics; i++)
		if (strcmp(p->metrics[i].name, ev->u.metric.name) == 0) {
			snprintf(why, sizeof(why), "metric %.40s reported twice",
			    ev->u.metric.name);
			mark_bad(t, why);
			return;
		}
	if (t->r.nmetrics >= AP_TRIAL_MAX_METRICS ||
	    t->total_samples + n > AP_TRIAL_MAX_SAMPLES) {
		mark_bad(t, "more metrics or samples than a trial may report");
		return;
	}
	/* Points grow one metric at a time: a few metrics each. */
	p->metrics = xreallocarray(p->metrics, p->nmetrics + 1, sizeof(*p->metrics));
	m = &p->metrics[p->nmetrics++];
	memset(m, 0, sizeof(*m));
	m->seconds = -1;
	m->name = xstrdup(ev->u.metric.name);
	m->unit = xstrdup(ev->u.metric.unit);
	m->higher_better = ev->u.metric.higher_better;
	m->value = ev->u.metric.value;
	m->min = ev->u.metric.min;
	m->max = ev->u.metric.max;
	m->iterations = ev->u.metric.iterations;
	m->samples = xreallocarray(NULL, n, sizeof(*m->samples));
	memcpy(m->samples, ev->u.metric.samples, n * sizeof(*m->samples));
	m->nsamples = n;
	t->r.nmetrics++;
	t->total_samples += n;
}

static void
add_profile(struct ap_trial *t, const struct ap_event *ev)
{
	struct ap_profile *p;
	json_t *f;
	size_t i;

	if (t->r.profile != NULL) {
		mark_bad(t, "a second profile line");
		return;
	}
	p = t->r.profile = xcalloc(1, sizeof(*p));
	p->profiler = xstrdup(ev->u.profile.profiler);
	if (ev->u.profile.absent != NULL) {
		p->absent = text_copy(ev->u.profile.absent);
		return;
	}
	p->event = xstrdup(ev->u.profile.event);
	p->samples = ev->u.profile.samples;
	p->ntop = json_array_size(ev->u.profile.top);
	p->top = xcalloc(p->ntop ? p->ntop : 1, sizeof(*p->top));
	json_array_foreach((json_t *)ev->u.profile.top, i, f) {
		p->top[i].sym = xstrdup(json_string_value(json_object_get(f, "sym")));
		p->top[i].hits = (long long)json_integer_value(json_object_get(f, "hits"));
		p->top[i].pct = json_number_value(json_object_get(f, "pct"));
	}
}

static void
add_note(struct ap_trial *t, const char *text)
{
	if (t->r.nnotes < AP_TRIAL_MAX_NOTES) {
		xgrow(&t->r.notes, &t->ncap, t->r.nnotes + 1, sizeof(*t->r.notes));
		t->r.notes[t->r.nnotes++] = text_copy(text);
	}
}

/*
 * A monitor line: each counter becomes a secondary metric of the point,
 * "MONITOR:COUNTER", per operation of the window (per second when the
 * agent knows no operation count); why counters are missing, a note.
 */
static void
add_monitor(struct ap_trial *t, const struct ap_event *ev)
{
	const char *mon = ev->u.monitor.monitor, *k;
	double ops = (double)ev->u.monitor.ops, secs = ev->u.monitor.seconds;
	struct ap_event mev;
	double value;
	json_t *v;
	char *name, *note;

	t->r.monitors |= 1u << monitor_index(mon);
	if (ev->u.monitor.absent != NULL) {
		note = xasprintf("monitor %s: %s", mon, ev->u.monitor.absent);
		add_note(t, note);
		free(note);
	}
	json_object_foreach((json_t *)ev->u.monitor.counters, k, v) {
		struct ap_point *p;

		if (ops <= 0 && !(secs > 0))
			break;	/* nothing to divide by: the note-less counters go */
		value = (double)json_integer_value(v) / (ops > 0 ? ops : secs);
		name = xasprintf("%s:%s", mon, k);
		memset(&mev, 0, sizeof(mev));
		mev.type = AP_METRIC;
		mev.u.metric.bench = ev->u.monitor.bench ? ev->u.monitor.bench :
		    t->r.npoints ? t->r.points[t->r.npoints - 1].bench : "";
		mev.u.metric.name = name;
		mev.u.metric.unit = ops > 0 ? "/op" : "/s";
		mev.u.metric.value = mev.u.metric.min = mev.u.metric.max = value;
		mev.u.metric.count = 1;
		mev.u.metric.samples = &value;
		mev.u.metric.nsamples = 1;
		p = t->r.npoints ? &t->r.points[t->r.npoints - 1] : NULL;
		add_metric(t, &mev);
		if (p != NULL && p->nmetrics > 0 && strcmp(p->metrics[p->nmetrics - 1].name,
		    name) == 0) {
			struct ap_metric *m = &p->metrics[p->nmetrics - 1];

			m->monitor = xstrdup(mon);
			m->delta = (long long)json_integer_value(v);
			m->ops = ev->u.monitor.ops;
			m->seconds = secs;
		}
		free(name);
	}
}

static void
add_error(struct ap_trial *t, const struct ap_event *ev)
{
	enum ap_status st = ev->u.error.status;

	free(t->last_error[st]);
	t->last_error[st] = text_copy(ev->u.error.message);
	t->any_error = 1;
	t->last_class = st;
	if (t->r.npoints > 0) {
		struct ap_point *p = &t->r.points[t->r.npoints - 1];

		if (p->status == AP_ST_OK) {
			p->status = st;
			p->message = text_copy(ev->u.error.message);
		}
	}
}

/* Decide the trial's status once the agent has said how it ended. */
static void
finish(struct ap_trial *t, enum ap_status st)
{
	const char *msg = NULL;
	char generic[64];

	t->done = 1;
	if (st == AP_ST_OK) {
		if (t->bad != NULL) {
			st = AP_ST_BAD_OUTPUT;
			msg = t->bad;
		} else if (t->r.nmetrics == 0) {
			st = AP_ST_BAD_OUTPUT;
			msg = "the trial ended ok without a metric";
		}
	} else {
		/* The error line of the class the trial ended with says why. */
		if (t->last_error[st] != NULL)
			msg = t->last_error[st];
		else if (t->any_error)
			msg = t->last_error[t->last_class];
		else {
			snprintf(generic, sizeof(generic), "the agent reported %s",
			    ap_status_name(st));
			msg = generic;
		}
	}
	t->r.status = st;
	free(t->r.message);
	t->r.message = xstrdup_null(msg);
}

int
ap_trial_add(struct ap_trial *t, const struct ap_event *ev)
{
	if (t->done)
		return AP_TRIAL_FOREIGN;
	switch (ev->type) {
	case AP_HEADER:
	case AP_METRIC:
	case AP_NOTE:
	case AP_HEARTBEAT:
	case AP_PROFILE:
	case AP_MONITOR:
	case AP_KERNEL:
	case AP_ERROR:
	case AP_END:
		if (t->r.id != NULL && ev->id != NULL && strcmp(t->r.id, ev->id) != 0)
			return AP_TRIAL_FOREIGN;
		break;
	case AP_BAD_OUTPUT:
		break;
	case AP_HELLO:
	case AP_UNKNOWN_PROTO:
	case AP_ENV:
	case AP_BENCH:
	case AP_LEASE:
	case AP_BYE:
	default:
		return AP_TRIAL_FOREIGN;
	}

	switch (ev->type) {
	case AP_HEADER:
		add_header(t, ev);
		break;
	case AP_METRIC:
		add_metric(t, ev);
		break;
	case AP_NOTE:
		add_note(t, ev->u.note.text);
		break;
	case AP_MONITOR:
		add_monitor(t, ev);
		break;
	case AP_HEARTBEAT:
		t->r.heartbeats++;
		t->r.elapsed = ev->u.heartbeat.elapsed;
		break;
	case AP_PROFILE:
		add_profile(t, ev);
		break;
	case AP_KERNEL:
		if (t->r.kernel != NULL) {
			mark_bad(t, "a second kernel line");
			break;
		}
		t->r.kernel = json_pack("{s:O, s:O}", "counts", ev->u.kernel.counts, "lines",
		    ev->u.kernel.lines);
		break;
	case AP_ERROR:
		add_error(t, ev);
		break;
	case AP_END:
		t->r.duration = ev->u.end.duration;
		finish(t, ev->u.end.status);
		return AP_TRIAL_DONE;
	case AP_BAD_OUTPUT:
		t->r.bad_lines++;
		mark_bad(t, ev->u.bad.message ? ev->u.bad.message : "bad output");
		break;
	default:
		break;
	}
	return AP_TRIAL_MORE;
}

int
ap_trial_stray(struct ap_trial *t, const struct ap_event *ev)
{
	char id[40], *msg;
	size_t i;

	if (t->done || ev->type != AP_END || ev->id == NULL)
		return AP_TRIAL_FOREIGN;
	/* the agent's id, cut and made printable: it goes to terminals */
	for (i = 0; ev->id[i] != '\0' && i < 32; i++)
		id[i] = (unsigned char)ev->id[i] < 0x20 || (unsigned char)ev->id[i] >= 0x7f ?
		    '?' : ev->id[i];
	id[i] = '\0';
	msg = xasprintf("end for unknown trial %s%s", id, ev->id[i] != '\0' ? "..." : "");
	ap_trial_fail(t, AP_ST_BAD_OUTPUT, msg);
	free(msg);
	return AP_TRIAL_DONE;
}

void
ap_trial_fail(struct ap_trial *t, enum ap_status st, const char *message)
{
	if (t->done)
		return;
	if (st == AP_ST_OK) {
		finish(t, AP_ST_OK);
		return;
	}
	t->done = 1;
	t->r.status = st;
	free(t->r.message);
	t->r.message = text_copy(message ? message : ap_status_name(st));
}
