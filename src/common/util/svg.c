/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* svg.c - bar and line charts in plain SVG (see svg.h). */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "util/escape.h"
#include "util/svg.h"

#define W 720
#define H 420
#define LEFT 70
#define RIGHT 170
#define TOP 40
#define BOTTOM 60

static const char *const colors[] = { "#1f77b4", "#d62728", "#2ca02c",
				      "#ff7f0e", "#9467bd", "#8c564b",
				      "#e377c2", "#7f7f7f" };
#define NCOLORS (sizeof(colors) / sizeof(colors[0]))

/* Text made safe by the rule for user text (no control character, which
 * XML 1.0 forbids, valid UTF-8), then with XML's special characters
 * escaped. */
static void put_text(FILE *f, const char *text)
{
	char safe[1024];
	const char *s = safe;

	str_escape(text ? text : "", text ? strlen(text) : 0, safe,
		   sizeof(safe));
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

static void label(FILE *f, double x, double y, const char *anchor,
		  int size, const char *text, int rotate)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" "
		"text-anchor=\"%s\"", x, y, size, anchor);
	if (rotate)
		fprintf(f, " transform=\"rotate(-90 %.1f %.1f)\"", x, y);
	fputs(">", f);
	put_text(f, text);
	fputs("</text>\n", f);
}

/* A "nice" axis maximum: 1, 2 or 5 times a power of ten, >= v. */
static double nice_max(double v)
{
	if (!(v > 0) || !isfinite(v))
		return 1.0;
	double p = pow(10.0, floor(log10(v)));
	for (int i = 0; i < 3; i++) {
		double m = (double[]){ 1, 2, 5 }[i] * p;
		if (m >= v)
			return m;
	}
	return 10 * p;
}

/* The document's root element, white, h high. */
static void root_open(FILE *f, int h)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" font-family=\"sans-serif\">\n", W, h);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W,
		h);
}

/* A chart's frame: the whole document (row < 0), or its own nested <svg>
 * at row `row` of a stack. */
static void frame(FILE *f, int row, const char *title, const char *xlabel,
		  const char *ylabel, double ymax)
{
	int pw = W - LEFT - RIGHT, ph = H - TOP - BOTTOM;

	if (row < 0)
		root_open(f, H);
	else
		fprintf(f, "<svg x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\">\n",
			row * H, W, H);
	label(f, W / 2.0, 24, "middle", 16, title, 0);
	for (int i = 0; i <= 5; i++) {
		double y = TOP + ph - ph * i / 5.0;
		char buf[32];
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#ddd\"/>\n", LEFT, y, LEFT + pw, y);
		snprintf(buf, sizeof(buf), "%.3g", ymax * i / 5.0);
		label(f, LEFT - 6, y + 4, "end", 11, buf, 0);
	}
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"fill=\"none\" stroke=\"black\"/>\n", LEFT, TOP, pw, ph);
	label(f, 18, TOP + ph / 2.0, "middle", 12, ylabel, 1);
	if (xlabel)
		label(f, LEFT + pw / 2.0, H - 14, "middle", 12, xlabel, 0);
}

static void legend(FILE *f, const svg_series_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double y = TOP + 10 + 20 * i;
		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"12\" "
			"height=\"12\" fill=\"%s\"/>\n", W - RIGHT + 12, y,
			colors[i % NCOLORS]);
		label(f, W - RIGHT + 30, y + 10, "start", 12, s[i].name, 0);
	}
}

void svg_bars(FILE *f, const char *title, const char *ylabel,
	      const char *const *groups, size_t ngroups,
	      const svg_series_t *series, size_t nseries)
{
	double ymax = 0.0;
	int pw = W - LEFT - RIGHT, ph = H - TOP - BOTTOM;

	for (size_t s = 0; s < nseries; s++)
		for (size_t g = 0; g < ngroups && g < series[s].n; g++)
			if (isfinite(series[s].y[g]))
				ymax = fmax(ymax, series[s].y[g]);
	ymax = nice_max(ymax);
	frame(f, -1, title, NULL, ylabel, ymax);
	double gw = (double)pw / (ngroups ? ngroups : 1);
	double bw = 0.8 * gw / (nseries ? nseries : 1);
	for (size_t g = 0; g < ngroups; g++) {
		double x0 = LEFT + g * gw + 0.1 * gw;
		label(f, LEFT + (g + 0.5) * gw, TOP + ph + 18, "middle", 12,
		      groups[g], 0);
		for (size_t s = 0; s < nseries && g < series[s].n; s++) {
			double v = series[s].y[g];
			if (!isfinite(v))
				continue;
			double h = ph * v / ymax;
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\" fill=\"%s\"><title>%.4g"
				"</title></rect>\n", x0 + s * bw,
				TOP + ph - h, bw * 0.95, h,
				colors[s % NCOLORS], v);
		}
	}
	legend(f, series, nseries);
	fputs("</svg>\n", f);
}

