# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# dist: what the release tarball (`make dist`) holds beyond the sources the
# other fragments list. The tarball is the release: the RPM spec's Source0
# and the Debian source package's .orig.tar.gz, so it holds every file of a
# checkout (testsuite/integration/test_release.py checks it against `git
# ls-files`), the data `make check` and `make install` read included.
EXTRA_DIST += HACKING.md .gitignore .ci/run \
	doc/hints.md doc/metrics.md doc/results.md \
	doc/design/allocation.md doc/design/planning.md
# Folders copied whole (their every file is source: data, tests, examples).
EXTRA_DIST += testsuite/data/pollux-osdi21 testsuite/integration examples \
	testsuite/fuzz/corpus
EXTRA_DIST += testsuite/conftest.py testsuite/run_integration.py \
	testsuite/cluster/cluster.py testsuite/cluster/optimus-cluster \
	testsuite/cluster/attack_helpers.py testsuite/cluster/examples_helpers.py \
	testsuite/cluster/fair_helpers.py testsuite/cluster/hints_helpers.py \
	testsuite/cluster/report_helpers.py testsuite/cluster/sched_helpers.py \
	testsuite/cluster/signal_storm.py testsuite/cluster/waiting.py \
	testsuite/cluster/tree_files.py testsuite/offline/test_hacking_map.py \
	testsuite/offline/test_cluster_slots.py \
	testsuite/offline/test_cluster_pids.py testsuite/fuzz/fuzz_models.c \
	testsuite/offline/test_fuzz_targets.py
EXTRA_DIST += bench/e2e_jct.py bench/flood_cost.py bench/gradient_stats_cost.py \
	bench/load_scale.py bench/pollux_replay.py bench/soak_faults.py \
	bench/start_cost.py bench/start_cost_model_1205.json \
	bench/start_cost_model_quiet.json bench/report_gaming.py \
	bench/slow_start_resizes.py
# The build, test and packaging scripts, and the packaging itself.
EXTRA_DIST += contrib/build.sh contrib/build-deb.sh contrib/build-rpm.sh \
	contrib/chroot-lane.sh contrib/demo.sh contrib/demo-workload.sh \
	contrib/install-deps.sh contrib/run-tests.sh contrib/tree-tar.sh \
	contrib/slurm-configure.sh contrib/run-offline.sh \
	contrib/release-check.sh contrib/compare-debs.py \
	contrib/record_replay_plan.c \
	contrib/rpm/slurm-optimus.spec contrib/rpm/slurm-optimus.rpmlintrc
EXTRA_DIST += debian/changelog debian/control debian/copyright debian/rules \
	debian/clean debian/source/format debian/source/lintian-overrides \
	debian/upstream/metadata \
	debian/slurm-optimus.install debian/slurm-optimus-ctld.install \
	debian/slurm-optimus.docs debian/slurm-optimus.lintian-overrides \
	debian/slurm-optimus-ctld.lintian-overrides

# Python's byte code of the folders copied whole (a test run leaves it).
dist-hook:
	find $(distdir) \( -name __pycache__ -o -name '*.pyc' \) -prune \
		-exec rm -rf {} +

# distcheck builds the tarball against the Slurm source this tree was
# configured with.
AM_DISTCHECK_CONFIGURE_FLAGS = --with-slurm-source=$(SLURM_SRC)
# The guides, by reader.
EXTRA_DIST += doc/user-guide.md doc/admin-guide.md
