#!/usr/bin/python3
"""Issue 27, "64 runs at once": N runs at once (MCPFS_BENCH_LOAD_RUNS, 64),
each calling server-everything's `echo` C times (MCPFS_BENCH_LOAD_CALLS, 100)
and checking every answer, through `mcpfs serve --http` (execute_code, one
MCP session per run, posted by a plain HTTP client that is not ours) against
the same program run by bare python3 on the generated tree with one shared
`mcpfs bridge` and no jail. Rounds alternate the two arms
(MCPFS_BENCH_LOAD_ROUNDS, 3); each prints runs/s, p50/max run latency and the
runs that came back correct, and the throughput ratio serve / bridge.
Usage: serve_load.py [BUILD_DIR]."""
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from serve_bench import post  # this folder: the same MCP-over-HTTP POST

REPO = Path(__file__).resolve().parent.parent
BUILD = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "build"
MCPFS = str(BUILD / "mcpfs")
EVERYTHING = REPO / "servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
INIT = {"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}}
RUNS = int(os.environ.get("MCPFS_BENCH_LOAD_RUNS", "64"))
CALLS = int(os.environ.get("MCPFS_BENCH_LOAD_CALLS", "100"))
ROUNDS = int(os.environ.get("MCPFS_BENCH_LOAD_ROUNDS", "3"))
# Each run echoes its own number, so an answer meant for another run shows.
PROGRAM = ("import sys\nfrom servers.everything import echo\nk = {k}\n"
           "bad = [i for i in range(%d) if echo(message=f'{{k}}-{{i}}') != f'Echo: {{k}}-{{i}}']\n"
           "print('ok' if not bad else f'bad {{bad[:5]}}')\n" % CALLS)


def timed_round(one):
    t0 = time.perf_counter()
    with ThreadPoolExecutor(RUNS) as ex:
        out = list(ex.map(one, range(RUNS)))
    wall = time.perf_counter() - t0
    lat = sorted(o[0] for o in out)
    fails = [o[1] for o in out if o[1] != "ok"]
    return {"rate": RUNS / wall, "p50": statistics.median(lat), "max": lat[-1],
            "ok": RUNS - len(fails), "fails": fails[:3]}


def bridge_arm(tmp, cfg, env):
    tree = tmp / "tree"
    subprocess.run([MCPFS, "--config", str(cfg), "generate", "--out", str(tree), "--lang", "py"],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    sock = tmp / "bridge.sock"
    benv = {**env, "MCPFS_BRIDGE_TOKEN": "bench"}
    b = subprocess.Popen([MCPFS, "--config", str(cfg), "bridge", "--socket", str(sock)],
                         env=benv, stdout=subprocess.PIPE, text=True)
    b.stdout.readline()  # listening
    penv = {"PATH": "/usr/bin:/bin", "HOME": str(tmp), "PYTHONPATH": str(tree),
            "MCPFS_BRIDGE": str(sock), "MCPFS_BRIDGE_TOKEN": "bench"}
    for k in range(RUNS):
        (tmp / f"prog{k}.py").write_text(PROGRAM.format(k=k))

    def one(k):
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/python3", "-s", str(tmp / f"prog{k}.py")], env=penv,
                           capture_output=True, text=True)
        out = p.stdout.strip() if p.returncode == 0 else f"exit {p.returncode}: {p.stderr[-200:]}"
        return (time.perf_counter() - t0) * 1e3, out

    assert one(0)[1] == "ok"  # warm: the bridge's server started
    return b, one


def serve_arm(tmp, cfg, env):
    extra = os.environ.get("MCPFS_BENCH_LOAD_SERVE_ARGS", "").split()
    d = subprocess.Popen([MCPFS, "--config", str(cfg), "serve", "--http", "127.0.0.1:0"] + extra,
                         stdout=subprocess.PIPE, text=True, env=env)
    url = d.stdout.readline().strip()

    def one(k):
        t0 = time.perf_counter()
        try:
            _, sid = post(url, {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                "params": INIT}, timeout=900)
            m, _ = post(url, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "execute_code", "arguments": {"code": PROGRAM.format(k=k)}}}, sid,
                timeout=900)
            sc = (m or {}).get("result", {}).get("structuredContent") or {}
            out = sc.get("stdout", "").strip()
            if out != "ok" or sc.get("tool_calls") != CALLS:
                out = f"{json.dumps(m)[:300]}"
        except OSError as e:
            out = f"http: {e}"
        return (time.perf_counter() - t0) * 1e3, out

    one(-1)  # warm: the server started, the tree written
    return d, one


def main():
    tmp = Path(tempfile.mkdtemp(prefix="mcpfs-serve-load-"))
    cfg = tmp / "mcpfs.json"
    cfg.write_text(json.dumps({"mcpServers": {
        "everything": {"command": "node", "args": [str(EVERYTHING), "stdio"]}}}))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp), "MCPFS_ROOT": str(tmp / "root")}
    procs = []
    status = 0
    try:
        b, bridge_one = bridge_arm(tmp, cfg, env)
        procs.append(b)
        d, serve_one = serve_arm(tmp, cfg, env)
        procs.append(d)
        ratios = []
        for r in range(ROUNDS):
            load = os.getloadavg()[0]
            rb = timed_round(bridge_one)
            rs = timed_round(serve_one)
            ratios.append(rs["rate"] / rb["rate"])
            for name, x in (("shared bridge, no jail", rb), ("serve execute_code", rs)):
                print(f"round {r + 1} {name}: {RUNS} runs x {CALLS} echo, {x['rate']:.2f} runs/s, "
                      f"p50 {x['p50']:.0f} ms, max {x['max']:.0f} ms, {x['ok']}/{RUNS} correct"
                      + (f"; failures: {x['fails']}" if x["fails"] else ""))
                status |= x["ok"] != RUNS
            print(f"round {r + 1}: throughput ratio serve / bridge {ratios[-1]:.2f} "
                  f"(load {load:.1f})")
        print(f"serve load: ratio median {statistics.median(ratios):.2f}, spread "
              f"{min(ratios):.2f}-{max(ratios):.2f} over {ROUNDS} rounds (goal >= 0.80)")
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
            p.wait()
        subprocess.run([MCPFS, "workspace", "umount", "--all"], capture_output=True, env=env)
        shutil.rmtree(tmp, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
