/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * prom_text.h - Prometheus' text exposition format (version 0.0.4), the
 * format node_exporter's textfile collector and every Prometheus server
 * read: one family at a time, its "# HELP" and "# TYPE" lines first, then
 * its samples "name{label="value",...} number".
 *
 * The format's own escaping rule, one home: in a label value a backslash
 * is written "\\", a double quote "\"", a line feed "\n"; in HELP text a
 * backslash and a line feed the same way. A label value that a user
 * controls is first made safe by the one rule for user text (escape.h:
 * valid UTF-8, no control or bidi character), then encoded by the format's
 * rule: what a parser gives back is exactly str_escape()'s text.
 *
 * Names: a metric name matches [a-zA-Z_:][a-zA-Z0-9_:]*, a label name
 * [a-zA-Z_][a-zA-Z0-9_]* and does not start with "__" (reserved). Writers
 * refuse any other with -EINVAL, so that a misspelt name fails its test
 * instead of a site's scrape.
 */
#ifndef OPTIMUS_PROM_TEXT_H
#define OPTIMUS_PROM_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The Content-Type of this format (for an HTTP server or a doc). */
#define PROM_TEXT_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

typedef enum prom_type {
	PROM_COUNTER = 0,	/* only goes up (reset when the process restarts) */
	PROM_GAUGE,		/* goes up and down */
} prom_type_t;

typedef struct prom_label {
	const char *name;
	const char *value;	/* user text allowed: escaped here */
} prom_label_t;

bool prom_metric_name_valid(const char *name);
bool prom_label_name_valid(const char *name);

/*
 * The label value of text `in` (user text allowed) as written between the
 * quotes: str_escape() then the format's rule (above). Cut (between
 * characters, never inside an escape) to fit outlen; returns out.
 */
char *prom_label_escape(const char *in, char *out, size_t outlen);

/*
 * A number as the format writes it: the shortest of %.15g/%.17g that reads
 * back as v, "+Inf", "-Inf" or "NaN". buf of at least 32 bytes.
 */
char *prom_number(double v, char *buf, size_t len);

/* "# HELP name help" and "# TYPE name counter|gauge". 0 or -EINVAL. */
int prom_family(FILE *f, const char *name, prom_type_t type,
		const char *help);

/* One sample line; n labels (may be 0). 0 or -EINVAL. */
int prom_sample(FILE *f, const char *name, const prom_label_t *labels,
		size_t n, double value);

#endif
