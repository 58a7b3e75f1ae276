"""The mount keeps current: tools added or removed at run time show in `ls`
within a second, changed files show new bytes, and a server that dies shows
why in its folder while the rest still read, then comes back."""
import os
import signal
import subprocess
import time

from conftest_mount import DYNAMIC, mounted, wait_until  # noqa: F401 (fixture)


def ls(path) -> list:
    p = subprocess.run(["ls", str(path)], capture_output=True, text=True, timeout=30)
    return p.stdout.split()


def test_mount_sees_added_and_removed_tools(mounted):
    mounted.start()
    dyn = mounted.point / "servers" / "dyn"
    assert "echo.py" in ls(dyn)
    readme_before = (dyn / "README.md").read_bytes()
    index_before = (dyn / "index.ts").read_bytes()

    mounted.set_tools(["fresh_tool"])
    t0 = time.monotonic()
    assert wait_until(lambda: "fresh_tool.py" in ls(dyn), 1.0), ls(dyn)
    appeared = time.monotonic() - t0
    assert {"fresh_tool.py", "fresh_tool.ts", "fresh_tool.json"} <= set(ls(dyn))
    assert "def fresh_tool" in (dyn / "fresh_tool.py").read_text()
    # Files that depend on the catalog show their new bytes, with exact sizes.
    readme = (dyn / "README.md").read_bytes()
    assert readme != readme_before and b"fresh_tool" in readme
    assert os.stat(dyn / "README.md").st_size == len(readme)
    assert (dyn / "index.ts").read_bytes() != index_before

    mounted.set_tools([])
    t0 = time.monotonic()
    assert wait_until(lambda: "fresh_tool.py" not in ls(dyn), 1.0), ls(dyn)
    gone = time.monotonic() - t0
    assert not (dyn / "fresh_tool.py").exists()
    assert (dyn / "README.md").read_bytes() == readme_before
    print(f"added tool visible after {appeared * 1000:.0f} ms, removed after {gone * 1000:.0f} ms")


def kill_dyn(mounted, keep_down: bool):
    """SIGKILL the dynamic server, found by its command line; with @keep_down
    it cannot restart until the flag file goes."""
    pids = mounted.server_pids()
    assert len(pids) == 1, pids
    if keep_down:
        (mounted.state / "down").write_text("")
    os.kill(pids[0], signal.SIGKILL)


def test_mount_shows_a_dead_server(mounted):
    mounted.start()
    dyn = mounted.point / "servers" / "dyn"
    every = mounted.point / "servers" / "everything"
    assert "echo.py" in ls(dyn)
    kill_dyn(mounted, keep_down=True)
    assert wait_until(lambda: "echo.py" not in ls(dyn), 5), ls(dyn)
    assert ls(dyn) == ["README.md"]
    text = (dyn / "README.md").read_text()
    assert "unavailable" in text and "signal 9" in text, text
    # The other servers, and the top, still read.
    assert "get_sum.py" in ls(every)
    assert "def get_sum" in (every / "get_sum.py").read_text()
    assert (mounted.point / "README.md").read_text()


def test_mount_dead_server_comes_back(mounted):
    mounted.start()
    dyn = mounted.point / "servers" / "dyn"
    assert "echo.py" in ls(dyn)
    kill_dyn(mounted, keep_down=True)
    assert wait_until(lambda: "echo.py" not in ls(dyn), 5), ls(dyn)
    (mounted.state / "down").unlink()
    # The mount retries a failed server with backoff (1 s doubling); the hub
    # restarts it on that use.
    assert wait_until(lambda: "echo.py" in ls(dyn), 20, 0.1), \
        (ls(dyn), (dyn / "README.md").read_text())
    assert "def echo" in (dyn / "echo.py").read_text()
    assert len(mounted.server_pids()) == 1


def test_mount_server_that_cannot_start(mounted):
    (mounted.state / "down").write_text("")
    mounted.start(servers={"dyn": {"command": "node", "args": [DYNAMIC, str(mounted.state)]}})
    dyn = mounted.point / "servers" / "dyn"
    assert ls(dyn) == ["README.md"]
    text = (dyn / "README.md").read_text()
    assert "down flag is set" in text, text  # the server's own stderr, from the log tail
    # The top never waited on it and still reads.
    assert "dyn" in (mounted.point / "README.md").read_text()
