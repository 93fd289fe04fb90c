# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# job: core sources and unit test (see HACKING.md)
# The long-lived per-job record: its models, predictions with priors, phase
# and JSON state (job/job_model.h), read by every scheduling interval
# (plan/) and kept across them by sched/optimus and optimus-sim.
src_common_liboptimus_core_la_SOURCES += \
	src/common/job/job_model.h src/common/job/job_model.c \
	src/common/job/job_model_predict.c src/common/job/job_model_json.c \
	src/common/job/job_model_salvage.c \
	src/common/job/job_batch.c src/common/job/job_explore.c \
	src/common/job/job_stop.c \
	src/common/job/job_admit.h src/common/job/job_admit.c \
	src/common/job/job_claims.c \
	src/common/job/job_feed.h src/common/job/job_feed.c \
	src/common/job/job_rebatch.c

check_PROGRAMS += testsuite/unit/test_job_model
TESTS += testsuite/unit/test_job_model
testsuite_unit_test_job_model_SOURCES = testsuite/unit/test_job_model.c
testsuite_unit_test_job_model_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_job_model_LDADD = $(UNIT_LDADD)

# A job's reports into its record (job/job_feed.c).
check_PROGRAMS += testsuite/unit/test_job_feed
TESTS += testsuite/unit/test_job_feed
testsuite_unit_test_job_feed_SOURCES = testsuite/unit/test_job_feed.c
testsuite_unit_test_job_feed_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_job_feed_LDADD = $(UNIT_LDADD)

# The adaptive batch of a record and the goodput policy of the plan
# (job/job_batch.c, plan/plan_policy_goodput.c).
check_PROGRAMS += testsuite/unit/test_job_batch
TESTS += testsuite/unit/test_job_batch
testsuite_unit_test_job_batch_SOURCES = testsuite/unit/test_job_batch.c
testsuite_unit_test_job_batch_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_job_batch_LDADD = $(UNIT_LDADD)

# Exploring how a job scales: ExploreScaling (job/job_explore.c,
# plan/plan_explore.c).
check_PROGRAMS += testsuite/unit/test_explore
TESTS += testsuite/unit/test_explore
testsuite_unit_test_explore_SOURCES = testsuite/unit/test_explore.c
testsuite_unit_test_explore_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_explore_LDADD = $(UNIT_LDADD)
