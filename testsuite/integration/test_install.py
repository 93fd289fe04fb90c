"""`make install` puts the tools where the shell finds them and the Python
client where python3 finds it (issue 16, item 6). Installed into a staging
folder (DESTDIR), so the machine is left alone: each installed file must
land in a folder that is on the default PATH, or in /usr/bin/python3's
site-packages list, once DESTDIR is taken away."""
import os
import subprocess

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PYTHON = "/usr/bin/python3"
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
