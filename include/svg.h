/*
 * svg.h: the chart kit of the HTML pages (src/out/svg.c): a plot frame,
 * its y axis fitted to the values, the y of a value, and the grid lines
 * and tick labels of the axis.  The report's charts and the history's
 * small multiples draw on it.
 *
 * Two axis policies, by design: the report's charts hold 0 on the axis
 * (times, rates and counts: an axis that starts elsewhere exaggerates);
 * the history's fit the values with a margin (a change of 5% over a year
 * of nights must show).
 */
#ifndef FLEETMARK_SVG_H
#define FLEETMARK_SVG_H

#include <stddef.h>
#include <stdio.h>

enum svg_axis {
	SVG_AXIS_ZERO,		/* from 0 (or to 0) through every value */
	SVG_AXIS_FITTED,	/* the values and 8% of their range each side */
};

/*
 * A chart's plot area and y axis.  The caller sets the geometry and the
 * axis (designated initializers); svg_frame_fit() sets lo, hi and step.
 */
struct svg_frame {
	int		 w;		/* viewBox width */
	int		 l, r;		/* plot from x = l to w - r */
	int		 t, h;		/* plot from y = t to t + h */
	enum svg_axis	 axis;
	int		 ticks;		/* about this many ticks on the y axis */
	int		 tick_gap;	/* a tick label ends this far left of l */
	double		 tick_rise;	/* ... its baseline this far below the line */
	double		 lo, hi, step;	/* the y axis */
};

/* The y axis over the values lo..hi, by f->axis ([0, 1] when lo > hi or NaN). */
void	svg_frame_fit(struct svg_frame *f, double lo, double hi);

/* y of value v, clamped to the frame: nothing is drawn outside it. */
double	svg_fy(const struct svg_frame *f, double v);

/*
 * A grid line and a tick label (numfmt_short()) at each step of the y
 * axis, from lo to hi (at most 51); the caller has opened the axis group.
 */
void	svg_yticks(FILE *out, const struct svg_frame *f);

/* --- Legends --------------------------------------------------------------- */

#define SVG_LABEL_MAX	40	/* bytes of a label in a chart; the tooltip has all */
#define SVG_LEGEND_ROW	17	/* pixels a legend row takes */

/* Where a chart's legend goes: columns wide enough for the longest entry. */
struct svg_legend {
	int	left, top;	/* of the first row */
	int	colw;
	size_t	cols;
};

/* A legend under f's plot from y = top, for entries of at most maxlen
 * bytes (SVG_LABEL_MAX counts). */
void	svg_legend_fit(struct svg_legend *lg, const struct svg_frame *f, int top,
	    size_t maxlen);
/* The pixels n entries take. */
int	svg_legend_height(const struct svg_legend *lg, size_t n);
/* Where legend entry i goes. */
void	svg_legend_at(const struct svg_legend *lg, size_t i, double *x, double *y);

#endif /* FLEETMARK_SVG_H */
