/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* hints/keys.c - the --scheduler key table and value parsers. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hints/keys.h"
#include "util/errmsg.h"

#define OFF(f) offsetof(optimus_hints_t, f)

static const char *const mode_choices[] = { "async", "sync", "allreduce",
					    NULL };
static const char *const layout_choices[] = { "colocated", "separate", NULL };

/* Order = canonical order of hints_format(); aliases (ps=, workers=) last. */
const hints_keydef_t hints_keys[] = {
	{ "mode", HK_MODE, HKIND_ENUM, OFF(mode), 0, 0, 0, mode_choices },
	{ "min_ps", HK_MIN_PS, HKIND_U32, OFF(min_ps), 0, 1, HINTS_MAX_PS, NULL },
	{ "max_ps", HK_MAX_PS, HKIND_U32, OFF(max_ps), 0, 1, HINTS_MAX_PS, NULL },
	{ "min_workers", HK_MIN_WORKERS, HKIND_U32, OFF(min_workers), 0,
	  1, HINTS_MAX_WORKERS, NULL },
	{ "max_workers", HK_MAX_WORKERS, HKIND_U32, OFF(max_workers), 0,
	  1, HINTS_MAX_WORKERS, NULL },
	{ "ps_cpus", HK_PS_CPUS, HKIND_U32, OFF(ps_res.cpus), 0,
	  1, HINTS_MAX_CPUS, NULL },
	{ "ps_mem", HK_PS_MEM, HKIND_MEM, OFF(ps_res.mem_mb), 0,
	  1, HINTS_MAX_MEM_MB, NULL },
	{ "ps_gpus", HK_PS_GPUS, HKIND_U32, OFF(ps_res.gpus), 0,
	  0, HINTS_MAX_GPUS, NULL },
	{ "worker_cpus", HK_WORKER_CPUS, HKIND_U32, OFF(worker_res.cpus), 0,
	  1, HINTS_MAX_CPUS, NULL },
	{ "worker_mem", HK_WORKER_MEM, HKIND_MEM, OFF(worker_res.mem_mb), 0,
	  1, HINTS_MAX_MEM_MB, NULL },
	{ "worker_gpus", HK_WORKER_GPUS, HKIND_U32, OFF(worker_res.gpus), 0,
	  0, HINTS_MAX_GPUS, NULL },
	{ "batch", HK_BATCH, HKIND_U64, OFF(batch), 0, 1, 1e12, NULL },
	{ "min_batch", HK_MIN_BATCH, HKIND_U64, OFF(min_batch), 0, 1, 1e12,
	  NULL },
	{ "max_batch", HK_MAX_BATCH, HKIND_U64, OFF(max_batch), 0, 1, 1e12,
	  NULL },
	{ "max_local_batch", HK_MAX_LOCAL_BATCH, HKIND_U64,
	  OFF(max_local_batch), 0, 1, 1e9, NULL },
	{ "max_accum", HK_MAX_ACCUM, HKIND_U64, OFF(max_accum), 0, 0,
	  HINTS_MAX_ACCUM, NULL },
	{ "adaptive_batch", HK_ADAPTIVE_BATCH, HKIND_BOOL, OFF(adaptive_batch),
	  0, 0, 0, NULL },
	{ "delta", HK_DELTA, HKIND_REAL, OFF(delta), 0, 0, 1, NULL },
	{ "model", HK_MODEL, HKIND_NAME, OFF(model), 0, 1, HINTS_MODEL_MAX - 1,
	  NULL },
	{ "form", HK_FORM, HKIND_FORM, OFF(form), 0, 0, 0, NULL },
	{ "steps", HK_STEPS, HKIND_U64, OFF(steps), 0, 1, 1e15, NULL },
	{ "epochs", HK_EPOCHS, HKIND_U64, OFF(epochs), 0, 1, 1e9, NULL },
	{ "epoch_steps", HK_EPOCH_STEPS, HKIND_U64, OFF(epoch_steps), 0,
	  1, 1e12, NULL },
	{ "ckpt_signal", HK_CKPT_SIGNAL, HKIND_SIGNAL, OFF(ckpt_signal), 0,
	  1, 64, NULL },
	{ "ckpt_grace", HK_CKPT_GRACE, HKIND_U32, OFF(ckpt_grace), 0,
	  0, HINTS_MAX_GRACE, NULL },
	{ "ckpt_dir", HK_CKPT_DIR, HKIND_PATH, OFF(ckpt_dir), 0,
	  2, HINTS_PATH_MAX - 1, NULL },
	{ "layout", HK_LAYOUT, HKIND_ENUM, OFF(layout), 0, 0, 0, layout_choices },
	{ "weight", HK_WEIGHT, HKIND_REAL, OFF(weight), 0, 0, 1000, NULL },
	{ "ps", HK_PS, HKIND_U32, OFF(min_ps), OFF(max_ps), 1, HINTS_MAX_PS,
	  NULL },
	{ "workers", HK_WORKERS, HKIND_U32, OFF(min_workers), OFF(max_workers),
	  1, HINTS_MAX_WORKERS, NULL },
};
const size_t hints_nkeys = sizeof(hints_keys) / sizeof(hints_keys[0]);

