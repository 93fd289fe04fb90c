/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * hints.h - the user's scheduling hints: `--scheduler=POLICY[,KEY=VALUE...]`.
 *
 * One pure module parses, validates and formats the hints so that the three
 * places reading them agree: spank/optimus (early error in sbatch itself),
 * job_submit/optimus (the authoritative check, and the job's initial size)
 * and sched/optimus (reads a job's hints back from its SPANK environment).
 * The accepted keys, their ranges and defaults are listed in
 * doc/man/optimus_hints.5; the table in hints/keys.c is the single source.
 */
#ifndef OPTIMUS_HINTS_H
#define OPTIMUS_HINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/curve_fit.h"
#include "models/goodput.h"

/* Name of the job's SPANK environment entry holding the raw hints. */
#define HINTS_SPANK_ENV "OPTIMUS_SCHEDULER"

#define HINTS_MODEL_MAX 64	/* model name incl. NUL */
#define HINTS_PATH_MAX 1024	/* checkpoint folder incl. NUL */
#define HINTS_TEXT_MAX 2048	/* a formatted hints string incl. NUL */

/* Limits shared by the parser and the documentation. */
#define HINTS_MAX_PS 256
#define HINTS_MAX_WORKERS 4096
#define HINTS_MAX_CPUS 1024		/* per task */
#define HINTS_MAX_MEM_MB (16ULL << 20)	/* per task: 16 TiB */
#define HINTS_MAX_GPUS 64		/* per task */
#define HINTS_MAX_GRACE 3600		/* seconds */
#define HINTS_MAX_ACCUM 64		/* extra accumulation micro-steps */

typedef enum hints_policy {
	HINTS_POLICY_OPTIMUS = 0,	/* Optimus: minimise completion time */
	HINTS_POLICY_QUALITY = 1,	/* quality-driven: maximise loss drop */
} hints_policy_t;

typedef enum hints_mode {
	HINTS_MODE_ASYNC = 0,		/* PS, asynchronous updates */
	HINTS_MODE_SYNC = 1,		/* PS, synchronous updates */
	HINTS_MODE_ALLREDUCE = 2,	/* workers only, ring all-reduce (DDP) */
} hints_mode_t;

typedef enum hints_layout {
	HINTS_LAYOUT_COLOCATED = 0,	/* PS and workers share nodes (Thm 1) */
	HINTS_LAYOUT_SEPARATE = 1,	/* PS nodes and worker nodes apart */
} hints_layout_t;

/* What one task (a parameter server or a worker) needs. */
typedef struct hints_res {
	uint32_t cpus;
	uint64_t mem_mb;
	uint32_t gpus;
} hints_res_t;

/* Bits of optimus_hints_t.set: which keys the user gave explicitly. */
enum hints_key {
	HK_MODE, HK_PS, HK_MIN_PS, HK_MAX_PS, HK_WORKERS, HK_MIN_WORKERS,
	HK_MAX_WORKERS, HK_PS_CPUS, HK_PS_MEM, HK_PS_GPUS, HK_WORKER_CPUS,
	HK_WORKER_MEM, HK_WORKER_GPUS, HK_BATCH, HK_DELTA, HK_MODEL, HK_FORM,
	HK_STEPS, HK_EPOCHS, HK_EPOCH_STEPS, HK_CKPT_SIGNAL, HK_CKPT_GRACE,
	HK_CKPT_DIR, HK_LAYOUT, HK_WEIGHT, HK_MIN_BATCH, HK_MAX_BATCH,
	HK_MAX_LOCAL_BATCH, HK_MAX_ACCUM, HK_ADAPTIVE_BATCH,
	HK_COUNT
};

typedef struct optimus_hints {
	hints_policy_t policy;
	hints_mode_t mode;		/* async */
	uint32_t min_ps, max_ps;	/* 1, 1..HINTS_MAX_PS; allreduce: 0 */
	uint32_t min_workers, max_workers;	/* 1, 1..HINTS_MAX_WORKERS */
	hints_res_t ps_res;		/* 1 CPU, 1024 MB, 0 GPU */
	hints_res_t worker_res;		/* 1 CPU, 1024 MB, 0 GPU */
	uint64_t batch;			/* global batch (sync, allreduce), 0: unknown */
	/* The batch the job accepts (hints/batch.c; doc/man/optimus_hints.5):
	 * min_batch..max_batch, both = batch unless given (hints_parse fills
	 * them; 0 in hints built without it means batch), 0 without batch;
	 * the largest per-GPU batch (0: no limit) and the most extra
	 * gradient-accumulation micro-steps (0: none); adaptive_batch lets
	 * the scheduler choose the batch within the range (mode=allreduce). */
	uint64_t min_batch, max_batch;
	uint64_t max_local_batch;
	uint64_t max_accum;
	bool adaptive_batch;		/* no */
	double delta;			/* convergence threshold, 0.001 */
	char model[HINTS_MODEL_MAX];	/* shared speed profile, "": none */
	curve_form_t form;		/* inverse (optimus) / power (quality) */
	uint64_t steps;			/* target steps, 0: unknown */
	uint64_t epochs;		/* target epochs, 0: unknown */
	uint64_t epoch_steps;		/* steps per epoch, 0: unknown */
	int ckpt_signal;		/* SIGUSR1 */
	uint32_t ckpt_grace;		/* seconds, 60 */
	char ckpt_dir[HINTS_PATH_MAX];	/* "": default (see roles.h) */
	hints_layout_t layout;		/* colocated */
	double weight;			/* quality policy only, 1.0 */
	uint32_t set;			/* 1u << enum hints_key given */
} optimus_hints_t;

/* The defaults for a policy. */
void hints_init(optimus_hints_t *h, hints_policy_t policy);

/*
 * Parse and validate "POLICY[,KEY=VALUE...]" into *out (defaults for the
 * keys not given). Returns 0, or -EINVAL with a message in err naming the
 * offending key and its accepted values (err may be NULL).
 */
int hints_parse(const char *text, optimus_hints_t *out, char *err,
		size_t errlen);

/*
 * Cross-key checks on a filled structure (min <= max, batch vs mode...).
 * hints_parse() calls it; exported for code that builds hints itself.
 */
int hints_validate(const optimus_hints_t *h, char *err, size_t errlen);

/*
 * The canonical text of h: policy then every key in table order, so that
 * hints_parse(hints_format(h)) == h. Returns the length written, or -ENOSPC
 * (buf still NUL-terminated when len > 0).
 */
int hints_format(const optimus_hints_t *h, char *buf, size_t len);

/* An all-reduce job has workers only: min_ps = max_ps = 0. */
static inline bool hints_is_allreduce(const optimus_hints_t *h)
{
	return h->mode == HINTS_MODE_ALLREDUCE;
}

const char *hints_policy_name(hints_policy_t p);
const char *hints_mode_name(hints_mode_t m);
const char *hints_layout_name(hints_layout_t l);

/*
 * The job's initial request: p PS and w workers on `nodes` nodes, each node
 * holding an even share (Theorem 1 of the Optimus paper, PS first: node i
 * has placement_share_front(p) PS and placement_share_back(w) workers).
 * An all-reduce job (p = 0) is one task per worker, each with the worker's
 * CPUs, memory and GPUs, on the fewest nodes that hold an even split.
 * Slurm gives every task of a step the same CPUs, so cpus_per_task is the
 * larger of the two roles'; memory and GPUs are the largest node's need.
 */
typedef struct hints_request {
	uint32_t nodes;
	uint32_t tasks;
	uint32_t max_tasks_per_node;	/* the fullest node's task count */
	/*
	 * The task slots to ask Slurm for: `tasks`, except for layout=separate,
	 * where every node gets the fullest node's count (nodes x
	 * max_tasks_per_node). A heterogeneous step puts each component on
	 * nodes of its own, so each node must hold the largest share; Slurm
	 * 24.11's cons_tres gives a job with a task count only the CPUs of the
	 * tasks it places on each node (1 PS + 3 workers on 2 nodes: 3 + 1, and
	 * the PS component may take the 3-CPU node), which a CPU minimum per
	 * node does not change. The batch script runs `tasks` (spank/optimus
	 * sets SLURM_NTASKS from the topology).
	 */
	uint32_t task_slots;
	uint32_t cpus_per_task;
	uint64_t mem_per_node_mb;
	uint32_t gpus_per_node;
} hints_request_t;

/*
 * Size p PS + w workers (p = 0 for all-reduce jobs, >= 1 otherwise) for
 * nodes of capacity *node (a zero field means "unknown, assume it fits"). want_nodes > 0 asks for exactly that many
 * nodes; 0 asks for the fewest that fit. Returns 0, or -ERANGE with a
 * message when no node count up to p + w (or want_nodes) fits.
 */
int hints_size(const optimus_hints_t *h, uint32_t p, uint32_t w,
	       const hints_res_t *node, uint32_t want_nodes,
	       hints_request_t *out, char *err, size_t errlen);

/*
 * The submitted batch of a job on w workers (every job whose batch the
 * scheduler does not choose, and an adaptive job before it does): each
 * worker takes per = ceil(batch / w) samples a step, in accum + 1
 * micro-steps of `local` samples, accum the fewest that keep local within
 * max_local_batch: accum = ceil(per / max_local_batch) - 1, local =
 * ceil(per / (accum + 1)). The batch trained is local * w * (accum + 1),
 * the submitted one rounded up to a whole share per worker and micro-step.
 * 0; -ENOENT (no batch= hint), -EINVAL (w = 0), -ERANGE with a message
 * (more than max_accum micro-steps needed).
 */
typedef struct hints_batch {
	uint64_t batch;		/* global: local * workers * (accum + 1) */
	uint32_t local;		/* per worker (per GPU) and micro-step */
	uint32_t accum;		/* extra micro-steps (0: none) */
} hints_batch_t;

int hints_batch_split(const optimus_hints_t *h, uint32_t workers,
		      hints_batch_t *out, char *err, size_t errlen);

/*
 * The fewest workers that hold the submitted batch in their micro-steps:
 * ceil(batch / (max_local_batch x (max_accum + 1))), at least 1 (1 with
 * no batch= or no max_local_batch). A job that says fewer is refused
 * (hints_validate), and its user told to say this many.
 */
uint32_t hints_batch_fewest_workers(const optimus_hints_t *h);

/*
 * The limits of an adaptive job's batch for the goodput model
 * (models/goodput.h): min_batch..max_batch; a per-GPU batch from 1 to
 * max_local_batch (no limit: max_batch); max_accum extra micro-steps.
 * 0, or -EINVAL when h has no batch.
 */
int hints_batch_limits(const optimus_hints_t *h, goodput_limits_t *lim);

/* The GPUs that ps PS and w workers take (their ps_gpus=/worker_gpus=). */
uint64_t hints_gpus(const optimus_hints_t *h, uint32_t ps, uint32_t w);

#endif
