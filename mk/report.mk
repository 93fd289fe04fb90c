# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# report: core sources, unit tests, tools and benchmarks (see HACKING.md)
# Reports and queries over a munge-authenticated channel (doc/design/reports.md).
src_common_liboptimus_core_la_SOURCES += \
	src/common/report/protocol.h src/common/report/protocol.c \
	src/common/report/run.h src/common/report/run.c \
	src/common/report/replay_cache.h src/common/report/replay_cache.c \
	src/common/report/admission.h src/common/report/admission.c \
	src/common/report/queue.h src/common/report/queue.c \
	src/common/report/history.h src/common/report/history.c \
	src/common/report/munge_auth.h src/common/report/munge_auth.c \
	src/common/report/viewer.h src/common/report/viewer.c \
	src/common/report/reply_bound.h src/common/report/reply_bound.c \
	src/common/report/service.h src/common/report/service.c \
	src/common/report/metrics.h src/common/report/metrics.c \
	src/common/report/conf.h src/common/report/conf.c \
	src/common/report/client.h src/common/report/client.c
src_common_liboptimus_core_la_LIBADD += $(MUNGE_LIBS)

# Tools: optimus-report (for shell scripts) and optimusctl.
TOOLS_LDADD = src/common/liboptimus_core.la $(GSL_LIBS) $(JSONC_LIBS) $(MUNGE_LIBS) -lm
bin_PROGRAMS += src/tools/optimus-report src/tools/optimusctl
src_tools_optimus_report_SOURCES = src/tools/optimus-report.c
src_tools_optimus_report_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(GSL_CFLAGS)
src_tools_optimus_report_LDADD = $(TOOLS_LDADD)
src_tools_optimusctl_SOURCES = src/tools/optimusctl.c \
	src/tools/ascii_plot.c src/tools/ascii_plot.h
src_tools_optimusctl_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(GSL_CFLAGS)
src_tools_optimusctl_LDADD = $(TOOLS_LDADD)

# Unit tests (Check): protocol, replay cache, queue, history, service.
check_PROGRAMS += testsuite/unit/test_protocol testsuite/unit/test_protocol_service
TESTS += testsuite/unit/test_protocol testsuite/unit/test_protocol_service
testsuite_unit_test_protocol_SOURCES = testsuite/unit/test_protocol.c
testsuite_unit_test_protocol_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_protocol_LDADD = $(UNIT_LDADD) $(MUNGE_LIBS)
testsuite_unit_test_protocol_service_SOURCES = testsuite/unit/test_protocol_service.c
testsuite_unit_test_protocol_service_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_protocol_service_LDADD = $(UNIT_LDADD) $(MUNGE_LIBS)

# The Prometheus text format (util/prom_text) and the metrics' text
# (report/metrics), parsed back by a reader written from the format's spec.
check_PROGRAMS += testsuite/unit/test_metrics
TESTS += testsuite/unit/test_metrics
testsuite_unit_test_metrics_SOURCES = testsuite/unit/test_metrics.c
testsuite_unit_test_metrics_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_metrics_LDADD = $(UNIT_LDADD) $(MUNGE_LIBS)

# The clients' reader of Slurm's configuration grammar, against the table
# the Python client passes too.
check_PROGRAMS += testsuite/unit/test_conf_file
TESTS += testsuite/unit/test_conf_file
testsuite_unit_test_conf_file_SOURCES = testsuite/unit/test_conf_file.c
testsuite_unit_test_conf_file_CFLAGS = $(UNIT_CFLAGS)
testsuite_unit_test_conf_file_LDADD = $(UNIT_LDADD) $(MUNGE_LIBS)
EXTRA_DIST += testsuite/data/conf_cases.json

# Load test (bench/load_reports.py drives it against a real cluster).
noinst_PROGRAMS += bench/load_reports
bench_load_reports_SOURCES = bench/load_reports.c
bench_load_reports_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(GSL_CFLAGS)
bench_load_reports_LDADD = $(TOOLS_LDADD) -lpthread

# The Python client (stdlib + ctypes): python3's site folder under the
# prefix, found by configure (--with-pythondir to choose another). Its
# constants are the C client's, written from the C headers at build time
# (HACKING.md, "The two clients") and installed beside it.
optimuspythondir = $(OPTIMUS_PYTHONDIR)
dist_optimuspython_DATA = python/optimus_report.py
nodist_optimuspython_DATA = python/optimus_report_consts.py
noinst_PROGRAMS += src/tools/report_consts_py
src_tools_report_consts_py_SOURCES = src/tools/report_consts_py.c
src_tools_report_consts_py_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
python/optimus_report_consts.py: src/tools/report_consts_py$(EXEEXT)
	$(MKDIR_P) python
	src/tools/report_consts_py$(EXEEXT) > $@.tmp && mv $@.tmp $@
CLEANFILES += python/optimus_report_consts.py

# The Python client's rules held to the C client's answers
# (testsuite/offline/test_client_rules.py runs this probe; built with
# everything, since CI lanes that run the unit tests in make distcheck
# run the offline tests in the tree).
noinst_PROGRAMS += testsuite/offline/client_rules
testsuite_offline_client_rules_SOURCES = testsuite/offline/client_rules.c
testsuite_offline_client_rules_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(GSL_CFLAGS)
testsuite_offline_client_rules_LDADD = $(TOOLS_LDADD)
EXTRA_DIST += testsuite/offline/test_client_rules.py \
	testsuite/offline/test_gradients_message.py
EXTRA_DIST += testsuite/fuzz/fuzz_protocol.c \
	testsuite/fuzz/run.sh bench/load_reports.py doc/design/reports.md \
	testsuite/integration/test_report.py
