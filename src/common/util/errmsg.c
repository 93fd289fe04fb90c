/* errmsg.c - the core's one way to return an error with a message. */
#include <stdarg.h>
#include <stdio.h>

#include "util/errmsg.h"

int errmsg_set(char *err, size_t len, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return code;
}