/* The signals a checkpointing trainer may ask for, by name or by number
 * alike (one rule: KILL/9 and STOP/19 cannot be caught and are refused
 * both ways), plus the real-time signals by number. */
static const struct { const char *name; int sig; } signal_names[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT },
	{ "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "TERM", SIGTERM },
	{ "CONT", SIGCONT }, { "URG", SIGURG }, { "ALRM", SIGALRM },
};

const hints_keydef_t *hints_key_find(const char *name, size_t len)
{
	for (size_t i = 0; i < hints_nkeys; i++)
		if (strlen(hints_keys[i].name) == len &&
		    !strncmp(hints_keys[i].name, name, len))
			return &hints_keys[i];
	return NULL;
}

const char *hints_signal_name(int sig)
{
	for (size_t i = 0; i < sizeof(signal_names) / sizeof(signal_names[0]); i++)
		if (signal_names[i].sig == sig)
			return signal_names[i].name;
	return NULL;
}

static void choices_list(const char *const *c, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; c[i] && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? ", " : "", c[i]);
}

void hints_key_range(const hints_keydef_t *k, char *buf, size_t len)
{
	char list[128];

	switch (k->kind) {
	case HKIND_U32:
	case HKIND_U64:
		snprintf(buf, len, "an integer from %.0f to %.0f", k->min, k->max);
		break;
	case HKIND_MEM:
		snprintf(buf, len, "a size from 1M to 16T (suffix K, M, G or T; "
			 "no suffix: MB)");
		break;
	case HKIND_REAL:
		snprintf(buf, len, "a number greater than %g and at most %g",
			 k->min, k->max);
		break;
	case HKIND_ENUM:
		choices_list(k->choices, list, sizeof(list));
		snprintf(buf, len, "one of: %s", list);
		break;
	case HKIND_FORM:
		snprintf(buf, len, "one of: inverse, power, exp");
		break;
	case HKIND_NAME:
		snprintf(buf, len, "1 to %.0f characters among A-Z a-z 0-9 _ . -",
			 k->max);
		break;
	case HKIND_PATH:
		snprintf(buf, len, "an absolute path (starting with /) of at most "
			 "%.0f characters", k->max);
		break;
	case HKIND_BOOL:
		snprintf(buf, len, "yes or no");
		break;
	case HKIND_SIGNAL:
		snprintf(buf, len, "a signal name or its number, one of HUP, "
			 "INT, QUIT, USR1, USR2, TERM, CONT, URG, ALRM (SIG "
			 "prefix optional), or a real-time signal 34..64");
		break;
	}
}

/* Strict unsigned decimal: no sign, no space, no trailing garbage. */
static int parse_uint(const char *s, uint64_t *out, char **end)
{
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, end, 10);
	return errno ? -EINVAL : 0;
}

static int parse_integer(const hints_keydef_t *k, const char *s, uint64_t *v)
{
	char *end;

	if (parse_uint(s, v, &end) || *end || *v < k->min || *v > k->max)
		return -EINVAL;
	return 0;
}

