/*
 * fleet.h: the fleet inventory (docs/plans-and-fleets.md): which hosts exist, how to reach
 * them, and selecting hosts by name and @label.
 *
 * An inventory is a YAML mapping with `defaults` (settings every host
 * inherits) and `hosts` (name -> settings).  Loading knows nothing of SSH:
 * it only checks and resolves what the file says, so that everything a
 * later connection needs is here, inherited and with `~` expanded.
 *
 * With no inventory, fleet_load_default() gives the embedded default
 * fleet: one host named "local", this machine, reached through the local
 * transport (its written form is configs/local.yaml).
 *
 * Errors: 0 or -1 with a newly allocated "FILE:LINE:COL: message" in *err.
 */
#ifndef FLEETMARK_FLEET_H
#define FLEETMARK_FLEET_H

#include <stddef.h>

#define FLEET_MAX_HOSTS		4096
#define FLEET_NAME_MAX		64	/* bytes of a host name or label */

enum fleet_transport {
	FLEET_TRANSPORT_SSH,
	FLEET_TRANSPORT_LOCAL,
};

enum fleet_hostkey {
	FLEET_HOSTKEY_YES,		/* the key must be known and match */
	FLEET_HOSTKEY_ACCEPT_NEW,	/* learn unknown keys, refuse changed ones */
	FLEET_HOSTKEY_NO,		/* accept anything (test labs only) */
};

enum fleet_agent {
	FLEET_AGENT_AUTO,		/* prebuilt if one fits, else build on the host */
	FLEET_AGENT_PREBUILT,		/* only a prebuilt static binary */
	FLEET_AGENT_SOURCE,		/* always compile on the host */
};

/* A `boot:` entry: how the host boots a named kernel (bootspec.h). */
struct fleet_boot {
	char			*name;
	char			*how;		/* a command or kexec:..., as written */
	int			 line, col;	/* where the value is written */
};

struct fleet_host {
	char			*name;		/* the name in every table */
	enum fleet_transport	 transport;
	char			*address;	/* NULL for the local transport */
	char			*user;		/* NULL: ssh_config's, else the local user */
	int			 port;		/* 0: ssh_config's, else 22 */
	char			*identity;	/* NULL: ssh-agent, then the usual keys */
	char			*known_hosts;	/* expanded path */
	enum fleet_hostkey	 host_key_check;
	long long		 connect_timeout_ms;
	char			*workdir;	/* on the host; '~' there is its home */
	int			 ssh_config;	/* honour an OpenSSH client config */
	char			*ssh_config_path; /* which one (expanded) */
	char			*proxy_jump;	/* [user@]host[:port][,...] or NULL */
	enum fleet_agent	 agent;
	char			**labels;
	size_t			 nlabels;

	/*
	 * Boards (docs/boards.md): shell commands run on the controller with
	 * FLEETMARK_HOST set, each NULL when not given.  power_cycle is set
	 * whenever `power:` is; power_off and power_on are optional.
	 */
	char			*power_cycle;
	char			*power_off;
	char			*power_on;
	char			*console;	/* its output is the serial console */
	long long		 boot_timeout_ms; /* a reboot takes at most this */
	int			 recover;	/* power cycles allowed per run */

	/*
	 * `boot:` entries, the defaults' and then the host's own (which
	 * replace a default entry of the same name), each checked with
	 * bootspec_parse() at load.
	 */
	struct fleet_boot	*boots;
	size_t			 nboots;

	/* Where the host is defined, for messages. */
	const char		*file;
	int			 line, col;
};

struct fleet {
	char			*file;		/* as given, or "(default fleet)" */
	struct fleet_host	*hosts;		/* in the order written */
	size_t			 nhosts;
};

