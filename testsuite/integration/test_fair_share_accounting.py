# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Fair shares between users follow Slurm's association shares
(sched_optimus(8) FAIR SHARES), on a real cluster of 16 GPUs with
slurmdbd and priority/multifactor (slurmctld normalizes shares only under
a priority plugin other than priority/basic): two ordinary users in one
account with Fairshare=3 and Fairshare=1 (normalized shares 0.6 and 0.2,
root's association taking the rest) split the GPUs 12 and 4 when both
want them all; with equal shares they split them 8 and 8
(test_fair_share.py)."""
import re

import fair_helpers
from fair_helpers import JOB, side_by_side, users
from waiting import wait_for

# Later keys of slurm.conf win: the test clusters name priority/basic.
CLUSTER_OPTIONS = dict(fair_helpers.CLUSTER_OPTIONS,
                       extra_conf="PriorityType=priority/multifactor\n")


def shares_norm(cluster, user):
    """slurmctld's normalized shares of `user`'s association, or None."""
    r = cluster.run(["scontrol", "show", "assoc_mgr", "users=" + user,
                     "flags=assoc"], check=False)
    m = re.search(r"UserName=%s\(\d+\).*?SharesRaw/Norm/Level/Factor="
                  r"\d+/([0-9.]+)/" % re.escape(user), r.stdout, re.S)
    return float(m.group(1)) if m else None


def test_association_shares_split_the_gpus(accounting_cluster):
    c = accounting_cluster
    heavy, light = users()
    for user, share in ((heavy, 3), (light, 1)):
        c.run(["sacctmgr", "-i", "add", "user", user, "account=optimus",
               "fairshare=%d" % share])
    norm = wait_for(lambda: (lambda a, b: a and b and (a, b))(
        shares_norm(c, heavy), shares_norm(c, light)), 60,
        "the users' associations in slurmctld")
    print("normalized shares: %s %.2f, %s %.2f" % (heavy, norm[0], light,
                                                   norm[1]))
    assert abs(norm[0] / norm[1] - 3.0) < 0.1, norm
    a, b = side_by_side(c, (heavy, "fs3", JOB), (light, "fs1", JOB), 30)
    print("Fairshare=3 job: %s..%s GPUs; Fairshare=1 job: %s..%s GPUs"
          % (a["min"], a["max"], b["min"], b["max"]))
    assert a["min"] >= 12 and b["min"] >= 4, (a, b)
