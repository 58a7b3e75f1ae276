"""`mcpfs bridge --socket PATH`: the protocol of executor/bridge.h served to
generated code outside a jail."""
import json
import os
import select
import socket
import subprocess
import threading
import time

import pytest

from conftest_executor import exec_config

pytestmark = pytest.mark.rootless


class Bridge:
    def __init__(self, mcpfs, *args):
        self.path = str(mcpfs.tmp / "b.sock")
        self.proc = subprocess.Popen(mcpfs.cmd("bridge", "--socket", self.path, *args),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=mcpfs.env)
        lines = [self.proc.stdout.readline(), self.proc.stdout.readline()]
        env = dict(line.strip().split("=", 1) for line in lines if "=" in line)
        assert env.get("MCPFS_BRIDGE") == self.path, (lines, self.proc.stderr.read())
        self.token = env["MCPFS_BRIDGE_TOKEN"]

    def connect(self, token=None):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(self.path)
        f = s.makefile("rb")
        s.sendall(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "auth",
                              "params": {"token": token or self.token}}).encode() + b"\n")
        return s, f, json.loads(f.readline())

    def stop(self):
        self.proc.terminate()
        out, err = self.proc.communicate(timeout=30)
        assert self.proc.returncode == 0, err
        assert not os.path.exists(self.path), "the socket outlived the bridge"
        assert err == "" or "sanitizer" not in err.lower(), err


def call(i, a, b):
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"server": "everything", "name": "get-sum", "arguments": {"a": a, "b": b}}}


@pytest.fixture
def bridge(mcpfs):
    exec_config(mcpfs)
    b = Bridge(mcpfs)
    yield b
    b.stop()


def test_pipelined_requests_answered_by_id(bridge):
    s, f, ok = bridge.connect()
    assert ok == {"jsonrpc": "2.0", "id": 0, "result": {}}
    n = 64
    s.sendall(b"".join(json.dumps(call(i, i, 1000)).encode() + b"\n" for i in range(1, n + 1)))
    got = {}
    for _ in range(n):
        m = json.loads(f.readline())
        got[m["id"]] = m["result"]["content"][0]["text"]
    assert got == {i: f"The sum of {i} and 1000 is {i + 1000}." for i in range(1, n + 1)}


def test_threads_each_connection(bridge):
    results, errors = {}, []

    def worker(k):
        try:
            s, f, _ = bridge.connect()
            for j in range(10):
                s.sendall(json.dumps(call(j, k, j)).encode() + b"\n")
                m = json.loads(f.readline())
                results[(k, j)] = m["result"]["content"][0]["text"]
        except Exception as e:  # reported below, in the test's thread
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert results == {(k, j): f"The sum of {k} and {j} is {k + j}."
                       for k in range(8) for j in range(10)}


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_beside_a_spinner(pid, until=None):
    """(CPU seconds @pid used, CPU seconds a spinning thread of ours got) over
    one window: until ours has spun for 1 s of CPU, or until the monotonic
    time @until. A thread of @pid that spun would get about as much CPU as
    ours, on an idle machine or a loaded one; a quiet one gets next to none.
    A constant would not do: at load 40 a spinner gets 0.05 s a second."""
    until = min(until or float("inf"), time.monotonic() + 120)
    before = cpu_seconds(pid)
    t0 = time.thread_time()
    while time.thread_time() - t0 < 1.0 and time.monotonic() < until:
        pass
    return cpu_seconds(pid) - before, time.thread_time() - t0


def assert_quiet(used, spinner, what):
    # A tenth of a spinner's share, and two clock ticks at least: /proc counts
    # in ticks (10 ms), and a quiet bridge may be charged one now and then.
    assert spinner >= 0.1, f"our spinner got only {spinner:.2f} s of CPU: no measure"
    assert used < max(spinner / 10, 0.02), (
        f"the bridge used {used:.2f} s of CPU {what}; a spinning thread got {spinner:.2f} s")


def test_quiet_connection_costs_no_cpu(bridge):
    """Calls in quick succession make the reader poll for the next request;
    when the code goes quiet the polling stops at once, and the next call
    is answered as usual."""
    s, f, _ = bridge.connect()
    for i in range(1, 301):
        s.sendall(json.dumps(call(i, i, 1)).encode() + b"\n")
        assert json.loads(f.readline())["id"] == i
    assert_quiet(*cpu_beside_a_spinner(bridge.proc.pid), "while the code was quiet")
    s.sendall(json.dumps(call(999, 2, 3)).encode() + b"\n")
    assert json.loads(f.readline())["result"]["content"][0]["text"] == "The sum of 2 and 3 is 5."


