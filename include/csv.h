/*
 * csv.h: one field of a CSV file, written as RFC 4180 says, for every
 * --format csv (the report's tables, the history's).
 */
#ifndef FLEETMARK_CSV_H
#define FLEETMARK_CSV_H

#include <stdio.h>

/*
 * s to out as one field: as it is, or in double quotes (each quote in it
 * doubled) when it holds a comma, a quote or a line end, or starts or
 * ends with a blank.  Nothing here fails or allocates.
 */
void	csv_field(FILE *out, const char *s);

#endif /* FLEETMARK_CSV_H */
