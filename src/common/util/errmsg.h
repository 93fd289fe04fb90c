/*
 * errmsg.h - the core's one way to return an error with a message.
 *
 * Core functions return a negative errno and, where the caller passed a
 * buffer, a message that names the offending input.
 */
#ifndef OPTIMUS_ERRMSG_H
#define OPTIMUS_ERRMSG_H

#include <stddef.h>

/* Format the message into err (if err and len) and return code. */
int errmsg_set(char *err, size_t len, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
