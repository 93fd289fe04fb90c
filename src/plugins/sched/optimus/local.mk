# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# sched/optimus: the scheduler plugin inside slurmctld.
plugin_LTLIBRARIES += src/plugins/sched/optimus/sched_optimus.la
src_plugins_sched_optimus_sched_optimus_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_INTERNAL_CPPFLAGS) -I$(top_srcdir)/src/plugins/common
src_plugins_sched_optimus_sched_optimus_la_CFLAGS = $(AM_CFLAGS) -fvisibility=default $(GSL_CFLAGS) $(JSONC_CFLAGS)
src_plugins_sched_optimus_sched_optimus_la_LDFLAGS = $(OPTIMUS_MODULE_FLAGS)
src_plugins_sched_optimus_sched_optimus_la_LIBADD = src/common/liboptimus_core.la $(MUNGE_LIBS)
src_plugins_sched_optimus_sched_optimus_la_SOURCES = \
	src/plugins/sched/optimus/sched_optimus.c \
	src/plugins/sched/optimus/backfill_delegate.c \
	src/plugins/sched/optimus/backfill_delegate.h \
	src/plugins/sched/optimus/listener.c src/plugins/sched/optimus/listener.h \
	src/plugins/sched/optimus/optimus_conf.c src/plugins/sched/optimus/optimus_conf.h \
	$(SLURM_COMPAT_SOURCES)
# the planner: snapshot -> models -> plan -> apply
src_plugins_sched_optimus_sched_optimus_la_SOURCES += \
	src/plugins/sched/optimus/accounting.c src/plugins/sched/optimus/accounting.h \
	src/plugins/sched/optimus/apply.c src/plugins/sched/optimus/apply.h \
	src/plugins/common/gate.c src/plugins/common/gate.h \
	src/plugins/sched/optimus/job_limits.c src/plugins/sched/optimus/job_limits.h \
	src/plugins/common/job_env.c src/plugins/common/job_env.h \
	src/plugins/sched/optimus/planner.c src/plugins/sched/optimus/planner.h \
	src/plugins/sched/optimus/planner_decide.c \
	src/plugins/sched/optimus/planner_input.c \
	src/plugins/sched/optimus/planner_input.h \
	src/plugins/sched/optimus/planner_reports.c \
	src/plugins/sched/optimus/planner_requeue.c \
	src/plugins/sched/optimus/planner_sync.c \
	src/plugins/sched/optimus/query.c src/plugins/sched/optimus/query.h \
	src/plugins/sched/optimus/rebatch.c src/plugins/sched/optimus/rebatch.h \
	src/plugins/sched/optimus/registry.c src/plugins/sched/optimus/registry.h \
	src/plugins/sched/optimus/lock_hold.c src/plugins/sched/optimus/lock_hold.h \
	src/plugins/sched/optimus/snapshot.c src/plugins/sched/optimus/snapshot.h \
	src/plugins/sched/optimus/state_file.c src/plugins/sched/optimus/state_file.h
