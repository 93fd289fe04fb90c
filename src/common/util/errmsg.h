/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * errmsg.h - the core's one way to return an error with a message.
 *
 * Core functions return a negative errno and, where the caller passed a
 * buffer, a message that names the offending input.
 */
#ifndef OPTIMUS_ERRMSG_H
#define OPTIMUS_ERRMSG_H

#include <stdarg.h>
#include <stddef.h>

/* Format the message into err (if err and len) and return code. */
int errmsg_set(char *err, size_t len, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* errmsg_set for a formatter of its own (plan_fail): ap is consumed. */
int errmsg_vset(char *err, size_t len, int code, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

#endif
