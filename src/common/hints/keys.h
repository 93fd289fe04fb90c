/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * hints/keys.h - the table of --scheduler keys (internal to hints_*.c).
 *
 * Each key names a field of optimus_hints_t by offset, the kind of value it
 * takes and its accepted range, so that parsing, range messages and the
 * canonical format all come from one place.
 */
#ifndef OPTIMUS_HINTS_KEYS_H
#define OPTIMUS_HINTS_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "hints/hints.h"

typedef enum hints_kind {
	HKIND_U32,	/* integer in [min, max] */
	HKIND_U64,	/* integer in [min, max] */
	HKIND_MEM,	/* size with K/M/G/T suffix (default M), in MB */
	HKIND_REAL,	/* number in (min, max] */
	HKIND_ENUM,	/* one of `choices`, stored as an int-sized enum */
	HKIND_FORM,	/* curve_form_t, via curve_form_parse() */
	HKIND_NAME,	/* [A-Za-z0-9_.-]{1,63} */
	HKIND_PATH,	/* absolute path */
	HKIND_SIGNAL,	/* USR1, SIGUSR1 or a number */
	HKIND_BOOL,	/* yes or no, stored as bool */
} hints_kind_t;

typedef struct hints_keydef {
	const char *name;
	enum hints_key id;
	hints_kind_t kind;
	size_t off;		/* field in optimus_hints_t */
	size_t off2;		/* second field (ps=, workers=), or 0 */
	double min, max;
	const char *const *choices;	/* HKIND_ENUM, NULL-terminated */
} hints_keydef_t;

extern const hints_keydef_t hints_keys[];
extern const size_t hints_nkeys;

const hints_keydef_t *hints_key_find(const char *name, size_t len);

/* The keys describing parameter servers (count and resources). */
static inline bool hints_key_is_ps(enum hints_key id)
{
	return id == HK_PS || id == HK_MIN_PS || id == HK_MAX_PS ||
	       id == HK_PS_CPUS || id == HK_PS_MEM || id == HK_PS_GPUS;
}

/* Store `value` into h's field(s); -EINVAL with the accepted range in err. */
int hints_key_set(const hints_keydef_t *k, const char *value,
		  optimus_hints_t *h, char *err, size_t errlen);

/* The accepted range of a key, e.g. "an integer from 1 to 256". */
void hints_key_range(const hints_keydef_t *k, char *buf, size_t len);

/* "USR1" for SIGUSR1, or NULL when the signal has no short name here. */
const char *hints_signal_name(int sig);

#endif
