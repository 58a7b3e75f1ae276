"""Fixtures for the workspace, session and skill tests.

`ws` wraps the shared `mcpfs` fixture and, at teardown, unmounts every
workspace image under the test's data root and checks that no mount or loop
device of it is left behind (a leak fails the test)."""
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
EXAMPLES = REPO / "skills" / "examples"


def mounts_under(root: Path) -> list:
    prefix = str(root) + "/"
    with open("/proc/self/mountinfo") as f:
        return [line.split()[4] for line in f if line.split()[4].startswith(prefix)]


def loops_of(root: Path) -> list:
    p = subprocess.run(["losetup", "-a"], capture_output=True, text=True)
    return [line for line in p.stdout.splitlines() if str(root) + "/" in line]


def images_possible() -> bool:
    return os.geteuid() == 0 and os.access("/dev/loop-control", os.W_OK)


@pytest.fixture
def ws(mcpfs):
    yield mcpfs
    mcpfs.run("workspace", "umount", "--all")
    left = mounts_under(mcpfs.root)
    for m in reversed(left):
        subprocess.run(["umount", "-l", m])
    assert not left, f"mounts left behind: {left}"
    # A lazily unmounted image's loop device detaches a moment later.
    deadline = time.monotonic() + 60
    while (loops := loops_of(mcpfs.root)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not loops, f"loop devices left behind: {loops}"


def exec_ready(m) -> str:
    """'' when `mcpfs exec --customer` runs code, else why not (for a skip)."""
    p = m.run("exec", "--customer", "probe", "--lang", "python", "-", input="print('ok')\n",
              timeout=60)
    if p.returncode == 0 and "ok" in p.stdout:
        return ""
    return f"mcpfs exec not usable yet (exit {p.returncode}): {p.stderr.strip()[:200]}"


def run_py(m, customer: str, code: str, *extra, check=0):
    p = m.run("exec", "--customer", customer, "--lang", "python", "--json", *extra, "-",
              input=code, timeout=120)
    out = json.loads(p.stdout) if p.stdout.strip().startswith("{") else {}
    if check is not None:
        assert p.returncode == check, f"exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p, out