def test_hang_up_with_a_call_in_flight_costs_no_cpu(bridge):
    """Code that dies while one of its calls runs (killed by its timeout):
    the bridge finishes that call without spinning on the hang-up."""
    s, f, _ = bridge.connect()
    s.sendall(json.dumps(call(1, 1, 2)).encode() + b"\n")  # the server is up
    assert json.loads(f.readline())["id"] == 1
    slow = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"server": "everything", "name": "trigger-long-running-operation",
                       "arguments": {"duration": 10, "steps": 1}}}
    s.sendall(json.dumps(slow).encode() + b"\n")
    # The window below ends before the call can: the spinning this test
    # catches lasted until the call ended.
    call_ends = time.monotonic() + 9.5
    time.sleep(0.3)  # the slow call is in flight: another worker reads the next
    s.sendall(json.dumps(call(3, 2, 3)).encode() + b"\n")
    assert json.loads(f.readline())["id"] == 3
    f.close()
    s.close()
    assert_quiet(*cpu_beside_a_spinner(bridge.proc.pid, call_ends), "after the code hung up")


def test_connections_that_come_together_each_get_a_worker(bridge):
    """Two connections accepted back to back while one worker is idle: the
    second gets a worker of its own, not a wait behind the first's reader."""
    a, fa, _ = bridge.connect()
    others = []
    for _ in range(10):
        # Two requests in one write: a second worker serves one, then idles.
        a.sendall(b"".join(json.dumps({"jsonrpc": "2.0", "id": i, "method": "checkpoint/get"})
                           .encode() + b"\n" for i in (1, 2)))
        assert {json.loads(fa.readline())["id"] for _ in range(2)} == {1, 2}
        time.sleep(0.01)
        pair = []
        for _ in range(2):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(bridge.path)
            pair.append(s)
        for s in pair:
            s.sendall(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "auth",
                                  "params": {"token": bridge.token}}).encode() + b"\n")
        for s in pair:
            s.settimeout(10)
            assert json.loads(s.recv(4096)) == {"jsonrpc": "2.0", "id": 0, "result": {}}
        others += pair  # open: their readers keep their workers


def test_wrong_token_refused_and_closed(bridge):
    s, f, reply = bridge.connect(token="not-it")
    assert reply["error"]["code"] == -32600
    assert f.readline() == b""


def test_errors_are_one_line_jsonrpc(bridge):
    s, f, _ = bridge.connect()
    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"nope"}\n')
    assert json.loads(f.readline())["error"]["code"] == -32601
    s.sendall(b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"server":"nosuch",'
              b'"name":"x","arguments":{}}}\n')
    m = json.loads(f.readline())
    assert m["id"] == 2 and "\n" not in m["error"]["message"] and m["error"]["message"]
    s.sendall(b"not json\n")
    assert json.loads(f.readline())["error"]["code"] == -32700
    s.sendall(b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"server":"everything",'
              b'"name":"no-such-tool","arguments":{}}}\n')
    m = json.loads(f.readline())
    assert m["id"] == 3 and m["result"]["isError"] is True


def test_a_client_that_does_not_read_keeps_its_reader(bridge):
    """A client that sends without reading its replies: a large reply fills
    the socket, so the error for a bad line after it cannot go out at once.
    The bridge reads on all the same (the error goes out later), so the
    client's next request goes through, and then every reply arrives. A
    reader that waited to write the error would stall the client's send for
    good (the flood test hung on this once in ~40 runs under load)."""
    s, f, _ = bridge.connect()
    s.settimeout(60)

    def echo(i, text):
        return json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                           "params": {"server": "everything", "name": "echo",
                                      "arguments": {"message": text}}}).encode() + b"\n"

    s.sendall(echo(1, "y" * (4 << 20)))
    assert select.select([s], [], [], 60)[0], "no reply began"  # and it is blocked now
    s.sendall(b"not json\n")
    s.sendall(echo(2, "z" * (4 << 20)))  # timed out: the reader waited to write
    replies = [json.loads(f.readline()) for _ in range(3)]
    assert sorted(str(m.get("id")) for m in replies) == ["1", "2", "None"], replies
    by_id = {m.get("id"): m for m in replies}
    assert by_id[None]["error"]["code"] == -32700
    assert by_id[2]["result"]["content"][0]["text"] == "Echo: " + "z" * (4 << 20)


def test_generated_python_through_bridge(mcpfs, bridge):
    out = mcpfs.tmp / "tree"
    mcpfs.run("generate", "--out", out, check=0)
    prog = ("from concurrent.futures import ThreadPoolExecutor\n"
            "from servers.everything import get_sum\n"
            "with ThreadPoolExecutor(8) as ex:\n"
            "    r = list(ex.map(lambda i: get_sum(a=i, b=i), range(40)))\n"
            "print(all(x == f'The sum of {i} and {i} is {2 * i}.' for i, x in enumerate(r)))\n")
    p = subprocess.run(["/usr/bin/python3", "-c", prog], capture_output=True, text=True,
                       cwd=out, timeout=120,
                       env={"PATH": "/usr/bin:/bin", "MCPFS_BRIDGE": bridge.path,
                            "MCPFS_BRIDGE_TOKEN": bridge.token})
    assert p.stdout == "True\n", p.stderr
