/*
 * cmd.c: helpers shared by the subcommands (cmd-*.c).
 */
#include <stdio.h>

#include "cmd.h"

int
cmd_usage(const struct cmd_entry *e, int to_stdout)
{
	fprintf(to_stdout ? stdout : stderr, "usage: fleetmark %s %s\n", e->name, e->usage);
	return to_stdout ? CMD_EXIT_OK : CMD_EXIT_USAGE;
}
