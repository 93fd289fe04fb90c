/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* escape.c - the one escaping rule for user text (escape.h). */
#include <stdio.h>
#include <string.h>

#include "util/escape.h"

size_t utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len;
	uint32_t c, min;

	if (!n)
		return 0;
	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		len = 2, c = u[0] & 0x1f, min = 0x80;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		len = 3, c = u[0] & 0x0f, min = 0x800;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		len = 4, c = u[0] & 0x07, min = 0x10000;
	else
		return 0;	/* a continuation byte, 0xc0/0xc1 or 0xf5-0xff */
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (u[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates and beyond Unicode are not UTF-8 */
	if (c < min || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return len;
}

bool str_codepoint_unsafe(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||
	       (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0x2028 || cp == 0x2029;
}

/*
 * The escape of the character at in (at most n bytes) into e (at most 13
 * bytes with the NUL: an invalid byte is escaped alone); returns how many
 * bytes of in it covers.
 */
static size_t escape_char(const char *in, size_t n, char e[13])
{
	uint32_t cp;
	size_t len = utf8_decode(in, n, &cp);

	if (!len) {
		snprintf(e, 13, "\\x%02x", (unsigned char)in[0]);
		return 1;
	}
	switch (cp) {
	case '\\': strcpy(e, "\\\\"); return 1;
	case '\n': strcpy(e, "\\n"); return 1;
	case '\r': strcpy(e, "\\r"); return 1;
	case '\t': strcpy(e, "\\t"); return 1;
	}
	if (!str_codepoint_unsafe(cp)) {
		memcpy(e, in, len);
		e[len] = '\0';
	} else if (cp < 0x80) {
		snprintf(e, 13, "\\x%02x", (unsigned)cp);
	} else {
		snprintf(e, 13, "\\u%04x", (unsigned)cp);
	}
	return len;
}

char *str_escape(const char *in, size_t inlen, char *out, size_t outlen)
{
	size_t o = 0, i = 0;

	if (!outlen)
		return out;
	while (in && i < inlen && in[i]) {
		char e[13];
		size_t n, used;

		used = escape_char(in + i, strnlen(in + i, inlen - i), e);
		n = strlen(e);
		if (o + n + 1 > outlen) {
			/* cut: leave room for "..." when there is any; o is
			 * always between two characters, so is the cut */
			if (outlen > 4) {
				while (o > outlen - 4) {
					/* step back over a whole character */
					do
						o--;
					while (o && ((unsigned char)out[o] & 0xc0) == 0x80);
				}
				memcpy(out + o, "...", 3), o += 3;
			} else {
				o = 0;
			}
			break;
		}
		memcpy(out + o, e, n);
		o += n;
		i += used;
	}
	out[o] = '\0';
	return out;
}

const char *str_find_unsafe(const char *s, size_t *len)
{
	size_t n = s ? strlen(s) : 0;

	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t l = utf8_decode(s + i, n - i, &cp);

		if (!l || str_codepoint_unsafe(cp)) {
			if (len)
				*len = l ? l : 1;
			return s + i;
		}
		i += l;
	}
	return NULL;
}
