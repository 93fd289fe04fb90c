/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * hints/bounds.h - the site's bounds on what a user may declare for a job
 * (optimus.conf MaxUserWeight= and MaxCkptGrace=; optimus.conf(5)).
 *
 * Slurm lets a user lower their own job's priority (--nice) and only an
 * administrator raise it. A job's weight= (quality policy) and its
 * ckpt_grace= (how long its GPUs stay held after the checkpoint signal)
 * are claims on the cluster the same way: above the site's bounds they
 * need an administrator (root, SlurmUser or a Slurm operator), which
 * job_submit/optimus checks at every submission.
 */
#ifndef OPTIMUS_HINTS_BOUNDS_H
#define OPTIMUS_HINTS_BOUNDS_H

#include <stddef.h>
#include <stdint.h>

#include "hints/hints.h"

/* The defaults: a user may lower a job's weight, not raise it; a grace of
 * five minutes (optimus_hints(5) default 60 s). */
#define HINTS_MAX_USER_WEIGHT_DEFAULT 1.0
#define HINTS_MAX_CKPT_GRACE_DEFAULT 300

typedef struct hints_bounds {
	double max_user_weight;		/* MaxUserWeight, (0, 1000] */
	uint32_t max_ckpt_grace;	/* MaxCkptGrace (s), 0..3600 */
} hints_bounds_t;

void hints_bounds_init(hints_bounds_t *b);

/*
 * MaxUserWeight and MaxCkptGrace of the optimus.conf at path into *b (the
 * defaults for a key not given, or no file). 0, or a negative errno with a
 * message naming the file and key (a file that cannot be parsed, a value
 * out of range): *b is then unchanged.
 */
int hints_bounds_read(const char *path, hints_bounds_t *b, char *err,
		      size_t errlen);

/*
 * May an ordinary user submit hints h? 0, or -EPERM with a message naming
 * the key, its value, the site's bound and who may go beyond it.
 */
int hints_bounds_check(const optimus_hints_t *h, const hints_bounds_t *b,
		       char *err, size_t errlen);

#endif
