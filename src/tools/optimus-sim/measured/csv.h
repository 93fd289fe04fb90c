/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * measured/csv.h - a small reader of the comma-separated tables of the
 * measured workloads (testsuite/data/pollux-osdi21): a header line naming
 * the columns, then rows of fields without quoting. Columns are found by
 * name, so that a file with its columns in another order still reads, and
 * a missing column or a bad number is an error naming file, line and
 * column.
 */
#ifndef OPTIMUS_POLLUX_CSV_H
#define OPTIMUS_POLLUX_CSV_H

#include <stddef.h>

typedef struct px_csv {
	char path[512];
	size_t ncols, nrows;
	char **cols;		/* header names */
	char **cells;		/* nrows * ncols fields */
} px_csv_t;

/* Read a whole file: 0, or -errno with "path:line: why" in err. */
int px_csv_read(const char *path, px_csv_t *out, char *err, size_t errlen);
void px_csv_free(px_csv_t *t);
/* Index of column `name`, or -ENOENT with a message. */
int px_csv_col(const px_csv_t *t, const char *name, char *err,
	       size_t errlen);
/* Field (row, col) as a finite number in [lo, hi]: 0 or -EINVAL. */
int px_csv_num(const px_csv_t *t, size_t row, int col, double lo, double hi,
	       double *out, char *err, size_t errlen);
const char *px_csv_str(const px_csv_t *t, size_t row, int col);

#endif
