/*
 * html.h: what the self-contained HTML pages fleetmark writes (the report's,
 * report-html.c, and the history's, history-render.c) share: text escaped
 * for an element or an attribute, and the step between an axis's ticks.
 *
 * Nothing here fails or allocates.
 */
#ifndef FLEETMARK_HTML_H
#define FLEETMARK_HTML_H

#include <stdio.h>

/*
 * Text from a file (a host name, a label, a unit...) to out, escaped for
 * an element's content or a quoted attribute: & < > " and ' as entities,
 * controls other than tab and newline as U+FFFD.
 */
void	html_text(FILE *out, const char *s);

/*
 * A "nice" step between the ticks of an axis spanning range with about
 * nticks ticks: 1, 2 or 5 times a power of ten (1 for an empty or
 * non-finite range).
 */
double	html_nice_step(double range, int nticks);

#endif /* FLEETMARK_HTML_H */
