/*
 * proc.h: running a local program, the process groups of the programs
 * fleetmark starts, and where this program lives.
 *
 * proc_capture() and proc_run() are for short local helpers (the agent's
 * `list`, `make agents`): never through a shell, argv passed as given.
 *
 * Every helper process that fleetmark does not wait for in the
 * foreground (jumps, ProxyCommands, power and console hooks, captured
 * helpers) runs in a process group of its own, registered here from its
 * start to its end, so that the group (the children it started included)
 * can be ended at its deadline and on every way fleetmark exits:
 * proc_groups_end_all() at exit and from the fatal signal handlers that
 * main.c installs.
 */
#ifndef FLEETMARK_PROC_H
#define FLEETMARK_PROC_H

#include <stddef.h>
#include <sys/types.h>

#define PROC_GRACE_MS	300	/* between SIGTERM and SIGKILL to a group */

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
 * Record a live process group (its leader's pid) until proc_group_del().
 * Thread-safe and async-signal-safe; the registry holds PROC_GROUPS_MAX
 * groups, past which a group is not recorded (and -1 returned) but still
 * ended at its deadline by its owner.
 */
#define PROC_GROUPS_MAX	4096
int	proc_group_add(pid_t pgid);

/*
 * fork() into a process group of its own (the child's pid), recorded with
 * proc_group_add() before any signal can be handled; returns as fork().
 * The child starts with the caller's signal mask and should exec soon.
 */
pid_t	proc_fork_group(void);

/* Forget a group (after proc_group_end(), or when its last member is gone). */
void	proc_group_del(pid_t pgid);

/*
 * End the process group of leader `pid`, a child of ours: wait up to
 * grace_ms for the leader to exit by itself (0: not at all), then SIGTERM
 * to the group, PROC_GRACE_MS more, then SIGKILL, until no member is
 * left; the leader is reaped, its wait status in *status (NULL: not
 * wanted), and the group forgotten.  Members that outlive the leader are
 * signalled as well: the group is killed while the leader's zombie
 * still holds its number.
 */
void	proc_group_end(pid_t pid, long long grace_ms, int *status);

/*
 * SIGTERM to every registered group, a short grace, then SIGKILL; for the
 * exit paths of the controller.  Async-signal-safe.
 */
void	proc_groups_end_all(void);

/*
 * Make SIGINT, SIGTERM and SIGHUP end the registered groups before the
 * process dies of the signal, and normal exit() end them too.  For
 * main(); a command that catches these signals itself replaces this
 * handler and ends its groups on its own way out.
 */
void	proc_groups_on_exit(void);

/*
 * The directory of the running executable (/proc/self/exe), as a new
 * string, or NULL when it cannot be found.
 */
char	*proc_exe_dir(void);

#endif /* FLEETMARK_PROC_H */
