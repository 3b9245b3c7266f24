/*
 * json.c: JSON scalars for the outputs (jsonout.h).
 */
#include <math.h>
#include <stdio.h>

#include <jansson.h>

#include "jsonout.h"
#include "numfmt.h"
#include "rundir.h"

json_t *
jsonout_real(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

const char *
jsonout_num(char *buf, double v)
{
	if (!isfinite(v))
		return "null";
	snprintf(buf, NUMFMT_MAX, "%.15g", v);
	return buf;
}

char *
jsonout_str(const char *s)
{
	json_t *j = rundir_json_str(s);
	char *d = json_dumps(j, JSON_ENCODE_ANY);

	json_decref(j);
	return d;
}
