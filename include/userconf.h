/*
 * userconf.h: the user's own configuration file, with archive credentials.
 *
 * The file is $XDG_CONFIG_HOME/fleetmark/config.yaml, else
 * ~/.config/fleetmark/config.yaml (FLEETMARK_CONFIG overrides the path).
 * It holds secrets, so it is refused, like OpenSSH refuses a private key,
 * when it is readable or writable by group or others, or is owned by
 * someone else than the user (or root).  A missing file is an empty
 * configuration.  docs/archive.md documents it:
 *
 *	archive:
 *	  tries: 5              # transfer tries (http.h), 1..20
 *	  max_time: 120s        # no new try after this long
 *	webdav:
 *	  - url: https://dav.example.org/fleetmark
 *	    user: bench
 *	    password: "..."
 *	s3:
 *	  endpoint: https://s3.example.org     # default: AWS for the region
 *	  region: eu-west-1
 *	  access_key_id: AKIA...
 *	  secret_access_key: "..."
 *	  session_token: "..."                 # optional
 *	  path_style: yes                      # optional
 *
 * Errors are 0 / -1 with "FILE:LINE:COL: message" in *err (yamldoc.h).
 */
#ifndef FLEETMARK_USERCONF_H
#define FLEETMARK_USERCONF_H

#include <stddef.h>

/* Credentials for WebDAV archives whose URL starts with url. */
struct userconf_webdav {
	char	*url;		/* no trailing slash */
	char	*user;
	char	*password;	/* may be NULL */
};

struct userconf_s3 {
	char	*endpoint;		/* NULL: not set */
	char	*region;
	char	*access_key_id;
	char	*secret_access_key;
	char	*session_token;
	int	 path_style;		/* -1 not set, 0 or 1 */
};

struct userconf {
	char			*path;		/* the file read, or NULL */
	int			 tries;		/* 0: not set */
	long long		 max_time_ms;	/* 0: not set */
	long long		 min_rate;	/* bytes/s; 0: not set */
	struct userconf_webdav	*webdav;
	size_t			 nwebdav;
	struct userconf_s3	 s3;
};

/* The path of the user config file (newly allocated). */
char	*userconf_path(void);

/*
 * Load the user config file (userconf_path()).  A missing file gives an
 * empty struct (path NULL); a file with loose permissions, or bad YAML,
 * or an unknown key, is an error.
 */
int	userconf_load(struct userconf **ucp, char **err);

/* Load a given file (for tests); the same checks. */
int	userconf_load_file(const char *path, struct userconf **ucp, char **err);

/*
 * The WebDAV credentials for the archive URL `base` (no credentials in
 * it): the entry whose url is the longest prefix of base at a '/'
 * boundary, or NULL.
 */
const struct userconf_webdav *userconf_webdav_for(const struct userconf *uc,
	    const char *base);

void	userconf_free(struct userconf *uc);

#endif /* FLEETMARK_USERCONF_H */
