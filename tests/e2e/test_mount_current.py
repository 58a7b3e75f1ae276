"""The mount keeps current: tools added or removed at run time show in `ls`
(within a second on an idle machine: the figure is printed), changed files
show new bytes, and a server that dies shows why in its folder while the rest
still read, then comes back."""
import json
import os
import signal
import subprocess
import threading
import time

from conftest_mount import DYNAMIC, mounted, wait_until  # noqa: F401 (fixture)

# How long a change may take to show. The kernel caches listings
# (FOPEN_CACHE_DIR) and entries until the mount invalidates them, so a change
# that shows at all shows through that path; the deadline is for a machine at
# load 45, and the latency (milliseconds when idle) is printed, not asserted.
SHOWS_WITHIN = 15.0


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
    assert wait_until(lambda: "fresh_tool.py" in ls(dyn), SHOWS_WITHIN), ls(dyn)
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
    assert wait_until(lambda: "fresh_tool.py" not in ls(dyn), SHOWS_WITHIN), ls(dyn)
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
    assert wait_until(lambda: "echo.py" not in ls(dyn), SHOWS_WITHIN), ls(dyn)
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
    assert wait_until(lambda: "echo.py" not in ls(dyn), SHOWS_WITHIN), ls(dyn)
    (mounted.state / "down").unlink()
    # The mount retries a failed server with backoff (1 s doubling) through
    # hub_tools; the hub must restart a dead server on that use.
    assert wait_until(lambda: "echo.py" in ls(dyn), 20, 0.1), (
        "the server never came back: hub_tools keeps answering the catalog held from "
        "before the crash instead of restarting the server", ls(dyn),
        (dyn / "README.md").read_text())
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


def test_mount_readers_during_catalog_churn(mounted):
    """Readers keep reading while the catalog changes 20 times: every read
    either succeeds with a whole, well-formed file or finds the file gone;
    the daemon survives (its sanitizer log is checked at teardown)."""
    mounted.start()
    dyn = mounted.point / "servers" / "dyn"
    assert "echo.py" in ls(dyn)
    stop = threading.Event()
    errors = []

    def reader():
        while not stop.is_set():
            try:
                names = os.listdir(dyn)
            except OSError as e:
                errors.append(f"listdir: {e}")
                return
            for n in names:
                try:
                    data = (dyn / n).read_bytes()
                except FileNotFoundError:
                    continue
                except OSError as e:
                    errors.append(f"{n}: {e}")
                    return
                if n.endswith(".json") and data:
                    try:
                        json.loads(data)
                    except ValueError:
                        errors.append(f"{n}: torn JSON {data[:80]!r}")
                        return

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    try:
        for i in range(20):
            mounted.set_tools([f"churn_{k}" for k in range(i % 5)])
            time.sleep(0.1)
    finally:
        stop.set()
        for t in threads:
            t.join(30)
    assert not errors, errors[:5]
    mounted.set_tools(["last_one"])
    assert wait_until(lambda: "last_one.py" in ls(dyn) and "churn_0.py" not in ls(dyn),
                      SHOWS_WITHIN), ls(dyn)
    assert "def last_one" in (dyn / "last_one.py").read_text()
