"""`mcpfs exec`: programs in the jail import generated tools and call real
servers; the --json object; pass-through; session records; posture seen
from outside."""
import fcntl
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest_executor import (code_jail_pids_of, exec_config, go_file,  # noqa: F401
                               go_waiter, host_unchanged, jail_pids_of, run_code)

pytestmark = pytest.mark.rootless

PY_TOOLS = """
from servers.everything import get_sum
from servers.memory import create_entities, read_graph
total = get_sum(a=19, b=23)
create_entities(entities=[
    {"name": "ada", "entityType": "person", "observations": ["wrote the first program"]},
    {"name": "bob", "entityType": "robot", "observations": ["beeps"]},
])
graph = read_graph()
people = sorted(e["name"] for e in graph["entities"] if e["entityType"] == "person")
print(total)
print(people)
"""

TS_TOOLS = """
import * as everything from "./servers/everything";
import * as memory from "./servers/memory";
interface Entity { name: string; entityType: string }
const total = await everything.get_sum({ a: 19, b: 23 });
await memory.create_entities({ entities: [
  { name: "ada", entityType: "person", observations: ["wrote the first program"] },
  { name: "bob", entityType: "robot", observations: ["beeps"] },
] });
const graph = (await memory.read_graph({})) as { entities: Entity[] };
const people: string[] = graph.entities.filter((e) => e.entityType === "person").map((e) => e.name);
console.log(total);
console.log(JSON.stringify(people));
"""


def test_python_calls_real_servers(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, PY_TOOLS)
    assert res["exit_code"] == 0, res
    assert res["stdout"] == "The sum of 19 and 23 is 42.\n['ada']\n", res
    assert res["tool_calls"] == 3
    assert res["signal"] == 0 and res["timed_out"] is False and res["limits"] == []


def test_typescript_calls_real_servers(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, TS_TOOLS, lang="typescript")
    assert res["exit_code"] == 0, res
    assert res["stdout"] == 'The sum of 19 and 23 is 42.\n["ada"]\n', res
    assert res["tool_calls"] == 3


def test_json_fields(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, "import sys\nprint('out')\nprint('err', file=sys.stderr)\n"
                      "sys.exit(3)\n")
    assert p.returncode == 3
    for k in ("exit_code", "signal", "timed_out", "stdout", "stderr", "truncated",
              "duration_ms", "tool_calls", "limits", "session_id"):
        assert k in res, k
    assert (res["exit_code"], res["stdout"], res["stderr"]) == (3, "out\n", "err\n")
    assert res["truncated"] == {"stdout": False, "stderr": False}
    assert res["tool_calls"] == 0 and 0 < res["duration_ms"] < 60000


def test_limits_in_force(mcpfs, host_unchanged):  # noqa: F811
    """`limits_in_force` says what bounded the run: the cgroup's memory and
    pids as root; a normal user without a delegated group has rlimits only,
    RLIMIT_NPROC taking pids.max's place."""
    exec_config(mcpfs)
    p, res = run_code(mcpfs, "import resource\n"
                      "print(resource.getrlimit(resource.RLIMIT_NPROC)[0])\n",
                      "--timeout", "7", "--memory", "300")
    got = res["limits_in_force"]
    want = {"timeout": 7, "cpu": 7, "file_size": 256, "open_files": 1024, "data": 2048,
            "tmp": 64, "output": 1}
    if mcpfs.rootless:
        want["processes"] = 256
    else:
        want.update(processes=4096, memory=300, pids=256)
    assert got == want, res
    assert res["stdout"] == f"{want['processes']}\n", res


