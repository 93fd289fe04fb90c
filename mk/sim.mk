# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# sim: core sources, unit tests, tools and benchmarks (see HACKING.md)
# optimus-sim: the trace-driven simulator (doc/design/simulator.md). It links the
# core library and drives the same job_model.h/plan.h code as the plugin.
SIM_SOURCES = \
	src/tools/optimus-sim/sim_catalog.h src/tools/optimus-sim/sim_catalog.c \
	src/tools/optimus-sim/sim_truth.h src/tools/optimus-sim/sim_truth.c \
	src/tools/optimus-sim/sim_truth_ops.h src/tools/optimus-sim/sim_truth_ops.c \
	src/tools/optimus-sim/sim_catalog_truth.c \
	src/tools/optimus-sim/sim_events.h src/tools/optimus-sim/sim_events.c \
	src/tools/optimus-sim/sim_engine.h src/tools/optimus-sim/sim_engine.c \
	src/tools/optimus-sim/sim_workload.h \
	src/tools/optimus-sim/sim_workload.c \
	src/tools/optimus-sim/sim_run.h src/tools/optimus-sim/sim_run.c \
	src/tools/optimus-sim/sim_state.h src/tools/optimus-sim/sim_job.c \
	src/tools/optimus-sim/sim_apply.c src/tools/optimus-sim/sim_epoch.c \
	src/tools/optimus-sim/sim_decision.h src/tools/optimus-sim/sim_decision.c \
	src/tools/optimus-sim/sim_apply_decision.h \
	src/tools/optimus-sim/sim_apply_decision.c \
	src/tools/optimus-sim/sim_plan.h src/tools/optimus-sim/sim_plan.c \
	src/tools/optimus-sim/sim_start_cost.h \
	src/tools/optimus-sim/sim_start_cost.c \
	src/tools/optimus-sim/sim_outcome.h src/tools/optimus-sim/sim_outcome.c \
	src/tools/optimus-sim/sim_hold.h src/tools/optimus-sim/sim_hold.c \
	src/tools/optimus-sim/sim_job_core.h \
	src/tools/optimus-sim/sim_qtrace.c \
	src/tools/optimus-sim/sim_curves.h src/tools/optimus-sim/sim_curves.c \
	src/tools/optimus-sim/sim_rank.h src/tools/optimus-sim/sim_rank.c \
	src/tools/optimus-sim/sim_report.h src/tools/optimus-sim/sim_report.c \
	src/tools/optimus-sim/sim_exp.h src/tools/optimus-sim/sim_exp.c \
	src/tools/optimus-sim/sim_exp_optimus.c \
	src/tools/optimus-sim/sim_exp_quality.c \
	src/tools/optimus-sim/sim_exp_sweep.c \
	src/tools/optimus-sim/sim_exp_qbench.c \
	src/tools/optimus-sim/sim_progress.h \
	src/tools/optimus-sim/sim_progress.c \
	src/tools/optimus-sim/measured/csv.h src/tools/optimus-sim/measured/csv.c \
	src/tools/optimus-sim/measured/interp_nd.h src/tools/optimus-sim/measured/interp_nd.c \
	src/tools/optimus-sim/measured/app.h src/tools/optimus-sim/measured/app.c \
	src/tools/optimus-sim/measured/app_truth.c \
	src/tools/optimus-sim/measured/engine.h src/tools/optimus-sim/measured/engine.c \
	src/tools/optimus-sim/measured/workload.c \
	src/tools/optimus-sim/measured/declared.h \
	src/tools/optimus-sim/measured/declared.c \
	src/tools/optimus-sim/measured/place.h \
	src/tools/optimus-sim/measured/place.c \
	src/tools/optimus-sim/measured/policy.h \
	src/tools/optimus-sim/measured/peer_baselines.c src/tools/optimus-sim/measured/policy.c \
	src/tools/optimus-sim/measured/plan_adapter.c \
	src/tools/optimus-sim/measured/slurm_backfill.c \
	src/tools/optimus-sim/measured/experiment.h src/tools/optimus-sim/measured/experiment.c \
	src/tools/optimus-sim/measured/truth.h \
	src/tools/optimus-sim/measured/truth.c \
	src/tools/optimus-sim/sim_straggler.c \
	src/tools/optimus-sim/sim_exp_stragglers.c \
	src/tools/optimus-sim/sim_data.h src/tools/optimus-sim/sim_data.c
# The measured workloads (measured/experiment.c) and the quality curves are read
# from the copy installed in $(pkgdatadir), unless --data, OPTIMUS_POLLUX_DATA
# or OPTIMUS_SIM_CURVES says otherwise (sim_data.h: never from the build
# folder, whose path would be in the installed binary).
SIM_CPPFLAGS = -I$(top_srcdir)/src/tools/optimus-sim \
	-DPOLLUX_DATA_INSTALLED='"$(pkgdatadir)/pollux-osdi21"' \
	-DSIM_CURVES_INSTALLED='"$(pkgdatadir)/quality-curves/curves.csv"'
# The unit tests (never installed) read the source tree's copy.
SIM_TEST_CPPFLAGS = $(SIM_CPPFLAGS) \
	-DPOLLUX_DATA_DIR='"$(abs_top_srcdir)/testsuite/data/pollux-osdi21"'
SIM_LDADD = src/common/liboptimus_core.la $(GSL_LIBS) $(JSONC_LIBS) \
	$(QHULL_LIBS) -lm

