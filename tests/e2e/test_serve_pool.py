"""serve's parked jails (executor/run_pool.h): a run takes a jail made ahead
of its call, and gets it fresh and alone; a catalog change retires them; a
stopped daemon leaves none behind; the idle sweep leaves a workspace a
parked jail holds mounted."""
import os
import time

import pytest

from conftest import mounts_under, sdk_server
from conftest_executor import code_jail_pids_of, host_unchanged  # noqa: F401 (a fixture)
from conftest_serve import Stdio, parked, run_locks, serve_config, wait_for
from conftest_ws import exec_ready, images_possible, ws  # noqa: F401 (a fixture)

# Leaves what a next run in the same jail, or beside it, would see: a file in
# /tmp, a process in its own session; says what it is and where it runs.
FIRST = ("import os, subprocess\nopen('/tmp/mark', 'w').write('1')\n"
         "subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
         "print(open('/run/code/main.py').read() == open(__file__).read())\n")

# The second run: nothing of the first, its own file, a read-only root, its
# CPU limit and bridge token from its call, nothing of serve's command line.
SECOND = """# the second run
import os, resource
from servers.everything import get_sum
procs = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
print(os.path.exists('/tmp/mark'), procs, os.getpid() in procs)
print(open('/run/code/main.py').read().splitlines()[0])
try:
    open('/run/code/x', 'w')
except OSError as e:
    print('read-only', e.errno)
print(resource.getrlimit(resource.RLIMIT_CPU))
print(get_sum(a=2, b=3))
print(open('/proc/1/cmdline', 'rb').read().strip(b'\\0'))
"""


def execute(c, code, **args):
    r = c.request("tools/call", {"name": "execute_code", "arguments": {"code": code, **args}})
    assert r["result"]["isError"] is False, r["result"]["content"][0]["text"]
    return r["result"]["structuredContent"]


def test_pooled_run_is_fresh_and_alone(mcpfs, host_unchanged):
    serve_config(mcpfs)
    c = Stdio(mcpfs)
    try:
        c.initialize()
        first = execute(c, FIRST)
        assert first["stdout"] == "True\n", first
        wait_for(lambda: parked(mcpfs.root), what="a jail parked")
        ready = run_locks(mcpfs.root) - {first["run_id"]}
        second = execute(c, SECOND, timeout_s=7)
        assert second["run_id"] in ready  # it took the parked jail
        lines = second["stdout"].splitlines()
        assert lines[0] == "False [1, 2] True", second  # its pid 1 and itself, no sleep
        assert lines[1] == "# the second run"
        assert lines[2] == "read-only 30"  # EROFS
        assert lines[3] == "(8, 9)"  # ceil(timeout_s) + 1, SIGKILL a second later
        assert lines[4] == "The sum of 2 and 3 is 5."
        assert lines[5] == "b''"  # pid 1, serve's copy, wiped its command line
        assert second["tool_calls"] == 1
        # each parked jail runs one program: the next run takes another
        wait_for(lambda: run_locks(mcpfs.root) - {second["run_id"]} - ready,
                 what="another jail parked")
        third = execute(c, "print(open('/run/code/main.py').read())")
        assert third["run_id"] not in (first["run_id"], second["run_id"])
        assert third["stdout"] == "print(open('/run/code/main.py').read())\n"
    finally:
        assert c.close() == 0
    assert parked(mcpfs.root) == [] and run_locks(mcpfs.root) == set()


def test_pooled_typescript_run(mcpfs, host_unchanged):
    """TypeScript has jails of its own, its runtime in place, its program
    handed over."""
    serve_config(mcpfs)
    c = Stdio(mcpfs)
    try:
        c.initialize()
        ts = ("import { get_sum } from './servers/everything';\n"
              "console.log(await get_sum({a: 2, b: 3}));\n")
        first = execute(c, ts, language="typescript")
        assert first["stdout"] == "The sum of 2 and 3 is 5.\n", first
        wait_for(lambda: parked(mcpfs.root), what="a jail parked")
        ready = run_locks(mcpfs.root) - {first["run_id"]}
        second = execute(c, "const n: number = 41;\nconsole.log(n + 1);\n",
                         language="typescript")
        assert second["run_id"] in ready and second["stdout"] == "42\n", second
    finally:
        assert c.close() == 0


