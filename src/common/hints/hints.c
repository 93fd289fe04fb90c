/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* hints.c - parse and validate `--scheduler=POLICY[,KEY=VALUE...]`. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/errmsg.h"
#include "util/escape.h"
#include "hints/hints.h"
#include "hints/keys.h"
#include "models/convergence.h"
#include "util/names.h"

#define BIT(k) (1u << (k))

static const char *const policy_names[] = { "optimus", "quality" };

/* Set the message and return -EINVAL. */
#define fail(err, len, ...) errmsg_set(err, len, -EINVAL, __VA_ARGS__)

const char *hints_policy_name(hints_policy_t p)
{
	return names_at(policy_names, NAMES_COUNT(policy_names), (unsigned)p);
}

const char *hints_mode_name(hints_mode_t m)
{
	return m == HINTS_MODE_ALLREDUCE ? "allreduce" :
	       m == HINTS_MODE_SYNC ? "sync" : "async";
}

const char *hints_layout_name(hints_layout_t l)
{
	return l == HINTS_LAYOUT_SEPARATE ? "separate" : "colocated";
}

void hints_init(optimus_hints_t *h, hints_policy_t policy)
{
	memset(h, 0, sizeof(*h));
	h->policy = policy;
	h->mode = HINTS_MODE_ASYNC;
	h->min_ps = h->max_ps = 1;
	h->min_workers = h->max_workers = 1;
	h->ps_res = (hints_res_t){ 1, 1024, 0 };
	h->worker_res = (hints_res_t){ 1, 1024, 0 };
	h->delta = CONV_DELTA_DEFAULT;
	/* Optimus fits Eqn. 1; the quality-driven paper fits mu*k^-b + c. */
	h->form = policy == HINTS_POLICY_QUALITY ? CURVE_POWER : CURVE_INVERSE;
	h->ckpt_signal = SIGUSR1;
	h->ckpt_grace = 60;
	h->layout = HINTS_LAYOUT_COLOCATED;
	h->weight = 1.0;
}

/*
 * A range (min_ps..max_ps) given with only one end widens the other end
 * with it, so that `max_ps=4` alone means 1..4 and `min_ps=3` alone 3..3
 * rather than an error against the default.
 */
static void hints_fill_ranges(optimus_hints_t *h)
{
	if ((h->set & BIT(HK_MIN_PS)) && !(h->set & BIT(HK_MAX_PS)) &&
	    h->max_ps < h->min_ps)
		h->max_ps = h->min_ps;
	if ((h->set & BIT(HK_MIN_WORKERS)) && !(h->set & BIT(HK_MAX_WORKERS)) &&
	    h->max_workers < h->min_workers)
		h->max_workers = h->min_workers;
	/* the batch range defaults to the submitted batch alone */
	if (!(h->set & BIT(HK_MIN_BATCH)))
		h->min_batch = h->batch;
	if (!(h->set & BIT(HK_MAX_BATCH)))
		h->max_batch = h->batch;
	/* all-reduce jobs have no PS: "no ps key" means ps=0 */
	if (hints_is_allreduce(h) &&
	    !(h->set & (BIT(HK_PS) | BIT(HK_MIN_PS) | BIT(HK_MAX_PS))))
		h->min_ps = h->max_ps = 0;
}

static int parse_policy(const char *tok, size_t len, hints_policy_t *p,
			char *err, size_t errlen)
{
	for (int i = 0; i <= HINTS_POLICY_QUALITY; i++) {
		if (strlen(policy_names[i]) == len &&
		    !strncasecmp(tok, policy_names[i], len)) {
			*p = i;
			return 0;
		}
	}
	return fail(err, errlen, "invalid --scheduler policy '%.*s': the "
		    "value must start with the policy, optimus or quality "
		    "(e.g. --scheduler=optimus,ps=2)", (int)len, tok);
}

