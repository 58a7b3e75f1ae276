#!/usr/bin/env python3
"""mcpfs's peak memory for a server whose catalog is 8 pages of 100,000 tools
(each page under the message cap: tests/node/servers/sdk_compat.mjs --pages),
under the default caps (20,000 tools, 64 MiB of tools), with only max_tools
raised, and with both raised (the baseline: no cap reached, as before the
caps), and for a catalog at the default tool cap (8 pages of 2,500). Each
`mcpfs tools c` runs on a fresh data root (no catalog cache). The peak is
VmHWM of the mcpfs process alone, read from /proc every 5 ms until it exits:
wait4's ru_maxrss would count the node server too. MCPFS=path overrides the
binary."""
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MCPFS = os.environ.get("MCPFS", str(REPO / "build" / "mcpfs"))
SERVER = str(REPO / "tests" / "node" / "servers" / "sdk_compat.mjs")

CASES = (
    ("8 x 100,000 tools, default caps", 8, 100000, {}),
    ("8 x 100,000 tools, max_tools 800,000", 8, 100000, {"max_tools": 800000}),
    ("8 x 100,000 tools, both caps raised (baseline)", 8, 100000,
     {"max_tools": 800000, "max_catalog_bytes": 1 << 32}),
    ("8 x 2,500 tools (at the default tool cap)", 8, 2500, {}),
)


def peak_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run(pages: int, per_page: int, caps: dict) -> tuple:
    with tempfile.TemporaryDirectory() as root:
        cfg = Path(root) / "mcpfs.json"
        cfg.write_text(json.dumps({"mcpServers": {"c": {
            "command": "node",
            "args": [SERVER, "--pages", str(pages), "--per-page", str(per_page)], **caps}}}))
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": root,
               "MCPFS_ROOT": root}
        # Output to files: a pipe nobody reads while we poll would block mcpfs.
        with open(Path(root) / "out", "w+b") as out, open(Path(root) / "err", "w+b") as err:
            t0 = time.monotonic()
            p = subprocess.Popen([MCPFS, "--config", str(cfg), "tools", "c", "--json"],
                                 env=env, stdout=out, stderr=err)
            hwm = 0
            while p.poll() is None:
                hwm = max(hwm, peak_kb(p.pid))
                time.sleep(0.005)
            wall = time.monotonic() - t0
            out.seek(0)
            err.seek(0)
            tools = len(json.load(out)) if p.returncode == 0 else 0
            return hwm, p.returncode, tools, wall, err.read().decode().strip()


def main() -> int:
    print("| catalog | mcpfs peak RSS | exit | tools | wall | error |")
    print("|---|---|---|---|---|---|")
    for label, pages, per_page, caps in CASES:
        hwm, rc, tools, wall, err = run(pages, per_page, caps)
        print(f"| {label} | {hwm / 1024:,.0f} MiB | {rc} | {tools:,} | {wall:.1f} s | {err} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
