#!/usr/bin/python3
"""Benchmarks of `mcpfs serve` (BENCHMARKS.md): execute_code of a trivial
Python program through serve --stdio, warm, against bare python3 in the same
run; and many HTTP sessions each running several execute_code that call a
tool, runs per second and p99 latency, against the same runs as `mcpfs exec`
in a loop; and the first tool call of `mcpfs exec` with a daemon running
against without. Usage: serve_bench.py [BUILD_DIR [BASELINE_BUILD_DIR]]; with a
baseline (an older mcpfs built elsewhere), the first part runs both daemons,
interleaved, and prints the difference. MCPFS_BENCH_SESSIONS (50) and
MCPFS_BENCH_RUNS (20 per session) size the last part."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILD = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "build"
MCPFS = str(BUILD / "mcpfs")
BASELINE = str(Path(sys.argv[2]) / "mcpfs") if len(sys.argv) > 2 else None
EVERYTHING = REPO / "servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
INIT = {"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}}


class Stdio:
    def __init__(self, cmd, env):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  env=env)
        self.i = 0

    def call(self, method, params):
        self.i += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.i, "method": method,
                                       "params": params}) + "\n")
        self.p.stdin.flush()
        while True:
            m = json.loads(self.p.stdout.readline())
            if m.get("id") == self.i:
                return m


def post(url, msg, session=None, timeout=600):
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session:
        h["Mcp-Session-Id"] = session
    req = urllib.request.Request(url, data=json.dumps(msg).encode(), headers=h)
    with urllib.request.urlopen(req, timeout=timeout) as r:
        body, sid = r.read().decode(), r.headers.get("Mcp-Session-Id")
    if body.startswith("{"):
        return json.loads(body), sid
    for ev in body.split("\n\n"):
        for line in ev.split("\n"):
            if line.startswith("data:"):
                m = json.loads(line[5:])
                if m.get("id") == msg.get("id"):
                    return m, sid
    return None, sid


def main():
    tmp = Path(tempfile.mkdtemp(prefix="mcpfs-serve-bench-"))
    try:
        return bench(tmp)
    finally:
        for root in tmp.glob("root*"):
            subprocess.run([MCPFS, "workspace", "umount", "--all"], capture_output=True,
                           env={"PATH": "/usr/bin:/bin", "MCPFS_ROOT": str(root)})
        shutil.rmtree(tmp, ignore_errors=True)


def warm_execute_code(tmp, cfg, triv):
    """execute_code of `pass` through serve --stdio (and the baseline's),
    interleaved with bare python3; the run's own clock (duration_ms: the
    jail's set-up and the program in it) splits the overhead into the jail's
    and what serve and the run's set-up add around it."""
    args = {"name": "execute_code", "arguments": {"code": "pass\n"}}
    daemons = {}
    for name, binary in (("this", MCPFS), ("baseline", BASELINE)):
        if binary:
            env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp),
                   "MCPFS_ROOT": str(tmp / f"root-{name}")}
            daemons[name] = Stdio([binary, "--config", str(cfg), "serve", "--stdio"], env)
            daemons[name].call("initialize", INIT)
            for _ in range(5):
                assert daemons[name].call("tools/call", args)["result"]["isError"] is False
    n = int(os.environ.get("MCPFS_BENCH_STARTS", "40"))
    bare, served = [], {k: [] for k in daemons}
    inner = {k: [] for k in daemons}
    load = os.getloadavg()[0]
    for _ in range(n):  # interleaved, same run
        t0 = time.perf_counter()
        subprocess.run(["/usr/bin/python3", str(triv)], check=True,
                       env={"PATH": "/usr/bin:/bin", "HOME": str(tmp)})
        bare.append((time.perf_counter() - t0) * 1e3)
        for k, d in daemons.items():
            t0 = time.perf_counter()
            r = d.call("tools/call", args)
            served[k].append((time.perf_counter() - t0) * 1e3)
            inner[k].append(r["result"]["structuredContent"]["duration_ms"])
    for d in daemons.values():
        d.p.stdin.close()
        d.p.wait()
    b = statistics.median(bare)
    for k in daemons:
        v, j = statistics.median(served[k]), statistics.median(inner[k])
        around = statistics.median(x - y for x, y in zip(served[k], inner[k]))
        print(f"execute_code (serve --stdio, warm{', baseline' if k == 'baseline' else ''}): "
              f"python3 bare {b:.1f} ms, execute_code {v:.1f} ms, overhead {v - b:+.1f} ms, "
              f"ratio {v / b:.2f} (medians of {n} interleaved, load {load:.1f}); the jail (the "
              f"run's duration_ms {j:.1f} ms, its set-up and the program) {j - b:+.1f} ms, serve "
              f"and the run's set-up around it {around:+.1f} ms")
    if BASELINE:
        diff = statistics.median(served["this"]) - statistics.median(served["baseline"])
        print(f"execute_code against the baseline: {diff:+.1f} ms")


