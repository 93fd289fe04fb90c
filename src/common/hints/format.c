/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* hints/format.c - the canonical text of a set of hints. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hints/hints.h"
#include "hints/keys.h"

typedef struct out {
	char *buf;
	size_t len, n;
	int full;
} out_t;

static void out_add(out_t *o, const char *fmt, const char *name,
		    const char *val)
{
	int w = snprintf(o->buf + o->n, o->len - o->n, fmt, name, val);

	if (w < 0 || (size_t)w >= o->len - o->n) {
		o->full = 1;
		o->n = o->len - 1;
		return;
	}
	o->n += w;
}

/*
 * The value of key k in h as text, or "" when the field holds its
 * "unknown" value (0 for counts, an empty string) and is left out.
 */
static void key_text(const hints_keydef_t *k, const optimus_hints_t *h,
		     char *v, size_t len)
{
	const char *f = (const char *)h + k->off;
	const char *name;

	v[0] = '\0';
	switch (k->kind) {
	case HKIND_U32:
		snprintf(v, len, "%" PRIu32, *(const uint32_t *)f);
		break;
	case HKIND_U64:
	case HKIND_MEM:
		if (*(const uint64_t *)f)
			snprintf(v, len, "%" PRIu64, *(const uint64_t *)f);
		break;
	case HKIND_REAL:
		/* %.17g: parsing the text back gives the same double */
		snprintf(v, len, "%.17g", *(const double *)f);
		break;
	case HKIND_ENUM:
		snprintf(v, len, "%s", k->choices[*(const int *)f]);
		break;
	case HKIND_FORM:
		snprintf(v, len, "%s", curve_form_name(*(const curve_form_t *)f));
		break;
	case HKIND_NAME:
	case HKIND_PATH:
		snprintf(v, len, "%s", f);
		break;
	case HKIND_BOOL:
		if (*(const bool *)f)
			snprintf(v, len, "yes");
		break;
	case HKIND_SIGNAL:
		name = hints_signal_name(*(const int *)f);
		if (name)
			snprintf(v, len, "%s", name);
		else
			snprintf(v, len, "%d", *(const int *)f);
		break;
	}
}

int hints_format(const optimus_hints_t *h, char *buf, size_t len)
{
	out_t o = { buf, len, 0, 0 };
	char v[HINTS_PATH_MAX];

	if (!buf || !len)
		return -ENOSPC;
	buf[0] = '\0';
	out_add(&o, "%s%s", hints_policy_name(h->policy), "");
	for (size_t i = 0; i < hints_nkeys && !o.full; i++) {
		const hints_keydef_t *k = &hints_keys[i];

		/* aliases are spelled out as min_/max_; weight is quality's;
		 * an all-reduce job has no PS keys */
		if (k->off2 || (k->id == HK_WEIGHT &&
				h->policy != HINTS_POLICY_QUALITY) ||
		    (hints_is_allreduce(h) && hints_key_is_ps(k->id)))
			continue;
		/* an end of the batch range equal to batch is its default */
		if ((k->id == HK_MIN_BATCH && h->min_batch == h->batch) ||
		    (k->id == HK_MAX_BATCH && h->max_batch == h->batch) ||
		    (k->id == HK_ADAPTIVE_BATCH && !h->adaptive_batch))
			continue;
		key_text(k, h, v, sizeof(v));
		if (v[0])
			out_add(&o, ",%s=%s", k->name, v);
	}
	return o.full ? -ENOSPC : (int)o.n;
}
