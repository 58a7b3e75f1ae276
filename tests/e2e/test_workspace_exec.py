"""Workspaces seen from jailed code: isolation between customers, session logs
and checkpoints written by runs, quotas hit inside the jail, SIGKILL during a
session log write, per-customer servers, and the example skills."""
import json
import os
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest_ws import EXAMPLES, exec_ready, images_possible, run_py, ws  # noqa: F401

pytestmark = pytest.mark.rootless

BRIDGE_RPC = r'''
import json, os, socket
_s = socket.socket(socket.AF_UNIX)
_s.connect(os.environ["MCPFS_BRIDGE"])
_f = _s.makefile("rw")
def rpc(i, method, params):
    _f.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
    _f.flush()
    return json.loads(_f.readline())
rpc(0, "auth", {"token": os.environ.get("MCPFS_BRIDGE_TOKEN", "")})
'''


@pytest.fixture
def jail(ws):
    why = exec_ready(ws)
    if why:
        pytest.skip(why)
    return ws


def test_two_customers_see_only_their_own(jail):
    for c in ("alice", "bob"):
        jail.run("workspace", "create", c, check=0)
        code = (f"import os\nopen('state.txt', 'w').write('{c} state')\n"
                f"os.makedirs('/skills/{c}-notes', exist_ok=True)\n"
                f"open('/skills/{c}-notes/SKILL.md', 'w').write("
                f"'---\\nname: {c}-notes\\ndescription: {c} only\\n---\\n')\n")
        run_py(jail, c, code)
    for c, other in (("alice", "bob"), ("bob", "alice")):
        code = ("import os\nprint(open('state.txt').read())\n"
                "print(sorted(os.listdir('/skills')))\n"
                f"print(os.path.exists('/skills/{other}-notes'))\n")
        _, out = run_py(jail, c, code)
        lines = out["stdout"].splitlines()
        assert lines[0] == f"{c} state"
        assert f"'{c}-notes'" in lines[1] and f"{other}-notes" not in lines[1]
        assert lines[2] == "False"
        names = [s["name"] for s in jail.json("skill", "list", c)]
        assert f"{c}-notes" in names and f"{other}-notes" not in names


def test_session_log_records_runs_and_checkpoint(jail):
    jail.run("workspace", "create", "acme", check=0)
    run_py(jail, "acme", "open('out.txt', 'w').write('1')\nprint('first')\n", "--session", "s1",
           "--description", "write out.txt")
    code = BRIDGE_RPC + ("print(json.dumps(rpc(1, 'checkpoint/set', {'step': 2, 'last_task': "
                         "'t2', 'context': {'page': 7}})))\n")
    run_py(jail, "acme", code, "--session", "s1")
    _, out = run_py(jail, "acme", BRIDGE_RPC + "print(json.dumps(rpc(1, 'checkpoint/get', {})))\n",
                    "--session", "s1")
    got = json.loads(out["stdout"])["result"]
    assert got["step"] == 2 and got["context"] == {"page": 7}
    log = jail.json("session", "show", "acme", "s1")
    assert log["customer_uid"] == "acme" and len(log["tasks"]) == 3
    first = log["tasks"][0]
    assert first["description"] == "write out.txt" and "first" in first["output"]
    assert "out.txt" in log["state_files"]
    assert log["checkpoint"]["step"] == 2
    # Another session of the same customer shares the workspace.
    _, out = run_py(jail, "acme", "print(open('out.txt').read())\n", "--session", "s2")
    assert out["stdout"].strip() == "1"
    jail.run("session", "end", "acme", "s1", check=0)


