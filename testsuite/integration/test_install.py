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