/* Keys that must not be combined: an alias and the fields it sets. */
static int check_alias(const hints_keydef_t *k, uint32_t set, char *err,
		       size_t errlen)
{
	uint32_t ps = BIT(HK_PS) | BIT(HK_MIN_PS) | BIT(HK_MAX_PS);
	uint32_t wk = BIT(HK_WORKERS) | BIT(HK_MIN_WORKERS) | BIT(HK_MAX_WORKERS);
	uint32_t group = (BIT(k->id) & ps) ? ps : (BIT(k->id) & wk) ? wk : 0;
	uint32_t alias = group == ps ? BIT(HK_PS) : BIT(HK_WORKERS);

	if (group && (set & group) && ((set | BIT(k->id)) & alias))
		return fail(err, errlen, "invalid --scheduler: %s sets both "
			    "ends of the range; give either %s or min_%s/max_%s",
			    group == ps ? "ps" : "workers",
			    group == ps ? "ps=N" : "workers=N",
			    group == ps ? "ps" : "workers",
			    group == ps ? "ps" : "workers");
	return 0;
}

static int parse_item(const char *item, size_t len, optimus_hints_t *h,
		      char *err, size_t errlen)
{
	const char *eq = memchr(item, '=', len);
	const hints_keydef_t *k;
	char value[HINTS_PATH_MAX];
	size_t vlen;

	if (!eq)
		return fail(err, errlen, "invalid --scheduler item '%.*s': "
			    "expected KEY=VALUE", (int)len, item);
	k = hints_key_find(item, eq - item);
	if (!k)
		return fail(err, errlen, "unknown --scheduler key '%.*s' (see "
			    "optimus_hints(5) for the keys)", (int)(eq - item),
			    item);
	if (h->set & BIT(k->id))
		return fail(err, errlen, "--scheduler key '%s' given twice",
			    k->name);
	if (check_alias(k, h->set, err, errlen))
		return -EINVAL;
	vlen = len - (eq + 1 - item);
	if (!vlen)
		return fail(err, errlen, "--scheduler key '%s' needs a value",
			    k->name);
	if (vlen >= sizeof(value))
		return fail(err, errlen, "--scheduler value of '%s' is too long "
			    "(%zu characters)", k->name, vlen);
	memcpy(value, eq + 1, vlen);
	value[vlen] = '\0';
	/* ps=0 (no PS) is outside the PS range; validate_ps() decides */
	if ((k->id == HK_PS || k->id == HK_MIN_PS || k->id == HK_MAX_PS) &&
	    !strcmp(value, "0")) {
		if (k->id != HK_MAX_PS)
			h->min_ps = 0;
		if (k->id != HK_MIN_PS)
			h->max_ps = 0;
	} else if (hints_key_set(k, value, h, err, errlen)) {
		return -EINVAL;
	}
	h->set |= BIT(k->id);
	return 0;
}

/*
 * Hint values reach slurmctld's log, the job's environment
 * (OPTIMUS_CHECKPOINT_DIR), SystemComment, the state file and JSON
 * replies: a control character there could forge a log line or a
 * variable, a bidi override reorder what an admin reads, and bytes that
 * are not UTF-8 break every strict reader. So the text must be UTF-8
 * without any character that escape.h calls unsafe (UTF-8 letters, as in
 * a ckpt_dir of one's own language, are fine). The message names the item
 * and shows the character escaped.
 */
