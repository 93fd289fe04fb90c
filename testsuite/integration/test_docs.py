# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""Every command block of the README and of the two guides, run.

The blocks are read from the documents themselves, so a command that
stops working, or an option renamed, fails here rather than in a reader's
shell. How each block is run, by its fence's language:

- `sh`: the document's `sh` blocks run in order in one bash session
  (`set -e`), so that a variable one block sets serves the next, against a
  real localhost cluster: the README's five-minute tour starts one with
  testsuite/cluster/optimus-cluster (the harness of testsuite/cluster,
  in a folder of this test's instead of /tmp/oc) and the guides run on it.
  A block that begins with `#!` is a batch script: it is submitted and
  must complete.
- `console`: each `$ ` line is run; the lines after it must all appear in
  what it prints (the documented message, to the letter).
- `ini`: configuration; its first line names the file. optimus.conf lines
  are put in force on the cluster and `optimusctl show config` must show
  them; slurm.conf lines must be the cluster's own settings (SITE_VALUES:
  the keys whose value is the site's choice); plugstack.conf names the
  plugin the cluster loads.
- `text`: output shown to the reader, no command in it.
- indented blocks and any block in EXCEPTIONS are not run, each for the
  reason given there; an exception that matches no block fails the test.
"""
import os
import re
import shutil
import subprocess
import tempfile
from collections import namedtuple

import pytest

from waiting import wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
CLUSTER_TOOL = os.path.join(TOP, "testsuite", "cluster", "optimus-cluster")
CONF_C = os.path.join(TOP, "src", "plugins", "sched", "optimus",
                      "optimus_conf.c")
README = "README.md"
USER_GUIDE = "doc/user-guide.md"
ADMIN_GUIDE = "doc/admin-guide.md"
DOCS = (README, USER_GUIDE, ADMIN_GUIDE)
# The README's tour names its cluster's folder; the test's is its own.
TOUR_DIR = "/tmp/oc"

# (document, first line of the block, why it is not run here)
EXCEPTIONS = [
    (README, "contrib/demo.sh         # installs, builds, starts a 4-node "
     "localhost cluster with the plugins, runs a demo workload and a short "
     "optimus-vs-backfill comparison",
     "installs packages and builds the tree: contrib/demo.sh is itself run "
     "whole by CI's fresh-machine lanes"),
    (README, "contrib/install-deps.sh                 # build dependencies "
     "(apt-get)",
     "installs Debian packages and builds .debs (minutes, root, network "
     "once): test_install.py installs and checks the packages CI builds"),
    (README, "/usr/bin/python3 -m pytest -q -p no:cacheprovider "
     "testsuite/integration/test_docs.py",
     "this very module"),
    (ADMIN_GUIDE, "contrib/install-deps.sh",
     "installs Debian packages, builds the tree and the .debs: "
     "test_install.py checks the packages CI builds this way"),
    (ADMIN_GUIDE, "apt-get install ./debs/slurm-optimus_*.deb "
     "./debs/slurm-optimus-ctld_*.deb",
     "installs packages on the host: test_install.py does it in CI's chroot"),
    (ADMIN_GUIDE, "systemctl restart slurmctld",
     "the site's slurmctld, not the test cluster's"),
    (ADMIN_GUIDE, "contrib/build-rpm.sh /path/to/slurm-X.Y.Z.tar.bz2",
     "needs SchedMD's Slurm tarball and rpmbuild: CI's Debian 13 lane "
     "builds the RPMs and test_install.py checks them"),
    (ADMIN_GUIDE, "autoreconf -fi",
     "the build itself: contrib/build.sh runs these steps before any test"),
    (ADMIN_GUIDE, "cp /usr/share/doc/slurm-optimus/examples/optimus-metrics.* "
     "/etc/systemd/system/",
     "installs a systemd timer on the host; test_install.py checks the "
     "packaged unit files"),
]
# The first lines of the README, kept runnable on a fresh machine: not run
# here (they install and build), named so that they cannot go unnoticed.
INDENTED_EXCEPTIONS = {
    README: ("contrib/demo.sh", "contrib/run-tests.sh"),
}
# slurm.conf keys whose value in the documents is a site's choice: the
# test cluster sets them too, to its own value (a port range of its own,
# its munge socket beside cred_expire).
SITE_VALUES = {
    "MpiParams": "each test cluster reserves task ports from a range of "
                 "its own (testsuite/cluster/cluster.py, SLOTS)",
}

Block = namedtuple("Block", "doc line lang text")


def read(doc):
    with open(os.path.join(TOP, doc), encoding="utf-8") as f:
        return f.read()


def blocks(doc, text=None):
    """The code blocks of a document: fenced ones with their language,
    indented ones (four spaces after a blank line) as lang 'indented'."""
    text = read(doc) if text is None else text
    lines = text.split("\n")
    out = []
    i = 0
    prev_blank = True
    while i < len(lines):
        m = re.match(r"^( {0,3})```(\S*)\s*$", lines[i])
        if m:
            indent, lang = len(m.group(1)), m.group(2)
            body = []
            j = i + 1
            while j < len(lines) and not re.match(r"^ {0,3}```\s*$", lines[j]):
                body.append(lines[j][indent:] if lines[j][:indent].strip() == ""
                            else lines[j])
                j += 1
            assert j < len(lines), "%s:%d: fence not closed" % (doc, i + 1)
            out.append(Block(doc, i + 1, lang, "\n".join(body)))
            i = j + 1
            prev_blank = False
            continue
        if prev_blank and lines[i].startswith("    ") and lines[i].strip():
            body = []
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or
                                      not lines[j].strip()):
                body.append(lines[j][4:])
                j += 1
            out.append(Block(doc, i + 1, "indented", "\n".join(body).strip()))
            i = j
            prev_blank = True
            continue
        prev_blank = not lines[i].strip()
        i += 1
    return out


def first_line(block):
    return next((l for l in block.text.split("\n") if l.strip()), "")


def excepted(block):
    return any(doc == block.doc and line == first_line(block)
               for doc, line, _ in EXCEPTIONS)


def shell_blocks(doc, text=None):
    """The document's `sh` blocks that run in its session, in order."""
    return [b for b in blocks(doc, text) if b.lang == "sh" and
            not excepted(b) and not b.text.startswith("#!")]


def session_script(bs, tour_dir):
    """One bash script running the blocks in order; a failure names its
    block (document and line)."""
    parts = ["set -e",
             "trap 'echo \"test_docs: the block at $DOC_BLOCK failed "
             "(exit $?)\" >&2' ERR"]
    for b in bs:
        parts.append("DOC_BLOCK='%s:%d'" % (b.doc, b.line))
        parts.append(b.text.replace(TOUR_DIR, tour_dir))
    return "\n".join(parts) + "\n"


def run_session(bs, tour_dir, cwd, prefix="", timeout=600):
    """The session's result; one that outlives `timeout` is a failure
    with what it printed (the fixture must still reach its teardown)."""
    script = prefix + session_script(bs, tour_dir)
    try:
        return subprocess.run(["/bin/bash", "-c", script], cwd=cwd,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        said = [x.decode(errors="replace") if isinstance(x, bytes) else x or ""
                for x in (e.stdout, e.stderr)]
        return subprocess.CompletedProcess(
            e.cmd, -1, said[0], said[1] + "\ntest_docs: timed out after "
            "%d s" % timeout)


def cluster_env_prefix(tour_dir):
    """The lines that point a shell at the tour's cluster (the README's own
    `eval`)."""
    return 'eval "$(%s env --dir %s)"\n' % (CLUSTER_TOOL, tour_dir)


def shell(tour_dir, command, cwd, timeout=120):
    return subprocess.run(["/bin/bash", "-c",
                           cluster_env_prefix(tour_dir) + command],
                          cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def cancel_all(tour_dir, cwd):
    shell(tour_dir, "scancel -u $(id -un); "
          "while [ -n \"$(squeue -h -t PD,R,CG)\" ]; do sleep 1; done",
          cwd, timeout=120)


def console_failures(block, tour_dir, cwd):
    """Each `$ ` command of a console block run; what it should have
    printed and did not, as a list of messages."""
    failures = []
    command, expected = None, []

    def check():
        if command is None:
            return
        r = shell(tour_dir, command, cwd)
        said = r.stdout + r.stderr
        for line in expected:
            if line.strip() and line.strip() not in said:
                failures.append("%s:%d: `%s` did not print %r; it printed %r"
                                % (block.doc, block.line, command,
                                   line.strip(), said))
    for line in block.text.split("\n"):
        if line.startswith("$ "):
            check()
            command, expected = line[2:], []
        else:
            expected.append(line)
    check()
    return failures


def conf_lines(text):
    """Key=Value pairs of a configuration block (comments left out)."""
    pairs = []
    for line in text.split("\n"):
        line = line.split("#", 1)[0].strip()
        if "=" in line:
            k, v = line.split("=", 1)
            pairs.append((k.strip(), v.strip()))
    return pairs


# ----------------------------------------------------------- no cluster
def test_every_block_has_a_way_to_run():
    """Every block is of a kind this module runs or checks, or an
    exception with its reason; every exception still names a block."""
    kinds = {"sh", "console", "ini", "text", "indented"}
    used = set()
    for doc in DOCS:
        for b in blocks(doc):
            assert b.lang in kinds, "%s:%d: a block of language %r: give " \
                "it one of %s" % (doc, b.line, b.lang, sorted(kinds))
            if b.lang == "indented":
                assert first_line(b).split()[0] in \
                    INDENTED_EXCEPTIONS.get(doc, ()), \
                    "%s:%d: an indented block: fence it (```sh) so that " \
                    "it runs" % (doc, b.line)
                used.update(("indented", doc, c) for c in
                            INDENTED_EXCEPTIONS[doc]
                            if c in b.text)
            if b.lang == "text":
                assert not re.search(r"^\$ ", b.text, re.M), \
                    "%s:%d: a text block holds a command" % (doc, b.line)
            if b.lang == "ini":
                assert first_line(b) in ("# slurm.conf", "# optimus.conf",
                                         "# plugstack.conf"), \
                    "%s:%d: a configuration block names its file on its " \
                    "first line" % (doc, b.line)
            if excepted(b):
                used.add((doc, first_line(b)))
    for doc, line, why in EXCEPTIONS:
        assert why and (doc, line) in used, \
            "exception matches no block of %s: %r" % (doc, line)
    for doc, commands in INDENTED_EXCEPTIONS.items():
        for c in commands:
            assert ("indented", doc, c) in used, (doc, c)


def test_the_readme_starts_with_the_two_commands():
    """The README's first lines: the demo and every test, on a fresh
    machine (both scripts are what CI's fresh-machine lanes run)."""
    head = read(README).split("\n")[:8]
    assert any(l.strip().startswith("contrib/demo.sh ") for l in head), head
    assert any(l.strip().startswith("contrib/run-tests.sh ") for l in head), head
    for script in ("demo.sh", "run-tests.sh"):
        assert os.access(os.path.join(TOP, "contrib", script), os.X_OK)


def test_every_optimus_conf_key_is_in_the_admin_guide():
    """The admin guide's tables hold every key sched/optimus reads."""
    keys = set(re.findall(r'\.key = "([A-Za-z]+)"', open(CONF_C).read()))
    assert len(keys) >= 25, keys     # the parser's table was found
    guide = read(ADMIN_GUIDE)
    missing = sorted(k for k in keys if "| `%s` |" % k not in guide)
    assert not missing, "optimus.conf keys missing from %s: %s" % (
        ADMIN_GUIDE, missing)


def test_pages_stay_readable():
    """The front door stays short; no guide grows past 800 lines; no
    page speaks of this repository's issues."""
    readme = read(README)
    assert readme.count("\n") <= 300, readme.count("\n")
    assert len(readme.split()) <= 2500, len(readme.split())
    for doc in DOCS:
        text = read(doc)
        assert text.count("\n") <= 800, doc
        assert not re.search(r"[Ii]ssues? #?[0-9]", text), doc
        assert not re.search(r"superseded|not kept", text), doc


def github_anchor(heading):
    """GitHub's anchor of a Markdown heading."""
    a = heading.strip().lower()
    a = re.sub(r"[^\w\- ]", "", a)
    return a.replace(" ", "-")


def test_links_resolve():
    """Every relative link of the README and the guides names a file of
    the tree, and an anchor one of its headings."""
    missing = []
    for doc in DOCS:
        base = os.path.dirname(os.path.join(TOP, doc))
        for target in re.findall(r"\]\(([^)\s]+)\)", read(doc)):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(base, path)) if path \
                else os.path.join(TOP, doc)
            if not os.path.exists(full):
                missing.append("%s: %s (%s)" % (doc, target,
                                                os.path.relpath(full, TOP)))
                continue
            if anchor and full.endswith(".md"):
                heads = [github_anchor(h) for h in re.findall(
                    r"^#+ (.+)$", open(full, encoding="utf-8").read(), re.M)]
                if anchor not in heads:
                    missing.append("%s: %s (no such heading)" % (doc, target))
    # The design pages and the results page are written on another branch
    # of this tree: until it is merged their links cannot resolve, and say
    # so rather than pass.
    pending = [m for m in missing if re.search(
        r"\(doc/(results\.md|design/[a-z]+\.md)\)$", m)]
    assert not [m for m in missing if m not in pending], missing
    if pending and not os.path.isdir(os.path.join(TOP, "doc", "design")):
        pytest.skip("no doc/design/ in this tree: %d links wait for it: %s"
                    % (len(pending), pending))
    assert not pending, pending


# --------------------------------------------------------- the cluster
@pytest.fixture(scope="module")
def tour():
    """The README's tour, every block but its last (the cluster's stop):
    (its folder, its work folder for the guides, the session's result)."""
    root = tempfile.mkdtemp(prefix="optimus-test-docs-")
    tour_dir = os.path.join(root, "oc")
    work = os.path.join(root, "work")
    os.makedirs(work)
    # The guides' commands name examples/ from the top of the source tree;
    # they run in a folder of their own so that their jobs' output and
    # checkpoints stay out of the tree.
    os.symlink(os.path.join(TOP, "examples"), os.path.join(work, "examples"))
    readme = shell_blocks(README)
    assert readme and TOUR_DIR in readme[0].text, "the tour starts a cluster"
    result = run_session(readme[:-1], tour_dir, TOP)
    yield tour_dir, work, result
    subprocess.run([CLUSTER_TOOL, "stop", "--dir", tour_dir],
                   capture_output=True, timeout=180)
    shutil.rmtree(root, ignore_errors=True)


def assert_session(r):
    assert r.returncode == 0, "stdout:\n%s\nstderr:\n%s" % (
        r.stdout[-4000:], r.stderr[-4000:])


def test_readme_tour(tour):
    """Start a cluster, submit, watch, resize, sacct: the README's five
    minutes, as written."""
    _, _, r = tour
    assert_session(r)
    # the resize happened and sacct has the completion time
    assert "last stop: " in r.stdout, r.stdout
    assert "jct=" in r.stdout, r.stdout


def test_user_guide_commands(tour):
    tour_dir, work, _ = tour
    try:
        r = run_session(shell_blocks(USER_GUIDE), tour_dir, work,
                        prefix=cluster_env_prefix(tour_dir), timeout=180)
        assert_session(r)
    finally:
        cancel_all(tour_dir, work)


def test_user_guide_batch_script_completes(tour):
    """The guide's complete elastic job, submitted as written."""
    tour_dir, work, _ = tour
    scripts = [b for b in blocks(USER_GUIDE)
               if b.lang == "sh" and b.text.startswith("#!")]
    assert scripts, "the user guide shows a complete batch script"
    for b in scripts:
        path = os.path.join(work, "script-%d.sbatch" % b.line)
        with open(path, "w") as f:
            f.write(b.text + "\n")
        r = shell(tour_dir, "sbatch --parsable -o %s/script-%%j.out %s"
                  % (work, path), work)
        assert r.returncode == 0, r.stderr
        job = r.stdout.strip().split(";")[0]

        def state():
            s = shell(tour_dir, "scontrol -o show job %s" % job, work).stdout
            m = re.search(r"JobState=(\S+)", s)
            return m and m.group(1) in ("COMPLETED", "FAILED", "CANCELLED",
                                        "TIMEOUT", "NODE_FAIL") and m.group(1)
        final = wait_for(state, 150, "the guide's batch script to end")
        out = open(os.path.join(work, "script-%s.out" % job)).read()
        assert final == "COMPLETED", out
        assert "done at step 200" in out, out


def test_console_blocks_print_what_they_say(tour):
    tour_dir, work, _ = tour
    failures = []
    try:
        for doc in DOCS:
            for b in blocks(doc):
                if b.lang == "console":
                    failures += console_failures(b, tour_dir, work)
    finally:
        cancel_all(tour_dir, work)
    assert not failures, "\n".join(failures)


def test_admin_guide_commands(tour):
    tour_dir, work, _ = tour
    r = run_session(shell_blocks(ADMIN_GUIDE), tour_dir, work,
                    prefix=cluster_env_prefix(tour_dir), timeout=120)
    assert_session(r)


def test_configuration_blocks_are_in_force(tour):
    """optimus.conf blocks put in force and shown by `optimusctl show
    config`; slurm.conf and plugstack.conf blocks are what the cluster
    runs with."""
    tour_dir, work, _ = tour
    etc = os.path.join(tour_dir, "etc")
    slurm_conf = dict(conf_lines(open(os.path.join(etc, "slurm.conf")).read()))
    plugstack = open(os.path.join(etc, "plugstack.conf")).read().split()
    conf = os.path.join(etc, "optimus.conf")
    kept = open(conf).read()
    seen = 0
    try:
        for doc in DOCS:
            for b in blocks(doc):
                if b.lang != "ini":
                    continue
                seen += 1
                name = first_line(b)
                where = "%s:%d" % (doc, b.line)
                if name == "# slurm.conf":
                    for k, v in conf_lines(b.text):
                        assert k in slurm_conf, (where, k)
                        assert k in SITE_VALUES or slurm_conf[k] == v, \
                            (where, k, v, slurm_conf[k])
                elif name == "# plugstack.conf":
                    words = b.text.split("\n", 1)[1].split()
                    assert words[0] == plugstack[0], (where, words)
                    assert os.path.basename(words[1]) == \
                        os.path.basename(plugstack[1]), (where, words)
                else:
                    with open(conf, "w") as f:
                        f.write(kept + b.text + "\n")
                    r = shell(tour_dir, "scontrol reconfigure", work)
                    assert r.returncode == 0, r.stderr
                    want = ["%s=%s" % kv for kv in conf_lines(b.text)]

                    def shown():
                        s = shell(tour_dir, "optimusctl show config",
                                  work).stdout.lower().split("\n")
                        return all(w.lower() in s for w in want)
                    wait_for(shown, 60, "%s's settings in force" % where)
    finally:
        with open(conf, "w") as f:
            f.write(kept)
        shell(tour_dir, "scontrol reconfigure", work)
    assert seen >= 3, seen


def test_a_wrong_option_in_a_block_fails(tour):
    """The runner is no rubber stamp: a hint misspelt in the user guide's
    first submission fails its session, naming the block; a message
    changed in a console block is reported."""
    tour_dir, work, _ = tour
    text = read(USER_GUIDE)
    first = shell_blocks(USER_GUIDE)[0]
    assert "max_workers=" in first.text
    wrong = text.replace(first.text, first.text.replace(
        "max_workers=", "max_workerz=", 1), 1)
    try:
        r = run_session(shell_blocks(USER_GUIDE, wrong)[:1], tour_dir, work,
                        prefix=cluster_env_prefix(tour_dir), timeout=60)
        assert r.returncode != 0, r.stdout
        assert "the block at %s:%d failed" % (USER_GUIDE, first.line) in \
            r.stderr, r.stderr
        console = next(b for b in blocks(USER_GUIDE) if b.lang == "console")
        changed = console._replace(text=console.text.replace(
            "from 1 to 256", "from 1 to 255", 1))
        assert changed.text != console.text
        assert console_failures(changed, tour_dir, work)
    finally:
        cancel_all(tour_dir, work)


def test_readme_tour_stops_its_cluster(tour):
    """The tour's last block stops every daemon it started."""
    tour_dir, _, _ = tour
    last = shell_blocks(README)[-1]
    assert "optimus-cluster stop" in last.text
    r = run_session([last], tour_dir, TOP, timeout=180)
    assert_session(r)
    pids = [os.path.join(tour_dir, "run", f)
            for f in os.listdir(os.path.join(tour_dir, "run"))
            if f.endswith(".pid")]

    def alive(pidfile):
        try:
            os.kill(int(open(pidfile).read().split()[0]), 0)
            return True
        except (OSError, ValueError):
            return False
    assert not [p for p in pids if alive(p)], pids