def test_catalog_change_retires_the_pool(mcpfs, host_unchanged):
    """A jail parked before a server's new tool is retired, and the cached
    tree written again: the next run imports the tool."""
    mcpfs.write_config({"dyn": sdk_server("sdk_dynamic.mjs")})
    c = Stdio(mcpfs)
    try:
        c.initialize()
        execute(c, "pass")
        wait_for(lambda: parked(mcpfs.root), what="a jail parked")
        out = execute(c, "from servers.dyn import add_tool\nprint(add_tool(name='brand_new'))")
        assert out["stdout"] == "added brand_new\n", out
        while not any(m.get("method") == "notifications/resources/list_changed"
                      for m in c.notes):
            c.notes.append(c.read(timeout=60))
        out = execute(c, "from servers.dyn import brand_new\nprint(brand_new(message='hi'))")
        assert out["exit_code"] == 0 and "hi" in out["stdout"], out
    finally:
        assert c.close() == 0


def test_stopped_daemon_leaves_no_parked_jail(mcpfs, host_unchanged):
    serve_config(mcpfs)
    c = Stdio(mcpfs, "--pool", "2")
    try:
        c.initialize()
        execute(c, "pass")
        wait_for(lambda: len(parked(mcpfs.root)) == 2, what="two jails parked")
        pids = parked(mcpfs.root)
    finally:
        assert c.close() == 0
    # host_unchanged checks the cgroups, mounts and run locks
    assert [p for p in pids if os.path.exists(f"/proc/{p}")] == []
    assert run_locks(mcpfs.root) == set()


# Small images: a real loop-mounted ext4 image per customer.
SMALL = {"MCPFS_QUOTA_BYTES": str(2 << 20), "MCPFS_QUOTA_FILES": "64"}


@pytest.mark.skipif(not images_possible(),
                    reason="ext4 quota images need root and /dev/loop-control")
def test_idle_sweep_keeps_a_parked_jails_workspace(ws, host_unchanged):
    why = exec_ready(ws)
    if why:
        pytest.skip(why)
    ws.env.update(SMALL)
    workspace = str(ws.root / "workspaces" / "default" / "workspace")
    c = Stdio(ws, "--workspace-idle", "1", "--pool-idle", "600")
    try:
        c.initialize()
        assert execute(c, "open('n', 'w').write('1')")["exit_code"] == 0
        wait_for(lambda: parked(ws.root), what="a jail parked")
        # the sweep runs every second or so; the workspace idles well past it
        time.sleep(4)
        assert workspace in mounts_under(ws.root)
        out = execute(c, "print(open('n').read())")
        assert out["stdout"] == "1\n", out
    finally:
        assert c.close() == 0
    assert workspace not in mounts_under(ws.root)


@pytest.mark.skipif(not images_possible(),
                    reason="ext4 quota images need root and /dev/loop-control")
def test_quota_grow_retires_the_customers_parked_jails(ws, host_unchanged):
    """A parked jail holds the image's mount, which a grow must be free of:
    `workspace create --quota-bytes` asks the daemon to retire it first."""
    # Before the first command: listing a catalog makes the workspace of the
    # customer its per-customer servers start for ("default").
    ws.env.update(SMALL)
    why = exec_ready(ws)
    if why:
        pytest.skip(why)
    size = "import os\ns = os.statvfs('.')\nprint(s.f_blocks * s.f_frsize, open('n').read())"
    c = Stdio(ws, "--pool-idle", "600")
    try:
        c.initialize()
        assert execute(c, "open('n', 'w').write('1')")["exit_code"] == 0
        before = int(execute(c, size)["stdout"].split()[0])
        wait_for(lambda: parked(ws.root), what="a jail parked")
        ws.run("workspace", "create", "default", "--quota-bytes", str(8 << 20), check=0)
        assert parked(ws.root) == []
        out = execute(c, size)["stdout"].split()
        assert int(out[0]) > 2 * before and out[1] == "1", out
    finally:
        assert c.close() == 0
