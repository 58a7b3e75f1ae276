"""A warm walk asks the daemon nothing it has answered before: once walked,
Python's os.walk opening and reading every file costs one request per file,
the FUSE_IOCTL of open()'s isatty() (Linux sends every ioctl on a FUSE file
to the daemon and keeps no answer, fs/fuse/ioctl.c), and no lookup, getattr,
open, flush, release, opendir, readdir or read, give or take a few the
kernel's memory reclaim may cause. In a run's jail, whose filter answers
isatty() itself, not even that. Requests are counted from the daemon's reads
of /dev/fuse under strace."""
import contextlib
import inspect
import json
import os
import re
import shutil
import subprocess
from collections import Counter

import pytest

from conftest_mount import DYNAMIC, mounted, wait_until  # noqa: F401 (fixture)

FUSE_IOCTL = 39
FUSE_STATFS = 17  # never cached: proves the trace sees requests
FORGETS = {2, 42}  # FUSE_FORGET, FUSE_BATCH_FORGET: no reply, nobody waits
NAMES = {1: "LOOKUP", 3: "GETATTR", 14: "OPEN", 15: "READ", 18: "RELEASE", 25: "FLUSH",
         27: "OPENDIR", 28: "READDIR", 29: "RELEASEDIR", 39: "IOCTL", 44: "READDIRPLUS"}


def walk_read(top) -> int:
    n = 0
    for d, _, files in os.walk(top):
        for f in files:
            with open(os.path.join(d, f), "rb") as fh:
                fh.read()
            n += 1
    return n


def fuse_fds(pid: int) -> set:
    out = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == "/dev/fuse":
                out.add(fd)
        except OSError:
            pass
    return out


def traced_everywhere(pid: int) -> bool:
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                if re.search(r"^TracerPid:\s+0$", f.read(), re.M):
                    return False
        except OSError:
            pass
    return True


def opcodes(trace: str, fds: set) -> Counter:
    """FUSE opcodes of the requests read from @fds, from `strace -f -xx`:
    a read split by another thread ends on a "resumed" line of its own tid."""
    pending, seen = {}, Counter()
    for line in trace.splitlines():
        m = re.match(r"(\d+)\s+(?:read\((\d+), (.*)|<\.\.\. read resumed>(.*))", line)
        if not m:
            continue
        tid, fd, rest = m.group(1), m.group(2), m.group(3)
        if fd is not None and rest.endswith("<unfinished ...>"):
            pending[tid] = fd
            continue
        if fd is None:
            fd, rest = pending.pop(tid, None), m.group(4)
        h = re.match(r'\s*"((?:\\x[0-9a-f]{2}){8})', rest or "")
        if fd in fds and h:
            header = bytes(int(x, 16) for x in h.group(1).split("\\x")[1:])
            seen[int.from_bytes(header[4:8], "little")] += 1
    return seen


@contextlib.contextmanager
def daemon_traced(pid: int, out):
    """The daemon @pid's reads, traced into @out while the block runs (strace
    attached to every thread before it starts); opcodes() counts them."""
    st = subprocess.Popen(["strace", "-f", "-qq", "-xx", "-s", "8", "-e", "trace=read",
                           "-o", str(out), "-p", str(pid)], stderr=subprocess.PIPE, text=True)
    try:
        assert wait_until(lambda: traced_everywhere(pid) or st.poll() is not None, 60), \
            "strace never attached to every thread of the daemon"
        assert st.poll() is None, f"strace: {st.stderr.read()}"
        yield
    finally:
        st.terminate()
        st.wait(timeout=60)


def dyn_mount(mounted, *args) -> int:
    """The mount of the dynamic server with 201 tools; the daemon's pid."""
    if not shutil.which("strace"):
        pytest.skip("strace is not installed")
    servers = {"dyn": {"command": "node", "args": [DYNAMIC, str(mounted.state), "200"]}}
    mounted.set_tools(["extra"])
    assert mounted.start(*args, servers=servers).returncode == 0, mounted.log()[-2000:]
    return mounted.pidfile()["pid"]


