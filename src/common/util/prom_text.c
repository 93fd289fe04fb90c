/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* prom_text.c - Prometheus' text exposition format (prom_text.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"
#include "util/prom_text.h"

/* The longest label value written: a job's user text is short; a longer
 * one is cut by str_escape ("..."). */
#define PROM_LABEL_MAX 512

static bool name_char(char c, bool first, bool colon)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (colon && c == ':') || (!first && c >= '0' && c <= '9');
}

static bool name_valid(const char *name, bool colon)
{
	if (!name || !*name)
		return false;
	for (const char *p = name; *p; p++)
		if (!name_char(*p, p == name, colon))
			return false;
	return true;
}

bool prom_metric_name_valid(const char *name)
{
	return name_valid(name, true);
}

bool prom_label_name_valid(const char *name)
{
	return name_valid(name, false) && strncmp(name, "__", 2) != 0;
}

/* The format's rule for text: backslash, line feed and (in label values
 * only) the double quote. Cut before an escape that would not fit. */
static char *format_escape(const char *in, bool quote, char *out,
			   size_t outlen)
{
	size_t o = 0;

	if (!outlen)
		return out;
	for (; *in; in++) {
		const char *e = *in == '\\' ? "\\\\" : *in == '\n' ? "\\n" :
				quote && *in == '"' ? "\\\"" : NULL;
		size_t n = e ? 2 : 1;

		if (o + n >= outlen)
			break;
		if (e)
			memcpy(out + o, e, 2);
		else
			out[o] = *in;
		o += n;
	}
	out[o] = '\0';
	return out;
}

char *prom_label_escape(const char *in, char *out, size_t outlen)
{
	char safe[PROM_LABEL_MAX];

	str_escape(in ? in : "", in ? strlen(in) : 0, safe, sizeof(safe));
	return format_escape(safe, true, out, outlen);
}

char *prom_number(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "NaN");
	else if (isinf(v))
		snprintf(buf, len, v > 0 ? "+Inf" : "-Inf");
	else {
		snprintf(buf, len, "%.15g", v);
		if (strtod(buf, NULL) != v)
			snprintf(buf, len, "%.17g", v);
	}
	return buf;
}

int prom_family(FILE *f, const char *name, prom_type_t type,
		const char *help)
{
	char text[1024];

	if (!prom_metric_name_valid(name) ||
	    (type != PROM_COUNTER && type != PROM_GAUGE))
		return -EINVAL;
	format_escape(help ? help : "", false, text, sizeof(text));
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, text, name,
		type == PROM_COUNTER ? "counter" : "gauge");
	return 0;
}

int prom_sample(FILE *f, const char *name, const prom_label_t *labels,
		size_t n, double value)
{
	char v[4 * PROM_LABEL_MAX], num[40];

	if (!prom_metric_name_valid(name))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!prom_label_name_valid(labels[i].name))
			return -EINVAL;
	fputs(name, f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s=\"%s\"", i ? "," : "{", labels[i].name,
			prom_label_escape(labels[i].value, v, sizeof(v)));
	fprintf(f, "%s %s\n", n ? "}" : "", prom_number(value, num,
							   sizeof(num)));
	return 0;
}
