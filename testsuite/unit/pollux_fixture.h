/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Copyright (C) 2026 The slurm-optimus developers */
/* pollux_fixture.h - the Pollux artifact's six applications, loaded from
 * the source tree (POLLUX_DATA_DIR) for a test and freed after it. */
#ifndef OPTIMUS_POLLUX_FIXTURE_H
#define OPTIMUS_POLLUX_FIXTURE_H

#include <check.h>
#include <stddef.h>

#include "measured/app.h"

static px_app_t *apps;
static size_t napps;

static inline void load_apps(void)
{
	char err[512];

	ck_assert_msg(px_apps_load(POLLUX_DATA_DIR "/traces", &apps, &napps,
				   err, sizeof(err)) == 0, "%s", err);
}

static inline void unload_apps(void)
{
	px_apps_free(apps, napps);
	apps = NULL;
	napps = 0;
}

#endif