def bench(tmp):
    cfg = tmp / "mcpfs.json"
    cfg.write_text(json.dumps({"mcpServers": {
        "everything": {"command": "node", "args": [str(EVERYTHING), "stdio"]}}}))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp), "MCPFS_ROOT": str(tmp / "root")}
    base = [MCPFS, "--config", str(cfg)]
    triv = tmp / "triv.py"
    triv.write_text("pass\n")

    # 1. warm execute_code through serve --stdio against bare python3
    warm_execute_code(tmp, cfg, triv)

    # 2. the first tool call of `mcpfs exec`, through a running daemon and alone
    first = tmp / "first.py"
    first.write_text("import time\nt0 = time.perf_counter()\nfrom servers.everything import "
                     "get_sum\nget_sum(a=1, b=2)\nprint((time.perf_counter() - t0) * 1e3)\n")
    d = subprocess.Popen(base + ["serve", "--http", "127.0.0.1:0"], stdout=subprocess.PIPE,
                         text=True, env=env)
    d.stdout.readline()

    def first_call(extra):
        return float(subprocess.run(base + ["exec", str(first)], check=True, env={**env, **extra},
                                    capture_output=True, text=True).stdout)

    first_call({})  # the daemon starts its server once
    k = int(os.environ.get("MCPFS_BENCH_FIRST", "7"))
    warm = statistics.median(first_call({}) for _ in range(k))
    alone = statistics.median(first_call({"MCPFS_NO_DAEMON": "1"}) for _ in range(k))
    d.terminate()
    d.wait()
    print(f"first tool call of mcpfs exec: through a daemon {warm:.1f} ms, alone (the server "
          f"starts) {alone:.1f} ms, ratio {alone / warm:.1f} (medians of {k})")

    # 3. many HTTP sessions x runs that call a tool, against mcpfs exec in a loop
    sessions = int(os.environ.get("MCPFS_BENCH_SESSIONS", "50"))
    runs = int(os.environ.get("MCPFS_BENCH_RUNS", "20"))
    code = "from servers.everything import get_sum\nprint(get_sum(a=1, b=2))\n"
    d = subprocess.Popen(base + ["serve", "--http", "127.0.0.1:0"], stdout=subprocess.PIPE,
                         text=True, env=env)
    url = d.stdout.readline().strip()

    def session(k):
        _, sid = post(url, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT})
        lat, ok = [], 0
        for i in range(runs):
            t0 = time.perf_counter()
            m, _ = post(url, {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                              "params": {"name": "execute_code", "arguments": {"code": code}}},
                        sid)
            lat.append((time.perf_counter() - t0) * 1e3)
            ok += m["result"]["structuredContent"]["stdout"] == "The sum of 1 and 2 is 3.\n"
        return lat, ok

    session(-1)  # warm: the server started, the tree written
    t0 = time.perf_counter()
    with ThreadPoolExecutor(sessions) as ex:
        out = list(ex.map(session, range(sessions)))
    wall = time.perf_counter() - t0
    d.terminate()
    d.wait()
    lat = sorted(x for o in out for x in o[0])
    ok = sum(o[1] for o in out)
    total = sessions * runs
    p99 = lat[int(0.99 * (len(lat) - 1))]
    prog = tmp / "calls.py"
    prog.write_text(code)
    m = min(total, int(os.environ.get("MCPFS_BENCH_EXEC_RUNS", "50")))
    elat = []
    t1 = time.perf_counter()
    for _ in range(m):
        t = time.perf_counter()
        subprocess.run(base + ["exec", str(prog)], check=True, stdout=subprocess.DEVNULL,
                       env={**env, "MCPFS_NO_DAEMON": "1"})
        elat.append((time.perf_counter() - t) * 1e3)
    ewall = time.perf_counter() - t1
    elat.sort()
    print(f"http: {sessions} sessions x {runs} execute_code calling a tool: {total / wall:.1f} "
          f"runs/s, p99 {p99:.0f} ms, {ok}/{total} correct; mcpfs exec in a loop ({m} runs): "
          f"{m / ewall:.1f} runs/s, p99 {elat[int(0.99 * (len(elat) - 1))]:.0f} ms; "
          f"throughput ratio {(total / wall) / (m / ewall):.2f}")
    return 0 if ok == total else 1


if __name__ == "__main__":
    sys.exit(main())
