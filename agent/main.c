/*
 * main.c: fleetmark-agent, the program the controller deploys on each host.
 *
 *   fleetmark-agent list [--json]     benchmarks, parameters, metrics
 *   fleetmark-agent env [--json]      facts about this host
 *   fleetmark-agent run BENCH [key=value]... [--samples N] [--deadline S]
 *                                     [--profile perf] [--monitor M,M...]
 *   fleetmark-agent serve [--idle S]  JSON-lines requests on stdin
 *   fleetmark-agent version
 *
 * Output of run and serve is the wire format of docs/agent-protocol.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "timing.h"

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: fleetmark-agent list [--json]\n"
	    "       fleetmark-agent env [--json]\n"
	    "       fleetmark-agent run BENCH [key=value]... [--samples N] [--deadline SECONDS]\n"
	    "                           [--profile perf] [--monitor interrupts,vmstat,perf-stat]\n"
	    "       fleetmark-agent serve [--idle SECONDS]\n"
	    "       fleetmark-agent version\n");
}

/* The control stream is watched only when it is a pipe or a socket (an
 * SSH channel or the controller); a terminal or /dev/null is not one. */
static int
is_stream(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

static int
cmd_run(int argc, char **argv)
{
	char *keys[WIRE_MAX_PARAMS], *vals[WIRE_MAX_PARAMS], err[512], *end, *eq;
	const struct bench *b;
	struct input in;
	struct trial t;
	int samples = AGENT_DEFAULT_SAMPLES, n = 0, i, rc, profile = 0;
	double deadline = AGENT_DEFAULT_DEADLINE;
	unsigned monitors = 0, bit;
	char *tok, *save;

	if (argc < 1) {
		usage(stderr);
		return WIRE_EXIT_USAGE;
	}
	if ((b = bench_find(argv[0])) == NULL) {
		fprintf(stderr, "fleetmark-agent: unknown benchmark '%s' (see 'fleetmark-agent list')\n",
		    argv[0]);
		return WIRE_EXIT_USAGE;
	}
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc) {
			samples = (int)strtol(argv[++i], &end, 10);
			if (*end != '\0' || samples < 1) {
				fprintf(stderr, "fleetmark-agent: --samples: '%s' is not a positive integer\n",
				    argv[i]);
				return WIRE_EXIT_USAGE;
			}
		} else if (strcmp(argv[i], "--deadline") == 0 && i + 1 < argc) {
			deadline = strtod(argv[++i], &end);
			if (*end != '\0' || !(deadline > 0)) {
				fprintf(stderr, "fleetmark-agent: --deadline: '%s' is not a positive number of seconds\n",
				    argv[i]);
				return WIRE_EXIT_USAGE;
			}
		} else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) {
			if (strcmp(argv[++i], WIRE_PROFILE_PERF) != 0) {
				fprintf(stderr, "fleetmark-agent: --profile: '%s' is not %s\n",
				    argv[i], WIRE_PROFILE_PERF);
				return WIRE_EXIT_USAGE;
			}
			profile = 1;
		} else if (strcmp(argv[i], "--monitor") == 0 && i + 1 < argc) {
			for (tok = strtok_r(argv[++i], ",", &save); tok != NULL;
			    tok = strtok_r(NULL, ",", &save)) {
				if (monitor_parse(tok, &bit) != 0) {
					fprintf(stderr, "fleetmark-agent: --monitor: '%s' is not one "
					    "of %s, %s, %s\n", tok, WIRE_MON_INTERRUPTS,
					    WIRE_MON_VMSTAT, WIRE_MON_PERF_STAT);
					return WIRE_EXIT_USAGE;
				}
				monitors |= bit;
			}
		} else if ((eq = strchr(argv[i], '=')) != NULL && eq != argv[i] &&
		    n < WIRE_MAX_PARAMS) {
			*eq = '\0';
			keys[n] = argv[i];
			vals[n++] = eq + 1;
		} else {
			fprintf(stderr, "fleetmark-agent: unexpected argument '%s'\n", argv[i]);
			usage(stderr);
			return WIRE_EXIT_USAGE;
		}
	}
	if (trial_init(&t, b, NULL, n, keys, vals, samples, deadline, err, sizeof(err)) != 0) {
		fprintf(stderr, "fleetmark-agent: %s\n", err);
		return WIRE_EXIT_USAGE;
	}
	t.profile = profile;
	t.monitors = monitors;
	input_init(&in, 0);
	rc = supervise(&t, is_stream(0) ? &in : NULL, 1);
	trial_release(&t);
	return rc;
}

/*
 * serve [--idle SECONDS]: how long the controller may stay silent (0: for
 * ever); by default AGENT_IDLE_DEFAULT when the control stream is a pipe
 * or a socket, and no limit for a terminal.
 */
static int
cmd_serve(int argc, char **argv)
{
	double idle = is_stream(0) ? AGENT_IDLE_DEFAULT : 0;
	char *end;

	if (argc == 2 && strcmp(argv[0], "--idle") == 0) {
		idle = strtod(argv[1], &end);
		if (*argv[1] == '\0' || *end != '\0' || !(idle >= 0) || idle > 7 * 86400) {
			fprintf(stderr, "fleetmark-agent: --idle: '%s' is not a number of seconds\n",
			    argv[1]);
			return WIRE_EXIT_USAGE;
		}
	} else if (argc != 0) {
		usage(stderr);
		return WIRE_EXIT_USAGE;
	}
	return serve(0, 1, idle);
}

static int
want_json(int argc, char **argv)
{
	return argc > 0 && strcmp(argv[0], "--json") == 0;
}

int
main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2) {
		usage(stderr);
		return WIRE_EXIT_USAGE;
	}
	cmd = argv[1];
	/* The smallest program to exec, for lat_proc op=exec (lmbench's "hello"). */
	if (strcmp(cmd, AGENT_EXEC_PROBE) == 0)
		_exit(0);
	supervise_signals();
	timing_init();
	if (strcmp(cmd, "list") == 0) {
		list_emit(1, NULL, want_json(argc - 2, argv + 2));
		return 0;
	}
	if (strcmp(cmd, "env") == 0) {
		env_emit(1, NULL, want_json(argc - 2, argv + 2));
		return 0;
	}
	if (strcmp(cmd, "version") == 0) {
		printf("fleetmark-agent %s protocol %d %s\n", AGENT_VERSION, WIRE_PROTO,
		    agent_arch());
		return 0;
	}
	if (strcmp(cmd, "run") == 0) {
		scratch_sweep();
		return cmd_run(argc - 2, argv + 2);
	}
	if (strcmp(cmd, "serve") == 0) {
		scratch_sweep();
		return cmd_serve(argc - 2, argv + 2);
	}
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "fleetmark-agent: unknown command '%s'\n", cmd);
	usage(stderr);
	return WIRE_EXIT_USAGE;
}
