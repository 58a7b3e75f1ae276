"""`mcpfs doctor`: one line per host check, and each check made to fail
for real (FUSE hidden in a mount namespace, user namespaces forbidden by a
sysctl in a guest of tests/vm, a server whose npm package is not installed)
prints the fix and exits 1."""
import re
import shutil
import subprocess

import pytest

from conftest import BUILDS, EVERYTHING, REPO

CHECKS = ["user namespaces", "cgroups", "fuse", "fusermount3", "loop devices", "seccomp",
          "python", "node", "data root"]
LINE = re.compile(r"^(ok|warn|FAIL) +(.+?)  +(\S.*)$")


def lines(out: str) -> dict:
    """{check name: (verdict, rest of the line)} of doctor's stdout."""
    found = {}
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            found[m.group(2).strip()] = (m.group(1), m.group(3))
    return found


def test_doctor_on_this_machine(mcpfs):
    mcpfs.write_config({"everything": {"command": "node", "args": [EVERYTHING, "stdio"]}})
    p = mcpfs.run("doctor", check=0)
    got = lines(p.stdout)
    for name in CHECKS + ["server everything"]:
        assert name in got, p.stdout
        assert got[name][0] != "FAIL", p.stdout
    assert got["fuse"] == ("ok", "/dev/fuse opens")
    assert got["node"][1].startswith("/usr/bin/node ")
    assert p.stdout.rstrip().endswith(f"config: {mcpfs.config_path}")
    assert p.stderr == ""


def test_doctor_without_fuse(mcpfs, tmp_path):
    """In a mount namespace whose /dev is a tmpfs with only null, zero and
    the random devices, /dev/fuse is missing as on a host without the module."""
    if not shutil.which("unshare"):
        pytest.skip("no unshare(1)")
    mcpfs.write_config({})
    old = tmp_path / "olddev"
    old.mkdir()
    script = (f"mount --bind /dev {old} && mount -t tmpfs tmpfs /dev && "
              f"for d in null zero random urandom; do touch /dev/$d && "
              f"mount --bind {old}/$d /dev/$d || exit 9; done && umount -l {old} && "
              f"exec \"$@\"")
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                        *mcpfs.cmd("doctor")], capture_output=True, text=True, env=mcpfs.env,
                       timeout=120)
    assert p.returncode == 1, (p.stdout, p.stderr)
    got = lines(p.stdout)
    assert got["fuse"][0] == "FAIL", p.stdout
    assert got["fuse"][1].startswith("/dev/fuse: No such file or directory; fix: modprobe fuse")
    assert got["user namespaces"][0] == "ok"  # the others still ran
    assert re.search(r"^mcpfs: doctor: \d+ checks? failed$", p.stderr, re.M), p.stderr


def test_doctor_missing_server_package(mcpfs, tmp_path):
    """A config naming an npm package that is not installed, and a command
    that is not on PATH: each server's line says what to install."""
    prefix = tmp_path / "srv"
    (prefix / "node_modules").mkdir(parents=True)
    missing = prefix / "node_modules" / "@acme" / "mcp-missing" / "dist" / "index.js"
    mcpfs.write_config({
        "everything": {"command": "node", "args": [EVERYTHING, "stdio"]},
        "gone": {"command": "node", "args": [str(missing)]},
        "nocmd": {"command": "mcp-server-not-installed-anywhere", "args": []},
    })
    p = mcpfs.run("doctor", check=1)
    got = lines(p.stdout)
    assert got["server everything"][0] == "ok"
    assert got["server gone"] == (
        "FAIL", f"{missing} is missing; fix: cd {prefix} && npm install @acme/mcp-missing")
    assert got["server nocmd"][0] == "FAIL"
    assert "command 'mcp-server-not-installed-anywhere' not found; fix: install it" in \
        got["server nocmd"][1]
    assert "mcpfs: doctor: 2 checks failed" in p.stderr


def test_doctor_unwritable_root(mcpfs, tmp_path):
    mcpfs.write_config({})
    p = mcpfs.run("--root", "/proc/mcpfs-root", "doctor", check=1)
    verdict, rest = lines(p.stdout)["data root"]
    assert verdict == "FAIL" and "fix: --root DIR or MCPFS_ROOT=DIR" in rest, p.stdout


def test_doctor_user_namespaces_forbidden_in_a_guest(tmp_path):
    """user.max_user_namespaces=0 in a guest (the host's is not ours to
    change): the check fails and names that sysctl. One build: a guest boot
    is slow, and the check is plain C without memory to watch."""
    binary = BUILDS["plain"]
    cfg = tmp_path / "c.json"
    cfg.write_text('{"mcpServers": {}}')
    p = subprocess.run([str(REPO / "tests" / "vm" / "run.sh"), "--share", str(tmp_path), "--",
                        "sh", "-c", "echo 0 >/proc/sys/user/max_user_namespaces && "
                        f"exec {binary} --config {cfg} --root /tmp/r doctor"],
                       capture_output=True, text=True, timeout=1800)
    if p.returncode == 77:
        pytest.skip(f"no guest on this machine: {p.stderr.strip()}")
    assert p.returncode == 1, (p.stdout, p.stderr[-3000:])
    verdict, rest = lines(p.stdout)["user namespaces"]
    assert verdict == "FAIL", p.stdout
    assert rest.startswith("unshare(NEWUSER|NEWNS|NEWPID): No space left on device; fix: "
                           "user.max_user_namespaces is 0: sysctl -w "
                           "user.max_user_namespaces=15000"), rest
