"""mcpfs as a normal user (tests/conftest.py, ROOTLESS_UID through setpriv):
the data root under the user's home, the jail mapping the user's own uid with
setgroups denied, rlimits standing in for a cgroup nobody delegated, a
cgroup asked for by name failing closed, and the FUSE mount made through
fusermount3, and `serve --stdio` as an MCP host started by the user runs it.
The e2e tests of exec, workspaces and skills run this way too
(their modules are marked `rootless`)."""
import json
import os
import shutil
import stat
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ROOTLESS_UID
from conftest_executor import exec_config, host_unchanged, run_code  # noqa: F401
from conftest_serve import Stdio, parked, run_locks, wait_for

pytestmark = pytest.mark.parametrize("mcpfs", ["plain_rootless", "asan_rootless"],
                                     indirect=True)

INSIDE = """
import os
from servers.everything import get_sum
print(get_sum(a=2, b=3))
print(os.getuid(), os.getgid())
print(open('/proc/self/uid_map').read().split())
print(open('/proc/self/gid_map').read().split())
print(open('/proc/self/setgroups').read().strip())
open('made-here', 'w').write('x')
"""


def test_exec_as_a_normal_user(mcpfs, host_unchanged):  # noqa: F811
    """No data root given: it is ~/.local/share/mcpfs, the user's own. The
    jail's user 1000 is the caller outside and nobody else; a tool call goes
    through the bridge; only rlimits bound the run, and the result says so."""
    exec_config(mcpfs)
    env = {"MCPFS_ROOT": ""}
    p, res = run_code(mcpfs, INSIDE, env=env)
    assert res and res["exit_code"] == 0, (p.stderr, res)
    uid = str(ROOTLESS_UID)
    assert res["stdout"].splitlines() == [
        "The sum of 2 and 3 is 5.", "1000 1000", str(["1000", uid, "1"]),
        str(["1000", uid, "1"]), "deny"], res
    root = mcpfs.tmp / "home" / ".local" / "share" / "mcpfs"
    made = root / "workspaces" / "default" / "workspace" / "made-here"
    assert made.stat().st_uid == ROOTLESS_UID
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    assert "memory" not in res["limits_in_force"] and "pids" not in res["limits_in_force"]
    assert res["limits_in_force"]["processes"] == 256
    # XDG_DATA_HOME wins over HOME
    xdg = mcpfs.tmp / "xdg"
    xdg.mkdir()
    mcpfs.give(xdg)
    p, res = run_code(mcpfs, "print('ok')\n", env={"MCPFS_ROOT": "", "XDG_DATA_HOME": str(xdg)})
    assert res["stdout"] == "ok\n", p.stderr
    assert (xdg / "mcpfs" / "workspaces" / "default" / "workspace").is_dir()


def test_serve_stdio_as_a_normal_user(mcpfs, host_unchanged):  # noqa: F811
    """What a desktop assistant or an IDE started by the logged-in user runs:
    `serve --stdio`, its execute_code Python importing and calling a tool in
    the rootless jail, the servers started as the user; the next run in the
    jail parked for it meanwhile (executor/run_pool.h), the same."""
    exec_config(mcpfs)
    c = Stdio(mcpfs)
    try:
        c.initialize()
        for n in range(2):
            if n:
                wait_for(lambda: parked(mcpfs.root, ROOTLESS_UID), what="a jail parked")
                ready = run_locks(mcpfs.root) - {out["run_id"]}
            r = c.request("tools/call", {"name": "execute_code", "arguments": {"code": INSIDE}},
                          timeout=300)["result"]
            out = r.get("structuredContent", r)
            assert out.get("exit_code") == 0, (r, c.stderr())
            uid = str(ROOTLESS_UID)
            assert out["stdout"].splitlines() == [
                "The sum of 2 and 3 is 5.", "1000 1000", str(["1000", uid, "1"]),
                str(["1000", uid, "1"]), "deny"], out
            assert out["tool_calls"] == 1
            made = mcpfs.root / "workspaces" / "default" / "workspace" / "made-here"
            assert made.stat().st_uid == ROOTLESS_UID
            made.unlink()
        assert out["run_id"] in ready  # the second run took the parked jail
    finally:
        assert c.close() == 0, c.stderr()


def test_named_cgroup_fails_closed(mcpfs, host_unchanged):  # noqa: F811
    """A group MCPFS_CGROUP names must hold the run: a normal user falls back
    to rlimits only when no group was asked for."""
    exec_config(mcpfs)
    prog = mcpfs.tmp / "mark.py"
    prog.write_text("open('ran', 'w').write('the code ran')\n")
    p = mcpfs.run("exec", prog, env={"MCPFS_CGROUP": "/mcpfs-nowhere"})
    assert p.returncode not in (0, 86, 87)
    assert "MCPFS_CGROUP=/mcpfs-nowhere" in p.stderr, p.stderr
    assert not (mcpfs.root / "workspaces" / "default" / "workspace" / "ran").exists()