def test_invalid_utf8_costs_only_its_bytes(mcpfs, host_unchanged):  # noqa: F811
    """Each byte of invalid UTF-8 in the output becomes U+FFFD, the rest
    stays: a surrogate, overlong forms, a code point past U+10FFFF."""
    exec_config(mcpfs)
    p, res = run_code(mcpfs, "import sys\nsys.stdout.buffer.write(b'ok \\xed\\xa0\\x80 "
                      "\\xe0\\x80\\xaf \\xf4\\x90\\x80\\x80 \\xc0\\xaf \\xc3\\xa9 end\\n')\n")
    r = "\ufffd"
    assert res["stdout"] == f"ok {r * 3} {r * 3} {r * 4} {r * 2} \u00e9 end\n", res


def test_output_capped(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, "import sys\nsys.stdout.write('x' * (3 << 20))\n")
    assert res["truncated"]["stdout"] is True and "output" in res["limits"]
    assert len(res["stdout"]) == 1 << 20
    assert res["exit_code"] == 0


def test_pass_through_and_status(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p, _ = run_code(mcpfs, "import sys\nprint('hello')\nprint('oops', file=sys.stderr)\n"
                    "sys.exit(5)\n", json_out=False)
    assert (p.returncode, p.stdout, p.stderr) == (5, "hello\n", "oops\n")


def test_program_from_stdin(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p = mcpfs.run("exec", "-", input="print(6 * 7)\n", check=0)
    assert p.stdout == "42\n"
    p = mcpfs.run("exec", "--lang", "typescript", "-",
                  input="const n: number = 6 * 7;\nconsole.log(n);\n", check=0)
    assert p.stdout == "42\n"


def test_language_required_for_unknown_suffix(mcpfs):
    exec_config(mcpfs)
    (mcpfs.tmp / "prog.rb").write_text("puts 1\n")
    p = mcpfs.run("exec", mcpfs.tmp / "prog.rb", check=2)
    assert "--lang" in p.stderr and len(p.stderr.splitlines()) == 1


def test_bad_limits_refused(mcpfs):
    """A limit that cannot be honoured is a usage error, not a silent default."""
    exec_config(mcpfs)
    for flag, value in [("--memory", "0.5"), ("--memory", "1.5"), ("--memory", "0"),
                        ("--timeout", "-1"), ("--timeout", "soon")]:
        p = mcpfs.run("exec", flag, value, "-", input="print(1)\n", check=2)
        assert flag in p.stderr and len(p.stderr.splitlines()) == 1, (flag, value, p.stderr)


def test_killed_by_signal(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n"
                      "import time\ntime.sleep(0.5)\nprint('ALIVE')\n")
    # as outside a jail: the program is not its PID namespace's init, which
    # would ignore a signal it has no handler for
    assert (res["signal"], res["exit_code"], res["stdout"]) == (15, 128 + 15, ""), res
    p, res = run_code(mcpfs, "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n",
                      json_out=False)
    assert p.returncode == 128 + 15, p


ORPHAN_PY = """
import os, time
if os.fork() == 0:
    if os.fork() == 0:  # the orphan: its parent leaves at once
        time.sleep(0.2)
        os._exit(0)
    os._exit(0)
os.wait()
time.sleep(1)
stats = [open(f"/proc/{p}/stat").read() for p in os.listdir("/proc") if p.isdigit()]
print(len(stats), sum(s.rsplit(")", 1)[1].split()[0] == "Z" for s in stats))
"""


def test_orphans_reaped(mcpfs, host_unchanged):  # noqa: F811
    """The jail's pid 1 reaps orphans: none stays a zombie, counted against
    the pids limit until the run ends."""
    exec_config(mcpfs)
    p, res = run_code(mcpfs, ORPHAN_PY)
    assert res["stdout"] == "2 0\n", res  # pid 1 and the program, no zombie


def test_no_tool_run_starts_no_server(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    run_code(mcpfs, "pass\n")  # warms the tree cache (starts servers once)
    broken = mcpfs.tmp / "broken.json"
    cfg = json.loads(mcpfs.config_path.read_text())
    broken.write_text(json.dumps(cfg))
    p, res = run_code(mcpfs, "print('quick')\n")
    assert res["stdout"] == "quick\n"
    logs = mcpfs.root / "logs"
    sizes = {f.name: f.stat().st_size for f in logs.iterdir()} if logs.exists() else {}
    run_code(mcpfs, "pass\n")
    after = {f.name: f.stat().st_size for f in logs.iterdir()} if logs.exists() else {}
    assert after == sizes, "a run without tool calls touched a server"


def test_session_record_and_checkpoint(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    code = ("from servers import _runtime as rt\n"
            "from servers.everything import get_sum\n"
            "print(rt.get_checkpoint())\n"
            "get_sum(a=1, b=2)\n"
            "rt.set_checkpoint(3, 'summed', {'k': 'v'})\n")
    p, res = run_code(mcpfs, code, "--customer", "acme", "--session", "s1",
                      "--description", "first")
    assert res["stdout"] == "None\n", res
    assert res["session_id"] == "s1" and res["customer"] == "acme"
    log = json.loads((mcpfs.root / "workspaces" / "acme" / "sessions" / "s1.json").read_text())
    task = log["tasks"][-1]
    assert task["description"] == "first" and task["exit_code"] == 0
    assert [c["tool"] for c in task["tool_calls"]] == ["get-sum"]
    assert task["tool_calls"][0]["ok"] is True
    assert log["checkpoint"]["step"] == 3 and log["checkpoint"]["context"] == {"k": "v"}
    p, res = run_code(mcpfs, "from servers import _runtime as rt\n"
                      "print(rt.get_checkpoint()['last_task'])\n",
                      "--customer", "acme", "--session", "s1")
    assert res["stdout"] == "summed\n"


def test_workspace_persists_per_customer(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    run_code(mcpfs, "open('note.txt', 'w').write('kept')\n", "--customer", "c1")
    p, res = run_code(mcpfs, "print(open('note.txt').read())\n", "--customer", "c1")
    assert res["stdout"] == "kept\n"
    p, res = run_code(mcpfs, "import os\nprint(os.path.exists('note.txt'))\n",
                      "--customer", "c2")
    assert res["stdout"] == "False\n"
    note = mcpfs.root / "workspaces" / "c1" / "workspace" / "note.txt"
    assert note.stat().st_uid == mcpfs.jail_uid  # a non-zero uid on the host side


def test_posture_from_outside(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    prog = mcpfs.tmp / "sleep.py"
    prog.write_text("import time\nprint('up', flush=True)\ntime.sleep(30)\n")
    proc = subprocess.Popen(mcpfs.cmd("exec", prog), stdout=subprocess.PIPE, text=True,
                            env={**mcpfs.env})
    try:
        assert proc.stdout.readline() == "up\n"
        pids = [Path(f"/proc/{pid}") for pid in code_jail_pids_of(mcpfs.root, mcpfs.jail_uid)]
        assert len(pids) == 1, pids
        status = dict(line.split(":\t", 1) for line in
                      (pids[0] / "status").read_text().splitlines() if ":\t" in line)
        assert status["Seccomp"].strip() == "2"
        assert status["NoNewPrivs"].strip() == "1"
        for cap in ("CapEff", "CapPrm", "CapInh", "CapBnd", "CapAmb"):
            assert int(status[cap], 16) == 0, cap
        assert status["Uid"].split()[0] == str(mcpfs.jail_uid)
        assert status["NSpid"].split()[-1] == "1"
        for ns in ("user", "pid", "mnt", "net", "ipc", "uts", "cgroup"):
            assert os.readlink(pids[0] / "ns" / ns) != os.readlink(f"/proc/self/ns/{ns}"), ns
    finally:
        proc.terminate()  # mcpfs kills the jail and cleans up (host_unchanged checks)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 128 + 9


def test_killed_mcpfs_takes_jail_along(mcpfs, host_unchanged):  # noqa: F811
    """kill -9 of mcpfs ends its jail and its servers; the next run on the
    data root removes the cgroups it left (host_unchanged checks), which
    would otherwise stay until any run's stale sweep a minute later."""
    exec_config(mcpfs)
    prog = mcpfs.tmp / "sleep.py"
    prog.write_text("import time\nprint('up', flush=True)\ntime.sleep(30)\n")
    proc = subprocess.Popen(mcpfs.cmd("exec", prog), stdout=subprocess.PIPE, text=True,
                            env={**mcpfs.env})
    assert proc.stdout.readline() == "up\n"
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 60
    while jail_pids_of(mcpfs.root, mcpfs.jail_uid):
        assert time.monotonic() < deadline, "the jail outlived a killed mcpfs"
        time.sleep(0.05)
    p, res = run_code(mcpfs, "pass\n")
    assert res and res["exit_code"] == 0, (p.stderr, res)


def test_uses_a_running_mount(mcpfs, host_unchanged):  # noqa: F811
    if not os.path.exists("/dev/fuse"):
        pytest.skip("no /dev/fuse on this machine")
    if mcpfs.rootless:
        pytest.skip("rootless: -o allow_other needs user_allow_other in /etc/fuse.conf "
                    "(test_rootless.py runs code on a user's own mount)")
    exec_config(mcpfs)
    mnt = mcpfs.tmp / "mnt"
    mnt.mkdir()
    mcpfs.run("tools", "--json", check=0)  # catalogs cached: this test is about exec
    mcpfs.run("mount", mnt, "-o", "allow_other", check=0)
    try:
        p, res = run_code(mcpfs, "import os\nfrom servers.everything import get_sum\n"
                          "print(get_sum(a=2, b=2))\n")
        assert res["stdout"] == "The sum of 2 and 2 is 4.\n", res
        assert not (mcpfs.root / "cache" / "trees").exists(), "generated a tree despite the mount"
    finally:
        subprocess.run(["fusermount3", "-u", str(mnt)], check=True)


def test_new_binary_makes_its_own_tree(mcpfs, host_unchanged):  # noqa: F811
    """A cached tree belongs to the mcpfs that wrote it: after an upgrade,
    runs must not import an older runtime that speaks another bridge protocol."""
    exec_config(mcpfs)
    trees = mcpfs.root / "cache" / "trees"
    p, res = run_code(mcpfs, "print('old')\n")
    assert res["stdout"] == "old\n", res
    first = {d.name for d in trees.iterdir() if d.is_dir()}
    assert len(first) == 1, first
    upgraded = mcpfs.tmp / "mcpfs-upgraded"
    shutil.copy(mcpfs.binary, upgraded)  # a new file: another inode and time
    prog = mcpfs.tmp / "new.py"
    prog.write_text("print('new')\n")
    cmd = mcpfs.cmd("exec", prog)
    cmd[cmd.index(mcpfs.binary)] = str(upgraded)
    p = subprocess.run(cmd, capture_output=True, text=True, env=mcpfs.env, timeout=120)
    assert (p.returncode, p.stdout) == (0, "new\n"), p.stderr
    second = {d.name for d in trees.iterdir() if d.is_dir()}
    assert len(second) == 2 and first < second, second


def test_run_keeps_its_tree_when_a_later_run_replaces_it(mcpfs, host_unchanged):  # noqa: F811
    """A run that started just before its tree went stale imports from it
    after a later run has written the new one in its place."""
    exec_config(mcpfs)
    run_code(mcpfs, "print('warm')\n")
    trees = mcpfs.root / "cache" / "trees"
    (tree,) = [d for d in trees.iterdir() if d.is_dir()]
    go = go_file(mcpfs)
    first = mcpfs.tmp / "first.py"
    first.write_text(go_waiter("from servers.everything import get_sum\n"
                               "print(callable(get_sum))\n"))
    a = subprocess.Popen(mcpfs.cmd("exec", "--json", first), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=mcpfs.env)
    try:
        time.sleep(1.0)  # the first run has bound the tree
        two_days = time.time() - 2 * 86400
        os.utime(tree / "servers", (two_days, two_days))
        p, res = run_code(mcpfs, "print('second')\n")  # finds it stale, writes it anew
        assert res["stdout"] == "second\n", res
        assert (tree / "servers").stat().st_mtime > two_days + 86400
        go.write_text("")
        out, err = a.communicate(timeout=60)
    finally:
        a.kill()
        go.unlink(missing_ok=True)
    assert json.loads(out)["stdout"] == "True\n", (out, err)
    assert [d.name for d in trees.iterdir() if ".mcpfs-" in d.name], "the old tree was removed"


def test_unused_trees_swept(mcpfs, host_unchanged):  # noqa: F811
    """A run that writes a tree removes those no run can still be using
    (another build's or config's, written over two days ago) and what a
    writer that died half-way left; recent trees, trees whose lock is held
    and files that are not trees stay."""
    exec_config(mcpfs)
    trees = mcpfs.root / "cache" / "trees"
    trees.mkdir(parents=True)
    old = time.time() - 3 * 86400

    def tree(name, mtime):
        (trees / name / "servers" / "s").mkdir(parents=True)
        (trees / name / "servers" / "s" / "t.py").write_text("")
        (trees / f"{name}.lock").touch()
        os.utime(trees / name / "servers", (mtime, mtime))
        return trees / name

    stale = tree("0123456789abcdef", old)
    held = tree("00000000000000ff", old)
    recent = tree("fedcba9876543210", time.time() - 3600)
    half = trees / ".0123456789abcdef.mcpfs-1-2-0"
    (half / "servers").mkdir(parents=True)
    os.utime(half, (old, old))
    notes = trees / "notes"
    notes.write_text("not a tree")
    os.utime(notes, (old, old))
    mcpfs.give(mcpfs.root / "cache")
    with open(trees / "00000000000000ff.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        p, res = run_code(mcpfs, "print('ok')\n")
    assert res["stdout"] == "ok\n", res
    assert not stale.exists() and not (trees / "0123456789abcdef.lock").exists()
    assert not half.exists()
    assert held.exists() and recent.exists() and notes.exists()
    assert len([d for d in trees.iterdir() if d.is_dir()]) == 3, list(trees.iterdir())


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_stop_signal_cancels_the_run(mcpfs, host_unchanged, sig):  # noqa: F811
    # `mcpfs exec` is one caller of the run API: a stop signal cancels its
    # run (the jail is killed), and mcpfs still reports and cleans up.
    exec_config(mcpfs)
    started = mcpfs.root / "workspaces" / "default" / "workspace" / "started"
    prog = mcpfs.tmp / "sleeper.py"
    prog.write_text("import pathlib, time\npathlib.Path('started').touch()\ntime.sleep(600)\n")
    proc = subprocess.Popen(mcpfs.cmd("exec", "--json", "--timeout", "300", prog),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=mcpfs.env)
    try:
        deadline = time.monotonic() + 120
        while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert started.exists(), proc.communicate(timeout=60)
        t0 = time.monotonic()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    res = json.loads(out)
    assert res["limits"] == ["interrupted"] and res["signal"] == 9, (res, err)
    assert proc.returncode == 128 + 9
    # Not the 300 s timeout: the cancel acted (generous for a loaded host).
    assert time.monotonic() - t0 < 60


def test_text_mode_says_which_limit_ended_the_run(mcpfs):
    """Without --json the exit status alone (137) said nothing: one line on
    stderr names the limit; --json keeps to its "limits"."""
    exec_config(mcpfs)
    prog = mcpfs.tmp / "sleepy.py"
    prog.write_text("import time\nprint('started', flush=True)\ntime.sleep(120)\n")
    p = mcpfs.run("exec", "--timeout", "2", prog, check=128 + signal.SIGKILL)
    assert p.stdout == "started\n"
    assert p.stderr.splitlines()[-1] == (
        "mcpfs: exec: the run timed out after 2 s and was killed (--timeout S allows more)")
    if not mcpfs.rootless:  # a normal user without a delegated cgroup has no memory limit
        hog = mcpfs.tmp / "hog.py"
        hog.write_text("x = []\nwhile True:\n    x.append(bytearray(1 << 20))\n")
        p = mcpfs.run("exec", "--memory", "64", "--timeout", "60", hog,
                      check=128 + signal.SIGKILL)
        assert p.stderr.splitlines()[-1] == (
            "mcpfs: exec: the run hit its memory limit of 64 MiB and was killed "
            "(--memory MB allows more)"), p.stderr
    p = mcpfs.run("exec", "--json", "--timeout", "2", prog)
    assert json.loads(p.stdout)["limits"] == ["timeout"] and p.stderr == ""


def test_saved_skill_lands_in_the_folder(mcpfs, host_unchanged):  # noqa: F811
    """Code saves a skill through /skills: it is in the customer's skills
    folder on the host, the folder itself once its overlay is unmounted."""
    exec_config(mcpfs)
    p, res = run_code(mcpfs, "import os\nos.makedirs('/skills/tally', exist_ok=True)\n"
                      "open('/skills/tally/SKILL.md', 'w').write('saved')\n")
    assert res and res["exit_code"] == 0, (p.stderr, res)
    skill = mcpfs.root / "workspaces" / "default" / "skills" / "tally" / "SKILL.md"
    assert skill.read_text() == "saved"
    mcpfs.run("workspace", "umount", "default")
    assert not os.path.ismount(skill.parent.parent) and skill.read_text() == "saved"


# Looks for two names in /skills, says so in its workspace, and waits until
# both are there: one another run saves, one the host.
LOOKS_FOR_SKILLS = """
import os, time
names = ('from_run.py', 'from_host.py')
first = [os.path.exists('/skills/' + n) for n in names]
open('looked', 'w').write('1')
deadline = time.monotonic() + 90
while time.monotonic() < deadline and not all(os.path.exists('/skills/' + n) for n in names):
    time.sleep(0.05)
print(first, [os.path.exists('/skills/' + n) for n in names])
"""


def _kernel_lines(what: str) -> set:
    p = subprocess.run(["dmesg"], capture_output=True, text=True)
    return {line for line in p.stdout.splitlines() if what in line} if p.returncode == 0 else set()


def test_skills_one_view_for_runs_and_host(mcpfs, host_unchanged):  # noqa: F811
    """A run that looked for a skill and missed it sees it once another run
    of the customer or the host saves it (issue 19): they all write through
    one view of the folder, the customer's overlay (workspaces/overlay.h)
    or, rootless, the folder itself. Runs of one customer at once stack no
    overlays on one folder (the kernel would log it)."""
    exec_config(mcpfs)
    before = _kernel_lines("upperdir is in-use")
    prog = mcpfs.tmp / "looks.py"
    prog.write_text(LOOKS_FOR_SKILLS)
    looker = subprocess.Popen(mcpfs.cmd("exec", "--timeout", "300", prog),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=mcpfs.env)
    customer = mcpfs.root / "workspaces" / "default"
    deadline = time.monotonic() + 120
    while not (customer / "workspace" / "looked").exists() and looker.poll() is None:
        assert time.monotonic() < deadline, "the first run never looked"
        time.sleep(0.05)
    p, res = run_code(mcpfs, "open('/skills/from_run.py', 'w').write('x = 1')\n")
    assert res and res["exit_code"] == 0, (p.stderr, res)
    (customer / "skills" / "from_host.py").write_text("y = 2")
    mcpfs.give(customer / "skills" / "from_host.py")
    out, err = looker.communicate(timeout=150)
    assert looker.returncode == 0, err
    assert out == "[False, False] [True, True]\n", (out, err)
    assert _kernel_lines("upperdir is in-use") <= before
