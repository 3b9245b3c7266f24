/*
 * cmd.c: helpers shared by the subcommands (cmd-*.c).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "log.h"

int
cmd_usage(const struct cmd_entry *e, int to_stdout)
{
	fprintf(to_stdout ? stdout : stderr, "usage: fleetmark %s %s\n", e->name, e->usage);
	return to_stdout ? CMD_EXIT_OK : CMD_EXIT_USAGE;
}

int
cmd_common_option(const struct cmd_entry *e, int c, int *quiet)
{
	switch (c) {
	case 'v':
		log_set_level(log_get_level() + 1);
		return -1;
	case 'q':
		if (quiet != NULL)
			*quiet = 1;
		log_set_level(LOG_LEVEL_QUIET);
		return -1;
	case 'h':
		return cmd_usage(e, 1);
	default:
		return cmd_usage(e, 0);
	}
}

void
cmd_catch_signals(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
