# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""HACKING.md's map of the house names every folder of the tree: a line
"    FOLDER/" names a folder from the top, and a line "      SUB/" below it
names FOLDER/SUB/. The Pollux artifact's data folders are its README's
to describe (testsuite/data/pollux-osdi21/README.md). Needs no cluster."""
import os
import re

import pytest

import tree_files

HACKING = os.path.join(tree_files.TOP, "HACKING.md")
# Folders whose subfolders their own README describes.
DESCRIBED_BY_README = ("testsuite/data/pollux-osdi21/",)


def map_folders(text):
    """The folders the map names, each ending in "/"."""
    block = text.split("## The map of the house", 1)[1]
    named, parent = set(), None
    for line in block.splitlines()[1:]:
        if line and not line.startswith(" "):
            break
        m = re.match(r"^( {4}| {6})([^ ]*/)", line)
        if not m:
            continue
        if len(m.group(1)) == 4:
            parent = m.group(2)
            named.add(parent)
        elif parent:
            named.add(parent + m.group(2))
    return named


def tree_folders():
    """The folders that hold a file of the tree (a folder of folders
    only, src/plugins/sched/, is named with its subfolder: sched/optimus/),
    but those a README describes."""
    files = tree_files.tracked_files()
    if files is None:
        pytest.skip("neither a git checkout nor a copy with .optimus-files")
    return {os.path.dirname(f) + "/" for f in files if "/" in f and
            not any(f.startswith(r) and os.path.dirname(f) + "/" != r
                    for r in DESCRIBED_BY_README)}


def test_map_names_every_folder():
    with open(HACKING) as f:
        named = map_folders(f.read())
    missing = sorted(tree_folders() - named)
    assert not missing, "HACKING.md's map does not name: %s" % missing


def test_map_names_no_folder_that_is_gone():
    """A folder the map names exists (a renamed one is renamed there)."""
    with open(HACKING) as f:
        named = map_folders(f.read())
    gone = sorted(d for d in named
                  if not os.path.isdir(os.path.join(tree_files.TOP, d)))
    assert not gone, "HACKING.md's map names folders that are gone: %s" % gone
