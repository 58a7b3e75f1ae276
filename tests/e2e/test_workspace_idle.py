"""Idle workspaces unmounted (workspaces/idle.h): images nobody used for the
idle time leave the mount table and free their loop devices, and their
skills overlays go with them, from `mcpfs exec` and from the daemon's sweep;
a workspace in use is never unmounted, and its data is there on the next
run."""
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest_serve import Serve
from conftest_ws import exec_ready, images_possible, loops_of, mounts_under, ws  # noqa: F401

pytestmark = pytest.mark.skipif(not images_possible(),
                                reason="ext4 quota images need root and /dev/loop-control")

# Small images: many customers, each with a real loop-mounted ext4 image.
SMALL = {"MCPFS_QUOTA_BYTES": str(2 << 20), "MCPFS_QUOTA_FILES": "64",
         "MCPFS_NO_DAEMON": "1"}
NEVER = {**SMALL, "MCPFS_WORKSPACE_IDLE_S": "0"}

# Counts the runs of its customer in the workspace: a run that finds the
# count of another mount, or none, tells on a lost or doubled mount.
COUNTER = ("import os\nn = int(open('n').read()) if os.path.exists('n') else 0\n"
           "open('n', 'w').write(str(n + 1))\nprint(n + 1)\n")

# Stays until the test writes `release` into its workspace.
HOLD = ("import os, time\nopen('held', 'w').write('1')\n"
        "while not os.path.exists('release'):\n    time.sleep(0.05)\nprint('done')\n")


@pytest.fixture
def jail(ws):
    why = exec_ready(ws)
    if why:
        pytest.skip(why)
    ws.run("workspace", "umount", "--all", check=0)
    return ws


def customers_mounted(m, what="workspace") -> set:
    """The customers whose @what (workspace, skills) is mounted, each once."""
    prefix = str(m.root / "workspaces") + "/"
    seen = [p[len(prefix):].split("/")[0] for p in mounts_under(m.root)
            if p.startswith(prefix) and p.endswith("/" + what)]
    assert len(seen) == len(set(seen)), f"a {what} mounted twice: {seen}"
    return set(seen)


def wait_for(cond, what, timeout=120):
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def run(m, customer, code, env, check=0):
    p = m.run("exec", "--customer", customer, "-", input=code, env=env, timeout=300)
    assert p.returncode == check, p.stderr
    return p.stdout


def hold(m, customer, env):
    prog = m.tmp / "hold.py"
    prog.write_text(HOLD)
    p = subprocess.Popen(m.cmd("exec", "--customer", customer, "--timeout", "300", prog),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**m.env, **env})
    held = m.root / "workspaces" / customer / "workspace" / "held"
    wait_for(lambda: held.exists() or p.poll() is not None, "the run to start")
    assert held.exists(), p.stderr.read()
    return p


def release(m, customer, p):
    (m.root / "workspaces" / customer / "workspace" / "release").write_text("")
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0 and out == "done\n", err


def test_exec_unmounts_idle_workspaces_and_keeps_their_data(jail):
    many = [f"c{i}" for i in range(24)]
    with ThreadPoolExecutor(4) as ex:
        assert list(ex.map(lambda c: run(jail, c, COUNTER, NEVER), many)) == ["1\n"] * 24
    assert customers_mounted(jail) == customers_mounted(jail, "skills") == set(many)
    assert len(loops_of(jail.root)) == 24
    time.sleep(1.2)
    # A run that sweeps: every workspace idle 1 s goes, its own stays.
    assert run(jail, "z", COUNTER, {**SMALL, "MCPFS_WORKSPACE_IDLE_S": "1"}) == "1\n"
    assert customers_mounted(jail) == customers_mounted(jail, "skills") == {"z"}
    # Autoclear frees a loop device once its last user closes it: soon after.
    wait_for(lambda: [x for x in loops_of(jail.root) if "/z/" not in x] == [],
             "the loop devices to be freed")
    # Mounted again on use, with what the last run left.
    assert run(jail, "c3", COUNTER, NEVER) == "2\n"


def test_a_workspace_in_use_stays_mounted(jail):
    p = hold(jail, "busy", NEVER)
    try:
        time.sleep(1.2)
        run(jail, "other", COUNTER, {**SMALL, "MCPFS_WORKSPACE_IDLE_S": "1"})
        assert "busy" in customers_mounted(jail)
    finally:
        release(jail, "busy", p)
    # Used until just now: not idle yet, then idle.
    run(jail, "other", COUNTER, {**SMALL, "MCPFS_WORKSPACE_IDLE_S": "30"})
    assert "busy" in customers_mounted(jail)
    time.sleep(1.2)
    run(jail, "other", COUNTER, {**SMALL, "MCPFS_WORKSPACE_IDLE_S": "1"})
    assert "busy" not in customers_mounted(jail) | customers_mounted(jail, "skills")
    assert run(jail, "busy", "print(open('held').read())\n", NEVER) == "1\n"


