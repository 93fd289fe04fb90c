/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * state_file.h - sched/optimus' state in StateSaveLocation, so that model
 * state survives a slurmctld restart.
 */
#ifndef OPTIMUS_STATE_FILE_H
#define OPTIMUS_STATE_FILE_H

/* Path of the state file (xmalloc'd): <StateSaveLocation>/optimus_state.json */
extern char *state_file_path(void);

/*
 * Write the registry atomically (temporary file, fsync, rename). The caller
 * holds the registry lock, or is the planner thread (the registry's only
 * writer, which reads it unlocked: registry.h). Returns SLURM_SUCCESS or
 * SLURM_ERROR (logged).
 */
extern int state_file_save(void);

/*
 * Load the registry. A missing file is normal; a corrupt one is reported,
 * kept aside as <path>.corrupt, and ignored: never fatal.
 */
extern void state_file_load(void);

#endif
