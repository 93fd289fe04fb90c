/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * accounting.h - put an ended optimus job's final SystemComment (with its
 * true completion time) into slurmdbd.
 *
 * The writes run on a thread of their own, fed by a bounded queue, so that
 * the planner never waits on slurmdbd (thousands of comments written one
 * at a time on the planner's path would stop planning for minutes).
 */
#ifndef OPTIMUS_ACCOUNTING_H
#define OPTIMUS_ACCOUNTING_H

#include <stdbool.h>
#include <stdint.h>

/* The most comments waiting at once; a job queued again replaces its
 * waiting comment (coalesced), a full queue refuses (retried next plan). */
#define ACCOUNTING_QUEUE_MAX 65536

extern void accounting_start(void);
/* Stops the thread; `unsent` (may be NULL) is called for every job whose
 * comment was still waiting, so that the caller queues it again later. */
extern void accounting_stop(void (*unsent)(uint32_t job_id));

/*
 * Queue `comment` as the job's final SystemComment. Never blocks on
 * slurmdbd. Returns false when accounting is off or the queue is full.
 */
extern bool accounting_queue(uint32_t job_id, const char *comment);

/*
 * Queue the comments of the actions that carry one for slurmdbd
 * (action_t.account): one the queue refuses (accounting off, the queue
 * full) is offered again at a few later plans (the record's accounted
 * flag cleared, ACCOUNT_QUEUE_TRIES times at most). Takes the registry
 * lock; the planner never waits on slurmdbd.
 */
struct action;
extern void accounting_queue_ended(const struct action *acts, int n);

/*
 * Store `comment` as the job's SystemComment in the accounting database.
 * A blocking RPC to slurmdbd: call it without slurmctld locks. Returns
 * SLURM_SUCCESS, or SLURM_ERROR (logged) when accounting is off or the
 * update failed.
 */
extern int accounting_set_system_comment(uint32_t job_id, const char *comment);

#endif
