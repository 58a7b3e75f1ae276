"""What this host cannot show, in a guest (tests/vm/run.sh): the jail's
cgroup v2 path, with cgroup v2 alone (here memory and pids belong to cgroup
v1), in the three ways a host may place mcpfs and as a normal user in a
group delegated to it; and a data root on a file
system without renameat2's flags (9p there, NFS elsewhere). One guest per
build runs every case (tests/vm/guest_cases.py); each test checks one."""
import json
import signal
import subprocess

import pytest

from conftest import BUILDS, REPO, SAN_ENV

RUN_SH = REPO / "tests" / "vm" / "run.sh"


@pytest.fixture(scope="module", params=list(BUILDS))
def v2(request, tmp_path_factory):
    binary = BUILDS[request.param]
    if not binary.exists():
        pytest.skip(f"{binary} is not built")
    env = SAN_ENV if request.param == "asan" else {}
    share = tmp_path_factory.mktemp("share")
    p = subprocess.run([str(RUN_SH), "--share", str(share), "--", "/usr/bin/python3",
                        str(REPO / "tests" / "vm" / "guest_cases.py"), str(binary), str(share),
                        json.dumps(env)], capture_output=True, text=True, timeout=1800)
    if p.returncode == 77:
        pytest.skip(f"no cgroup v2 guest on this machine: {p.stderr.strip()}")
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


def test_alone_in_a_delegated_group(v2):
    """mcpfs moves itself into a leaf of its group and hands memory and pids
    to the run's group beside it; the code sees its own cgroup namespace."""
    a = v2["alone"]
    assert (a["rc"], a["res"]["stdout"], a["stderr"]) == (0, "0::/\n", ""), a
    assert v2["alone_groups"] == ["mcpfs.main"]  # the run's group is gone
    assert {"memory", "pids"} <= set(v2["alone_subtree_control"])


def test_rootless_in_a_delegated_group(v2):
    """A normal user in a group delegated to it (a scope of systemd's
    user@UID.service) gets the run's memory and pids limits as root does,
    and the code runs in a cgroup namespace of its own, as the jail's user
    (JAIL_INNER_ID, the caller's uid outside)."""
    r = v2["user_run"]
    assert (r["rc"], r["stderr"]) == (0, ""), r
    assert r["res"]["stdout"].split() == ["1000", "0::/"], r
    assert {"memory", "pids"} <= set(r["res"]["limits_in_force"]), r
    m = v2["user_memory"]["res"]
    assert m and m["signal"] == signal.SIGKILL and m["limits"] == ["memory"], v2["user_memory"]
    assert "ALLOWED" not in m["stdout"]
    assert v2["user_groups"] == ["mcpfs.main"]  # the run's group is gone


def test_memory_limit(v2):
    r = v2["memory"]["res"]
    assert r["signal"] == signal.SIGKILL and r["limits"] == ["memory"], (r, v2["memory"])
    assert "ALLOWED" not in r["stdout"]


def test_pids_limit(v2):
    r = v2["pids"]["res"]
    assert r["stdout"].strip() == "EAGAIN" and r["limits"] == ["pids"], (r, v2["pids"])


def test_timeout_kills_the_whole_group(v2):
    r = v2["timeout"]["res"]
    assert r["stdout"] == "SPINNING DETACHED\n", (r, v2["timeout"])
    assert r["timed_out"] and r["signal"] == signal.SIGKILL and r["limits"] == ["timeout"], r


def test_named_group_used_and_nothing_moved(v2):
    """With MCPFS_CGROUP the runs' groups go there, and are gone after; the
    agent stays where it was, with its mcpfs processes."""
    assert v2["agent_groups"] == ["main"]
    assert v2["driver_pid"] in v2["agent_procs"]


def test_group_shared_with_others_fails_closed(v2):
    s = v2["shared"]
    assert s["rc"] == 1 and s["res"] is None, s
    (line,) = s["stderr"].splitlines()
    assert line.startswith("mcpfs: jail: cgroup: cannot give the runs' groups memory and pids "
                           "limits in /sys/fs/cgroup/shared.scope: Device or resource busy"), line
    assert "Delegate=yes" in line and "MCPFS_CGROUP" in line
    assert v2["shared_left"] == []


def test_writes_without_renameat2_flags(v2):
    """A tree generated over itself, and a skill saved over itself, on a file
    system that has no RENAME_NOREPLACE or RENAME_EXCHANGE: each replaces
    the old one and leaves nothing beside it."""
    for key in ("share_generate_1", "share_generate_2", "share_skill_1", "share_skill_2"):
        assert v2[key] == [0, ""], (key, v2[key])
    assert v2["share_tree"] == ["root", "tree"]  # nothing left beside the tree
    rc, shown, err = v2["share_skill_shown"]
    assert rc == 0 and json.loads(shown)["description"] == "version 2", (shown, err)
    assert v2["share_skills"] == ["s"]
