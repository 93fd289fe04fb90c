# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# models: core sources, unit tests, tools and benchmarks (see HACKING.md)
src_common_liboptimus_core_la_SOURCES += \
	src/common/models/nnls.c src/common/models/nnls.h \
	src/common/models/curve_fit.c src/common/models/curve_fit.h \
	src/common/models/convergence.c src/common/models/convergence.h \
	src/common/models/speed_model.c src/common/models/speed_model.h \
	src/common/models/allreduce_speed.c src/common/models/allreduce_speed.h \
	src/common/models/speed_profiles.c src/common/models/speed_profiles.h \
	src/common/models/quality_model.c src/common/models/quality_model.h \
	src/common/models/efficiency.c src/common/models/efficiency.h \
	src/common/models/goodput.c src/common/models/goodput.h \
	src/common/models/model_json.c src/common/models/model_json.h

MODELS_TESTS = testsuite/unit/test_nnls testsuite/unit/test_convergence \
	testsuite/unit/test_speed testsuite/unit/test_quality \
	testsuite/unit/test_model_json testsuite/unit/test_allreduce_speed
check_PROGRAMS += $(MODELS_TESTS)
TESTS += $(MODELS_TESTS)
testsuite_unit_test_nnls_SOURCES = testsuite/unit/test_nnls.c
testsuite_unit_test_nnls_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_nnls_LDADD = $(UNIT_LDADD)
testsuite_unit_test_convergence_SOURCES = testsuite/unit/test_convergence.c
testsuite_unit_test_convergence_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_convergence_LDADD = $(UNIT_LDADD)
testsuite_unit_test_speed_SOURCES = testsuite/unit/test_speed.c
testsuite_unit_test_speed_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_speed_LDADD = $(UNIT_LDADD)
testsuite_unit_test_quality_SOURCES = testsuite/unit/test_quality.c
testsuite_unit_test_quality_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_quality_LDADD = $(UNIT_LDADD)
testsuite_unit_test_model_json_SOURCES = testsuite/unit/test_model_json.c
testsuite_unit_test_model_json_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_model_json_LDADD = $(UNIT_LDADD)
testsuite_unit_test_allreduce_speed_SOURCES = testsuite/unit/test_allreduce_speed.c
testsuite_unit_test_allreduce_speed_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_allreduce_speed_LDADD = $(UNIT_LDADD)

# The efficiency model and best batch against the Pollux artifact's numbers,
# read through the simulator's truth (its own sources, not the whole sim).
check_PROGRAMS += testsuite/unit/test_efficiency
TESTS += testsuite/unit/test_efficiency
testsuite_unit_test_efficiency_SOURCES = testsuite/unit/test_efficiency.c \
	testsuite/unit/pollux_fixture.h \
	src/tools/optimus-sim/measured/csv.h src/tools/optimus-sim/measured/csv.c \
	src/tools/optimus-sim/measured/interp_nd.h src/tools/optimus-sim/measured/interp_nd.c \
	src/tools/optimus-sim/measured/app.h src/tools/optimus-sim/measured/app.c
testsuite_unit_test_efficiency_CPPFLAGS = $(AM_CPPFLAGS) $(SIM_TEST_CPPFLAGS) \
	-I$(top_srcdir)/src/tools/optimus-sim
testsuite_unit_test_efficiency_CFLAGS = $(UNIT_CFLAGS) $(QHULL_CFLAGS)
testsuite_unit_test_efficiency_LDADD = $(UNIT_LDADD) $(QHULL_LIBS)

noinst_PROGRAMS += bench/bench_models
bench_bench_models_SOURCES = bench/bench_models.c bench/bench_allreduce.c \
	bench/bench_allreduce.h
bench_bench_models_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS) $(JSONC_CFLAGS)
bench_bench_models_LDADD = src/common/liboptimus_core.la $(GSL_LIBS) $(JSONC_LIBS) -lm
EXTRA_DIST += testsuite/data/README.md testsuite/data/loss_softmax_sgd.csv \
	testsuite/data/loss_mlp_sgd.csv testsuite/data/loss_mlp_stepdecay.csv \
	contrib/record_loss_curves.py doc/design/models.md
