/*
 * fuzz-jparse.c: the agent's request parser (agent/jparse.c), which reads
 * what comes down the control stream, and what serve mode does with a
 * parsed request up to running it: the checks of agent/serve.c's
 * do_trial() (copied here, as it is static there) and trial_init(),
 * which resolves and checks the parameters against the benchmark table.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "fuzz.h"
#include "jparse.h"

static void
walk(const struct jv *v, int depth)
{
	size_t i;

	if (depth > JPARSE_MAX_DEPTH + 1)
		abort();
	switch (v->type) {
	case JV_STR:
		if (v->str == NULL || v->str[v->len] != '\0')
			abort();
		break;
	case JV_OBJ:
		for (i = 0; i < v->len; i++) {
			(void)strlen(v->keys[i]);
			if (i < 16)
				(void)jv_get(v, v->keys[i]);
		}
		/* fall through */
	case JV_ARR:
		if (v->len > JPARSE_MAX_MEMBERS)
			abort();
		for (i = 0; i < v->len; i++)
			walk(v->vals[i], depth + 1);
		break;
	default:
		break;
	}
}

/* serve.c's param_text(). */
static char *
param_text(const struct jv *v)
{
	char buf[64];

	if (v->type == JV_STR)
		return strlen(v->str) == v->len ? strdup(v->str) : NULL;
	/* in range before the cast: converting 1e30 is undefined */
	if (v->type == JV_NUM && fabs(v->num) < 9e18 && v->num == (double)(long long)v->num) {
		snprintf(buf, sizeof(buf), "%lld", (long long)v->num);
		return strdup(buf);
	}
	return NULL;
}

/* serve.c's do_trial() up to supervise(). */
static void
trial(const struct jv *req, const char *id)
{
	char *keys[WIRE_MAX_PARAMS], *vals[WIRE_MAX_PARAMS], err[512];
	const struct jv *params = jv_get(req, "params"), *v;
	const char *name = jv_get_str(req, "bench");
	const struct bench *b;
	struct trial t;
	int samples = AGENT_DEFAULT_SAMPLES, n = 0, i;
	double deadline = AGENT_DEFAULT_DEADLINE;

	if (name == NULL || (b = bench_find(name)) == NULL)
		return;
	if ((v = jv_get(req, "samples")) != NULL) {
		if (v->type != JV_NUM || !(fabs(v->num) <= INT_MAX) ||
		    v->num != (double)(int)v->num)
			return;
		samples = (int)v->num;
	}
	if ((v = jv_get(req, "deadline")) != NULL) {
		if (v->type != JV_NUM || !(v->num > 0) || v->num > 7 * 86400)
			return;
		deadline = v->num;
	}
	if (params != NULL && params->type != JV_OBJ)
		return;
	for (i = 0; params != NULL && (size_t)i < params->len; i++) {
		if (n >= WIRE_MAX_PARAMS)
			goto out;
		keys[n] = params->keys[i];
		if ((vals[n] = param_text(params->vals[i])) == NULL)
			goto out;
		n++;
	}
	if (trial_init(&t, b, id, n, keys, vals, samples, deadline, err, sizeof(err)) == 0)
		trial_release(&t);
	else if (err[0] == '\0')
		abort();	/* a refusal says why */
out:
	while (n > 0)
		free(vals[--n]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jv *req = NULL;
	const char *type, *id;
	char err[256];

	err[0] = '\0';
	if (jv_parse((const char *)data, size, &req, err, sizeof(err)) != 0) {
		if (err[0] == '\0')
			abort();
		return 0;
	}
	walk(req, 0);
	type = jv_get_str(req, "type");
	id = jv_get_str(req, "id");
	if (type != NULL && strcmp(type, WIRE_REQ_TRIAL) == 0 &&
	    (id == NULL || strlen(id) <= AGENT_MAX_ID))
		trial(req, id);
	jv_free(req);
	return 0;
}
