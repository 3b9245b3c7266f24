/*
 * ab-int.h: what the files of src/ab/ share; not an API (abdir.h is).
 * The names in an ab directory, a boot's states in ab.json, and ab.json
 * changed one boot at a time (ab/state.c).
 */
#ifndef FLEETMARK_AB_INT_H
#define FLEETMARK_AB_INT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "ab.h"
#include "abdir.h"

struct board_boot;
struct bootspec;
struct catalog;
struct fleet;
struct fleet_host;
struct plan;

#define AB_JSON			"ab.json"
#define AB_TXT			"ab.txt"
#define AB_BOOTS		"boots"
#define AB_LOCK			".ab.lock"	/* held while ab.json is rewritten */
#define AB_RUNLOCK		".ab.run"	/* held while a command runs the sequence */
#define AB_FORMAT		1
#define AB_MAX_JSON		(16 << 20)
#define AB_MAX_LABELS		64		/* a host's labels in "classes" */
#define AB_DIR_MODE		0755		/* whatever the umask: see ab_state_load() */
#define DEFAULT_BOOT_MS		300000		/* a host without boot_timeout: */

/* A boot's state in ab.json. */
#define ST_PENDING		"pending"
#define ST_RUNNING		"running"	/* under way: its side command ran */
#define ST_DONE			"done"
#define ST_FAILED		"failed"

/* abdir.h's struct ab_ctx. */
struct ab_ctx {
	struct catalog	*cat;
	struct plan	*p;
	struct fleet	*f;
	char		*dir;		/* the ab directory */
	json_t		*state;		/* ab.json */
	const struct fleet_host **hosts;
	size_t		 nhosts;
	int		 runlock;	/* fd of AB_RUNLOCK, or -1 */
};

/* "A" or "B". */
const char *ab_side_name(enum ab_side s);

/* The string member key of o, or NULL. */
const char *ab_jstr(const json_t *o, const char *key);

/*
 * Load dir's ab.json into *out (0), or -1 with *err (ab/state.c); its
 * members checked, its size capped.  ab_state_load() also requires the
 * file and dir to be the user's and written by no one else (what it says
 * is acted on); ab_state_read(), for reports, does not.
 */
int	ab_state_load(const char *dir, json_t **out, char **err);
int	ab_state_read(const char *dir, json_t **out, char **err);

/*
 * Set boot idx of host in dir's ab.json to state (with run, class, reason
 * and bb's facts when not NULL), under the lock: 0, or -1 with *err.
 */
int	ab_state_set(const char *dir, const char *host, size_t idx, const char *state,
	    const char *run, const char *class, const char *reason,
	    const struct board_boot *bb, char **err);

/*
 * Note in boot idx of host, under the lock, that a lost boot took power
 * cycle `cycle` (recover:) and why: its "recovered" list, which the boot's
 * later states keep.  0, or -1 with *err.
 */
int	ab_state_recovered(const char *dir, const char *host, size_t idx, int cycle,
	    const char *why, char **err);

/*
 * The sides (ab/side.c): what -A and -B say (bootspec.h: a command,
 * kexec:KERNEL..., or the name of an inventory `boot:` entry) and the
 * checks made before anything reboots; how a side applies to one host
 * and the boot itself are boot.h's (boot_spec_for_host(), boot_into()).
 * A side is kept as written (ab.json's "command") and resolved for each
 * host when it is used: an entry name becomes that host's entry, a
 * command's {host} the host's name.  Errors: 0, or -1
 * with a newly allocated message in *err, naming the side (-A or -B) and
 * the host when there is one.
 */

/*
 * Both sides (texts[0] of -A, texts[1] of -B) against every host of
 * hosts[0..n), as boot_spec_for_host(): what is refused before anything is
 * written or rebooted.  Contacts no host.
 */
int	ab_sides_check(const char *const texts[2], const struct fleet_host *const *hosts,
	    size_t n, char **err);

/*
 * Before h's first reboot: each kexec side's files and kexec itself, on
 * h over SSH (boot_kexec_check()).  Reboots nothing.
 */
int	ab_sides_precheck(const char *const texts[2], const struct fleet_host *h,
	    char **err);

#endif /* FLEETMARK_AB_INT_H */
