"""The mount's life cycle: lazy start, daemon and foreground modes, clean
unmount on signals, stale mountpoints, the pid file, allow_other."""
import errno
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest_mount import (DYNAMIC, default_servers, is_fuse_mount, mounted,  # noqa: F401
                            pid_alive, wait_until)


def timed(fn):
    t0 = time.monotonic()
    v = fn()
    return v, time.monotonic() - t0


def test_mount_is_lazy(mounted):
    slow = {"command": "sh", "args": ["-c", f'sleep 2; exec node "$0" "$1"', DYNAMIC,
                                      str(mounted.state)],
            "connect_timeout": 20}
    # Lazy whatever the machine's load: after the mount returned and the top
    # was read and listed, the server (found by its command line, the shell
    # that sleeps included) has not been started, so none of these waited
    # for it. The times are printed, not asserted.
    _, mount_s = timed(lambda: mounted.start(servers={"slow": slow}))
    assert not mounted.server_pids(), mounted.server_pids()
    top, top_s = timed(lambda: (mounted.point / "README.md").read_text())
    assert "slow" in top
    names, list_s = timed(lambda: os.listdir(mounted.point / "servers"))
    assert "slow" in names
    # Nothing started the server yet: only its folder's contents do.
    assert not mounted.server_pids(), mounted.server_pids()
    print(f"mount returned in {mount_s:.2f} s, README read in {top_s * 1000:.0f} ms, "
          f"servers/ listed in {list_s * 1000:.0f} ms")
    listing, took = timed(lambda: os.listdir(mounted.point / "servers" / "slow"))
    assert "echo.py" in listing, listing
    assert 1.5 < took < 20, f"the folder answered after {took:.1f} s"
    assert len(mounted.server_pids()) >= 1


def test_mount_pidfile_and_daemon(mounted):
    p = mounted.start()
    assert p.stdout == "" and p.stderr == ""
    info = mounted.pidfile()
    assert info["mountpoint"] == str(mounted.point.resolve())
    assert pid_alive(info["pid"]) and info["pid"] != os.getpid()
    assert info["langs"] == "py,ts"
    assert is_fuse_mount(mounted.point)
    # SIGINT (and SIGTERM) unmount cleanly and remove the pid file.
    os.kill(info["pid"], signal.SIGINT)
    assert wait_until(lambda: not pid_alive(info["pid"]), 30)
    assert not is_fuse_mount(mounted.point)
    assert not list((mounted.m.root / "run").glob("mount-*.json"))


def test_mount_started_ignoring_sigint_stops_on_it(mounted):
    """A background job of a script starts with SIGINT ignored, and so would
    the daemon: it stops on SIGINT all the same."""
    mounted.m.write_config(default_servers(mounted.state))
    subprocess.run(mounted.m.cmd("mount", mounted.point), env={**mounted.m.env, **mounted.env},
                   check=True, timeout=60, capture_output=True,
                   preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    info = mounted.pidfile()
    os.kill(info["pid"], signal.SIGINT)
    assert wait_until(lambda: not pid_alive(info["pid"]), 60)
    assert not is_fuse_mount(mounted.point)


def test_mount_foreground_sigterm(mounted):
    proc = mounted.start_foreground()
    assert (mounted.point / "README.md").read_text()
    assert mounted.pidfile()["pid"] == proc.pid
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert not is_fuse_mount(mounted.point)
    assert not list((mounted.m.root / "run").glob("mount-*.json"))


def test_mount_stale_mountpoint(mounted):
    proc = mounted.start_foreground()
    proc.kill()
    proc.wait()
    with pytest.raises(OSError) as e:
        os.statvfs(mounted.point)
    assert e.value.errno == errno.ENOTCONN
    p = mounted.m.run("mount", mounted.point, env=mounted.env, check=2)
    assert "stale" in p.stderr and f"fusermount3 -u {mounted.point}" in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_mount_refuses_a_mounted_point(mounted):
    mounted.start()
    p = mounted.m.run("mount", mounted.point, env=mounted.env, check=2)
    assert "already a FUSE mount" in p.stderr, p.stderr


def test_mount_usage_errors(mounted):
    mounted.m.write_config({})
    p = mounted.m.run("mount", mounted.point / "missing", check=2)
    assert "missing" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    mounted.m.run("mount", check=2)
    p = mounted.m.run("mount", mounted.point, "--lang", "cobol", check=2)
    assert "--lang" in p.stderr
    p = mounted.m.run("mount", mounted.point, "-o", "no_such_option_xyz")
    assert p.returncode != 0 and "mount" in p.stderr
    assert not is_fuse_mount(mounted.point)
    p = mounted.m.run("mount", "--help", check=0)
    assert "MOUNTPOINT" in p.stdout


def test_mount_lang_py(mounted, tmp_path):
    mounted.start("--lang", "py", servers={"dyn": {"command": "node", "args": [
        DYNAMIC, str(mounted.state)]}})
    files = os.listdir(mounted.point / "servers" / "dyn")
    assert "echo.py" in files and not [f for f in files if f.endswith(".ts")]
    gen = tmp_path / "gen"
    mounted.m.run("generate", "--out", gen, "--lang", "py", check=0)
    p = subprocess.run(["diff", "-r", str(gen), str(mounted.point)], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stdout


def read_as(uid: int, path) -> int:
    """Exit status of reading @path as @uid: 0 read, 13 EACCES."""
    code = ("import sys\ntry:\n open(sys.argv[1]).read()\nexcept PermissionError:\n"
            " sys.exit(13)\n")
    return subprocess.run(["/usr/bin/python3", "-c", code, str(path)],
                          preexec_fn=lambda: (os.setgroups([]), os.setgid(uid), os.setuid(uid)),
                          capture_output=True, timeout=30).returncode


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to read as another uid")
def test_mount_allow_other(mounted):
    servers = {"dyn": {"command": "node", "args": [DYNAMIC, str(mounted.state)]}}
    # The other uid must be able to reach the mountpoint itself.
    top = Path(tempfile.mkdtemp(prefix="mcpfs-allow-other-"))
    top.chmod(0o755)
    mounted.point = top / "mnt"
    mounted.point.mkdir()
    try:
        mounted.start(servers=servers)
        readme = mounted.point / "README.md"
        assert read_as(65534, readme) == 13, "another uid read a mount without allow_other"
        mounted.stop()
        mounted.start("-o", "allow_other", servers=servers)
        assert read_as(65534, readme) == 0
        assert read_as(65534, mounted.point / "servers" / "dyn" / "echo.py") == 0
    finally:
        mounted.stop()
        shutil.rmtree(top, ignore_errors=True)
