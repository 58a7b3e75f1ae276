#!/usr/bin/python3
"""Issue 27, idle workspaces: N customers (MCPFS_BENCH_CUSTOMERS, 1000) each
run one program, one after another, each with a real loop-mounted ext4
workspace, through a daemon that unmounts workspaces idle T seconds
(MCPFS_BENCH_IDLE_S, 20; `serve --workspace-idle`). Baseline in the same
run: a second daemon on its own data root with the sweep off, its runs
interleaved with the first B (MCPFS_BENCH_IDLE_BASE, 200) of the sweeping
one. Prints the run times of both (median, p90) over the interleaved part,
and the mounts and loop devices each root holds at the end against the
customers active in the last T seconds. MCPFS_BENCH_IDLE_MODE=cli runs
`mcpfs exec` without a daemon instead (each run sweeps beside itself).
Usage: workspace_idle.py [BUILD_DIR]."""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILD = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "build"
MCPFS = str(BUILD / "mcpfs")
N = int(os.environ.get("MCPFS_BENCH_CUSTOMERS", "1000"))
IDLE = float(os.environ.get("MCPFS_BENCH_IDLE_S", "20"))
BASE = min(N, int(os.environ.get("MCPFS_BENCH_IDLE_BASE", "200")))
MODE = os.environ.get("MCPFS_BENCH_IDLE_MODE", "daemon")


def mounts(root):
    prefix = str(root) + "/workspaces/"
    with open("/proc/self/mountinfo") as f:
        return [x.split()[4] for x in f if x.split()[4].startswith(prefix)]


def loops(root):
    out = subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
    return [x for x in out.splitlines() if str(root) + "/" in x]


class Arm:
    def __init__(self, tmp, name, idle):
        self.root = tmp / f"root-{name}"
        self.env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp), "MCPFS_ROOT": str(self.root),
                    "MCPFS_QUOTA_BYTES": str(2 << 20), "MCPFS_QUOTA_FILES": "64",
                    "MCPFS_WORKSPACE_IDLE_S": str(idle)}
        self.daemon = None
        if MODE == "daemon":
            self.daemon = subprocess.Popen([MCPFS, "serve", "--http", "127.0.0.1:0"],
                                           stdout=subprocess.PIPE, text=True, env=self.env)
            self.daemon.stdout.readline()
        else:
            self.env["MCPFS_NO_DAEMON"] = "1"
        self.times, self.last = [], {}

    def run(self, customer):
        t0 = time.perf_counter()
        p = subprocess.run([MCPFS, "exec", "--customer", customer, "-"], input="print(1)\n",
                           capture_output=True, text=True, env=self.env)
        if p.returncode or p.stdout != "1\n":
            raise SystemExit(f"run of {customer} failed: {p.stderr}")
        self.times.append((time.perf_counter() - t0) * 1e3)
        self.last[customer] = time.monotonic()

    def stop(self):
        if self.daemon:
            self.daemon.terminate()
            self.daemon.wait()
        subprocess.run([MCPFS, "workspace", "umount", "--all"], capture_output=True,
                       env=self.env)


def main():
    tmp = Path(tempfile.mkdtemp(prefix="mcpfs-idle-bench-"))
    arms = []
    try:
        on = Arm(tmp, "sweep", IDLE)
        arms.append(on)
        off = Arm(tmp, "nosweep", 0)
        arms.append(off)
        t0 = time.monotonic()
        for k in range(N):
            pair = (on, off) if k % 2 else (off, on)  # neither always goes first
            for a in pair if k < BASE else (on,):
                a.run(f"c{k}")
        wall = time.monotonic() - t0
        now = time.monotonic()
        # A workspace may outlive its idle time by one sweep period (T/10).
        active = sum(1 for t in on.last.values() if now - t <= IDLE * 1.1 + 1)
        m_on, l_on = len(mounts(on.root)), len(loops(on.root))
        m_off, l_off = len(mounts(off.root)), len(loops(off.root))

        def stats(x):
            x = sorted(x)
            return f"median {statistics.median(x):.0f} ms, p90 {x[int(0.9 * (len(x) - 1))]:.0f} ms"

        print(f"idle workspaces ({MODE}, idle {IDLE:g} s): {N} customers x 1 run in {wall:.0f} s; "
              f"sweep on: {m_on} mounts, {l_on} loop devices left, {active} customers active "
              f"in the last {IDLE * 1.1 + 1:.0f} s; sweep off ({BASE} customers): {m_off} mounts, "
              f"{l_off} loop devices")
        print(f"run time over the {BASE} interleaved runs: sweep on {stats(on.times[:BASE])}, "
              f"sweep off {stats(off.times)}; ratio of medians "
              f"{statistics.median(on.times[:BASE]) / statistics.median(off.times):.2f}; "
              f"all {N} runs with the sweep: {stats(on.times)}")
        return 0 if m_on <= active else 1
    finally:
        for a in arms:
            a.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