@pytest.mark.skipif(not images_possible(), reason="ext4 quota images need root and loop devices")
@pytest.mark.needs_root("workspace images need loop devices: plain folders")
def test_quota_hit_inside_jail(jail):
    jail.run("workspace", "create", "tight", "--quota-bytes", "4M", "--quota-files", "64",
             check=0)
    run_py(jail, "tight", "open('keep.txt', 'w').write('earlier')\n")
    code = ("import errno, sys\ntry:\n    with open('big', 'wb') as f:\n"
            "        for _ in range(80):\n            f.write(b'0' * 131072); f.flush()\n"
            "except OSError as e:\n    print('write failed', errno.errorcode[e.errno])\n"
            "    sys.exit(3)\n")
    p, out = run_py(jail, "tight", code, check=None)
    assert p.returncode == 3, p.stderr
    assert out["stdout"].split()[-1] in ("ENOSPC", "EDQUOT", "EFBIG")
    _, out = run_py(jail, "tight", "print(open('keep.txt').read())\n")
    assert out["stdout"].strip() == "earlier"


def test_sigkill_during_session_writes_keeps_log_valid(jail):
    jail.run("workspace", "create", "crash", check=0)
    run_py(jail, "crash", "print(1)\n", "--session", "k")
    logf = jail.root / "workspaces" / "crash" / "sessions" / "k.json"
    before = len(json.loads(logf.read_text())["tasks"])
    rng = random.Random(7)
    for _ in range(8):
        p = subprocess.Popen(jail.cmd("exec", "--customer", "crash", "--session", "k",
                                      "--lang", "python", "-"),
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=jail.env)
        p.stdin.write(b"print('x' * 100000)\n")
        p.stdin.close()
        time.sleep(rng.uniform(0.0, 0.4))
        p.send_signal(signal.SIGKILL)
        p.wait()
        tasks = json.loads(logf.read_text())["tasks"]  # valid JSON every time
        assert len(tasks) >= before
        before = len(tasks)
    # the next run removes the cgroups the last killed one left
    run_py(jail, "crash", "print(1)\n", "--session", "k")


def test_per_customer_filesystem_server(jail):
    for c in ("alice", "bob"):
        jail.run("workspace", "create", c, check=0)
    bob_file = jail.root / "workspaces" / "bob" / "workspace" / "secret.txt"
    bob_file.write_text("bob's")
    code = ("from servers._runtime import call_tool\n"
            "print(call_tool('filesystem', 'list_allowed_directories', {}))\n"
            "try:\n"
            f"    print('LEAK', call_tool('filesystem', 'read_text_file', {{'path': '{bob_file}'}}))\n"
            "except Exception as e:\n    print('refused', type(e).__name__)\n")
    _, out = run_py(jail, "alice", code)
    assert "workspaces/alice/workspace" in out["stdout"]
    assert "workspaces/bob" not in out["stdout"].splitlines()[0]
    assert "LEAK" not in out["stdout"] and "refused" in out["stdout"]


@pytest.mark.skipif(not images_possible(), reason="ext4 quota images need root and loop devices")
@pytest.mark.needs_root("workspace images need loop devices: plain folders")
def test_a_customer_server_starts_on_the_mounted_image(jail):
    """A customer's filesystem server started while the customer's image is
    unmounted (`mcpfs call`, no run) writes into the image, not into the
    folder under it, where the next mount would hide the file: the server
    holds the workspace while it lives (executor/server_hold.h)."""
    jail.run("workspace", "create", "zed", check=0)
    jail.run("workspace", "umount", "zed")
    target = Path(os.path.realpath(jail.root)) / "workspaces" / "zed" / "workspace"
    jail.run("call", "--customer", "zed", "filesystem", "write_file",
             json.dumps({"path": str(target / "hello.txt"), "content": "hi"}))
    jail.run("workspace", "umount", "zed")
    assert not os.path.ismount(target) and list(target.iterdir()) == []
    _, out = run_py(jail, "zed", "import os\nprint(sorted(os.listdir('.')))\n")
    assert out["stdout"] == "['hello.txt']\n"


def test_a_first_run_sees_what_its_server_wrote(jail):
    """The first run of a customer on a fresh data root: the customer's
    filesystem server, started for the catalog before the run made the
    workspace, works in the workspace the run sees (the server makes and
    holds it first), not in a folder the run's image then covers."""
    # Nothing cached: the run lists the catalogs live, which starts the
    # customer's servers before its workspace is made.
    shutil.rmtree(jail.root / "cache")
    shutil.rmtree(jail.root / "workspaces" / "default", ignore_errors=True)
    target = Path(os.path.realpath(jail.root)) / "workspaces" / "default" / "workspace"
    code = ("import os\nfrom servers._runtime import call_tool\n"
            f"call_tool('filesystem', 'write_file', {{'path': '{target}/x.txt', 'content': 'hi'}})\n"
            "print(sorted(os.listdir('.')))\n")
    _, out = run_py(jail, "default", code)
    assert out["stdout"] == "['x.txt']\n", out


