/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* hints/script.h - what a batch script's text tells before it runs. */
#ifndef OPTIMUS_HINTS_SCRIPT_H
#define OPTIMUS_HINTS_SCRIPT_H

#include <stdbool.h>

#include "hints/hints.h"

/* Does the job ask to be resized: a range of PS or of workers? */
bool hints_elastic(const optimus_hints_t *h);

/*
 * Can the batch shell survive the checkpoint signal `signum`: a `trap`
 * naming it (USR1, SIGUSR1 or its number) or an `exec` that replaces the
 * shell with the command, outside comments? A shell that does neither is
 * killed by the first checkpoint signal (the job ends FAILED 0:signum), so
 * such an elastic job can never be resized. A text check, not a shell: a
 * trap it sees may still be unreachable; one it misses is reported
 * wrongly only if hidden (a sourced file, a function built at run time).
 */
bool hints_script_survives_signal(const char *script, int signum);

/* The warning sbatch prints for an elastic job whose script cannot
 * survive the signal (job_submit/optimus), into buf. */
void hints_script_warning(const optimus_hints_t *h, char *buf, size_t len);

#endif
