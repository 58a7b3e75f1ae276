"""What a person at a terminal sees (tmux): while servers start slowly, one
line names the servers starting and those done, redrawn in place and gone
once they are; `mount -f` shows the same for its first listing, and a
daemonizing mount does its first listing before it detaches; a run a
limit ended says so in one line. Pipes never see the progress line."""
import os
import shlex
import shutil
import subprocess
import threading
import time

import pytest

from conftest import everything_stdio, sdk_server
from conftest_mount import fuse_usable, is_fuse_mount, unmount, wait_until

SLOW_S = 6  # the slow server's tools/list delay: long enough to be seen at any load


class Tmux:
    """One private tmux server with one window, 160 columns wide."""

    def __init__(self, tmp):
        self.sock = str(tmp / "tmux.sock")
        self.tmp = tmp

    def tmux(self, *args):
        return subprocess.run(["tmux", "-S", self.sock, *args], capture_output=True,
                              text=True, timeout=30)

    def start(self, argv, env):
        script = self.tmp / "run.sh"
        exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items())
        script.write_text(f"{exports}{shlex.join(argv)}\necho EXIT=$?\nsleep 600\n")
        p = self.tmux("new-session", "-d", "-x", "160", "-y", "50", "sh", str(script))
        assert p.returncode == 0, p.stderr

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-J").stdout

    def wait_for(self, text, timeout=180) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            s = self.screen()
            if text in s:
                return s
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never showed; screen:\n{self.screen()}")

    def stop(self):
        self.tmux("kill-server")


@pytest.fixture
def term(tmp_path):
    if not shutil.which("tmux"):
        pytest.skip("no tmux")
    t = Tmux(tmp_path)
    yield t
    t.stop()


def slow_config(mcpfs):
    mcpfs.write_config({"slow": sdk_server("slow_list.mjs", "--delay", str(SLOW_S)),
                        "everything": everything_stdio(),
                        "ghost": {"command": "/nonexistent/server-binary"}})


def test_progress_while_servers_start(mcpfs, term):
    slow_config(mcpfs)
    term.start(mcpfs.cmd("tools"), mcpfs.env)
    s = term.wait_for("mcpfs: starting slow (")
    line = next(ln for ln in s.splitlines() if "mcpfs: starting" in ln)
    assert line.startswith("mcpfs: starting slow (") or \
        line.startswith("mcpfs: starting everything, slow ("), line
    s = term.wait_for("; ready: everything; failed: ghost")
    s = term.wait_for("EXIT=3")
    assert "slow ping Answer pong." in s and "everything echo" in s
    assert "mcpfs: starting" not in s, s  # cleared before the answer


def test_no_progress_on_a_pipe(mcpfs):
    slow_config(mcpfs)
    p = mcpfs.run("servers", check=0)
    assert "starting" not in p.stderr and "\r" not in p.stderr + p.stdout, p.stderr


def test_mount_foreground_shows_its_first_listing(mcpfs, term, tmp_path):
    if not fuse_usable():
        pytest.skip("no FUSE here")
    slow_config(mcpfs)
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    term.start(mcpfs.cmd("mount", "-f", mnt), mcpfs.env)
    try:
        assert wait_until(lambda: is_fuse_mount(mnt), 120), term.screen()
        lister = threading.Thread(target=lambda: os.listdir(mnt / "servers" / "slow"))
        lister.start()
        term.wait_for("mcpfs: starting slow (")
        lister.join(timeout=300)
        assert "ping.py" in os.listdir(mnt / "servers" / "slow")
        assert wait_until(lambda: "mcpfs: starting" not in term.screen(), 60), term.screen()
    finally:
        unmount(mnt)
    term.wait_for("EXIT=0")


def test_mount_daemon_shows_its_first_listing_before_it_detaches(mcpfs, term, tmp_path):
    """Without -f the daemon's stderr becomes its log once it detaches, so on
    a terminal it lists the servers first, showing them start."""
    if not fuse_usable():
        pytest.skip("no FUSE here")
    slow_config(mcpfs)
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    term.start(mcpfs.cmd("mount", mnt), mcpfs.env)
    try:
        term.wait_for("mcpfs: starting slow (")
        term.wait_for("; ready: everything; failed: ghost")
        s = term.wait_for("EXIT=0", timeout=300)
        assert "mcpfs: starting" not in s, s  # cleared before it returned
        assert is_fuse_mount(mnt)
        assert "ping.py" in os.listdir(mnt / "servers" / "slow")
    finally:
        unmount(mnt)


def test_timeout_says_so_in_one_line(mcpfs, term, tmp_path):
    mcpfs.write_config({})
    prog = tmp_path / "sleepy.py"
    prog.write_text("import time\nprint('started', flush=True)\ntime.sleep(120)\n")
    term.start(mcpfs.cmd("exec", "--timeout", "2", prog), mcpfs.env)
    s = term.wait_for("EXIT=137")
    lines = [ln for ln in s.splitlines() if ln.strip()]
    assert lines[-3:-1] == ["started", "mcpfs: exec: the run timed out after 2 s and was "
                            "killed (--timeout S allows more)"], s
