"""A warm walk asks the daemon nothing it has answered before: once walked,
Python's os.walk opening and reading every file costs one request per file,
the FUSE_IOCTL of open()'s isatty() (Linux sends every ioctl on a FUSE file
to the daemon and keeps no answer, fs/fuse/ioctl.c), and no lookup, getattr,
open, flush, release, opendir, readdir or read, give or take a few the
kernel's memory reclaim may cause. Requests are counted from the daemon's
reads of /dev/fuse under strace."""
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


def test_warm_walk_costs_one_ioctl_per_open_and_nothing_else(mounted, tmp_path):
    if not shutil.which("strace"):
        pytest.skip("strace is not installed")
    servers = {"dyn": {"command": "node", "args": [DYNAMIC, str(mounted.state), "200"]}}
    mounted.set_tools(["extra"])
    assert mounted.start(servers=servers).returncode == 0, mounted.log()[-2000:]
    pid = mounted.pidfile()["pid"]
    files = walk_read(mounted.point)
    assert files > 600, files  # 201 tools, three files each, and the top
    assert walk_read(mounted.point) == files

    fds = fuse_fds(pid)
    assert fds, f"the daemon {pid} holds no /dev/fuse"
    out = tmp_path / "daemon.trace"
    st = subprocess.Popen(["strace", "-f", "-qq", "-xx", "-s", "8", "-e", "trace=read",
                           "-o", str(out), "-p", str(pid)], stderr=subprocess.PIPE, text=True)
    try:
        assert wait_until(lambda: traced_everywhere(pid) or st.poll() is not None, 60), \
            "strace never attached to every thread of the daemon"
        assert st.poll() is None, f"strace: {st.stderr.read()}"
        assert walk_read(mounted.point) == files
        os.statvfs(mounted.point)
    finally:
        st.terminate()
        st.wait(timeout=60)
    seen = opcodes(out.read_text(), fds)
    assert seen[FUSE_STATFS] == 1, f"the trace missed the statfs: {dict(seen)}"
    others = {NAMES.get(op, op): n for op, n in seen.items()
              if op not in (FUSE_IOCTL, FUSE_STATFS) and op not in FORGETS}
    # A few strays are the kernel's: memory pressure may drop a page or a name.
    assert sum(others.values()) <= files // 20, \
        f"a warm walk of {files} files sent {others} (and {seen[FUSE_IOCTL]} ioctls)"
    assert seen[FUSE_IOCTL] <= files, f"{seen[FUSE_IOCTL]} ioctls for {files} opens"
