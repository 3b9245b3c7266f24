/*
 * fuzz-agentproto.c: the reader of agent output and the per-trial
 * accumulator (src/agentproto.c), which take whatever a remote agent
 * prints.  The input's length chooses how it is cut into reads (whole,
 * a byte at a time, or chunks of varying size), the way a pipe may
 * deliver it, so that seeds stay plain agent output; every event goes to two trial accumulators, one for
 * lines without an id and one for id "s1".  The promises of
 * agentproto.h are checked on every event.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agentproto.h"
#include "fuzz.h"

static void
check_str(const char *s, int may_be_null)
{
	if (s == NULL) {
		if (!may_be_null)
			abort();
		return;
	}
	(void)strlen(s);
}

static void
check_event(const struct ap_event *ev)
{
	size_t i;
	const char *p;

	if (ev->id != NULL && strlen(ev->id) > AP_MAX_ID)
		abort();
	(void)ap_type_name(ev->type);
	switch (ev->type) {
	case AP_HELLO:
	case AP_UNKNOWN_PROTO:
		check_str(ev->u.hello.agent, 0);
		check_str(ev->u.hello.arch, 0);
		break;
	case AP_HEADER:
		check_str(ev->u.header.bench, 0);
		if (!json_is_object(ev->u.header.params))
			abort();
		break;
	case AP_METRIC:
		check_str(ev->u.metric.bench, 0);
		check_str(ev->u.metric.name, 0);
		check_str(ev->u.metric.unit, 0);
		if (ev->u.metric.nsamples < 1 || ev->u.metric.nsamples > WIRE_MAX_SAMPLES ||
		    ev->u.metric.count != (long long)ev->u.metric.nsamples ||
		    !isfinite(ev->u.metric.value) || !isfinite(ev->u.metric.min) ||
		    !isfinite(ev->u.metric.max))
			abort();
		for (i = 0; i < ev->u.metric.nsamples; i++)
			if (!isfinite(ev->u.metric.samples[i]))
				abort();
		break;
	case AP_NOTE:
		check_str(ev->u.note.bench, 1);
		check_str(ev->u.note.text, 0);
		break;
	case AP_HEARTBEAT:
		if (!isfinite(ev->u.heartbeat.elapsed))
			abort();
		break;
	case AP_ERROR:
		check_str(ev->u.error.cls, 1);
		check_str(ev->u.error.message, 1);
		(void)ap_status_name(ev->u.error.status);
		break;
	case AP_END:
		check_str(ev->u.end.bench, 1);
		check_str(ev->u.end.status_text, 0);
		(void)ap_status_name(ev->u.end.status);
		break;
	case AP_ENV:
		if (!json_is_object(ev->u.env.obj))
			abort();
		break;
	case AP_BENCH:
		check_str(ev->u.bench.name, 0);
		if (!json_is_object(ev->u.bench.obj))
			abort();
		break;
	case AP_BYE:
		break;
	case AP_PROFILE:
		check_str(ev->u.profile.bench, 1);
		check_str(ev->u.profile.profiler, 0);
		check_str(ev->u.profile.absent, 1);
		check_str(ev->u.profile.event, 1);
		if (ev->u.profile.absent == NULL && (ev->u.profile.samples < 0 ||
		    json_array_size(ev->u.profile.top) > WIRE_PROFILE_TOP))
			abort();
		break;
	case AP_BAD_OUTPUT:
		/* safe for a terminal: printable ASCII only */
		for (p = ev->u.bad.message; *p != '\0'; p++)
			if (!isprint((unsigned char)*p))
				abort();
		break;
	default:
		abort();
	}
}

static void
check_result(const struct ap_result *r)
{
	size_t i, j, nmetrics = 0;

	(void)ap_kind_name(ap_status_kind(r->status));
	check_str(r->message, 1);
	for (i = 0; i < r->npoints; i++) {
		const struct ap_point *pt = &r->points[i];

		check_str(pt->bench, 0);
		check_str(pt->message, 1);
		for (j = 0; j < pt->nmetrics; j++) {
			check_str(pt->metrics[j].name, 0);
			check_str(pt->metrics[j].unit, 0);
			if (pt->metrics[j].nsamples > 0 &&
			    !isfinite(pt->metrics[j].samples[pt->metrics[j].nsamples - 1]))
				abort();
		}
		nmetrics += pt->nmetrics;
	}
	if (nmetrics != r->nmetrics || r->npoints > AP_TRIAL_MAX_POINTS ||
	    r->nnotes > AP_TRIAL_MAX_NOTES)
		abort();
	for (i = 0; i < r->nnotes; i++)
		if (strlen(r->notes[i]) > AP_TRIAL_MAX_TEXT)
			abort();
	if (r->profile != NULL) {
		long long sum = 0;

		check_str(r->profile->absent, 1);
		if (r->profile->ntop > WIRE_PROFILE_TOP)
			abort();
		for (i = 0; i < r->profile->ntop; i++) {
			check_str(r->profile->top[i].sym, 0);
			if (r->profile->top[i].hits < 0 || !(r->profile->top[i].pct >= 0 &&
			    r->profile->top[i].pct <= 100))
				abort();
			sum += r->profile->top[i].hits;
		}
		if (r->profile->absent == NULL && sum > r->profile->samples)
			abort();
	}
}

static void
drain(struct agentproto *ap, struct ap_trial **t)
{
	struct ap_event ev;
	int k;

	while (agentproto_next(ap, &ev) > 0) {
		check_event(&ev);
		for (k = 0; k < 2; k++)
			if (ap_trial_add(t[k], &ev) != AP_TRIAL_FOREIGN)
				check_result(ap_trial_result(t[k]));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agentproto *ap;
	struct ap_trial *t[2];
	size_t chunk, used, k, seq = 0, mode = size % 8;

	ap = agentproto_new();
	t[0] = ap_trial_new(NULL);
	t[1] = ap_trial_new("s1");
	while (size > 0) {
		/* 0: whole; 1: bytes; else chunks of 1 to 4^mode bytes, varying */
		if (mode == 0)
			chunk = size;
		else if (mode == 1)
			chunk = 1;
		else
			chunk = 1 + (seq++ * 7919) % ((size_t)1 << (2 * mode));
		if (chunk > size)
			chunk = size;
		used = 0;
		while (used < chunk) {
			k = agentproto_feed(ap, data + used, chunk - used);
			used += k;
			drain(ap, t);
		}
		data += chunk;
		size -= chunk;
	}
	agentproto_eof(ap);
	drain(ap, t);
	for (k = 0; k < 2; k++) {
		if (!ap_trial_done(t[k]))
			ap_trial_fail(t[k], AP_ST_AGENT_LOST, "the stream ended");
		if (!ap_trial_done(t[k]))
			abort();
		check_result(ap_trial_result(t[k]));
		ap_trial_free(t[k]);
	}
	(void)agentproto_lines(ap);
	agentproto_free(ap);
	return 0;
}
