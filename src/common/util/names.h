/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * names.h - the one way an enum of the core is named: a table of names
 * indexed by the enum's values, read and searched here.
 */
#ifndef OPTIMUS_NAMES_H
#define OPTIMUS_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#define NAMES_COUNT(table) (sizeof(table) / sizeof((table)[0]))

/* names[i], or "unknown" when i is not below n. */
const char *names_at(const char *const *names, size_t n, unsigned i);
/* The index of name in names[0..n) (ignoring case when icase), or
 * -EINVAL (also for a NULL name). */
int names_find(const char *const *names, size_t n, const char *name,
	       bool icase);

#endif
