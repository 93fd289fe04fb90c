# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""What a site's packager takes from the tree, checked on the configured
build tree the suite runs from: the release tarball (`make dist` holds
every tracked file), what `make install` writes (under the configured
prefix, no build path in any file), the man pages (dates, `whatis`
names), the shell scripts (they parse under bash and dash) and the
licence as the packaging metadata states it. No cluster is started."""
import datetime
import os
import re
import shutil
import subprocess

import pytest

import tree_files

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# Written by `make dist` but not tracked: autotools' output.
GENERATED = re.compile(r"^(configure|aclocal\.m4|config\.h\.in|Makefile\.in|"
                       r"build-aux/.*|m4/.*)$")


def make_var(name):
    """A variable of the configured top Makefile, as configure wrote it."""
    with open(os.path.join(TOP, "Makefile")) as f:
        for line in f:
            m = re.match(r"^%s = (.*)$" % re.escape(name), line)
            if m:
                return m.group(1).strip()
    raise AssertionError("%s not set in %s/Makefile" % (name, TOP))


def tracked_files():
    """The tree's files (tree_files.py); skipped in a release tarball."""
    files = tree_files.tracked_files()
    if files is None:
        pytest.skip("neither a git checkout nor a copy with .optimus-files")
    return files


def test_dist_tarball_holds_every_tracked_file(tmp_path):
    """`make dist` is the release: the spec's Source0 and the Debian source
    package's .orig.tar.gz. It must hold everything a checkout has (the
    Pollux data `make check` reads, debian/, the spec, the doc pages, the
    examples, the integration tests), and nothing of a build."""
    version = make_var("PACKAGE_VERSION")
    dist = tmp_path / ("slurm-optimus-" + version)
    r = subprocess.run(["make", "-s", "distdir", "top_distdir=" + str(dist),
                        "distdir=" + str(dist)], cwd=TOP,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    shipped = set()
    for root, dirs, files in os.walk(dist):
        for f in files:
            shipped.add(os.path.relpath(os.path.join(root, f), dist))
    tracked = tracked_files()
    missing = sorted(tracked - shipped)
    assert not missing, "%d tracked files not in the tarball: %s" % (
        len(missing), missing[:40])
    extra = sorted(f for f in shipped - tracked if not GENERATED.match(f))
    assert not extra, "files in the tarball that are no source: %s" % extra


def _install(tmp_path, target="install"):
    """`make TARGET DESTDIR=stage`: {installed path: its file in stage}."""
    stage = str(tmp_path / "stage")
    r = subprocess.run(["make", "-s", target, "DESTDIR=" + stage], cwd=TOP,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    found = {}
    for root, _, files in os.walk(stage):
        for f in files:
            path = os.path.join(root, f)
            found[path[len(stage):]] = path
    assert found, "nothing installed in " + stage
    return found


def test_make_install_stays_under_the_prefix(tmp_path):
    """Every file `make install` writes lands under configure's --prefix
    (default /usr/local), the plugins too: a plain `make install` must not
    write into folders the system's package manager owns."""
    prefix = make_var("prefix").rstrip("/") + "/"
    found = _install(tmp_path)
    outside = sorted(p for p in found if not p.startswith(prefix))
    assert not outside, "installed outside --prefix=%s: %s" % (prefix,
                                                               outside)
    assert any(p.endswith("/sched_optimus.so") for p in found), sorted(found)


def test_installed_files_name_no_build_path(tmp_path):
    """No installed file carries the folder it was built in (or the Slurm
    source it was built against): such a path makes two builds of one
    commit differ, and a program that looks there first reads whatever a
    local user puts at that path once the package is installed. What
    `strings` shows is searched: the stripped binaries (install-strip, as
    packages ship them), the data, the scripts."""
    roots = {TOP, make_var("abs_top_builddir"), make_var("SLURM_SRC")}
    found = _install(tmp_path, "install-strip")
    hits = []
    for path, file in sorted(found.items()):
        with open(file, "rb") as f:
            data = f.read()
        for root in roots:
            if names_path(data, root):
                text = subprocess.run(["strings", "-n", "8", file],
                                      capture_output=True, text=True).stdout
                hits.append((path, [s for s in text.splitlines()
                                    if names_path(s.encode(), root)][:3]))
    assert not hits, "installed files naming the build: %s" % hits


def names_path(data, root):
    """Whether bytes `data` name the folder `root` as a path: `root` not
    inside a longer word or path. A tree cloned at /optimus must not match
    the text "sched/optimus"; "/optimus/src" and "'/optimus'" do match."""
    return re.search(rb"(?<![\w./-])" + re.escape(root.encode()) +
                     rb"(?![\w.-])", data) is not None


@pytest.mark.parametrize("data,named", [
    (b"\0/optimus/testsuite/data\0", True),
    (b"dir='/optimus'", True),
    (b"/optimus", True),
    (b"the sched/optimus plugin", False),
    (b"/optimus-ci/src", False),
    (b"/srv/optimus/src", False),
])
def test_build_path_match_is_a_whole_path(data, named):
    assert names_path(data, "/optimus") is named


def man_pages():
    folder = os.path.join(TOP, "doc", "man")
    return sorted(os.path.join(folder, f) for f in os.listdir(folder)
                  if re.match(r".*\.[1-8]$", f))


@pytest.mark.parametrize("page", man_pages(), ids=os.path.basename)
def test_man_page_date_and_whatis_name(page):
    """.TH's date is a date (ISO 8601, what man-db, mandoc and groff's
    an-ext read), and the NAME line gives the page's own name, which
    mandb indexes: `whatis sched_optimus` finds sched_optimus(8)."""
    text = open(page).read()
    th = re.search(r'^\.TH\s+(\S+)\s+(\d)\s+"([^"]*)"', text, re.M)
    assert th, "no .TH line in " + page
    try:
        datetime.date.fromisoformat(th.group(3))
    except ValueError:
        pytest.fail("%s: .TH date %r is not YYYY-MM-DD" % (page, th.group(3)))
    name = os.path.basename(page).rsplit(".", 1)[0]
    if not shutil.which("lexgrog"):
        pytest.skip("lexgrog (man-db) not installed")
    r = subprocess.run(["lexgrog", page], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    # "PAGE: "name1, name2 - description""
    names = re.findall(r'"([^"]*?) - ', r.stdout)
    assert names and name in [n.strip() for n in names[0].split(",")], \
        "whatis %s would not find %s: %s" % (name, page, r.stdout)


def shell_scripts():
    found = []
    for f in sorted(tracked_files()):
        path = os.path.join(TOP, f)
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, "rb") as fh:
            first = fh.readline()
        if re.match(rb"^#!\s*(/bin/sh|/bin/bash|/usr/bin/env (ba)?sh)\b",
                    first):
            found.append(f)
    return found


def test_shell_scripts_parse_under_bash_and_dash():
    """Every shell script of the tree parses under bash and under dash
    (Debian's /bin/sh): a site runs them with either."""
    bad = []
    for f in shell_scripts():
        for shell in ("bash", "dash"):
            if not shutil.which(shell):
                continue
            r = subprocess.run([shell, "-n", f], cwd=TOP,
                               capture_output=True, text=True)
            if r.returncode != 0:
                bad.append((shell, f, r.stderr.strip()))
    assert shell_scripts(), "no shell script found"
    assert not bad, bad


def dep5(path):
    """debian/copyright's paragraphs (DEP-5: blank-line separated
    'Field: value' blocks, continuation lines indented)."""
    paras = []
    for block in re.split(r"\n\s*\n", open(path).read().strip()):
        para, key = {}, None
        for line in block.splitlines():
            if line.startswith((" ", "\t")) and key:
                para[key] += "\n" + line.strip()
            else:
                key, _, value = line.partition(":")
                para[key] = value.strip()
        paras.append(para)
    return paras


def test_licence_in_the_packaging_metadata():
    """GPL-2.0-or-later for the source, GSL's GPL-3.0-or-later named for
    the binaries that link it, Apache-2.0 for the Pollux data, stated in
    debian/copyright (DEP-5, every licence's text or reference given), in
    the RPM spec (SPDX) and in the README."""
    paras = dep5(os.path.join(TOP, "debian", "copyright"))
    head = paras[0]
    assert head.get("Format", "").startswith(
        "https://www.debian.org/doc/packaging-manuals/copyright-format/1.0"), head
    files = {p["Files"]: p for p in paras if "Files" in p}
    assert files["*"]["License"].split("\n")[0] == "GPL-2+", files["*"]
    assert re.search(r"\d{4}", files["*"]["Copyright"]), files["*"]
    data = [p for g, p in files.items() if "pollux-osdi21" in g]
    assert data and data[0]["License"].split("\n")[0] == "Apache-2.0"
    # Each short name used has a stand-alone License paragraph.
    used = {p["License"].split("\n")[0] for p in files.values()}
    texts = {p["License"].split("\n")[0]: p["License"] for p in paras
             if "License" in p and "Files" not in p}
    for short in used:
        assert short in texts, "no License: %s paragraph" % short
        assert "/usr/share/common-licenses/" in texts[short], texts[short]
    # The binaries' terms: GSL's GPL-3.0-or-later, named in the header.
    comment = head.get("Comment", "")
    assert "GSL" in comment and "GPL-3.0-or-later" in comment and \
        "/usr/share/common-licenses/GPL-3" in comment, comment
    assert "not yet chosen" not in open(os.path.join(TOP, "debian",
                                                     "copyright")).read()

    spec = open(os.path.join(TOP, "contrib", "rpm",
                             "slurm-optimus.spec")).read()
    licences = re.findall(r"^License:\s*(.+)$", spec, re.M)
    assert licences, "no License: in the spec"
    for lic in licences:
        assert "GPL-3.0-or-later" in lic, lic
        assert re.fullmatch(r"[A-Za-z0-9.+-]+( (AND|OR|WITH) "
                            r"[A-Za-z0-9.+-]+)*", lic), \
            "not an SPDX expression: %r" % lic
    assert "%license COPYING" in spec

    readme = open(os.path.join(TOP, "README.md")).read()
    section = re.search(r"^## Licen[cs]e\n(.*?)(?=^## |\Z)", readme,
                        re.M | re.S)
    assert section, "no licence section in README.md"
    for word in ("GPL-2.0-or-later", "GPL-3.0-or-later", "GSL",
                 "Apache-2.0", "COPYING"):
        assert word in section.group(1), word


def defined_globals(path, dynamic):
    """The global symbols `path` defines (its dynamic table if `dynamic`)."""
    args = ["nm", "--defined-only", "-g"] + (["-D"] if dynamic else [])
    out = subprocess.run(args + [path], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines()
            if len(line.split()) == 3}


def plugin_exports_core(plugin, core):
    return sorted(defined_globals(plugin, True) & core)


PLUGINS = ["src/plugins/sched/optimus/.libs/sched_optimus.so",
           "src/plugins/job_submit/optimus/.libs/job_submit_optimus.so",
           "src/plugins/spank/optimus/.libs/spank_optimus.so"]


@pytest.mark.parametrize("plugin", PLUGINS)
def test_plugins_keep_the_core_to_themselves(plugin):
    """A plugin exports none of the core's functions: loaded into slurmctld
    beside other libraries, an exported core function of a common name
    resolves to theirs (Slurm 24.11: the job cap's cap_init() to libcap's,
    and every limited job waited). An installed plugin built before the
    module flags hid them shows cap_init here."""
    core = defined_globals(os.path.join(TOP, "src/common/.libs/"
                                        "liboptimus_core.a"), False)
    assert "cap_init" in core
    leaked = plugin_exports_core(os.path.join(TOP, plugin), core)
    assert not leaked, "%s exports core symbols: %s" % (plugin, leaked[:10])
