/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* errmsg.c - the core's one way to return an error with a message. */
#include <stdarg.h>
#include <stdio.h>

#include "util/errmsg.h"

int errmsg_vset(char *err, size_t len, int code, const char *fmt, va_list ap)
{
	if (err && len)
		vsnprintf(err, len, fmt, ap);
	return code;
}

int errmsg_set(char *err, size_t len, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errmsg_vset(err, len, code, fmt, ap);
	va_end(ap);
	return code;
}
