#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""compare-debs.py - do two builds of the same source give the same
packages? Compares pairs of .deb files of the same name in two folders:
their control files and, for every file they install, its path, type,
mode, owner, size, time, link target and the SHA-256 of its content.

Usage: contrib/compare-debs.py DIR_A DIR_B

Prints one line per package (identical bytes, same contents, or the first
differences) and exits 1 if any package differs in content or is missing
from either folder (contrib/release-check.sh runs it on two builds made in
different folders at different times)."""
import hashlib
import io
import os
import subprocess
import sys
import tarfile


def members(deb, part):
    """{name: (type, mode, uid, gid, size, mtime, link, sha256)} of the
    deb's data (part "--fsys-tarfile") or control ("--ctrl-tarfile")."""
    data = subprocess.run(["dpkg-deb", part, deb], check=True,
                          capture_output=True).stdout
    found = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for m in tar:
            digest = ""
            if m.isfile():
                digest = hashlib.sha256(tar.extractfile(m).read()).hexdigest()
            found[m.name] = (m.type, oct(m.mode), m.uid, m.gid, m.size,
                             m.mtime, m.linkname, digest)
    return found


def differences(a, b):
    out = []
    for part in ("--ctrl-tarfile", "--fsys-tarfile"):
        ma, mb = members(a, part), members(b, part)
        for name in sorted(set(ma) | set(mb)):
            if ma.get(name) != mb.get(name):
                out.append("%s %s: %s != %s" % (part[2:6], name,
                                                 ma.get(name), mb.get(name)))
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    da, db = sys.argv[1:]
    debs = lambda d: {f for f in os.listdir(d) if f.endswith(".deb")}  # noqa
    names = debs(da) | debs(db)
    if not names:
        print("compare-debs: no .deb in %s or %s" % (da, db))
        return 1
    bad = 0
    for name in sorted(names):
        a, b = os.path.join(da, name), os.path.join(db, name)
        if not (os.path.exists(a) and os.path.exists(b)):
            print("%s: only in %s" % (name, da if os.path.exists(a) else db))
            bad += 1
            continue
        if open(a, "rb").read() == open(b, "rb").read():
            print("%s: identical bytes" % name)
            continue
        diff = differences(a, b)
        if diff:
            bad += 1
            print("%s: %d differences, the first:\n  %s" % (
                name, len(diff), "\n  ".join(diff[:10])))
        else:
            print("%s: same contents (the .deb bytes differ)" % name)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