static int parse_mem(const char *s, uint64_t *mb)
{
	static const char units[] = "KMGT";
	char *end;
	uint64_t v;
	const char *u;
	int shift;

	if (parse_uint(s, &v, &end))
		return -EINVAL;
	if (!*end) {
		u = units + 1;
	} else {
		u = strchr(units, toupper((unsigned char)*end));
		if (!*end || !u || (end[1] && strcasecmp(end + 1, "B")))
			return -EINVAL;
	}
	shift = 10 * (int)(u - units - 1);	/* K: -10, M: 0, G: 10, T: 20 */
	if (shift < 0)
		v = (v + 1023) >> 10;		/* round K up to whole MB */
	else if (v > (HINTS_MAX_MEM_MB >> shift))
		return -EINVAL;
	else
		v <<= shift;
	if (v < 1 || v > HINTS_MAX_MEM_MB)
		return -EINVAL;
	*mb = v;
	return 0;
}

static int parse_real(const hints_keydef_t *k, const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*v) || *v <= k->min ||
	    *v > k->max)
		return -EINVAL;
	return 0;
}

static int parse_enum(const hints_keydef_t *k, const char *s, int *v)
{
	for (int i = 0; k->choices[i]; i++) {
		if (!strcmp(k->choices[i], s)) {
			*v = i;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_name(const hints_keydef_t *k, const char *s, char *dst)
{
	size_t n = strlen(s);

	if (n < k->min || n > k->max)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return -EINVAL;
	memcpy(dst, s, n + 1);
	return 0;
}

static int parse_path(const hints_keydef_t *k, const char *s, char *dst)
{
	size_t n = strlen(s);

	if (s[0] != '/' || n < k->min || n > k->max)
		return -EINVAL;
	memcpy(dst, s, n + 1);
	return 0;
}

static int parse_signal(const char *s, int *sig)
{
	uint64_t v;
	char *end;

	if (isdigit((unsigned char)*s)) {
		if (parse_uint(s, &v, &end) || *end || v < 1 || v > 64)
			return -EINVAL;
		/* glibc keeps 32 and 33 for itself: SIGRTMIN is 34 */
		if (v >= 34)
			return *sig = (int)v, 0;
		for (size_t i = 0; i < sizeof(signal_names) / sizeof(signal_names[0]); i++)
			if (signal_names[i].sig == (int)v)
				return *sig = (int)v, 0;
		return -EINVAL;
	}
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (size_t i = 0; i < sizeof(signal_names) / sizeof(signal_names[0]); i++) {
		if (!strcasecmp(s, signal_names[i].name)) {
			*sig = signal_names[i].sig;
			return 0;
		}
	}
	return -EINVAL;
}

static int key_store(const hints_keydef_t *k, const char *s, char *field,
		     char *field2)
{
	uint64_t u = 0;
	int rc = -EINVAL;

	switch (k->kind) {
	case HKIND_U32:
		if (!(rc = parse_integer(k, s, &u))) {
			*(uint32_t *)field = (uint32_t)u;
			if (field2)
				*(uint32_t *)field2 = (uint32_t)u;
		}
		return rc;
	case HKIND_U64:
		if (!(rc = parse_integer(k, s, &u)))
			*(uint64_t *)field = u;
		return rc;
	case HKIND_MEM:
		return parse_mem(s, (uint64_t *)field);
	case HKIND_REAL:
		return parse_real(k, s, (double *)field);
	case HKIND_ENUM:
		return parse_enum(k, s, (int *)field);
	case HKIND_FORM:
		return curve_form_parse(s, (curve_form_t *)field);
	case HKIND_NAME:
		return parse_name(k, s, field);
	case HKIND_PATH:
		return parse_path(k, s, field);
	case HKIND_SIGNAL:
		return parse_signal(s, (int *)field);
	case HKIND_BOOL:
		if (strcmp(s, "yes") && strcmp(s, "no"))
			return -EINVAL;
		*(bool *)field = !strcmp(s, "yes");
		return 0;
	}
	return rc;
}

int hints_key_set(const hints_keydef_t *k, const char *value,
		  optimus_hints_t *h, char *err, size_t errlen)
{
	char range[160];
	char *base = (char *)h;

	if (!key_store(k, value, base + k->off, k->off2 ? base + k->off2 : NULL))
		return 0;
	if (!err || !errlen)
		return -EINVAL;
	hints_key_range(k, range, sizeof(range));
	return errmsg_set(err, errlen, -EINVAL, "invalid --scheduler value "
			  "%s=%s: %s must be %s", k->name, value, k->name,
			  range);
}
