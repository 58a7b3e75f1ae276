#!/usr/bin/env python3
"""Start to full catalog of all default servers, connected in parallel by mcpfs,
against each server's own start: spawn, initialize, initialized, tools/list by a
minimal raw JSON-RPC client (this script), alone and all at once. mcpfs prints
its catalog before it stops the servers, so the time to its first byte on
stdout is its time to the catalog. MCPFS=path overrides the binary."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MCPFS = os.environ.get("MCPFS", str(REPO / "build" / "mcpfs"))
NM = REPO / "servers" / "node_modules" / "@modelcontextprotocol"
ROUNDS = int(os.environ.get("ROUNDS", "5"))


def mcpfs_catalog(root):
    env = {**os.environ, "MCPFS_ROOT": root}
    env.pop("MCPFS_CONFIG", None)
    t0 = time.monotonic()
    p = subprocess.Popen([MCPFS, "tools"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         env=env, cwd=root)
    first = p.stdout.read(1)
    t = time.monotonic() - t0
    rest = first + p.stdout.read()
    p.wait()
    assert p.returncode == 0 and rest.count(b"\n") >= 30, rest[:200]
    return t


def own_start(cmd, env, out, key):
    """Spawn one server and take its catalog over raw JSON-RPC lines."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})})

    def send(m):
        p.stdin.write((json.dumps(m) + "\n").encode())
        p.stdin.flush()

    def reply(i):
        while True:
            m = json.loads(p.stdout.readline())
            if m.get("id") == i and "method" not in m:
                return m

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}})
    reply(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert reply(2)["result"]["tools"]
    out[key] = time.monotonic() - t0
    p.kill()
    p.wait()


def all_at_once(singles):
    out, threads = {}, []
    t0 = time.monotonic()
    for name, (cmd, env) in singles.items():
        threads.append(threading.Thread(target=own_start, args=(cmd, env, out, name)))
        threads[-1].start()
    for t in threads:
        t.join()
    return time.monotonic() - t0


def main():
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp, "ws")
        ws.mkdir()
        singles = {
            "everything": (["node", str(NM / "server-everything/dist/index.js"), "stdio"], None),
            "filesystem": (["node", str(NM / "server-filesystem/dist/index.js"), str(ws)], None),
            "memory": (["node", str(NM / "server-memory/dist/index.js")],
                       {"MEMORY_FILE_PATH": str(Path(tmp, "memory.jsonl"))}),
        }
        ours, together, own = [], [], {k: [] for k in singles}
        for _ in range(ROUNDS):
            ours.append(mcpfs_catalog(tempfile.mkdtemp(dir=tmp)))
            together.append(all_at_once(singles))
            for name, (cmd, env) in singles.items():
                out = {}
                own_start(cmd, env, out, name)
                own[name].append(out[name])
        med = {k: statistics.median(v) for k, v in own.items()}
        slowest = max(med, key=med.get)
        m, t = statistics.median(ours), statistics.median(together)
        print(f"start to full catalog, median of {ROUNDS}, {os.cpu_count()} cores:")
        for k, v in med.items():
            print(f"  {k} alone: {v * 1000:.0f} ms")
        print(f"  all {len(singles)} at once by a raw client: {t * 1000:.0f} ms")
        print(f"  mcpfs tools (all in parallel): {m * 1000:.0f} ms = "
              f"{m / med[slowest]:.2f} x the slowest single start ({slowest}), "
              f"{m / t:.2f} x the raw parallel start")


if __name__ == "__main__":
    sys.exit(main())
