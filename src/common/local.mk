# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# The Slurm-independent core, shared by the plugins, the simulator, the
# tools and the benchmarks. No Slurm header may be included here.
# Components append their sources in mk/*.mk.
noinst_LTLIBRARIES += src/common/liboptimus_core.la
src_common_liboptimus_core_la_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS) $(JSONC_CFLAGS)
src_common_liboptimus_core_la_LIBADD = $(GSL_LIBS) $(JSONC_LIBS) -lm
src_common_liboptimus_core_la_SOURCES = src/common/util/version.h \
	src/common/roles/spank_env.c src/common/roles/spank_env.h \
	src/common/util/errmsg.c src/common/util/errmsg.h \
	src/common/util/escape.c src/common/util/escape.h \
	src/common/util/prom_text.c src/common/util/prom_text.h \
	src/common/util/svg.c src/common/util/svg.h \
	src/common/util/conf_file.c src/common/util/conf_file.h \
	src/common/util/json_strict.c src/common/util/json_strict.h \
	src/common/util/json_num.c src/common/util/json_num.h \
	src/common/util/grow.c src/common/util/grow.h \
	src/common/util/names.c src/common/util/names.h

# The one escaping rule for user text (util/escape) and its use by
# json_strict: unit test.
check_PROGRAMS += testsuite/unit/test_escape
TESTS += testsuite/unit/test_escape
testsuite_unit_test_escape_SOURCES = testsuite/unit/test_escape.c
testsuite_unit_test_escape_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_escape_LDADD = $(UNIT_LDADD)

# The one SVG writer (util/svg): unit test.
check_PROGRAMS += testsuite/unit/test_svg
TESTS += testsuite/unit/test_svg
testsuite_unit_test_svg_SOURCES = testsuite/unit/test_svg.c
testsuite_unit_test_svg_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_svg_LDADD = $(UNIT_LDADD)
