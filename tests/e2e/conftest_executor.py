"""Helpers for the executor's tests: running code in the jail, and checking
that the host is left as it was (no cgroups, processes, mounts or run
folders left behind)."""
import json
import os
from pathlib import Path

import pytest

from conftest import MEMORY, REPO, everything_stdio

JAIL = REPO / "tests" / "jail"
JAIL_HOST_UID = 64000


def exec_config(mcpfs) -> None:
    """everything (shared) and memory (its graph in the test's folder)."""
    mcpfs.write_config({
        "everything": everything_stdio(),
        "memory": {"command": "node", "args": [MEMORY],
                   "env": {"MEMORY_FILE_PATH": str(mcpfs.tmp / "memory.jsonl")}},
    })


def run_code(mcpfs, code: str, *args, lang="python", json_out=True, timeout=120, env=None):
    """Run @code with `mcpfs exec`; returns (process, result object or None)."""
    suffix = ".ts" if lang == "typescript" else ".py"
    path = mcpfs.tmp / f"prog{suffix}"
    path.write_text(code)
    flags = ["--json"] if json_out else []
    p = mcpfs.run("exec", *args, *flags, path, timeout=timeout, env=env)
    res = None
    if json_out and p.stdout.strip():
        res = json.loads(p.stdout)
    return p, res


def payload(name: str, **subst) -> str:
    text = (JAIL / name).read_text()
    for k, v in subst.items():
        text = text.replace(f"@{k.upper()}@", str(v))
    return text


def jail_pids():
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if d.stat().st_uid == JAIL_HOST_UID:
                    out.append(int(d.name))
            except OSError:
                pass
    return out


def _cgroups():
    found = []
    for top in ("/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified"):
        for dirpath, dirnames, _ in os.walk(top):
            found += [os.path.join(dirpath, d) for d in dirnames if d.startswith("mcpfs-")]
    return found


# What the jail mounts while it builds its root on /tmp (executor/jail_mount.c).
_JAIL_TOP = {"usr", "etc", "dev", "proc", "tmp", "workspace", "skills", "mcp", "run"}


def _jail_like_mounts():
    """Mounts a jail would leave on the host if its mount namespace leaked.
    Other mounts come and go with other tests running at the same time."""
    out = []
    for line in open("/proc/self/mountinfo"):
        parts = line.split()[4].split("/")
        if parts[1:2] == ["tmp"] and (len(parts) == 2 or parts[2] in _JAIL_TOP):
            out.append(line.split()[4])
    return sorted(out)


@pytest.fixture
def host_unchanged(mcpfs):
    """Asserts after the test that the jail left nothing behind on the host."""
    before = (set(_cgroups()), _jail_like_mounts())
    yield
    assert jail_pids() == [], "jailed processes outlived their run"
    # stale groups of killed runs may be swept meanwhile: only new ones count
    assert set(_cgroups()) <= before[0], "cgroups left behind"
    assert _jail_like_mounts() == before[1], "mounts leaked from the jail"
    run = mcpfs.root / "run"
    left = [p.name for p in run.iterdir() if p.name.startswith("exec-")] if run.exists() else []
    assert left == [], f"run folders left behind: {left}"
