/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* backfill_delegate.h - Slurm's sched/backfill, loaded from sched/optimus. */
#ifndef OPTIMUS_BACKFILL_DELEGATE_H
#define OPTIMUS_BACKFILL_DELEGATE_H

/* Load sched/backfill; its init() starts the backfill thread. */
extern int backfill_delegate_load(void);
/* Forward a reconfigure to sched/backfill. */
extern int backfill_delegate_reconfig(void);
/* Stop the backfill thread and unload the plugin. */
extern void backfill_delegate_unload(void);

#endif
