/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * escape.h - the one rule for text that a user controls (logs, JSON).
 *
 * A log line is trusted by whoever reads it: a newline in a job's hint or
 * in a peer's message would let that user forge a line, an ESC (or the C1
 * CSI, 0x9b) would drive the admin's terminal, a bidi override would show
 * the line in another order, and a byte that is not UTF-8 makes the state
 * file and JSON replies unreadable by a strict parser. So every string that
 * comes from a user is logged through str_escape(), and every JSON text
 * goes through json_strict() (json_strict.h), which applies the same rule.
 *
 * Unsafe, by this rule: a byte sequence that is not valid UTF-8 (overlong
 * forms, surrogates and code points above U+10FFFF included), the C0
 * controls, DEL, the C1 controls U+0080-U+009F, the bidi embeddings and
 * overrides U+202A-U+202E and isolates U+2066-U+2069, and the line and
 * paragraph separators U+2028/U+2029. Any other UTF-8 (letters of every
 * script) is safe and kept as it is.
 */
#ifndef OPTIMUS_ESCAPE_H
#define OPTIMUS_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The length (1 to 4) of the valid UTF-8 sequence at s, reading at most n
 * bytes, with its code point in *cp; 0 when s does not start one.
 */
size_t utf8_decode(const char *s, size_t n, uint32_t *cp);

/* Whether code point cp is unsafe in text shown to people (see above). */
bool str_codepoint_unsafe(uint32_t cp);

/*
 * Copy at most inlen bytes of in to out, escaped by the rule: a backslash
 * becomes "\\", \n \r \t as such, other C0 controls, DEL and every byte of
 * an invalid sequence as "\xNN", the unsafe code points from U+0080 up as
 * "\uNNNN"; safe UTF-8 is copied. Stops at a NUL byte. The result is valid
 * UTF-8, cut (with "...") between characters to fit outlen; returns out.
 */
char *str_escape(const char *in, size_t inlen, char *out, size_t outlen);

/*
 * The first byte of s (NUL-terminated) that starts an invalid or unsafe
 * sequence, or NULL when none; *len (if not NULL) gets the length of that
 * character (1 for an invalid byte).
 */
const char *str_find_unsafe(const char *s, size_t *len);

#endif
