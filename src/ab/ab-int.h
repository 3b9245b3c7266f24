/*
 * ab-int.h: what the files of src/ab/ share; not an API (abdir.h is).
 * The names in an ab directory, a boot's states in ab.json, and ab.json
 * changed one boot at a time (ab/state.c).
 */
#ifndef FLEETMARK_AB_INT_H
#define FLEETMARK_AB_INT_H

#include <stddef.h>

#include <jansson.h>

#include "ab.h"
#include "abdir.h"

struct board_boot;
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

/* Load dir's ab.json into *out (0), or -1 with *err (ab/state.c). */
int	ab_state_load(const char *dir, json_t **out, char **err);

/*
 * Set boot idx of host in dir's ab.json to state (with run, class, reason
 * and bb's facts when not NULL), under the lock: 0, or -1 with *err.
 */
int	ab_state_set(const char *dir, const char *host, size_t idx, const char *state,
	    const char *run, const char *class, const char *reason,
	    const struct board_boot *bb, char **err);

#endif /* FLEETMARK_AB_INT_H */