def test_umount_leaves_the_skills_overlay_of_a_run(jail):
    """`workspace umount` of a customer a run holds unmounts its image
    (lazily) and leaves its skills overlay: the run's jail keeps a copy of
    that mount, and the next run's new overlay would share its folder
    (workspaces/overlay.h). What the host saves in skills/ meanwhile
    reaches the run; once it ended, the overlay goes."""
    prog = jail.tmp / "hold_skills.py"
    prog.write_text("import os, time\nopen('held', 'w').write('1')\n"
                    "while not os.path.exists('/skills/release'):\n    time.sleep(0.05)\n"
                    "print('done')\n")
    p = subprocess.Popen(jail.cmd("exec", "--customer", "busy", "--timeout", "300", prog),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**jail.env, **NEVER})
    held = jail.root / "workspaces" / "busy" / "workspace" / "held"
    wait_for(lambda: held.exists() or p.poll() is not None, "the run to start")
    assert held.exists(), p.stderr.read()
    jail.run("workspace", "umount", "busy")
    assert "busy" not in customers_mounted(jail)
    assert "busy" in customers_mounted(jail, "skills")
    (jail.root / "workspaces" / "busy" / "skills" / "release").write_text("")
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0 and out == "done\n", err
    jail.run("workspace", "umount", "busy")
    assert "busy" not in customers_mounted(jail, "skills")


def test_runs_racing_the_sweep_never_lose_a_mount(jail):
    """One customer's runs back to back while other runs sweep with an idle
    time of a millisecond: each run finds the count the last one left, and
    the image is never mounted twice."""
    stop = threading.Event()
    seen = []

    def sweeper():
        while not stop.is_set():
            run(jail, "sweeper", "pass\n", {**SMALL, "MCPFS_WORKSPACE_IDLE_S": "0.001"})
            seen.append(len([x for x in loops_of(jail.root) if "/racer/" in x]))
            customers_mounted(jail, "skills")  # never twice

    t = threading.Thread(target=sweeper)
    t.start()
    try:
        outs = [run(jail, "racer", COUNTER, NEVER) for _ in range(25)]
    finally:
        stop.set()
        t.join()
    assert outs == [f"{i}\n" for i in range(1, 26)]
    assert max(seen, default=0) <= 1, seen
    assert seen, "the sweeper never ran"


def test_bad_idle_time_is_refused(jail):
    p = jail.run("exec", "-", input="pass\n", env={**SMALL, "MCPFS_WORKSPACE_IDLE_S": "soon"})
    assert p.returncode == 2 and "MCPFS_WORKSPACE_IDLE_S=soon" in p.stderr
    p = jail.run("serve", "--stdio", "--workspace-idle", "-1", env=SMALL)
    assert p.returncode == 2 and "--workspace-idle" in p.stderr


def test_daemon_unmounts_idle_workspaces_not_busy_ones(jail):
    env = {k: v for k, v in SMALL.items() if k != "MCPFS_NO_DAEMON"}
    d = Serve(jail, "--workspace-idle", "1", env=env)
    try:
        # Through the daemon (mcpfs exec finds it on the data root).
        for c in ("d1", "d2", "d3"):
            assert run(jail, c, COUNTER, env) == "1\n"
        p = hold(jail, "dbusy", env)
        try:
            wait_for(lambda: customers_mounted(jail) == {"dbusy"},
                     "the daemon to unmount the idle workspaces")
            wait_for(lambda: [x for x in loops_of(jail.root) if "/dbusy/" not in x] == [],
                     "the loop devices to be freed")
            time.sleep(1.5)
            assert customers_mounted(jail) == {"dbusy"}
        finally:
            release(jail, "dbusy", p)
        wait_for(lambda: customers_mounted(jail) == set(), "the last workspace to go")
        assert run(jail, "d2", COUNTER, env) == "2\n"
    finally:
        assert d.stop() == 0, d.stderr()


def test_a_customer_server_keeps_its_workspace_mounted(jail):
    """A customer's server holds its workspace while it lives (executor/
    server_hold.h): the daemon's sweep unmounts a customer idle since, but
    not the one whose filesystem server runs; stopping the daemon stops the
    server and leaves nothing mounted."""
    env = {k: v for k, v in SMALL.items() if k != "MCPFS_NO_DAEMON"}
    d = Serve(jail, "--workspace-idle", "1", env=env)
    try:
        code = ("from servers._runtime import call_tool\n"
                "print(bool(call_tool('filesystem', 'list_allowed_directories', {})))\n")
        assert run(jail, "served", code, env) == "True\n"
        assert run(jail, "plain", COUNTER, env) == "1\n"
        wait_for(lambda: "plain" not in customers_mounted(jail),
                 "the daemon to unmount the idle workspace")
        assert "served" in customers_mounted(jail)
    finally:
        assert d.stop() == 0, d.stderr()
    assert customers_mounted(jail) == customers_mounted(jail, "skills") == set()
