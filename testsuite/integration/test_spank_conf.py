# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""spank/optimus's plugstack.conf arguments: a relative
or too long state_dir= is refused with a message naming it, never cut or
passed over with a generic failure."""
import pytest

import hints_helpers as hh

SCRIPT = "#!/bin/sh\ntrue\n"
LONG = "/" + "d" * 300


@pytest.mark.parametrize("arg,needle", [
    ("state_dir=relative/dir", "state_dir='relative/dir' is not an absolute path"),
    ("state_dir=" + LONG, "state_dir is 301 characters long, at most 255"),
    ("state_dir=", "state_dir='' is not an absolute path"),
], ids=["relative", "too-long", "empty"])
def test_bad_state_dir_is_named(cluster, arg, needle):
    conf = hh.client_conf(cluster, "statedir", ["required %s %s"
                                                % (hh.SPANK_SO, arg)])
    r = hh.sbatch(cluster, ["-o", "/dev/null", "--scheduler=optimus"],
                  SCRIPT, conf=conf, check=False)
    assert r.returncode != 0
    assert needle in r.stderr, r.stderr


def test_good_state_dir_accepted(cluster):
    conf = hh.client_conf(cluster, "statedir-ok", ["required %s state_dir=%s"
                                                   % (hh.SPANK_SO, "/" + "d" * 254)])
    r = hh.sbatch(cluster, ["-H", "-o", "/dev/null", "--scheduler=optimus"],
                  SCRIPT, conf=conf, check=False)
    assert r.returncode == 0, r.stderr
    cluster.run(["scancel", hh.job_id(r).__str__()], check=False)
