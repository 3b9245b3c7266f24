/*
 * serve.c: the controller's mode.  Requests arrive as JSON lines on the
 * control stream; every trial runs in a fresh child (supervise.c) and its
 * lines stream back on stdout.  One process and one channel serve a whole
 * run.  The loop ends on an "exit" request, on EOF, on a signal, or when
 * the controller has said nothing (not even a blank keep-alive line) for
 * the idle limit: a controller cut off by a partition never closes our
 * input, and TCP can keep such a session for hours, so without that the
 * agent, its trial and the host's lease would outlive the run.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "jline.h"
#include "jparse.h"
#include "timing.h"

void
serve_reply_error(int fd, const char *id, const char *msg)
{
	struct jline j;

	trial_emit_error(fd, id, WIRE_ERR_REQUEST, msg);
	jl_begin(&j, WIRE_END, id);
	jl_str(&j, "status", WIRE_ERR_REQUEST);
	jl_emit(&j, fd);
}

/* A parameter value as text: strings as they are, integers in decimal. */
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

int
serve_trial_init(const struct jv *req, const char *id, struct trial *t, char *err,
    size_t errlen)
{
	char *keys[WIRE_MAX_PARAMS], *vals[WIRE_MAX_PARAMS];
	const struct jv *params = jv_get(req, "params"), *v;
	const char *name = jv_get_str(req, "bench");
	const struct bench *b = NULL;
	struct program *prog = NULL;
	int samples = AGENT_DEFAULT_SAMPLES, n = 0, i, rc = -1, profile = 0;
	unsigned monitors = 0, bit;
	double deadline = AGENT_DEFAULT_DEADLINE;

	if (name == NULL || (strcmp(name, WIRE_BENCH_PROGRAM) != 0 &&
	    (b = bench_find(name)) == NULL)) {
		snprintf(err, errlen, "unknown benchmark '%s'", name ? name : "");
		return -1;
	}
	if ((v = jv_get(req, "samples")) != NULL) {
		if (v->type != JV_NUM || !(fabs(v->num) <= INT_MAX) ||
		    v->num != (double)(int)v->num) {
			snprintf(err, errlen, "samples must be an integer");
			return -1;
		}
		samples = (int)v->num;
	}
	if ((v = jv_get(req, "deadline")) != NULL) {
		if (v->type != JV_NUM || !(v->num > 0) || v->num > 7 * 86400) {
			snprintf(err, errlen, "deadline must be a number of seconds");
			return -1;
		}
		deadline = v->num;
	}
	if ((v = jv_get(req, "profile")) != NULL && v->type != JV_NULL) {
		if (v->type != JV_STR || strcmp(v->str, WIRE_PROFILE_PERF) != 0) {
			snprintf(err, errlen, "profile must be \"%s\" or null",
			    WIRE_PROFILE_PERF);
			return -1;
		}
		profile = 1;
	}
	if ((v = jv_get(req, "monitor")) != NULL && v->type != JV_NULL) {
		if (v->type != JV_ARR) {
			snprintf(err, errlen, "monitor must be an array of monitor names");
			return -1;
		}
		for (i = 0; (size_t)i < v->len; i++) {
			const struct jv *e = v->vals[i];

			if (e->type != JV_STR || monitor_parse(e->str, &bit) != 0) {
				snprintf(err, errlen, "monitor %d: not one of %s, %s, %s", i + 1,
				    WIRE_MON_INTERRUPTS, WIRE_MON_VMSTAT, WIRE_MON_PERF_STAT);
				return -1;
			}
			monitors |= bit;
		}
	}
	if (params != NULL && params->type != JV_OBJ) {
		snprintf(err, errlen, "params must be an object");
		return -1;
	}
	for (i = 0; params != NULL && (size_t)i < params->len; i++) {
		if (n >= WIRE_MAX_PARAMS) {
			snprintf(err, errlen, "too many parameters");
			goto out;
		}
		keys[n] = params->keys[i];
		if ((vals[n] = param_text(params->vals[i])) == NULL) {
			snprintf(err, errlen, "parameter %s: not a string or integer",
			    params->keys[i]);
			goto out;
		}
		n++;
	}
	if (strcmp(name, WIRE_BENCH_PROGRAM) == 0) {
		if (own_program_from_request(req, &prog, err, errlen) != 0)
			goto out;
		b = own_program_bench(prog);
	}
	rc = trial_init(t, b, id, n, keys, vals, samples, deadline, err, errlen);
	if (rc == 0) {
		t->profile = profile;
		t->monitors = monitors;
		t->program = prog;
		prog = NULL;
	}
out:
	own_program_free(prog);
	while (n > 0)
		free(vals[--n]);
	return rc;
}

int
serve_trial(const struct jv *req, const char *id, struct input *in, int out_fd)
{
	struct trial t;
	char err[512];
	int rc;

	if (serve_trial_init(req, id, &t, err, sizeof(err)) != 0) {
		serve_reply_error(out_fd, id, err);
		return -1;
	}
	t.out_fd = out_fd;
	rc = supervise(&t, in, out_fd);
	trial_release(&t);
	return rc;
}

