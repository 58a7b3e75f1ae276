"""Run inside the guest of tests/vm/run.sh (cgroup v2 alone; the host's
folders shown over 9p): `mcpfs exec` under the three ways a cgroup v2 host
may place it, the limits only cgroup v2 can give here, and what each left in
the cgroup tree, and as a normal user in a group delegated to it; then trees and skills written on SHARE, a file system
without renameat2's flags (as NFS). Prints one JSON object; tests/e2e/test_exec_guest.py
reads it.
usage: guest_cases.py MCPFS SHARE [ENV_JSON]"""
import json
import os
import subprocess
import sys
from pathlib import Path

MCPFS, SHARE = sys.argv[1], Path(sys.argv[2])
ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", **json.loads(sys.argv[3] if len(sys.argv) > 3
                                                             else "{}")}
JAIL = Path(__file__).resolve().parent.parent / "jail"
CG = Path("/sys/fs/cgroup")
CFG = Path("/tmp/mcpfs.json")
UID = 64100  # a normal user, as tests/conftest.py's ROOTLESS_UID
CFG.write_text('{"mcpServers": {}}')


def enter(group: Path) -> None:
    """Move this process into @group (made if need be)."""
    group.mkdir(exist_ok=True)
    (group / "cgroup.procs").write_text(str(os.getpid()))


def started_in(group: Path) -> tuple:
    """A command prefix: what follows starts in @group, as a service's main
    process starts in its unit's group."""
    return ("sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', str(group))


def mcpfs(*args: str, prefix: tuple = (), env: dict = {}, root: str = "/tmp/root",
          code: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, MCPFS, "--config", str(CFG), "--root", root, *args],
                          input=code, capture_output=True, text=True, env={**ENV, **env},
                          timeout=600)


def exec_json(code: str, *flags: str, **kw) -> dict:
    p = mcpfs("exec", "--json", *flags, "-", code=code, **kw)
    res = json.loads(p.stdout) if p.stdout.strip() else None
    return {"rc": p.returncode, "stderr": p.stderr, "res": res}


def shared_root(out: dict) -> None:
    """A tree generated, then generated again in its place (an exchange),
    and a shared skill saved twice (in place, then an exchange), all on
    SHARE, where renameat2 has neither of its flags."""
    root = str(SHARE / "root")
    for n in (1, 2):
        p = mcpfs("generate", "--out", str(SHARE / "tree"), root=root)
        out[f"share_generate_{n}"] = [p.returncode, p.stderr]
    out["share_tree"] = sorted(p.name for p in SHARE.iterdir())
    skill = SHARE / "skill"
    skill.mkdir()
    for n in (1, 2):
        (skill / "SKILL.md").write_text(f"---\nname: s\ndescription: version {n}\n---\n")
        p = mcpfs("skill", "save", "--shared", str(skill), root=root)
        out[f"share_skill_{n}"] = [p.returncode, p.stderr]
    p = mcpfs("skill", "show", "--shared", "s", "--json", root=root)
    out["share_skill_shown"] = [p.returncode, p.stdout, p.stderr]
    out["share_skills"] = sorted(p.name for p in (SHARE / "root" / "skills-shared").iterdir())


def delegated(group: Path) -> Path:
    """@group made and delegated to UID, as systemd delegates a unit's group
    to its user (the folder, cgroup.procs, cgroup.threads and
    cgroup.subtree_control the user's)."""
    group.mkdir()
    for p in (group, group / "cgroup.procs", group / "cgroup.threads",
              group / "cgroup.subtree_control"):
        os.chown(p, UID, UID)
    return group


def rootless_delegated(out: dict) -> None:
    """A normal user in groups delegated to it, as systemd's user@UID.service
    with a scope per program: the rootless jail has memory and pids limits
    there, as root's has."""
    user = delegated(CG / f"user@{UID}.service")
    (user / "cgroup.subtree_control").write_text("+memory +pids")
    home = Path("/tmp/user")
    home.mkdir()
    os.chown(home, UID, UID)
    as_user = ("setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups", "--")
    kw = {"root": str(home / "root"), "env": {"HOME": str(home)}}
    run = delegated(user / "run.scope")
    out["user_run"] = exec_json("import os\nprint(os.getuid(), "
                                "open('/proc/self/cgroup').read().strip())\n",
                                prefix=started_in(run) + as_user, **kw)
    out["user_groups"] = sorted(d.name for d in run.iterdir() if d.is_dir())
    out["user_memory"] = exec_json((JAIL / "memory_heap.py").read_text(), "--memory", "64",
                                   "--timeout", "120",
                                   prefix=started_in(delegated(user / "memory.scope")) + as_user,
                                   **kw)


def run_groups(group: Path) -> list:
    return sorted(d.name for d in group.iterdir() if d.is_dir() and d.name.startswith("mcpfs-"))


def main() -> None:
    out = {}
    # 1. mcpfs alone in a delegated group (a unit with Delegate=yes whose
    # main process it is): it moves itself into a leaf and hands the
    # controllers to the run's group beside it.
    service = CG / "mcpfs.service"
    enter(CG / "driver.scope")
    out["alone"] = exec_json("print(open('/proc/self/cgroup').read().strip())\n",
                             prefix=started_in(service))
    out["alone_groups"] = sorted(d.name for d in service.iterdir() if d.is_dir())
    out["alone_subtree_control"] = (service / "cgroup.subtree_control").read_text().split()

    # 2. an agent that keeps itself in a leaf of its delegated group and
    # names the group in MCPFS_CGROUP: mcpfs moves nothing.
    agent = CG / "agent.service"
    enter(agent)
    enter(agent / "main")
    env = {"MCPFS_CGROUP": "/agent.service"}
    out["memory"] = exec_json((JAIL / "memory_heap.py").read_text(), "--memory", "64",
                              "--timeout", "120", env=env)
    out["pids"] = exec_json((JAIL / "fork_bomb.py").read_text(), "--timeout", "120", env=env)
    out["timeout"] = exec_json((JAIL / "tree_spin.py").read_text(), "--timeout", "3", env=env)
    out["agent_groups"] = sorted(d.name for d in agent.iterdir() if d.is_dir())
    out["agent_procs"] = (agent / "main" / "cgroup.procs").read_text().split()
    out["driver_pid"] = str(os.getpid())

    # 3. a group that holds a process mcpfs did not start, and no
    # MCPFS_CGROUP: mcpfs may not move that process, so it cannot hand the
    # controllers down, and says why.
    shared = CG / "shared.scope"
    shared.mkdir()
    sleeper = subprocess.Popen(["sleep", "300"])
    try:
        (shared / "cgroup.procs").write_text(str(sleeper.pid))
        out["shared"] = exec_json("print(1)\n", prefix=started_in(shared))
        out["shared_left"] = run_groups(shared)
    finally:
        sleeper.kill()
        sleeper.wait()
    rootless_delegated(out)
    shared_root(out)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
