"""mcpfs serve's life beside its fronts: the mount it can hold (--mount),
what a daemon killed with -9 leaves and the next one sweeps, the customer
its config names, and the CLI's calls through it bounded as without it."""
import json
import signal
import subprocess
import time

from conftest import everything_stdio, mounts_under, server_dir
from conftest_executor import host_unchanged  # noqa: F401 (a fixture)
from conftest_serve import Serve, Stdio, serve_config, wait_for


def test_stdio_holds_the_mount(mcpfs, host_unchanged):
    serve_config(mcpfs)
    mnt = mcpfs.tmp / "mnt"
    mnt.mkdir()
    c = Stdio(mcpfs, "--mount", mnt)
    try:
        c.initialize()
        # the mount answers before the front does
        assert mounts_under(mnt) == [str(mnt)]
        assert "everything" in [p.name for p in (mnt / "servers").iterdir()]
        out = mcpfs.tmp / "tree"
        mcpfs.run("generate", "--out", out, check=0)
        # the tools' files; the server's README also lists its resources,
        # which server-everything changes as it runs, so two listings a
        # moment apart may differ there
        for name in ("get_sum.py", "get_sum.ts"):
            want = (out / "servers" / "everything" / name).read_bytes()
            path = mnt / "servers" / "everything" / name
            assert path.read_bytes() == want, name
        assert list((mcpfs.root / "run").glob("mount-*.json"))
        c.p.send_signal(signal.SIGTERM)
        assert c.p.wait(timeout=60) == 0, c.stderr()
    finally:
        if c.p.poll() is None:
            c.p.kill()
    assert mounts_under(mnt) == []
    assert not list((mcpfs.root / "run").glob("mount-*.json"))
    assert not (mcpfs.root / "run" / "serve.sock").exists()


def test_mount_on_a_bad_mountpoint_fails_with_one_line(mcpfs):
    serve_config(mcpfs)
    p = mcpfs.run("serve", "--stdio", "--mount", mcpfs.tmp / "nowhere", input="", check=2)
    assert "nowhere" in p.stderr and p.stderr.count("\n") == 1, p.stderr


def session_customer(mcpfs, *args) -> str:
    c = Stdio(mcpfs, *args)
    try:
        c.initialize()
        r = c.request("tools/call", {"name": "get_session", "arguments": {}})
        return r["result"]["structuredContent"]["customer"]
    finally:
        assert c.close() == 0


def test_stdio_customer_from_the_config(mcpfs, host_unchanged):
    config = {"customer": "acme", "mcpServers": {"everything": everything_stdio()}}
    mcpfs.config_path.write_text(json.dumps(config))
    assert session_customer(mcpfs) == "acme"
    assert session_customer(mcpfs, "--customer", "beta") == "beta"  # the flag wins
    config["customer"] = "../etc"
    mcpfs.config_path.write_text(json.dumps(config))
    p = mcpfs.run("serve", "--stdio", input="", check=2)
    assert '"customer"' in p.stderr and p.stderr.count("\n") == 1, p.stderr


def test_call_timeout_bounds_the_start_through_the_daemon(mcpfs, host_unchanged):
    """`call --timeout 3` on a server that never answers initialize gives
    up after about 3 s, as without a daemon, not after the 30 s a start may
    take: when it starts the server, and when another client's start is
    under way. A client killed meanwhile does not take the daemon along
    (SIGPIPE)."""
    heard = {n: server_dir(mcpfs.tmp) / f"{n}.jsonl" for n in ("silent", "later")}
    mcpfs.write_config({"everything": everything_stdio(),
                        **{n: {"command": "sh", "args": ["-c", f"cat > {p}"],
                               "sandbox": {"rw": [str(p.parent)]}}
                           for n, p in heard.items()}})
    s = Serve(mcpfs)
    other = None
    try:
        assert (mcpfs.root / "run" / "serve.sock").is_socket()

        def timed_call(server):
            t0 = time.monotonic()
            p = mcpfs.run("call", "--timeout", "3", server, "anything", timeout=120)
            took = time.monotonic() - t0
            assert p.returncode == 3 and p.stderr.count("\n") == 1, p.stderr
            assert took < 20, f"the default connect timeout (30 s) was used: {took:.1f} s"
            return p.stderr

        assert "initialize timed out" in timed_call("silent")
        assert "initialize" in heard["silent"].read_text()  # the daemon's start
        # another client starts "later", bounded at 20 s (the drain waits for it)
        other = subprocess.Popen(mcpfs.cmd("call", "--timeout", "20", "later", "anything"),
                                 env=mcpfs.env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: heard["later"].exists() and "initialize" in heard["later"].read_text(),
                 what="the daemon to start 'later'")
        assert "still starting" in timed_call("later")
        assert other.poll() is None  # its own start goes on
        # the daemon goes on serving
        assert mcpfs.run("call", "everything", "get-sum", '{"a": 1, "b": 2}',
                         check=0).stdout.strip() == "The sum of 1 and 2 is 3."
    finally:
        if other:
            other.kill()
            other.wait()
        assert s.stop() == 0