static int refuse_control(const char *text, char *err, size_t errlen)
{
	size_t badlen;
	const char *bad = str_find_unsafe(text, &badlen), *start, *eq;
	char shown[16], key[64];
	uint32_t cp;
	const char *what;

	if (!bad)
		return 0;
	str_escape(bad, badlen, shown, sizeof(shown));
	what = utf8_decode(bad, badlen, &cp) ? "control character" :
					       "invalid UTF-8 byte";
	for (start = bad; start > text && start[-1] != ','; start--)
		;
	eq = memchr(start, '=', (size_t)(bad - start));
	if (start == text && !eq)
		return fail(err, errlen, "invalid --scheduler: %s %s in the "
			    "policy name (control characters, bidi overrides "
			    "and invalid UTF-8 are never accepted)", what,
			    shown);
	str_escape(start, eq ? (size_t)(eq - start) : (size_t)(bad - start),
		   key, sizeof(key));
	return fail(err, errlen, "invalid --scheduler: %s %s in the %s of %s "
		    "(control characters, bidi overrides and invalid UTF-8 "
		    "are never accepted)", what, shown, eq ? "value" : "key",
		    key);
}

int hints_parse(const char *text, optimus_hints_t *out, char *err,
		size_t errlen)
{
	optimus_hints_t h;
	hints_policy_t policy = HINTS_POLICY_OPTIMUS;
	const char *p, *comma;
	size_t len;

	if (!text || !*text)
		return fail(err, errlen, "--scheduler needs a value: optimus "
			    "or quality, then KEY=VALUE items");
	if (refuse_control(text, err, errlen))
		return -EINVAL;
	comma = strchr(text, ',');
	len = comma ? (size_t)(comma - text) : strlen(text);
	if (parse_policy(text, len, &policy, err, errlen))
		return -EINVAL;
	hints_init(&h, policy);
	for (p = comma; p; p = comma) {
		p++;
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len)
			return fail(err, errlen, "invalid --scheduler: empty "
				    "item (two commas in a row or a trailing "
				    "comma)");
		if (parse_item(p, len, &h, err, errlen))
			return -EINVAL;
	}
	hints_fill_ranges(&h);
	if (hints_validate(&h, err, errlen))
		return -EINVAL;
	*out = h;
	return 0;
}

/* The key the user wrote for the PS count, for messages. */
static const char *ps_key(const optimus_hints_t *h)
{
	return (h->set & BIT(HK_PS)) ? "ps" : (h->set & BIT(HK_MAX_PS)) &&
	       !h->max_ps ? "max_ps" : "min_ps";
}

/*
 * mode=allreduce has workers only: no PS count but 0, no PS resources,
 * no separate PS nodes. The PS modes need at least one PS.
 */
static int validate_ps(const optimus_hints_t *h, char *err, size_t errlen)
{
	uint32_t ps_res = BIT(HK_PS_CPUS) | BIT(HK_PS_MEM) | BIT(HK_PS_GPUS);

	if (!hints_is_allreduce(h)) {
		if (h->min_ps < 1 || h->max_ps < 1)
			return fail(err, errlen, "invalid --scheduler value "
				    "%s=0: ps must be an integer from 1 to %d "
				    "with mode=%s (ps=0, no parameter server, "
				    "is for mode=allreduce)", ps_key(h),
				    HINTS_MAX_PS, hints_mode_name(h->mode));
		return 0;
	}
	if (h->min_ps || h->max_ps)
		return fail(err, errlen, "invalid --scheduler: mode=allreduce "
			    "has no parameter servers: leave ps out or give "
			    "ps=0 (got min_ps=%u, max_ps=%u)", h->min_ps,
			    h->max_ps);
	if (h->set & ps_res)
		return fail(err, errlen, "invalid --scheduler: ps_cpus, ps_mem "
			    "and ps_gpus describe parameter servers, which "
			    "mode=allreduce has not; give worker_cpus, "
			    "worker_mem and worker_gpus (one task per worker)");
	if (h->layout == HINTS_LAYOUT_SEPARATE)
		return fail(err, errlen, "invalid --scheduler: layout=separate "
			    "puts parameter servers apart from workers; "
			    "mode=allreduce has no parameter servers");
	return 0;
}

