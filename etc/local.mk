# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
# Example configuration files, installed for reference.
exampledir = $(docdir)/examples
dist_example_DATA = etc/slurm.conf.example etc/plugstack.conf.example etc/optimus.conf
dist_example_DATA += etc/examples/optimus-async-tf.sbatch \
	etc/examples/optimus-allreduce-pytorch.sbatch \
	etc/examples/quality-mxnet.sbatch etc/examples/optimus-separate.sbatch
# node_exporter's textfile collector (doc/metrics.md)
dist_example_DATA += etc/optimus-metrics.service etc/optimus-metrics.timer
