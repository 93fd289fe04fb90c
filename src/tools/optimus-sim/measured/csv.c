/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* measured/csv.c - the measured tables' CSV reader (see measured/csv.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errmsg.h"
#include "measured/csv.h"

#define PX_LINE_MAX 4096

static void strip(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* Split line at commas into a new array of n strings (copies). */
static int split(const char *line, char ***out, size_t *n)
{
	size_t cap = 1;
	for (const char *p = line; *p; p++)
		cap += *p == ',';
	char **v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	const char *s = line;
	for (size_t i = 0; i < cap; i++) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		v[i] = strndup(s, len);
		if (!v[i]) {
			for (size_t k = 0; k < i; k++)
				free(v[k]);
			free(v);
			return -ENOMEM;
		}
		s = e ? e + 1 : s + len;
	}
	*out = v;
	*n = cap;
	return 0;
}

static int add_row(px_csv_t *t, char **f, size_t *cap)
{
	if (t->nrows == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;
		char **c = realloc(t->cells, nc * t->ncols * sizeof(*c));
		if (!c)
			return -ENOMEM;
		t->cells = c;
		*cap = nc;
	}
	memcpy(t->cells + t->nrows * t->ncols, f, t->ncols * sizeof(*f));
	t->nrows++;
	return 0;
}

int px_csv_read(const char *path, px_csv_t *out, char *err, size_t errlen)
{
	char line[PX_LINE_MAX];
	size_t lineno = 0, cap = 0;
	int rc = 0;
	FILE *f = fopen(path, "r");

	memset(out, 0, sizeof(*out));
	snprintf(out->path, sizeof(out->path), "%s", path);
	if (!f)
		return errmsg_set(err, errlen, -errno, "%s: %s", path,
				  strerror(errno));
	while (!rc && fgets(line, sizeof(line), f)) {
		char **fields;
		size_t n;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			rc = errmsg_set(err, errlen, -EINVAL,
					"%s:%zu: line too long", path, lineno);
			break;
		}
		strip(line);
		if (!line[0])
			continue;
		if ((rc = split(line, &fields, &n)))
			break;
		if (!out->cols) {
			out->cols = fields;
			out->ncols = n;
			continue;
		}
		if (n != out->ncols) {
			rc = errmsg_set(err, errlen, -EINVAL,
					"%s:%zu: %zu fields, the header has %zu",
					path, lineno, n, out->ncols);
		} else {
			rc = add_row(out, fields, &cap);
		}
		if (rc) {
			for (size_t k = 0; k < n; k++)
				free(fields[k]);
		}
		free(fields);
	}
	if (!rc && ferror(f))
		rc = errmsg_set(err, errlen, -EIO, "%s: read error", path);
	if (!rc && !out->cols)
		rc = errmsg_set(err, errlen, -EINVAL, "%s: empty file", path);
	fclose(f);
	if (rc)
		px_csv_free(out);
	return rc;
}

void px_csv_free(px_csv_t *t)
{
	for (size_t i = 0; t->cols && i < t->ncols; i++)
		free(t->cols[i]);
	for (size_t i = 0; t->cells && i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cols);
	free(t->cells);
	t->cols = t->cells = NULL;
	t->ncols = t->nrows = 0;
}

int px_csv_col(const px_csv_t *t, const char *name, char *err, size_t errlen)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i], name))
			return (int)i;
	return errmsg_set(err, errlen, -ENOENT, "%s: no column '%s'",
			  t->path, name);
}

const char *px_csv_str(const px_csv_t *t, size_t row, int col)
{
	return t->cells[row * t->ncols + (size_t)col];
}

int px_csv_num(const px_csv_t *t, size_t row, int col, double lo, double hi,
	       double *out, char *err, size_t errlen)
{
	const char *s = px_csv_str(t, row, col);
	char *end;
	double v = strtod(s, &end);

	/* Line numbers count the header as line 1 (blank lines aside). */
	if (end == s || *end || !isfinite(v) || v < lo || v > hi)
		return errmsg_set(err, errlen, -EINVAL,
				  "%s: row %zu, column '%s': expected a number "
				  "in [%g, %g], got '%s'", t->path, row + 1,
				  t->cols[col], lo, hi, s);
	*out = v;
	return 0;
}