static int validate_ranges(const optimus_hints_t *h, char *err, size_t errlen)
{
	if (hints_is_allreduce(h)) {
		/* validate_ps() checked the PS count (0) */
	} else if (h->min_ps < 1 || h->max_ps > HINTS_MAX_PS ||
		   h->min_ps > h->max_ps)
		return fail(err, errlen, "invalid --scheduler: min_ps=%u and "
			    "max_ps=%u must satisfy 1 <= min_ps <= max_ps <= %d",
			    h->min_ps, h->max_ps, HINTS_MAX_PS);
	if (h->min_workers < 1 || h->max_workers > HINTS_MAX_WORKERS ||
	    h->min_workers > h->max_workers)
		return fail(err, errlen, "invalid --scheduler: min_workers=%u "
			    "and max_workers=%u must satisfy 1 <= min_workers "
			    "<= max_workers <= %d", h->min_workers,
			    h->max_workers, HINTS_MAX_WORKERS);
	return 0;
}

static int validate_res(const char *role, const hints_res_t *r, char *err,
			size_t errlen)
{
	if (r->cpus < 1 || r->cpus > HINTS_MAX_CPUS)
		return fail(err, errlen, "invalid --scheduler: %s_cpus=%u must "
			    "be from 1 to %d", role, r->cpus, HINTS_MAX_CPUS);
	if (r->mem_mb < 1 || r->mem_mb > HINTS_MAX_MEM_MB)
		return fail(err, errlen, "invalid --scheduler: %s_mem must be "
			    "from 1M to 16T", role);
	if (r->gpus > HINTS_MAX_GPUS)
		return fail(err, errlen, "invalid --scheduler: %s_gpus=%u must "
			    "be from 0 to %d", role, r->gpus, HINTS_MAX_GPUS);
	return 0;
}

/* The first key describing the batch beside batch= itself that holds
 * a value, for messages; NULL if none. */
static const char *batch_key(const optimus_hints_t *h)
{
	return h->min_batch ? "min_batch" : h->max_batch ? "max_batch" :
	       h->max_local_batch ? "max_local_batch" :
	       h->max_accum ? "max_accum" :
	       h->adaptive_batch ? "adaptive_batch" : NULL;
}

/*
 * The batch range, the per-GPU limit and the opt-in (hints.h): all need
 * the submitted batch, which efficiency is measured against; the
 * submitted batch must fit the fewest workers; a range other than the
 * submitted batch alone is for a job that lets the scheduler choose.
 */
