# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# alloc: core sources, unit tests, tools and benchmarks (see HACKING.md)
# Allocation (Optimus, quality-driven, DRF/Tetris/FIFO baselines),
# Theorem 1 placement and the parameter assignment algorithm.
src_common_liboptimus_core_la_SOURCES += \
	src/common/alloc/resources.h src/common/alloc/resources.c \
	src/common/util/heap.h src/common/util/heap.c \
	src/common/alloc/alloc.h src/common/alloc/alloc.c \
	src/common/alloc/optimus.c src/common/alloc/quality.c \
	src/common/alloc/drf.c src/common/alloc/tetris.c \
	src/common/alloc/fifo.c src/common/alloc/rate.c \
	src/common/alloc/fair_speedup.c \
	src/common/alloc/cap.h src/common/alloc/cap.c \
	src/common/alloc/placement.h src/common/alloc/placement.c \
	src/common/alloc/paa.h src/common/alloc/paa.c src/common/alloc/paa_models.c

# Unit tests (Check) and the benchmark share testsuite/synth: synthetic
# jobs and the naive rescan greedy used as a reference and baseline.
ALLOC_SYNTH = testsuite/synth/alloc_synth.h testsuite/synth/alloc_synth.c
ALLOC_SYNTH_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/testsuite/synth
check_PROGRAMS += testsuite/unit/test_alloc testsuite/unit/test_placement \
	testsuite/unit/test_paa
TESTS += testsuite/unit/test_alloc testsuite/unit/test_placement \
	testsuite/unit/test_paa
testsuite_unit_test_alloc_SOURCES = testsuite/unit/test_alloc.c $(ALLOC_SYNTH)
testsuite_unit_test_alloc_CPPFLAGS = $(ALLOC_SYNTH_CPPFLAGS)
testsuite_unit_test_alloc_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_alloc_LDADD = $(UNIT_LDADD)
testsuite_unit_test_placement_SOURCES = testsuite/unit/test_placement.c \
	$(ALLOC_SYNTH)
testsuite_unit_test_placement_CPPFLAGS = $(ALLOC_SYNTH_CPPFLAGS)
testsuite_unit_test_placement_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_placement_LDADD = $(UNIT_LDADD)
testsuite_unit_test_paa_SOURCES = testsuite/unit/test_paa.c $(ALLOC_SYNTH)
testsuite_unit_test_paa_CPPFLAGS = $(ALLOC_SYNTH_CPPFLAGS)
testsuite_unit_test_paa_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_paa_LDADD = $(UNIT_LDADD)

# Allocation + placement time at the paper's scale and 10x (prints figures).
noinst_PROGRAMS += bench/bench_alloc
bench_bench_alloc_SOURCES = bench/bench_alloc.c $(ALLOC_SYNTH)
bench_bench_alloc_CPPFLAGS = $(ALLOC_SYNTH_CPPFLAGS)
bench_bench_alloc_CFLAGS = $(AM_CFLAGS) -O2
bench_bench_alloc_LDADD = src/common/liboptimus_core.la $(GSL_LIBS) \
	$(JSONC_LIBS) -lm