bin_PROGRAMS += src/tools/optimus-sim/optimus-sim
src_tools_optimus_sim_optimus_sim_SOURCES = $(SIM_SOURCES) \
	src/tools/optimus-sim/main.c
src_tools_optimus_sim_optimus_sim_CPPFLAGS = $(AM_CPPFLAGS) $(SIM_CPPFLAGS)
src_tools_optimus_sim_optimus_sim_CFLAGS = $(AM_CFLAGS) $(GSL_CFLAGS) \
	$(JSONC_CFLAGS) $(QHULL_CFLAGS)
src_tools_optimus_sim_optimus_sim_LDADD = $(SIM_LDADD)

# Unit tests: determinism, event order, trace parsing, truth models.
check_PROGRAMS += testsuite/unit/test_sim
TESTS += testsuite/unit/test_sim
testsuite_unit_test_sim_SOURCES = testsuite/unit/test_sim.c $(SIM_SOURCES)
testsuite_unit_test_sim_CPPFLAGS = $(AM_CPPFLAGS) $(SIM_TEST_CPPFLAGS) \
	-I$(top_srcdir)/src/tools/optimus-sim
testsuite_unit_test_sim_CFLAGS = $(UNIT_CFLAGS) $(QHULL_CFLAGS)
testsuite_unit_test_sim_LDADD = $(UNIT_LDADD) $(QHULL_LIBS)

# Unit tests of the measured-workload simulation.
check_PROGRAMS += testsuite/unit/test_pollux
TESTS += testsuite/unit/test_pollux
testsuite_unit_test_pollux_SOURCES = testsuite/unit/test_pollux.c \
	testsuite/unit/pollux_fixture.h $(SIM_SOURCES)
testsuite_unit_test_pollux_CPPFLAGS = $(testsuite_unit_test_sim_CPPFLAGS)
testsuite_unit_test_pollux_CFLAGS = $(testsuite_unit_test_sim_CFLAGS)
testsuite_unit_test_pollux_LDADD = $(testsuite_unit_test_sim_LDADD)

# The measured engine through its truth interface with a fake truth, and
# the plan's placement for the policies that place their own jobs.
check_PROGRAMS += testsuite/unit/test_pollux_engine
TESTS += testsuite/unit/test_pollux_engine
testsuite_unit_test_pollux_engine_SOURCES = \
	testsuite/unit/test_pollux_engine.c $(SIM_SOURCES)
testsuite_unit_test_pollux_engine_CPPFLAGS = \
	$(testsuite_unit_test_sim_CPPFLAGS)
testsuite_unit_test_pollux_engine_CFLAGS = $(testsuite_unit_test_sim_CFLAGS)
testsuite_unit_test_pollux_engine_LDADD = $(testsuite_unit_test_sim_LDADD)

EXTRA_DIST += examples/traces/sample.csv doc/design/simulator.md \
	testsuite/offline/test_sim.py testsuite/offline/test_replay_truth.py \
	testsuite/offline/test_quality_curves.py \
	testsuite/offline/test_gradient_stats.py testsuite/offline/test_sync_timer.py \
	testsuite/offline/test_report_run.py \
	testsuite/offline/test_rebatch_client.py
# quality-vs-fair's recorded curves, the script that made them and the
# cluster benchmark that trains the same runs.
EXTRA_DIST += testsuite/data/quality-curves/README.md \
	testsuite/data/quality-curves/curves.csv \
	testsuite/data/quality-curves/dl.csv \
	contrib/record_quality_curves.py bench/quality_fair.py \
	bench/adaptive_ddp.py bench/job_outcome.py \
	bench/quality_job.py bench/quality_job.sh

# The replay test: one recorded planning input through sched/optimus'
# translate step (planner_input.c, no Slurm calls) and the simulator's
# (sim_apply.c); both must give the same decisions.
check_PROGRAMS += testsuite/unit/test_replay
TESTS += testsuite/unit/test_replay
testsuite_unit_test_replay_SOURCES = testsuite/unit/test_replay.c \
	$(SIM_SOURCES) src/plugins/sched/optimus/planner_input.c
testsuite_unit_test_replay_CPPFLAGS = $(AM_CPPFLAGS) $(SIM_TEST_CPPFLAGS) \
	-I$(top_srcdir)/src/tools/optimus-sim \
	-I$(top_srcdir)/src/plugins/sched/optimus
testsuite_unit_test_replay_CFLAGS = $(UNIT_CFLAGS) $(QHULL_CFLAGS)
testsuite_unit_test_replay_LDADD = $(UNIT_LDADD) $(QHULL_LIBS)
EXTRA_DIST += testsuite/data/replay_plan.json

# The data an installed optimus-sim reads by default (sim_data.c).
install-data-local: install-sim-data
install-sim-data:
	$(MKDIR_P) $(DESTDIR)$(pkgdatadir)
	cp -R $(srcdir)/testsuite/data/pollux-osdi21 \
		$(srcdir)/testsuite/data/quality-curves $(DESTDIR)$(pkgdatadir)/
	chmod -R u+w,go+rX $(DESTDIR)$(pkgdatadir)
uninstall-local: uninstall-sim-data
uninstall-sim-data:
	rm -rf $(DESTDIR)$(pkgdatadir)/pollux-osdi21 \
		$(DESTDIR)$(pkgdatadir)/quality-curves
.PHONY: install-sim-data uninstall-sim-data
