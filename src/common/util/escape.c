/* escape.c - make user-controlled text safe to log (escape.h). */
#include <stdio.h>
#include <string.h>

#include "util/escape.h"

/* The escape of byte b into e (at most 5 bytes with the NUL). */
static void escape_byte(unsigned char b, char e[5])
{
	switch (b) {
	case '\\': strcpy(e, "\\\\"); return;
	case '\n': strcpy(e, "\\n"); return;
	case '\r': strcpy(e, "\\r"); return;
	case '\t': strcpy(e, "\\t"); return;
	}
	if (b < 0x20 || b >= 0x7f)
		snprintf(e, 5, "\\x%02x", b);
	else
		e[0] = (char)b, e[1] = '\0';
}

char *str_escape(const char *in, size_t inlen, char *out, size_t outlen)
{
	size_t o = 0;

	if (!outlen)
		return out;
	for (size_t i = 0; in && i < inlen && in[i]; i++) {
		char e[5];
		size_t n;

		escape_byte((unsigned char)in[i], e);
		n = strlen(e);
		if (o + n + 1 > outlen) {
			/* cut: leave room for "..." when there is any */
			o = outlen > 4 ? (o < outlen - 4 ? o : outlen - 4) : 0;
			if (outlen > 4)
				memcpy(out + o, "...", 3), o += 3;
			break;
		}
		memcpy(out + o, e, n);
		o += n;
	}
	out[o] = '\0';
	return out;
}

const char *str_find_control(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			return s;
	return NULL;
}
