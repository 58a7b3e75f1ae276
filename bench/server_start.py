"""Server start, sandboxed against unsandboxed, in one run (issue: server
sandboxes; goal: +10 ms at most), and the call overhead with and without.

A minimal stdio server (bench/min_server.mjs) is started by `mcpfs call`
over and over, the two configs interleaved; the time from spawn to the end
of `initialize` comes from the server log's timestamps ("starting" ->
"initialized"), so mcpfs's own start-up is not in it. Then 200 calls on one
warm connection each way, through `mcpfs exec` code, timed inside the code.
Usage: bench/server_start.py BUILD_DIR [ROUNDS]"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MCPFS = str(REPO / sys.argv[1] / "mcpfs") if len(sys.argv) > 1 else str(REPO / "build" / "mcpfs")
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
SERVER = str(REPO / "bench" / "min_server.mjs")
CALLS = """
import time
from servers.m import echo
echo(x=0)
t = time.perf_counter()
for i in range(200):
    echo(x=i)
print((time.perf_counter() - t) / 200 * 1e6)
"""


def stamp(line: str) -> float:
    return datetime.strptime(line[:23], "%Y-%m-%dT%H:%M:%S.%f").timestamp()


def start_times(log: Path) -> list:
    out, began = [], None
    for line in log.read_text().splitlines():
        if " mcpfs: starting " in line:
            began = stamp(line)
        elif " mcpfs: initialized:" in line and began is not None:
            out.append((stamp(line) - began) * 1000)
            began = None
    return out


def main() -> int:
    if os.geteuid() != 0:
        print("server_start: needs root (server sandboxes do); skipped")
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="mcpfs-bench-start-"))
    roots, cfgs = {}, {}
    for arm, sandbox in (("sandboxed", {}), ("plain", {"sandbox": False})):
        cfgs[arm] = tmp / f"{arm}.json"
        cfgs[arm].write_text(json.dumps({"mcpServers": {
            "m": {"command": "node", "args": [SERVER], **sandbox}}}))
        roots[arm] = tmp / f"root-{arm}"
    for _ in range(ROUNDS):
        for arm in ("sandboxed", "plain"):
            subprocess.run([MCPFS, "--config", cfgs[arm], "--root", roots[arm], "call", "m",
                            "echo", '{"x": 1}'], check=True, capture_output=True)
    start = {arm: start_times(roots[arm] / "logs" / "m.log") for arm in roots}
    prog = tmp / "calls.py"
    prog.write_text(CALLS)
    calls = {arm: [] for arm in roots}
    for _ in range(5):
        for arm in ("sandboxed", "plain"):
            p = subprocess.run([MCPFS, "--config", cfgs[arm], "--root", roots[arm], "exec", prog],
                               check=True, capture_output=True, text=True)
            calls[arm].append(float(p.stdout.strip()))
    med = {arm: statistics.median(v) for arm, v in start.items()}
    print(f"server start, spawn to initialized, median of {ROUNDS} interleaved: sandboxed "
          f"{med['sandboxed']:.1f} ms, plain {med['plain']:.1f} ms: "
          f"{med['sandboxed'] - med['plain']:+.1f} ms (goal <= +10 ms); spread sandboxed "
          f"{min(start['sandboxed']):.0f}-{max(start['sandboxed']):.0f}, plain "
          f"{min(start['plain']):.0f}-{max(start['plain']):.0f}")
    cm = {arm: statistics.median(v) for arm, v in calls.items()}
    print(f"warm call from jailed code, median of 5 runs x 200: sandboxed {cm['sandboxed']:.0f} us, "
          f"plain {cm['plain']:.0f} us: ratio {cm['sandboxed'] / cm['plain']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