def requests_besides(seen: Counter, files: int, allowed: tuple) -> None:
    """Of a warm walk of @files files, @seen sent nothing but the statfs that
    proves the trace saw requests, and the opcodes @allowed."""
    assert seen[FUSE_STATFS] == 1, f"the trace missed the statfs: {dict(seen)}"
    others = {NAMES.get(op, op): n for op, n in seen.items()
              if op not in allowed + (FUSE_STATFS,) and op not in FORGETS}
    # A few strays are the kernel's: memory pressure may drop a page or a name.
    assert sum(others.values()) <= files // 20, \
        f"a warm walk of {files} files sent {others} (and {seen[FUSE_IOCTL]} ioctls)"


def test_warm_walk_costs_one_ioctl_per_open_and_nothing_else(mounted, tmp_path):
    pid = dyn_mount(mounted)
    files = walk_read(mounted.point)
    assert files > 600, files  # 201 tools, three files each, and the top
    assert walk_read(mounted.point) == files

    fds = fuse_fds(pid)
    assert fds, f"the daemon {pid} holds no /dev/fuse"
    out = tmp_path / "daemon.trace"
    with daemon_traced(pid, out):
        assert walk_read(mounted.point) == files
        os.statvfs(mounted.point)
    seen = opcodes(out.read_text(), fds)
    requests_besides(seen, files, (FUSE_IOCTL,))
    assert seen[FUSE_IOCTL] <= files, f"{seen[FUSE_IOCTL]} ioctls for {files} opens"


# Walks /mcp twice, says so with the file `warm` in its workspace, waits for
# `go` (the trace attached), walks again, then prints what it saw.
WALK_IN_JAIL = "import json, os, time\n" + inspect.getsource(walk_read) + """
files = walk_read("/mcp")
assert walk_read("/mcp") == files
open("warm", "w").close()
for _ in range(12000):
    if os.path.exists("go"):
        break
    time.sleep(0.05)
walked = walk_read("/mcp")
os.statvfs("/mcp")
lines = [line.split() for line in open("/proc/self/mountinfo")]
print(json.dumps({"files": files, "walked": walked,
                  "mounts": {f[4]: [f[3], f[f.index("-") + 1]] for f in lines
                             if f[4] in ("/mcp", "/run/code/servers")}}))
"""


def test_a_run_walks_the_mount_asking_the_daemon_nothing(mounted, tmp_path):
    """A run binds the live mount as it is (its mount table shows the mount's
    own root, no host path), and its filter answers the isatty() of every
    open() with ENOTTY (a terminal request past descriptor 2): a warm walk
    by code in the jail sends the daemon no request at all."""
    pid = dyn_mount(mounted, "-o", "allow_other")
    m = mounted.m
    ws = m.root / "workspaces" / "default" / "workspace"
    prog = tmp_path / "walk.py"
    prog.write_text(WALK_IN_JAIL)
    run = subprocess.Popen(m.cmd("exec", "--json", "--timeout", "900", prog), env=m.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = tmp_path / "daemon.trace"
    try:
        assert wait_until(lambda: (ws / "warm").exists() or run.poll() is not None, 600)
        assert run.poll() is None, run.communicate()
        fds = fuse_fds(pid)
        assert fds, f"the daemon {pid} holds no /dev/fuse"
        with daemon_traced(pid, out):
            (ws / "go").touch()
            stdout, stderr = run.communicate(timeout=600)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == 0, stderr
    res = json.loads(stdout)
    assert res["exit_code"] == 0, res
    seen = json.loads(res["stdout"])
    assert seen["files"] > 600 and seen["walked"] == seen["files"], seen
    assert seen["mounts"] == {"/mcp": ["/", "fuse.mcpfs"],
                              "/run/code/servers": ["/servers", "fuse.mcpfs"]}, seen
    got = opcodes(out.read_text(), fds)
    requests_besides(got, seen["files"], ())
    assert got[FUSE_IOCTL] == 0, f"{got[FUSE_IOCTL]} ioctls for {seen['files']} opens"
