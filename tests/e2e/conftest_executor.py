"""Helpers for the executor's tests: running code in the jail, and checking
that the host is left as it was (no cgroups, processes, mounts or run
folders left behind)."""
import json
import os
import time
from pathlib import Path

import pytest

from conftest import JAIL_HOST_UID, REPO, everything_stdio, memory_server

JAIL = REPO / "tests" / "jail"


def exec_config(mcpfs) -> None:
    """everything (shared) and memory (its graph in the test's folder)."""
    mcpfs.write_config({
        "everything": everything_stdio(),
        "memory": memory_server(mcpfs.tmp),
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


def go_waiter(then: str) -> str:
    """A program that waits (30 s at most) for the file `go` in its
    workspace, which the test makes (go_file) when it is ready, then runs
    @then."""
    return ("import os, time\n"
            "for _ in range(600):\n"
            "    if os.path.exists('go'):\n"
            "        break\n"
            "    time.sleep(0.05)\n" + then)


def go_file(mcpfs) -> Path:
    return mcpfs.root / "workspaces" / "default" / "workspace" / "go"


def payload(name: str, **subst) -> str:
    text = (JAIL / name).read_text()
    for k, v in subst.items():
        text = text.replace(f"@{k.upper()}@", str(v))
    return text


def jail_pids(uid=JAIL_HOST_UID):
    """Jailed processes: of host uid @uid (mcpfs.jail_uid), in a user namespace
    of their own (a rootless mcpfs shares the uid with its jails, code's and
    servers' alike, not the namespace)."""
    out = []
    host = os.readlink("/proc/self/ns/user")
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if d.stat().st_uid == uid and os.readlink(d / "ns" / "user") != host:
                    out.append(int(d.name))
            except OSError:
                pass
    return out


def _own_cgroups():
    """This test session's own group in each hierarchy: a run's groups are
    made beside the process that runs it (executor/jail_cgroup.c)."""
    own = {}
    for line in open("/proc/self/cgroup"):
        _, names, path = line.rstrip("\n").split(":", 2)
        for name in names.split(",") if names else ["unified"]:
            if name in ("memory", "pids", "unified"):
                own[f"/sys/fs/cgroup/{name}"] = f"/sys/fs/cgroup/{name}{path.rstrip('/')}"
    return own


def _cgroups():
    """The runs' groups beside this session's processes. Another session's
    (another job's group in a hierarchy that tells them apart) are theirs,
    and so is a group of theirs in a hierarchy that does not (pids here),
    known by its name."""
    own, found, theirs = _own_cgroups(), [], set()
    for top in ("/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified"):
        mine = own.get(top, top)
        for dirpath, dirnames, _ in os.walk(top):
            for d in dirnames:
                if not d.startswith("mcpfs-"):
                    continue
                if dirpath == mine or dirpath.startswith(mine + "/"):
                    found.append(os.path.join(dirpath, d))
                else:
                    theirs.add(d)
    return [g for g in found if os.path.basename(g) not in theirs]


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


def _ours(pid: int, root: Path) -> bool:
    """A jailed process of this test: its mcpfs runs with our data root, or
    it has no mcpfs any more (orphaned: a leak whoever started it)."""
    try:
        ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        if ppid == 1:
            return True
        return f"MCPFS_ROOT={root}".encode() in Path(f"/proc/{ppid}/environ").read_bytes()
    except (OSError, ValueError, IndexError):
        return False


def jail_pids_of(root: Path, uid=JAIL_HOST_UID):
    """Jailed processes of runs under data root @root (or orphaned)."""
    return [p for p in jail_pids(uid) if _ours(p, root)]


def code_jail_pids_of(root: Path, uid=JAIL_HOST_UID):
    """jail_pids_of's that run code, not a server: rootless, a server's
    sandbox is the same uid in a user namespace of its own too."""
    return [p for p in jail_pids_of(root, uid) if os.path.isdir(f"/proc/{p}/root/run/code")]


def _leaks(root: Path, cgroups_before: set, uid: int, rootless: bool):
    pids = jail_pids_of(root, uid)
    groups = []
    for g in set(_cgroups()) - cgroups_before:
        try:
            # a normal user makes groups only where one was delegated to it:
            # the others are root's runs, of other test sessions
            if rootless and os.stat(g).st_uid != uid:
                continue
            procs = [int(x) for x in Path(g, "cgroup.procs").read_text().split()]
        except OSError:
            continue  # removed meanwhile
        # empty and left behind, or holding our processes; a group with
        # another test session's processes is theirs
        if not procs or any(_ours(p, root) for p in procs):
            groups.append(g)
    return pids, groups


@pytest.fixture
def host_unchanged(mcpfs):
    """Asserts after the test that the jail left nothing behind on the host.
    Other test sessions may run jails at the same time: only what belongs to
    this test's data root, or to nobody, counts."""
    cgroups_before, mounts_before = set(_cgroups()), _jail_like_mounts()
    yield
    deadline = time.monotonic() + 60  # a killed process may take a while to be reaped
    # A group counts only if it stays: another session's runs make and
    # remove empty groups all the time, and one of those may be new here at
    # any moment; one of ours that was left behind never goes.
    candidates = None
    while True:
        pids, groups = _leaks(mcpfs.root, cgroups_before, mcpfs.jail_uid, mcpfs.rootless)
        candidates = set(groups) if candidates is None else candidates & set(groups)
        groups = sorted(candidates)
        if (not pids and not groups) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert pids == [], "jailed processes outlived their run"
    assert groups == [], f"cgroups left behind: {groups}"
    assert _jail_like_mounts() == mounts_before, "mounts leaked from the jail"
    run = mcpfs.root / "run"
    left = [p.name for p in run.iterdir() if p.name.startswith("exec-")] if run.exists() else []
    assert left == [], f"run folders left behind: {left}"
