# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""The files of the source tree as a fresh clone plus uncommitted work has
them (contrib/tree-tar.sh --list), for the tests that hold the tree to
what is said of it: test_release.py (the release tarball) and
test_hacking_map.py (HACKING.md's map)."""
import os
import subprocess

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def tracked_files():
    """The tree's files, relative to its top; a copy without .git (CI's
    chroot lanes) keeps their list in .optimus-files. None when neither
    is there (a release tarball)."""
    listed = os.path.join(TOP, ".optimus-files")
    if os.path.lexists(os.path.join(TOP, ".git")):
        text = subprocess.run([os.path.join(TOP, "contrib", "tree-tar.sh"),
                               "--list"], capture_output=True, text=True,
                              check=True).stdout
    elif os.path.exists(listed):
        with open(listed) as f:
            text = f.read()
    else:
        return None
    return {f for f in text.splitlines() if f and
            os.path.lexists(os.path.join(TOP, f))}
