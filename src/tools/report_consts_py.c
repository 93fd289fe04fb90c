/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/*
 * report_consts_py.c - writes python/optimus_report_consts.py, the C
 * client's constants for the Python client, from the headers that define
 * them: the values are the ones this compiler sees, so the two clients
 * cannot drift apart. Run by the build (mk/report.mk), never installed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <munge.h>

#include "report/client.h"
#include "report/conf.h"
#include "report/protocol.h"
#include "util/conf_file.h"

/* A Python string literal of s (ASCII; quotes and backslashes escaped). */
static void py_str(const char *name, const char *s)
{
	printf("%s = \"", name);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	printf("\"\n");
}

/* A Python float literal of v: the shortest of %.15g and %.17g that
 * reads back as v. */
static void py_float(const char *name, double v)
{
	char text[64];

	snprintf(text, sizeof(text), "%.15g", v);
	if (strtod(text, NULL) != v)
		snprintf(text, sizeof(text), "%.17g", v);
	printf("%s = %s%s\n", name, text,
	       strpbrk(text, ".e") ? "" : ".0");
}

int main(void)
{
	printf("# SPDX-License-Identifier: GPL-2.0-or-later\n"
	       "# Copyright (C) 2026 The slurm-optimus developers\n"
	       "\"\"\"The C client's constants, for optimus_report.py.\n\n"
	       "Written by the build (src/tools/report_consts_py.c) from\n"
	       "src/common/report/client.h, conf.h, protocol.h and\n"
	       "src/common/util/conf_file.h: change them there.\"\"\"\n\n");
	printf("# Retries of a request not delivered or met with \"busy\": a "
	       "wait\n# doubling from RETRY_BASE to RETRY_MAX seconds, each "
	       "drawn in [d/2, d].\n");
	printf("RETRY_ATTEMPTS = %d\n", REPORT_RETRY_ATTEMPTS);
	py_float("RETRY_BASE", REPORT_RETRY_BASE_MS / 1000.0);
	py_float("RETRY_MAX", REPORT_RETRY_MAX_MS / 1000.0);
	printf("# The endpoint: where slurm.conf is, the listener's defaults, "
	       "how many\n# SlurmctldHost lines are tried.\n");
	py_str("DEFAULT_SLURM_CONF", CONF_DEFAULT_SLURM_CONF);
	py_str("DEFAULT_ADDRESS", REPORT_DEFAULT_ADDRESS);
	printf("DEFAULT_PORT = %d\n", REPORT_DEFAULT_PORT);
	printf("MAX_HOSTS = %d\n", REPORT_MAX_HOSTS);
	printf("# A host name's room (its NUL included), each connect's and "
	       "reply's wait.\n");
	printf("HOST_MAX = %d\n", REPORT_HOST_MAX);
	py_float("TIMEOUT", REPORT_TIMEOUT_MS / 1000.0);
	printf("# Slurm's configuration grammar: how deep Includes nest.\n");
	printf("CONF_MAX_DEPTH = %d\n", CONF_MAX_DEPTH);
	printf("# The protocol: frame sizes, the largest run a report names, "
	       "a batch\n# change's bounds.\n");
	printf("MAX_FRAME = %lld\n", (long long) PROTOCOL_MAX_FRAME);
	printf("MAX_REPLY = %lld\n", (long long) PROTOCOL_MAX_REPLY);
	printf("MAX_RUN = %lld\n", (long long) PROTOCOL_MAX_RUN);
	printf("MAX_COUNT = %lld\n", (long long) PROTOCOL_MAX_COUNT);
	printf("MAX_ACCUM = %d\n", PROTOCOL_MAX_ACCUM);
	py_float("LR_SCALE_MIN", PROTOCOL_LR_SCALE_MIN);
	py_float("LR_SCALE_MAX", PROTOCOL_LR_SCALE_MAX);
	printf("# libmunge's option naming munged's socket (munge.h).\n");
	printf("MUNGE_OPT_SOCKET = %d\n", (int) MUNGE_OPT_SOCKET);
	return fflush(stdout) || ferror(stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
}
