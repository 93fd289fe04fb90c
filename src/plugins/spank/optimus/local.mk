# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# spank/optimus: the --scheduler option and per-task role environments.
plugin_LTLIBRARIES += src/plugins/spank/optimus/spank_optimus.la
src_plugins_spank_optimus_spank_optimus_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(GSL_CFLAGS)
src_plugins_spank_optimus_spank_optimus_la_LDFLAGS = $(OPTIMUS_MODULE_FLAGS)
src_plugins_spank_optimus_spank_optimus_la_LIBADD = src/common/liboptimus_core.la $(JSONC_LIBS)
src_plugins_spank_optimus_spank_optimus_la_SOURCES = \
	src/plugins/spank/optimus/spank_optimus.h \
	src/plugins/spank/optimus/spank_optimus.c \
	src/plugins/spank/optimus/spank_options.c \
	src/plugins/spank/optimus/spank_topology.c \
	src/plugins/spank/optimus/spank_roles.c \
	src/plugins/spank/optimus/spank_addrs.c \
	src/plugins/spank/optimus/spank_ports.c
