# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# hints: core sources, unit tests, tools and benchmarks (see HACKING.md)
# --scheduler hints (parse, validate, format, initial request) and the
# per-task roles of a training job (topology -> role, rank, environment).
src_common_liboptimus_core_la_SOURCES += \
	src/common/hints/hints.h src/common/hints/hints.c \
	src/common/hints/keys.h src/common/hints/keys.c \
	src/common/hints/format.c src/common/hints/size.c \
	src/common/hints/batch.c \
	src/common/hints/script.h src/common/hints/script.c \
	src/common/hints/bounds.h src/common/hints/bounds.c

check_PROGRAMS += testsuite/unit/test_hints
TESTS += testsuite/unit/test_hints
testsuite_unit_test_hints_SOURCES = testsuite/unit/test_hints.c
testsuite_unit_test_hints_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_hints_LDADD = $(UNIT_LDADD)

src_common_liboptimus_core_la_SOURCES += \
	src/common/roles/roles.h src/common/roles/roles.c src/common/roles/env.c \
	src/common/roles/hostlist.c

check_PROGRAMS += testsuite/unit/test_roles
TESTS += testsuite/unit/test_roles
testsuite_unit_test_roles_SOURCES = testsuite/unit/test_roles.c
testsuite_unit_test_roles_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_roles_LDADD = $(UNIT_LDADD)
