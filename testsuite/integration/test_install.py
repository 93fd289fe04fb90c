# SPDX-License-Identifier: GPL-2.0-or-later
# Copyright (C) 2026 The slurm-optimus developers
"""`make install` puts the tools where the shell finds them and the Python
client where python3 finds it. Installed into a staging
folder (DESTDIR), so the machine is left alone: each installed file must
land in a folder that is on the default PATH, or in /usr/bin/python3's
site-packages list, once DESTDIR is taken away."""
import os
import re
import subprocess

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PYTHON = "/usr/bin/python3"
DEBIAN_PLUGINDIR = "/usr/lib/x86_64-linux-gnu/slurm-wlm"
# login shells' PATH on Debian (/etc/profile), what users have
DEFAULT_PATH = ["/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin",
                "/usr/sbin", "/sbin"]


def test_installed_tools_on_path_and_module_importable(tmp_path):
    dest = str(tmp_path / "stage")
    r = subprocess.run(["make", "-s", "install", "DESTDIR=" + dest], cwd=TOP,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    found = {}
    for root, _, files in os.walk(dest):
        for f in files:
            found[f] = root[len(dest):]
    for tool in ("optimusctl", "optimus-report", "optimus-sim"):
        assert tool in found, sorted(found)
        assert found[tool] in DEFAULT_PATH, (tool, found[tool])
    assert "optimus_report.py" in found, sorted(found)
    # the C client's constants it imports, beside it
    assert found.get("optimus_report_consts.py") == \
        found["optimus_report.py"], sorted(found)
    sites = subprocess.run(
        [PYTHON, "-c", "import site; print('\\n'.join(site.getsitepackages()))"],
        capture_output=True, text=True, check=True).stdout.split()
    assert found["optimus_report.py"] in sites, (found["optimus_report.py"],
                                                 sites)
    # and it imports from there
    r = subprocess.run([PYTHON, "-c", "import optimus_report; print("
                        "optimus_report.__file__)"], capture_output=True,
                       text=True, env={"PYTHONPATH": dest + found[
                           "optimus_report.py"], "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr


def test_cluster_env_exports_the_build_tree(tmp_path):
    """optimus-cluster prints what to export so that an uninstalled build
    tree's tools and Python client are used with the cluster."""
    r = subprocess.run([os.path.join(TOP, "testsuite", "cluster",
                                     "optimus-cluster"), "env", "--dir",
                        str(tmp_path)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "export SLURM_CONF=" in out
    assert "export PATH=%s/src/tools:%s/src/tools/optimus-sim:" % (TOP, TOP) \
        in out, out
    assert "export PYTHONPATH=%s/python" % TOP in out, out
    # the lines work in a shell: the build tree's optimusctl is found
    r = subprocess.run(["/bin/sh", "-c", out + "command -v optimusctl; "
                        "/usr/bin/python3 -c 'import optimus_report as o; "
                        "print(o.__file__)'"], capture_output=True, text=True)
    assert r.stdout.split()[0] == os.path.join(TOP, "src/tools/optimusctl")
    assert r.stdout.split()[1] == os.path.join(TOP, "python/optimus_report.py")


# --------------------------------------------------------------------------
# The Debian packages, installed into this system by
# contrib/run-tests.sh when OPTIMUS_TEST_PACKAGE=1: CI's lanes set it, in
# chroots made for the run, so the packages are installed into a clean
# system. On a developer's machine the tests are skipped rather than
# installing packages into it.
import pytest  # noqa: E402
from waiting import wait_for  # noqa: E402

PACKAGED = os.environ.get("OPTIMUS_TEST_PACKAGE") == "1"
needs_package = pytest.mark.skipif(
    not PACKAGED, reason="the packages are installed only when "
    "OPTIMUS_TEST_PACKAGE=1 (CI's chroot lanes set it)")


def _dpkg_field(package, field):
    return subprocess.run(["dpkg-query", "-W", "-f=${%s}" % field, package],
                          capture_output=True, text=True,
                          check=True).stdout.strip()


def _dpkg_accepts(version, relation, bound):
    return subprocess.run(["dpkg", "--compare-versions", version, relation,
                           bound]).returncode == 0


@needs_package
def test_packages_require_the_slurm_release_they_were_built_for():
    """The rule of Slurm's plugin loader, as dependencies: the slurmctld
    plugins need the same X.Y.Z of slurmctld, the SPANK plugin the same X.Y
    of Slurm's plugins; any Debian revision of it (a security update of
    the same release installs without a rebuild), never another release."""
    release = _dpkg_field("slurmctld", "source:Upstream-Version")
    major, minor, micro = (int(x) for x in release.split("."))
    next_micro = "%d.%02d.%d~" % (major, minor, micro + 1)
    next_minor = "%d.%02d~" % (major, minor + 1)
    ctld = _dpkg_field("slurm-optimus-ctld", "Depends")
    assert "slurmctld (>= %s), slurmctld (<< %s)" % (release, next_micro) \
        in ctld, ctld
    nodes = _dpkg_field("slurm-optimus", "Depends")
    assert "slurm-wlm-basic-plugins (>= %s), slurm-wlm-basic-plugins " \
        "(<< %s)" % (release, next_minor) in nodes, nodes
    # the bounds as dpkg reads them: a later revision of the release is
    # in, the next release is out
    assert _dpkg_accepts(release + "-99+deb99u9", "lt", next_micro)
    assert not _dpkg_accepts("%d.%02d.%d-1" % (major, minor, micro + 1),
                             "lt", next_micro)
    assert not _dpkg_accepts("%d.%02d.0-1" % (major, minor + 1), "lt",
                             next_minor)
    for pkg in ("slurm-optimus", "slurm-optimus-ctld"):
        assert _dpkg_field(pkg, "Status") == "install ok installed"


@needs_package
def test_packages_install_every_part():
    listed = set(subprocess.run(["dpkg", "-L", "slurm-optimus",
                                 "slurm-optimus-ctld"], capture_output=True,
                                text=True, check=True).stdout.split())
    wanted = ["/usr/bin/optimusctl", "/usr/bin/optimus-report",
              "/usr/bin/optimus-sim",
              DEBIAN_PLUGINDIR + "/sched_optimus.so",
              DEBIAN_PLUGINDIR + "/job_submit_optimus.so",
              DEBIAN_PLUGINDIR + "/spank_optimus.so",
              "/usr/lib/python3/dist-packages/optimus_report.py",
              "/usr/lib/python3/dist-packages/optimus_report_consts.py",
              "/usr/share/man/man8/sched_optimus.8.gz",
              "/usr/share/man/man5/optimus_hints.5.gz",
              "/usr/share/man/man1/optimusctl.1.gz",
              "/usr/share/doc/slurm-optimus/examples/optimus.conf"]
    for path in wanted:
        assert path in listed and os.path.exists(path), path
    # no installed file names the folder of the package build
    # (contrib/build-deb.sh builds in slurm-optimus-deb.XXXXXX)
    for path in sorted(p for p in listed if os.path.isfile(p)):
        with open(path, "rb") as f:
            assert b"slurm-optimus-deb." not in f.read(), path
    # the documentation (dh_compress gzips the larger files)
    for doc in ("README.md", "metrics.md", "results.md", "hints.md",
                "design/reports.md", "design/simulator.md"):
        path = "/usr/share/doc/slurm-optimus/" + doc
        assert path in listed or path + ".gz" in listed, (doc, listed)
    for tool in ("optimusctl", "optimus-report", "optimus-sim"):
        r = subprocess.run(["/usr/bin/" + tool, "--help"],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, (tool, r.stderr)
    # the installed simulator finds its installed data, from any folder
    # and with no variable naming other data (testsuite/conftest.py sets
    # them for the build tree's binary)
    r = subprocess.run(["/usr/bin/optimus-sim", "truth", "--app", "cifar10",
                        "--gpus-per-node", "4", "--batch", "512"], cwd="/",
                       env={"PATH": "/usr/bin:/bin"},
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and '"step_seconds"' in r.stdout, r.stderr
    assert "/usr/share/slurm-optimus/pollux-osdi21" in listed
    # the module imports from the package's folder, with no PYTHONPATH
    r = subprocess.run([PYTHON, "-c", "import optimus_report as o; "
                        "print(o.__file__)"], capture_output=True, text=True,
                       cwd="/", env={"PATH": "/usr/bin:/bin"})
    assert r.stdout.strip() == \
        "/usr/lib/python3/dist-packages/optimus_report.py", r


@needs_package
def test_installed_plugins_schedule_a_job(tmp_path):
    """A cluster that loads only the installed plugins (Slurm's own plugin
    folder, none of the build tree) plans an optimus job, which the
    installed optimusctl then shows."""
    import json
    import sys
    sys.path.insert(0, os.path.join(TOP, "testsuite", "cluster"))
    from cluster import Cluster
    c = Cluster(str(tmp_path / "c"), nodes=2, plugin_dirs=[],
                optimus_conf="PlanInterval=2\n")
    c.start()
    try:
        jid = c.sbatch(["--scheduler=optimus,max_workers=2", "-o",
                        "/dev/null"], "#!/bin/sh\nsleep 30\n")
        c.wait_job_state(jid, {"RUNNING"}, timeout=120)
        log = c.logs("slurmctld")
        assert "sched/optimus: tracking JobId=%d" % jid in log, log[-3000:]
        r = c.run(["/usr/bin/optimusctl", "--json", "show", "job", str(jid)])
        assert json.loads(r.stdout)["job_id"] == jid
        c.run(["scancel", str(jid)])
    finally:
        c.stop(keep=False)


def _next_release(debs, outdir, suffix="+upgradetest1"):
    """The same packages as the next release would ship them: each .deb
    unpacked and packed again with its version (and the versions it pins
    between the two packages) raised. Paths of the new .deb files."""
    made = []
    for deb in debs:
        tree = os.path.join(outdir, os.path.basename(deb) + ".d")
        subprocess.run(["dpkg-deb", "-R", deb, tree], check=True)
        control = os.path.join(tree, "DEBIAN", "control")
        text = open(control).read()
        version = re.search(r"^Version: (\S+)$", text, re.M).group(1)
        text = text.replace("Version: " + version,
                            "Version: " + version + suffix)
        text = text.replace("slurm-optimus (= %s)" % version,
                            "slurm-optimus (= %s%s)" % (version, suffix))
        open(control, "w").write(text)
        new = tree[:-2].replace(".deb", suffix + ".deb")
        subprocess.run(["dpkg-deb", "-b", tree, new], check=True,
                       capture_output=True)
        made.append(new)
    return made


@needs_package
def test_upgrade_keeps_the_state_file_and_its_records(tmp_path):
    """Upgrading the packages keeps sched/optimus' state
    file, and the next release reads the records the previous one wrote.
    A cluster of the installed plugins tracks a job that reports; the next
    release is installed over them with dpkg (what apt does), slurmctld
    restarts, and the job's record is there as it was."""
    import glob
    import json
    import sys
    sys.path.insert(0, os.path.join(TOP, "testsuite", "cluster"))
    from cluster import Cluster
    debs = sorted(glob.glob(os.path.join(TOP, "debs", "*.deb")))
    assert len(debs) == 2, debs
    before_version = _dpkg_field("slurm-optimus-ctld", "Version")
    c = Cluster(str(tmp_path / "c"), nodes=2, plugin_dirs=[],
                optimus_conf="PlanInterval=2\n")
    c.start()
    upgraded = False
    try:
        jid = c.sbatch(["--scheduler=optimus,max_workers=2", "-o",
                        "/dev/null"], "#!/bin/sh\nsleep 300\n")
        c.wait_job_state(jid, {"RUNNING"}, timeout=120)
        for step in (10, 20, 30):
            c.run(["/usr/bin/optimus-report", "progress", "--job", str(jid),
                   "--step", str(step), "--loss", str(1.0 / step)])

        def record():
            r = c.run(["/usr/bin/optimusctl", "--json", "show", "job",
                       str(jid)])
            j = json.loads(r.stdout)
            return (j["job_id"], j["step"], j["reports"], j["hints"])
        wait_for(lambda: record()[1] == 30, 30, "the reports in the record")
        before = record()
        state = os.path.join(c.state_dir, "optimus_state.json")
        # saved after every plan (PlanInterval=2)
        wait_for(lambda: os.path.exists(state) and
                 json.load(open(state))["jobs"][0]["step"] == 30,
                 30, "the record saved in " + state)
        new = _next_release(debs, str(tmp_path))
        r = subprocess.run(["dpkg", "-i"] + new, capture_output=True,
                           text=True, timeout=300)
        upgraded = True
        assert r.returncode == 0, r.stdout + r.stderr
        after_version = _dpkg_field("slurm-optimus-ctld", "Version")
        assert after_version == before_version + "+upgradetest1", \
            after_version
        assert os.path.exists(state), "the upgrade removed " + state
        c.restart_slurmctld()
        after = wait_for(lambda: (lambda r: r[1] == 30 and r)(record()), 60,
                         "the record after the upgrade")
        assert after == before, (before, after)
        log = c.logs("slurmctld")
        assert "recovered model state of 1 jobs from %s" % state in log, \
            log[-3000:]
        c.run(["scancel", str(jid)])
    finally:
        c.stop(keep=False)
        if upgraded:   # leave the release the suite installed
            subprocess.run(["dpkg", "-i"] + debs, capture_output=True,
                           timeout=300)


# CI builds the RPMs in one lane only (OPTIMUS_TEST_RPM=0 in the other,
# .ci/run), with contrib/release-check.sh: an rpmbuild of the whole tree
# costs minutes of CI's 45.
RPMS = os.path.join(TOP, "rpms")


@pytest.mark.skipif(os.environ.get("OPTIMUS_TEST_RPM", "1") == "0",
                    reason="OPTIMUS_TEST_RPM=0: the RPMs are built in the "
                    "other CI lane")
def test_rpm_packages_require_their_slurm_and_hold_every_part():
    """The RPMs contrib/release-check.sh built from the release tarball and
    the Slurm source (contrib/rpm/slurm-optimus.spec): both packages, every
    part, the Slurm release they require by the rule of the Debian
    packages, and a source RPM that holds both tarballs."""
    import glob
    found = sorted(glob.glob(os.path.join(RPMS, "*.rpm")))
    if not found:
        if PACKAGED:
            pytest.fail("no RPM in %s: contrib/release-check.sh builds them "
                        "when OPTIMUS_TEST_PACKAGE=1" % RPMS)
        pytest.skip("no RPM in %s (contrib/release-check.sh builds them)"
                    % RPMS)
    rpms = {re.sub(r"-0\..*", "", os.path.basename(p)): p for p in found
            if not p.endswith(".src.rpm")}
    srpm = [p for p in found if p.endswith(".src.rpm")]
    assert set(rpms) == {"slurm-optimus", "slurm-optimus-ctld"}, found
    assert len(srpm) == 1, found
    # "slurm 22.05.8": the release the tree was checked against by configure
    version = subprocess.run(["slurmctld", "-V"], capture_output=True,
                             text=True, check=True).stdout.split()[1]
    major, minor, micro = (int(x) for x in version.split("."))

    def rpm_q(path, *what):
        return subprocess.run(["rpm", "-qp"] + list(what) + [path],
                              capture_output=True, text=True,
                              check=True).stdout.split("\n")

    ctld_req = rpm_q(rpms["slurm-optimus-ctld"], "--requires")
    assert "slurm-slurmctld >= %s" % version in ctld_req, ctld_req
    assert "slurm-slurmctld < %d.%02d.%d~" % (major, minor, micro + 1) \
        in ctld_req, ctld_req
    node_req = rpm_q(rpms["slurm-optimus"], "--requires")
    assert "slurm >= %s" % version in node_req, node_req
    assert "slurm < %d.%02d~" % (major, minor + 1) in node_req, node_req
    files = rpm_q(rpms["slurm-optimus"], "-l") + \
        rpm_q(rpms["slurm-optimus-ctld"], "-l")
    for name in ("/usr/bin/optimusctl", "/usr/bin/optimus-report",
                 "/usr/bin/optimus-sim", "/slurm/spank_optimus.so",
                 "/slurm/sched_optimus.so", "/slurm/job_submit_optimus.so",
                 "/optimus_report.py", "/optimus_report_consts.py",
                 "/man8/sched_optimus.8",
                 "/examples/optimus.conf", "/metrics.md", "/COPYING"):
        # rpmbuild's brp-compress gzips man pages on some releases (Debian
        # 13's rpm: sched_optimus.8.gz), not on others (Debian 12's)
        assert any(re.search(re.escape(name) + r"(\.(gz|bz2|xz|zst))?$", f)
                   for f in files), (name, files)
    # an RPM installs its Python module where the system's Python looks
    # for packaged modules, never under /usr/local
    assert not any(f.startswith("/usr/local/") for f in files), files
    sources = rpm_q(srpm[0], "-l")
    assert any(re.match(r"slurm-optimus-[0-9.]+\.tar\.gz$", f)
               for f in sources), sources
    assert any(re.match(r"slurm-%s\.tar\.(gz|bz2|xz)$" % re.escape(version),
                        f) for f in sources), sources