/* Defaults applied when neither the host nor `defaults` says. */
#define FLEET_DEFAULT_PORT		22
#define FLEET_DEFAULT_KNOWN_HOSTS	"~/.ssh/known_hosts"
#define FLEET_DEFAULT_SSH_CONFIG	"~/.ssh/config"
#define FLEET_DEFAULT_CONNECT_TIMEOUT	10000	/* ms */
#define FLEET_DEFAULT_WORKDIR		"/tmp/fleetmark"
#define FLEET_DEFAULT_BOOT_TIMEOUT	300000	/* ms */
#define FLEET_DEFAULT_RECOVER		1	/* with power:, else 0 */
#define FLEET_MAX_RECOVER		100

/* The embedded default fleet, as YAML (configs/local.yaml says the same). */
extern const char fleet_default_yaml[];
#define FLEET_DEFAULT_NAME		"(default fleet, no -f)"

/* Load an inventory; path NULL gives the embedded default fleet. */
int	fleet_load(const char *path, struct fleet **out, char **err);
int	fleet_parse(const char *name, const char *text, size_t len,
	    struct fleet **out, char **err);
int	fleet_load_default(struct fleet **out, char **err);
void	fleet_free(struct fleet *f);

/*
 * The name rule of hosts and labels: letters, digits, '-', '_' and '.',
 * starting with a letter or digit, 1 to FLEET_NAME_MAX bytes.  Such a
 * name is safe as a file name (no '/', never "." or ".."), which is why
 * a host name read back from a run directory or an archive must pass it
 * before it names a file there (rundir.h).
 */
int	fleet_name_ok(const char *s);

const struct fleet_host *fleet_find(const struct fleet *f, const char *name);

/* h's `boot:` entry called name, or NULL. */
const struct fleet_boot *fleet_boot_find(const struct fleet_host *h, const char *name);

/* Whether h carries `label`. */
int	fleet_host_has_label(const struct fleet_host *h, const char *label);

/*
 * Host patterns.  A word is one or more terms joined by '&' (the hosts in
 * all of them); a term is "all", a host name, a glob over host names
 * ("srv*", fnmatch(3)), "@label" or "@glob" over labels, and a term led by
 * '!' means the hosts it does not name ("@x86&!@numa").
 *
 * fleet_match() marks in sel[0..nhosts-1] the hosts `word` selects (sel is
 * not cleared: words add up).  Returns how many (at least 1), or -1 with a
 * message without position in *err ("unknown host 'nhm' in FILE (did you
 * mean 'nhm-ep'?)", "no host has label 'arm' in FILE", "'@x86&@numa'
 * selects no host of FILE").  A term that names nothing is an error even
 * inside an intersection: a typo never selects nothing in silence.
 */
int	fleet_match(const struct fleet *f, const char *word, unsigned char *sel,
	    char **err);

/*
 * A list of words, as -H's commas and a plan's `hosts:` give them: sel
 * (cleared first) gets the union of the words, less the hosts of every
 * word that starts with '!' and has no '&' ("srv*,!srv3"); exclusions
 * alone start from every host ("!srv3").  Returns the number selected, or
 * -1 with *bad set to the index of the word at fault and a message in
 * *err (also when the exclusions leave nothing).
 */
int	fleet_match_words(const struct fleet *f, const char *const *words,
	    size_t nwords, unsigned char *sel, size_t *bad, char **err);

/*
 * Select hosts for `-H SPEC`: comma-separated words as for
 * fleet_match_words(); sel must have f->nhosts entries.  An empty spec or
 * word is an error.  Messages start with "-H: ".
 */
int	fleet_select(const struct fleet *f, const char *spec, unsigned char *sel,
	    char **err);

/* "yes", "accept-new", "no"; "ssh", "local"; "auto", "prebuilt", "source". */
const char	*fleet_hostkey_name(enum fleet_hostkey k);
const char	*fleet_transport_name(enum fleet_transport t);
const char	*fleet_agent_name(enum fleet_agent a);

/*
 * Expand a leading "~" or "~user" of a local path (from $HOME, else the
 * password database).  Returns a new string, or NULL when the user is
 * unknown.
 */
char	*fleet_expand_tilde(const char *path);

#endif /* FLEETMARK_FLEET_H */
