/*
 * escape.h - make text that a user controls safe to log.
 *
 * A log line is trusted by whoever reads it: a newline in a job's hint or
 * in a peer's message would let that user forge a line. Every string that
 * comes from a user is logged through str_escape().
 */
#ifndef OPTIMUS_ESCAPE_H
#define OPTIMUS_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Copy at most inlen bytes of in to out as printable ASCII: a backslash
 * becomes "\\", \n \r \t as such, other control bytes, DEL and bytes >= 0x80
 * as "\xNN". Stops at a NUL byte. The result is cut (with "...") to fit
 * outlen; returns out.
 */
char *str_escape(const char *in, size_t inlen, char *out, size_t outlen);

/* The first control byte (< 0x20 or DEL) of s, or NULL when none. */
const char *str_find_control(const char *s);

#endif
