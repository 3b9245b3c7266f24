/*
 * jsonout.h: JSON scalars written one way by every JSON output (the
 * report's grids, the history, the nightly verdict).
 *
 * Numbers that are not finite (NaN for "none", an infinite rsd) have no
 * JSON form: they are written as null.  Strings from runs may hold bytes
 * that are not UTF-8: those become U+FFFD, as in the run directory's own
 * files (rundir_json_str()).
 */
#ifndef FLEETMARK_JSONOUT_H
#define FLEETMARK_JSONOUT_H

#include <jansson.h>

/* v as a jansson real, or null when it is not finite (a new reference). */
json_t	*jsonout_real(double v);

/*
 * v as JSON text, "%.15g" (the precision the grids dump with), or "null"
 * when it is not finite: buf (NUMFMT_MAX bytes) or a constant.  For
 * output written with printf, where building objects would cost too much.
 */
const char *jsonout_num(char *buf, double v);

/* s as a JSON string literal with its quotes (a new string); NULL: null. */
char	*jsonout_str(const char *s);

#endif /* FLEETMARK_JSONOUT_H */
