/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * conf_file.h - read slurm.conf and optimus.conf with the grammar of
 * Slurm's own parser (src/common/parse_config.c, s_p_parse_file), so that
 * the clients (optimus-report, optimusctl, the C library) read every file
 * slurmctld reads, the same way. The Python client
 * (python/optimus_report.py) implements the same grammar; both pass the
 * table testsuite/data/conf_cases.json, and
 * testsuite/offline/test_client_rules.py holds the two to the same answers.
 *
 * The grammar:
 *   - '#' starts a comment unless escaped as "\#"; "\\" is a backslash; a
 *     line ending in an odd number of backslashes continues on the next;
 *   - Key=Value, with spaces allowed around '=' (and an operator "+=",
 *     "-=", "*=", "/=" read as '='); keys are [A-Za-z0-9_.]+ and compared
 *     without regard to case; a value is one word or "a quoted string";
 *     a line may hold several pairs (as NodeName lines do);
 *   - "Include FILE" at the very start of a line (the word in any case)
 *     reads FILE in place, relative to the including file's folder, with
 *     %c replaced by the ClusterName read so far (lower case);
 *   - anything else on a line is an error, naming the file and line.
 * A key given twice: the callback sees both, in file order (for a single
 * value the last wins, as in Slurm).
 */
#ifndef OPTIMUS_CONF_FILE_H
#define OPTIMUS_CONF_FILE_H

#include <stddef.h>

/* Include nesting: Slurm has no bound; a loop must not recurse forever. */
#define CONF_MAX_DEPTH 16
/* slurm.conf where $SLURM_CONF does not say (Slurm's default place). */
#define CONF_DEFAULT_SLURM_CONF "/etc/slurm/slurm.conf"

/* Called for every pair; a non-zero return stops the read with it. */
typedef int (*conf_file_fn)(const char *key, const char *value, void *arg);

/* 0, or a negative errno with a message naming the file and line:
 * -ENOENT when path (not an included file) does not exist. */
int conf_file_read(const char *path, conf_file_fn fn, void *arg, char *err,
		   size_t errlen);

/* The last value of key in path into val: 1 found, 0 not found (or no
 * file), negative errno with a message when the file cannot be parsed. */
int conf_file_get(const char *path, const char *key, char *val, size_t vlen,
		  char *err, size_t errlen);

#endif
