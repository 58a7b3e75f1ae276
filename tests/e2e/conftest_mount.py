"""Fixtures for the mount tests.

`mounted` starts `mcpfs mount` (daemon mode) over the default servers plus
tests/node/servers/sdk_mount_dynamic.mjs, whose catalog the test drives
through files in its state folder. Teardown always unmounts (fusermount3 -u,
then -uz), waits for the daemon to exit, and fails the test on a sanitizer
report in the daemon's log.
"""
import glob
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import REPO, TEST_SERVERS

DYNAMIC = str(TEST_SERVERS / "sdk_mount_dynamic.mjs")
FUSE_SUPER_MAGIC = 0x65735546
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


def fuse_usable() -> bool:
    return os.path.exists("/dev/fuse") and os.access("/dev/fuse", os.R_OK | os.W_OK) and \
        subprocess.run(["which", "fusermount3"], capture_output=True).returncode == 0


def is_fuse_mount(path: Path) -> bool:
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            if fields[4] == str(path) and " - fuse" in line:
                return True
    return False


def unmount(path: Path):
    if not is_fuse_mount(path):
        return
    subprocess.run(["fusermount3", "-u", str(path)], capture_output=True)
    if is_fuse_mount(path):
        subprocess.run(["fusermount3", "-uz", str(path)], capture_output=True)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def wait_until(pred, timeout: float, step: float = 0.02):
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() >= end:
            return v
        time.sleep(step)


def procs_with(needle: str) -> list:
    """Pids whose command line contains @needle (how the tests find a server)."""
    out = []
    for d in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(d, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if needle in cmd:
            out.append(int(d.split("/")[2]))
    return out


def default_servers(state: Path) -> dict:
    """servers/default.json's servers plus the dynamic test server."""
    with open(REPO / "servers" / "default.json") as f:
        servers = json.load(f)["mcpServers"]
    servers["dyn"] = {"command": "node", "args": [DYNAMIC, str(state)]}
    return servers


class Mount:
    def __init__(self, mcpfs, tmp: Path):
        self.m = mcpfs
        self.point = tmp / "mnt"
        self.point.mkdir()
        self.state = tmp / "dyn"
        self.state.mkdir()
        self.env = {"MCPFS_SERVERS_DIR": str(REPO / "servers")}
        self.proc = None  # the foreground process, when started with -f

    # -- driving the dynamic server --
    def set_tools(self, names: list):
        tmp = self.state / "tools.json.tmp"
        tmp.write_text(json.dumps(names))
        tmp.rename(self.state / "tools.json")

    def server_pids(self, needle: str = None) -> list:
        return procs_with(needle or str(self.state))

    # -- the mount --
    def start(self, *args, servers: dict = None, check=0, timeout=60):
        self.m.write_config(servers if servers is not None else default_servers(self.state))
        p = self.m.run("mount", self.point, *args, env=self.env, check=check, timeout=timeout)
        return p

    def start_foreground(self, *args, servers: dict = None):
        self.m.write_config(servers if servers is not None else default_servers(self.state))
        env = dict(self.m.env, **self.env)
        self.proc = subprocess.Popen(self.m.cmd("mount", self.point, "-f", *args), env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert wait_until(lambda: is_fuse_mount(self.point) or self.proc.poll() is not None,
                          30), "the foreground mount never appeared"
        assert self.proc.poll() is None, self.proc.communicate()[1]
        # Ready means the pid file is there (written once the mount answers).
        assert wait_until(lambda: glob.glob(str(self.m.root / "run" / "mount-*.json")), 30)
        return self.proc

    def pidfile(self) -> dict:
        files = glob.glob(str(self.m.root / "run" / "mount-*.json"))
        assert len(files) == 1, files
        with open(files[0]) as f:
            return json.load(f)

    def log(self) -> str:
        p = self.m.root / "logs" / "mount.log"
        return p.read_text(errors="replace") if p.exists() else ""

    def stop(self):
        pid = None
        files = glob.glob(str(self.m.root / "run" / "mount-*.json"))
        if files:
            try:
                pid = json.loads(Path(files[0]).read_text())["pid"]
            except (OSError, ValueError, KeyError):
                pid = None
        unmount(self.point)
        if self.proc is not None:
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if pid and pid != os.getpid():
            if not wait_until(lambda: not pid_alive(pid), 30, 0.05):
                os.kill(pid, signal.SIGKILL)
                pytest.fail(f"the mount daemon {pid} did not exit after unmount")
        for pid in self.server_pids():
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def mounted(mcpfs, tmp_path):
    if not fuse_usable():
        pytest.skip("no usable /dev/fuse and fusermount3 on this machine")
    mt = Mount(mcpfs, tmp_path)
    try:
        yield mt
    finally:
        mt.stop()
    log = mt.log()
    for mark in SANITIZER_MARKS:
        assert mark not in log, f"sanitizer report in the mount daemon's log:\n{log[-6000:]}"
    if mt.proc is not None:
        err = "" if not mt.proc.stderr or mt.proc.stderr.closed else mt.proc.stderr.read()
        assert mt.proc.returncode not in (86, 87), f"sanitizer report:\n{err}"