# Looks for two files in its workspace, says so, and waits until both are
# there: one another run writes, one the host.
LOOKS_FOR_FILES = """
import os, time
names = ('from_run.txt', 'from_host.txt')
first = [os.path.exists(n) for n in names]
open('looked', 'w').write('1')
deadline = time.monotonic() + 90
while time.monotonic() < deadline and not all(os.path.exists(n) for n in names):
    time.sleep(0.05)
print(first, [os.path.exists(n) for n in names])
"""


@pytest.mark.needs_root("a normal user mounts nothing on the host: the folder is bound as it is")
def test_a_plain_workspace_is_one_overlay_for_runs_and_host(jail):
    """Quota mode none as root: the workspace, a plain folder, gets an
    overlay of its own mounted over it (workspaces/overlay.h). The jail's
    mount table names no host path; a run that looked for a file and missed
    it sees it once another run or the host writes it; once unmounted, the
    files are in the folder itself."""
    env = {"MCPFS_QUOTA_MODE": "none"}
    jail.run("workspace", "create", "flat", env=env, check=0)
    root = os.path.realpath(jail.root)
    folder = Path(root) / "workspaces" / "flat" / "workspace"
    p = jail.run("exec", "--customer", "flat", "-", env=env, check=0,
                 input="print(open('/proc/self/mountinfo').read())\n")
    assert root not in p.stdout, p.stdout
    mounts = [line.split() for line in p.stdout.splitlines() if line.strip()]
    assert [f[3] for f in mounts if f[4] == "/workspace"] == ["/"], p.stdout
    prog = jail.tmp / "looks.py"
    prog.write_text(LOOKS_FOR_FILES)
    looker = subprocess.Popen(jail.cmd("exec", "--customer", "flat", "--timeout", "300", prog),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**jail.env, **env})
    deadline = time.monotonic() + 120
    while not (folder / "looked").exists() and looker.poll() is None:
        assert time.monotonic() < deadline, "the first run never looked"
        time.sleep(0.05)
    jail.run("exec", "--customer", "flat", "-", env=env, check=0,
             input="open('from_run.txt', 'w').write('1')\n")
    (folder / "from_host.txt").write_text("2")
    out, err = looker.communicate(timeout=150)
    assert looker.returncode == 0 and out == "[False, False] [True, True]\n", (out, err)
    jail.run("workspace", "umount", "flat", check=0)
    assert not os.path.ismount(folder)
    assert sorted(x.name for x in folder.iterdir()) == ["from_host.txt", "from_run.txt", "looked"]


def test_example_skills_run_against_default_servers(jail):
    jail.run("workspace", "create", "demo", check=0)
    for d in EXAMPLES.iterdir():
        jail.run("skill", "save", "demo", str(d), check=0)
    code = ("from skills.sum_numbers import total\n"
            "from skills.remember_facts import remember, recall\n"
            "from skills.workspace_notes import write_note, read_note, list_notes\n"
            "print(total([1, 2, 3.5]))\n"
            "remember('Ada', 'person', ['works on billing'])\n"
            "print([n['name'] for n in recall('billing')])\n"
            "write_note('plan', 'step one')\n"
            "print(list_notes(), read_note('plan'))\n")
    _, out = run_py(jail, "demo", code)
    lines = out["stdout"].splitlines()
    assert lines[0] == "6.5"
    assert lines[1] == "['Ada']"
    assert lines[2] == "['plan'] step one"
    assert (jail.root / "workspaces" / "demo" / "workspace" / "notes" / "plan.md").exists()
    assert (jail.root / "workspaces" / "demo" / "state" / "memory.jsonl").exists()
