# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# job_submit/optimus: validates hints and sizes optimus jobs at submit time.
plugin_LTLIBRARIES += src/plugins/job_submit/optimus/job_submit_optimus.la
src_plugins_job_submit_optimus_job_submit_optimus_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_INTERNAL_CPPFLAGS) -I$(top_srcdir)/src/plugins/common
src_plugins_job_submit_optimus_job_submit_optimus_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(GSL_CFLAGS)
src_plugins_job_submit_optimus_job_submit_optimus_la_LDFLAGS = $(OPTIMUS_MODULE_FLAGS)
src_plugins_job_submit_optimus_job_submit_optimus_la_LIBADD = src/common/liboptimus_core.la
src_plugins_job_submit_optimus_job_submit_optimus_la_SOURCES = \
	src/plugins/job_submit/optimus/job_submit_optimus.c \
	src/plugins/job_submit/optimus/job_size.c \
	src/plugins/job_submit/optimus/job_size.h \
	src/plugins/common/gate.c src/plugins/common/gate.h \
	src/plugins/common/job_env.c src/plugins/common/job_env.h \
	$(SLURM_COMPAT_SOURCES)
