/*
 * cmd.c: helpers shared by the subcommands (cmd-*.c).
 */
#include <stdio.h>

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
