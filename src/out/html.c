/*
 * html.c: escaping and axis steps for the HTML pages (html.h).
 */
#include <math.h>
#include <stdio.h>

#include "html.h"

void
html_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			if (c < 0x20 && c != '\t' && c != '\n')
				fputs("&#xFFFD;", out);
			else
				fputc(c, out);
		}
	}
}

double
html_nice_step(double range, int nticks)
{
	double raw = range / nticks, p, f;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	p = pow(10, floor(log10(raw)));
	f = raw / p;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}
