/*
 * xdg.h: where fleetmark keeps what it can make again, after the XDG Base
 * Directory Specification: the user's cache directory.
 */
#ifndef FLEETMARK_XDG_H
#define FLEETMARK_XDG_H

/*
 * The cache directory of one part of fleetmark ("archive", "history"):
 * $XDG_CACHE_HOME/fleetmark/NAME when XDG_CACHE_HOME is an absolute path
 * (the specification ignores a relative one), else
 * $HOME/.cache/fleetmark/NAME, else /tmp/.cache/fleetmark/NAME.  A new
 * string; nothing is created.
 */
char	*xdg_cache_dir(const char *name);

#endif /* FLEETMARK_XDG_H */
