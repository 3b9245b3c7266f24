/*
 * fuzz-jparse.c: the agent's request parser (agent/jparse.c), which reads
 * what comes down the control stream, and what serve mode does with a
 * parsed request up to running it: serve_trial_init() (agent/serve.c),
 * which checks the request and resolves its parameters against the
 * benchmark table with trial_init().
 */
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

/* What serve mode does with a trial request, up to running it. */
static void
trial(const struct jv *req, const char *id)
{
	struct trial t;
	char err[512];

	err[0] = '\0';
	if (serve_trial_init(req, id, &t, err, sizeof(err)) == 0)
		trial_release(&t);
	else if (err[0] == '\0')
		abort();	/* a refusal says why */
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
