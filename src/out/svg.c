/*
 * svg.c: the chart kit of the HTML pages (svg.h).
 */
#include <math.h>
#include <stdio.h>

#include "html.h"
#include "numfmt.h"
#include "svg.h"

void
svg_frame_fit(struct svg_frame *f, double lo, double hi)
{
	double pad = 0;

	if (!(lo <= hi)) {
		lo = 0;
		hi = 1;
	}
	if (f->axis == SVG_AXIS_ZERO) {
		if (lo > 0)
			lo = 0;
		if (hi < 0)
			hi = 0;
		if (hi == lo)
			hi = lo + 1;
	} else {
		pad = (hi - lo) * 0.08;
		if (pad == 0)
			pad = lo != 0 ? fabs(lo) * 0.02 : 1;
	}
	f->step = html_nice_step(hi - lo + 2 * pad, f->ticks);
	f->lo = floor((lo - pad) / f->step) * f->step;
	f->hi = ceil((hi + pad) / f->step) * f->step;
	if (f->hi <= f->lo)
		f->hi = f->lo + f->step;
}

double
svg_fy(const struct svg_frame *f, double v)
{
	if (v < f->lo)
		v = f->lo;
	if (v > f->hi)
		v = f->hi;
	return f->t + f->h - (v - f->lo) / (f->hi - f->lo) * f->h;
}

void
svg_yticks(FILE *out, const struct svg_frame *f)
{
	double n = round((f->hi - f->lo) / f->step), i;
	char buf[NUMFMT_MAX];

	for (i = 0; i <= n && i <= 50; i++) {
		double v = f->lo + i * f->step, y = svg_fy(f, v);

		/* 0 as "0", not as the rounding error of lo + i * step */
		numfmt_short(buf, sizeof(buf), fabs(v) < f->step / 1e6 ? 0 : v);
		fprintf(out, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
		    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>", f->l, f->w - f->r,
		    y, y, f->l - f->tick_gap, y + f->tick_rise, buf);
	}
}

void
svg_legend_fit(struct svg_legend *lg, const struct svg_frame *f, int top, size_t maxlen)
{
	if (maxlen > SVG_LABEL_MAX)
		maxlen = SVG_LABEL_MAX;
	lg->left = 8;
	lg->top = top;
	lg->colw = 46 + (int)(maxlen * 7);
	lg->cols = (size_t)((f->w - 16) / lg->colw);
	if (lg->cols == 0)
		lg->cols = 1;
}

int
svg_legend_height(const struct svg_legend *lg, size_t n)
{
	return (int)((n + lg->cols - 1) / lg->cols) * SVG_LEGEND_ROW + 10;
}

void
svg_legend_at(const struct svg_legend *lg, size_t i, double *x, double *y)
{
	*x = lg->left + (double)(i % lg->cols) * lg->colw;
	*y = lg->top + 8 + (double)(i / lg->cols) * SVG_LEGEND_ROW;
}