static double idle_limit;	/* seconds, for the hello line; 0: none */

static void
emit_simple(int fd, const char *type, const char *id)
{
	struct jline j;

	jl_begin(&j, type, id);
	if (strcmp(type, WIRE_HELLO) == 0) {
		jl_int(&j, "proto", WIRE_PROTO);
		jl_str(&j, "agent", AGENT_VERSION);
		jl_str(&j, "arch", agent_arch());
		jl_int(&j, "pid", (long long)getpid());
		jl_int(&j, "max_line", WIRE_MAX_LINE);
		if (idle_limit > 0)
			jl_num(&j, "idle", idle_limit);
	} else if (strcmp(type, WIRE_END) == 0)
		jl_str(&j, "status", WIRE_STATUS_OK);
	jl_emit(&j, fd);
}

/* Handle one request line; returns 1 when serving should stop. */
static int
handle(const char *line, size_t len, struct input *in, int out_fd)
{
	char err[256], msg[320];
	struct jv *req = NULL;
	const char *type, *id;
	int stop = 0;

	if (jv_parse(line, len, &req, err, sizeof(err)) != 0) {
		snprintf(msg, sizeof(msg), "request is not JSON: %s", err);
		serve_reply_error(out_fd, NULL, msg);
		return 0;
	}
	type = jv_get_str(req, "type");
	id = jv_get_str(req, "id");
	if (id != NULL && strlen(id) > AGENT_MAX_ID) {
		serve_reply_error(out_fd, NULL, "request id too long");
	} else if (type == NULL) {
		serve_reply_error(out_fd, id, "request has no type");
	} else if (strcmp(type, WIRE_REQ_TRIAL) == 0) {
		serve_trial(req, id, in, out_fd);
	} else if (strcmp(type, WIRE_REQ_ENV) == 0) {
		env_emit(out_fd, id, 1);
	} else if (strcmp(type, WIRE_REQ_LIST) == 0) {
		list_emit(out_fd, id, 1);
		emit_simple(out_fd, WIRE_END, id);
	} else if (strcmp(type, WIRE_REQ_LEASE) == 0) {
		lease_request(out_fd, id, jv_get_str(req, "owner"), jv_get_str(req, "run"));
	} else if (strcmp(type, WIRE_REQ_DETACH) == 0) {
		detach_request(req, id, in, out_fd);
	} else if (strcmp(type, WIRE_REQ_COLLECT) == 0) {
		detach_collect(req, id, out_fd);
	} else if (strcmp(type, WIRE_REQ_FORGET) == 0) {
		detach_forget(req, id, out_fd);
	} else if (strcmp(type, WIRE_REQ_EXIT) == 0) {
		stop = 1;
	} else {
		snprintf(msg, sizeof(msg), "unknown request type '%.64s'", type);
		serve_reply_error(out_fd, id, msg);
	}
	jv_free(req);
	return stop;
}

int
serve_wait(struct input *in)
{
	struct pollfd pfd[2];
	double left;
	int timeout = -1;

	if (in->idle > 0) {
		left = in->heard + in->idle - timing_now();
		timeout = left > 0 ? (int)(left / 1e6) + 1 : 0;
	}
	pfd[0].fd = in->fd;
	pfd[0].events = POLLIN;
	pfd[0].revents = 0;
	pfd[1].fd = supervise_signal_fd();
	pfd[1].events = POLLIN;
	pfd[1].revents = 0;
	if (poll(pfd, pfd[1].fd >= 0 ? 2 : 1, timeout) < 0 && errno != EINTR)
		return -1;
	/*
	 * A child that ended between trials (env's helpers, a trial's
	 * orphans) left a byte in the signal pipe: read it, or every poll
	 * returns at once and the agent spins until the next request.
	 */
	if (pfd[1].revents)
		supervise_drain_signals();
	if (pfd[0].revents)
		input_fill(in);
	return 0;
}

int
serve(int in_fd, int out_fd, double idle_s)
{
	static struct input in;
	static char line[WIRE_MAX_LINE + 1];
	long n;

	input_init(&in, in_fd);
	in.idle = idle_s * 1e9;
	idle_limit = idle_s;
	lease_set_idle(idle_s);
	emit_simple(out_fd, WIRE_HELLO, NULL);
	while (!supervise_stopping()) {
		while ((n = input_line(&in, line, sizeof(line))) != 0) {
			if (n < 0) {
				serve_reply_error(out_fd, NULL, "request line too long");
				continue;
			}
			if (handle(line, (size_t)n, &in, out_fd))
				goto bye;
			if (supervise_stopping())
				goto bye;
		}
		if (in.eof)
			break;
		if (serve_wait(&in) != 0)
			break;
		if (input_silent(&in)) {
			supervise_silence();	/* first: stderr may be stuck too */
			fprintf(stderr, "fleetmark-agent: nothing from the controller for %.0f s: "
			    "stopping\n", idle_s);
			break;
		}
	}
bye:
	lease_release();
	emit_simple(out_fd, WIRE_BYE, NULL);
	return 0;
}