def _cmdline(proc: Path) -> list:
    try:
        return (proc / "cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def test_mount_through_fusermount3(mcpfs):
    """The user's mount goes through fusermount3 (libfuse, with auto_unmount),
    and the user's runs read it.
    This host keeps /dev/fuse 0600 and the test's uid has no passwd entry,
    which fusermount3 wants: in a mount namespace of the test's own, a 0666
    node of the same device and a passwd naming the user stand in, as a
    desktop distribution has them."""
    for tool in ("unshare", "nsenter", "fusermount3"):
        if not shutil.which(tool):
            pytest.skip(f"needs {tool}")
    if not os.path.exists("/dev/fuse"):
        pytest.skip("no /dev/fuse on this machine")
    exec_config(mcpfs)
    mcpfs.run("tools", "--json", check=0)  # catalogs cached: this test is about the mount
    fuse = mcpfs.tmp / "fuse"
    dev = os.stat("/dev/fuse").st_rdev
    os.mknod(fuse, 0o666 | stat.S_IFCHR, dev)
    os.chmod(fuse, 0o666)
    passwd = mcpfs.tmp / "passwd"
    passwd.write_text(Path("/etc/passwd").read_text() +
                      f"rootless:x:{ROOTLESS_UID}:{ROOTLESS_UID}::{mcpfs.tmp}/home:/bin/false\n")
    mnt = mcpfs.tmp / "mnt"
    mnt.mkdir()
    mcpfs.give(mnt)
    setup = f"mount --bind {fuse} /dev/fuse && mount --bind {passwd} /etc/passwd"
    proc = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", "-c",
                             f'{setup} && exec "$@"', "sh"] + mcpfs.cmd("mount", "-f", mnt),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=mcpfs.env)
    as_user = ["nsenter", "-t", str(proc.pid), "-m", "setpriv", f"--reuid={ROOTLESS_UID}",
               f"--regid={ROOTLESS_UID}", "--clear-groups", "--"]
    try:
        deadline = time.monotonic() + 120
        listed = None
        while time.monotonic() < deadline and proc.poll() is None:
            ls = subprocess.run(as_user + ["ls", f"{mnt}/servers"], capture_output=True,
                                text=True)
            if ls.returncode == 0 and "everything" in ls.stdout.split():
                listed = ls.stdout.split()
                break
            time.sleep(0.2)
        assert listed, proc.stderr.read() if proc.poll() is not None else "never listed"
        line = [x for x in Path(f"/proc/{proc.pid}/mountinfo").read_text().splitlines()
                if x.split()[4] == str(mnt)]
        assert len(line) == 1 and " - fuse.mcpfs " in line[0], line
        # made by fusermount3 for the user: its uid, nosuid and nodev
        assert f"user_id={ROOTLESS_UID}" in line[0] and "nosuid,nodev" in line[0], line
        # fusermount3 stays to unmount the tree if mcpfs dies (auto_unmount)
        helpers = [c for c in (_cmdline(d) for d in Path("/proc").iterdir() if d.name.isdigit())
                   if c and Path(c[0]).name == "fusermount3" and str(mnt) in c]
        assert any("auto_unmount" in " ".join(c) for c in helpers), helpers
        readme = subprocess.run(as_user + ["cat", f"{mnt}/README.md"], capture_output=True,
                                text=True)
        assert readme.returncode == 0 and "everything" in readme.stdout, readme.stderr
        # the jail's user is the mount's uid outside: runs use the live mount,
        # without allow_other (which a normal user cannot ask for here)
        prog = mcpfs.tmp / "sum.py"
        prog.write_text("from servers.everything import get_sum\nprint(get_sum(a=2, b=2))\n")
        run = subprocess.run(["nsenter", "-t", str(proc.pid), "-m"] +
                             mcpfs.cmd("exec", "--json", prog), capture_output=True, text=True,
                             env=mcpfs.env, timeout=120)
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout)["stdout"] == "The sum of 2 and 2 is 4.\n", run.stdout
        assert not (mcpfs.root / "cache" / "trees").exists(), "generated a tree despite the mount"
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=60)
    assert proc.returncode in (0, -15, 143), err


def test_fuse_closed_to_users_says_so(mcpfs):
    """Where the host keeps /dev/fuse from users, the mount says that."""
    if not os.path.exists("/dev/fuse") or os.stat("/dev/fuse").st_mode & 0o006 == 0o006:
        pytest.skip("/dev/fuse is open to users here")
    exec_config(mcpfs)
    mnt = mcpfs.tmp / "mnt"
    mnt.mkdir()
    mcpfs.give(mnt)
    p = mcpfs.run("mount", "-f", mnt, timeout=120)
    assert p.returncode != 0
    assert "/dev/fuse is not open to uid" in p.stderr and "0666" in p.stderr, p.stderr
    assert json.dumps(p.stderr).count("\\n") <= 2  # fusermount3's line, then ours
