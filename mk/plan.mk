# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# plan: core sources, unit tests, tools and benchmarks (see HACKING.md)
# The planning of one scheduling interval from the job records (mk/job.mk),
# shared by sched/optimus and optimus-sim (doc/design/planning.md).
src_common_liboptimus_core_la_SOURCES += \
	src/common/plan/plan.h src/common/plan/plan_priv.h src/common/plan/plan.c \
	src/common/plan/plan_policy_list.h \
	src/common/plan/plan_alloc.c src/common/plan/plan_place.c \
	src/common/plan/plan_run.c src/common/plan/plan_setup.c \
	src/common/plan/plan_json.c src/common/plan/plan_slots.c \
	src/common/plan/plan_gain.c src/common/plan/plan_explore.c \
	src/common/plan/plan_preempt.c src/common/plan/plan_fair.c \
	src/common/plan/plan_policy.c src/common/plan/plan_policy_optimus.c \
	src/common/plan/plan_policy_quality.c src/common/plan/plan_policy_drf.c \
	src/common/plan/plan_policy_tetris.c src/common/plan/plan_policy_fifo.c \
	src/common/plan/plan_policy_goodput.c \
	src/common/plan/plan_input.h src/common/plan/plan_input.c \
	src/common/plan/plan_interval.h src/common/plan/plan_interval.c \
	src/common/plan/plan_apply.h src/common/plan/plan_apply.c

PLAN_TESTS = testsuite/unit/test_plan testsuite/unit/test_preempt \
	testsuite/unit/test_fair testsuite/unit/test_plan_apply
check_PROGRAMS += $(PLAN_TESTS)
TESTS += $(PLAN_TESTS)
testsuite_unit_test_plan_SOURCES = testsuite/unit/test_plan.c
testsuite_unit_test_plan_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_plan_LDADD = $(UNIT_LDADD)
testsuite_unit_test_preempt_SOURCES = testsuite/unit/test_preempt.c
testsuite_unit_test_preempt_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_preempt_LDADD = $(UNIT_LDADD)
testsuite_unit_test_fair_SOURCES = testsuite/unit/test_fair.c
testsuite_unit_test_fair_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_fair_LDADD = $(UNIT_LDADD)
testsuite_unit_test_plan_apply_SOURCES = testsuite/unit/test_plan_apply.c
testsuite_unit_test_plan_apply_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_plan_apply_LDADD = $(UNIT_LDADD)

# HACKING.md's map of plan/: every file calls only the files listed after
# it (read from the objects' symbols).
TESTS += testsuite/unit/plan_layers.sh
EXTRA_DIST += testsuite/unit/plan_layers.sh