static int validate_batch(const optimus_hints_t *h, char *err, size_t errlen)
{
	unsigned long long b = h->batch;
	/* hints built without hints_parse (the simulator) leave them 0 */
	unsigned long long lo = h->min_batch ? h->min_batch : b;
	unsigned long long hi = h->max_batch ? h->max_batch : b;
	unsigned long long cap = h->max_local_batch * (h->max_accum + 1);
	unsigned long long per = b ? (b + h->min_workers - 1) / h->min_workers
				   : 0;

	if (!b && batch_key(h))
		return fail(err, errlen, "invalid --scheduler: %s= needs "
			    "batch=, the global batch the job is submitted with",
			    batch_key(h));
	if (!b)
		return 0;
	if (lo > hi)
		return fail(err, errlen, "invalid --scheduler: min_batch=%llu "
			    "and max_batch=%llu must satisfy min_batch <= "
			    "max_batch", lo, hi);
	if (b < lo || b > hi)
		return fail(err, errlen, "invalid --scheduler: batch=%llu is "
			    "outside min_batch=%llu..max_batch=%llu (the range "
			    "must hold the submitted batch)", b, lo, hi);
	if (lo < h->min_workers)
		return fail(err, errlen, "invalid --scheduler: min_batch=%llu "
			    "is smaller than min_workers=%u (each worker needs "
			    "at least one sample per step)", lo, h->min_workers);
	if (h->max_accum && !h->max_local_batch)
		return fail(err, errlen, "invalid --scheduler: max_accum= "
			    "needs max_local_batch= (gradient accumulation is "
			    "for a GPU that cannot hold its share of the batch)");
	if (h->max_local_batch && per > cap)
		return fail(err, errlen, "invalid --scheduler: batch=%llu on "
			    "min_workers=%u takes %llu samples per worker and "
			    "step, more than max_local_batch=%llu x (max_accum="
			    "%llu + 1) = %llu: raise min_workers to %llu, "
			    "max_accum or max_local_batch", b, h->min_workers,
			    per, (unsigned long long)h->max_local_batch,
			    (unsigned long long)h->max_accum, cap,
			    (unsigned long long)hints_batch_fewest_workers(h));
	if (!h->adaptive_batch) {
		if (lo < b || hi > b)
			return fail(err, errlen, "invalid --scheduler: "
				    "min_batch..max_batch is the range the "
				    "scheduler chooses the batch from: add "
				    "adaptive_batch=yes, or leave them out to "
				    "keep batch=%llu", b);
		return 0;
	}
	if (!hints_is_allreduce(h))
		return fail(err, errlen, "invalid --scheduler: adaptive_batch="
			    "yes is for mode=allreduce (the goodput model is "
			    "that of an all-reduce job)");
	if (lo == hi)
		return fail(err, errlen, "invalid --scheduler: adaptive_batch="
			    "yes needs a range to choose from: give max_batch= "
			    "above batch=%llu (and/or min_batch= below it)", b);
	if (hi < h->max_workers)
		return fail(err, errlen, "invalid --scheduler: max_batch=%llu "
			    "is smaller than max_workers=%u (each worker needs "
			    "at least one sample per step)", hi, h->max_workers);
	return 0;
}

/* Keys whose meaning depends on the policy or the mode. */
static int validate_combination(const optimus_hints_t *h, char *err,
				size_t errlen)
{
	if (h->batch && h->mode == HINTS_MODE_ASYNC)
		return fail(err, errlen, "invalid --scheduler: batch= is the "
			    "global batch size of synchronous training; use it "
			    "with mode=sync or mode=allreduce");
	if (h->batch && h->batch < h->min_workers)
		return fail(err, errlen, "invalid --scheduler: batch=%llu is "
			    "smaller than min_workers=%u (each worker needs at "
			    "least one sample per step)",
			    (unsigned long long)h->batch, h->min_workers);
	if ((h->set & BIT(HK_WEIGHT)) && h->policy != HINTS_POLICY_QUALITY)
		return fail(err, errlen, "invalid --scheduler: weight= applies "
			    "only to the quality policy "
			    "(--scheduler=quality,weight=...)");
	if (!(h->delta > 0 && h->delta <= 1))
		return fail(err, errlen, "invalid --scheduler: delta must be a "
			    "number greater than 0 and at most 1");
	if (!(h->weight > 0 && h->weight <= 1000))
		return fail(err, errlen, "invalid --scheduler: weight must be a "
			    "number greater than 0 and at most 1000");
	if (h->ckpt_dir[0] && h->ckpt_dir[0] != '/')
		return fail(err, errlen, "invalid --scheduler: ckpt_dir must "
			    "be an absolute path");
	return 0;
}

int hints_validate(const optimus_hints_t *h, char *err, size_t errlen)
{
	if ((unsigned)h->policy > HINTS_POLICY_QUALITY)
		return fail(err, errlen, "invalid --scheduler policy");
	if ((unsigned)h->mode > HINTS_MODE_ALLREDUCE)
		return fail(err, errlen, "invalid --scheduler mode");
	if (validate_ps(h, err, errlen) || validate_ranges(h, err, errlen) ||
	    (!hints_is_allreduce(h) &&
	     validate_res("ps", &h->ps_res, err, errlen)) ||
	    validate_res("worker", &h->worker_res, err, errlen))
		return -EINVAL;
	return validate_combination(h, err, errlen) ||
	       validate_batch(h, err, errlen) ? -EINVAL : 0;
}
