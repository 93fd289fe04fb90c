# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# straggler: core sources, unit tests, tools and benchmarks (see HACKING.md)
# Slow-worker detection from per-rank step times (models/straggler.h,
# sched_optimus(8) "Stragglers").
src_common_liboptimus_core_la_SOURCES += \
	src/common/models/straggler.c src/common/models/straggler.h \
	src/common/job/job_model_straggler.c src/common/plan/plan_straggler.c

check_PROGRAMS += testsuite/unit/test_straggler
TESTS += testsuite/unit/test_straggler
testsuite_unit_test_straggler_SOURCES = testsuite/unit/test_straggler.c
testsuite_unit_test_straggler_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_straggler_LDADD = $(UNIT_LDADD)
