/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* names.c - enum names (see names.h). */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "util/names.h"

const char *names_at(const char *const *names, size_t n, unsigned i)
{
	return i < n ? names[i] : "unknown";
}

int names_find(const char *const *names, size_t n, const char *name,
	       bool icase)
{
	for (size_t i = 0; name && i < n; i++)
		if (!(icase ? strcasecmp(name, names[i]) :
			      strcmp(name, names[i])))
			return (int)i;
	return -EINVAL;
}
