/*
 * proc.h: running a local program and where this program lives.
 *
 * Only for short local helpers (the agent's `list`, `make agents`): never
 * through a shell, argv passed as given.
 */
#ifndef FLEETMARK_PROC_H
#define FLEETMARK_PROC_H

#include <stddef.h>

/*
 * Run argv (argv[0] looked up in PATH when it has no '/') with stdin from
 * /dev/null, capturing at most `max` bytes of stdout into *out (a new
 * NUL-terminated buffer, *outlen bytes; more output is an error) while
 * stderr passes through.  The child is killed after timeout_ms.
 * Returns 0 with the exit status in *status (or 128+signal), or -1 with a
 * message in *err when the program could not run, timed out or said too
 * much.
 */
int	proc_capture(char *const argv[], size_t max, int timeout_ms,
	    char **out, size_t *outlen, int *status, char **err);

/*
 * Run argv with stdin, stdout and stderr inherited and wait for it.
 * Returns 0 with the exit status in *status, or -1 with *err.
 */
int	proc_run(char *const argv[], int *status, char **err);

/*
 * The directory of the running executable (/proc/self/exe), as a new
 * string, or NULL when it cannot be found.
 */
char	*proc_exe_dir(void);

#endif /* FLEETMARK_PROC_H */