static double series_max(const svg_series_t *series, size_t n, bool x)
{
	double m = 0.0;

	for (size_t s = 0; s < n; s++)
		for (size_t i = 0; i < series[s].n; i++)
			if (isfinite(series[s].y[i]))
				m = fmax(m, x ? series[s].x[i] : series[s].y[i]);
	return m;
}

static void marks(FILE *f, const svg_mark_t *m, size_t n, double xmax)
{
	int pw = W - LEFT - RIGHT, ph = H - TOP - BOTTOM;

	for (size_t i = 0; i < n; i++) {
		double x = LEFT + pw * m[i].x / xmax;

		if (!isfinite(x))
			continue;
		fprintf(f, "<line class=\"mark\" x1=\"%.1f\" y1=\"%d\" "
			"x2=\"%.1f\" y2=\"%d\" stroke=\"#555\" "
			"stroke-dasharray=\"4 3\"><title>", x, TOP, x, TOP + ph);
		put_text(f, m[i].label);
		fputs("</title></line>\n", f);
		/* inside the plot (left of a line in its right half, clear of
		 * the legend), a row lower each, so that close marks stay
		 * readable */
		if (x > LEFT + pw / 2.0)
			label(f, x - 3, TOP + 12 + 12 * (i % 8), "end", 10,
			      m[i].label, 0);
		else
			label(f, x + 3, TOP + 12 + 12 * (i % 8), "start", 10,
			      m[i].label, 0);
	}
}

/* One line chart at row (< 0: a document of its own), x from 0 to xmax. */
static void lines_chart(FILE *f, int row, const svg_chart_t *c, double xmax)
{
	int pw = W - LEFT - RIGHT, ph = H - TOP - BOTTOM;
	double ymax = nice_max(series_max(c->series, c->nseries, false));

	xmax = xmax > 0 ? xmax : 1.0;
	frame(f, row, c->title, c->xlabel, c->ylabel, ymax);
	for (int i = 0; i <= 5; i++) {
		char buf[32];
		snprintf(buf, sizeof(buf), "%.4g", xmax * i / 5.0);
		label(f, LEFT + pw * i / 5.0, TOP + ph + 16, "middle", 11,
		      buf, 0);
	}
	for (size_t s = 0; s < c->nseries; s++) {
		const svg_series_t *sr = &c->series[s];

		fprintf(f, "<polyline fill=\"none\" stroke-width=\"2\" "
			"stroke=\"%s\" points=\"", colors[s % NCOLORS]);
		for (size_t i = 0; i < sr->n; i++)
			if (isfinite(sr->y[i]))
				fprintf(f, "%.1f,%.1f ",
					LEFT + pw * sr->x[i] / xmax,
					TOP + ph - ph * sr->y[i] / ymax);
		fputs("\"/>\n", f);
	}
	marks(f, c->marks, c->nmarks, xmax);
	legend(f, c->series, c->nseries);
	fputs("</svg>\n", f);
}

void svg_lines(FILE *f, const char *title, const char *xlabel,
	       const char *ylabel, const svg_series_t *series,
	       size_t nseries)
{
	svg_chart_t c = { title, xlabel, ylabel, series, nseries, NULL, 0 };

	lines_chart(f, -1, &c, series_max(series, nseries, true));
}

void svg_stack(FILE *f, const svg_chart_t *charts, size_t ncharts)
{
	double xmax = 0.0;

	for (size_t i = 0; i < ncharts; i++) {
		xmax = fmax(xmax, series_max(charts[i].series,
					     charts[i].nseries, true));
		for (size_t k = 0; k < charts[i].nmarks; k++)
			if (isfinite(charts[i].marks[k].x))
				xmax = fmax(xmax, charts[i].marks[k].x);
	}
	root_open(f, (int)(ncharts ? ncharts : 1) * H);
	for (size_t i = 0; i < ncharts; i++)
		lines_chart(f, (int)i, &charts[i], xmax);
	fputs("</svg>\n", f);
}
