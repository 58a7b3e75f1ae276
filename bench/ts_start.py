#!/usr/bin/python3
"""Issue 27, TypeScript start-up: a trivial program (one typed constant,
printed), R rounds (MCPFS_BENCH_TS_ROUNDS, 30), the arms alternating within
each round:
  node    bare /usr/bin/node on the same program as JavaScript (the baseline)
  ts.cjs  the jail's TypeScript runner outside the jail, with its argv
          (executor/run.c): what TypeScript adds to node
  exec-ts `mcpfs exec --lang typescript` of the program (no servers configured)
  exec-py `mcpfs exec` of Python's `pass`, the jail's own share, for reference
Prints, per arm, the medians (and p10-p90) of wall-clock time and of CPU time
(user+sys of the process and what it waited for; steadier on a loaded
machine), and each against bare node in the same run.
Usage: ts_start.py [BUILD_DIR]."""
import json
import os
import resource
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
ROUNDS = int(os.environ.get("MCPFS_BENCH_TS_ROUNDS", "30"))
NODE = "/usr/bin/node"
TS_ARGV = [NODE, "--experimental-vm-modules", "--disable-warning=ExperimentalWarning",
           str(REPO / "executor" / "runtime" / "ts.cjs")]
TS = 'const greeting: string = "ok";\nconsole.log(greeting);\n'
JS = 'const greeting = "ok";\nconsole.log(greeting);\n'


def timed(argv, env, want):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = (time.perf_counter() - t0) * 1e3
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode or p.stdout != want:
        raise SystemExit(f"{argv}: exit {p.returncode}, stdout {p.stdout!r}, stderr {p.stderr}")
    cpu = (r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) * 1e3
    return wall, cpu


def spread(xs):
    q = statistics.quantiles(xs, n=10)
    return f"{statistics.median(xs):7.1f} ({q[0]:.1f}-{q[-1]:.1f})"


def main():
    if not (REPO / "executor" / "runtime" / "dist" / "sucrase.js").exists():
        raise SystemExit("executor/runtime/dist is not built: make deps && make")
    tmp = Path(tempfile.mkdtemp(prefix="mcpfs-ts-bench-"))
    try:
        (tmp / "prog.ts").write_text(TS)
        (tmp / "prog.mjs").write_text(JS)
        (tmp / "prog.py").write_text("pass\n")
        (tmp / "config.json").write_text(json.dumps({"mcpServers": {}}))
        env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp), "MCPFS_ROOT": str(tmp / "root"),
               "MCPFS_NO_DAEMON": "1"}
        exec_ = [MCPFS, "--config", str(tmp / "config.json"), "exec"]
        arms = {
            "node": ([NODE, str(tmp / "prog.mjs")], "ok\n"),
            "ts.cjs": ([*TS_ARGV, str(tmp / "prog.ts")], "ok\n"),
            "exec-ts": ([*exec_, "--lang", "typescript", str(tmp / "prog.ts")], "ok\n"),
            "exec-py": ([*exec_, str(tmp / "prog.py")], ""),
        }
        for argv, want in arms.values():  # warm the page cache and the run's tree
            timed(argv, env, want)
        got = {name: ([], []) for name in arms}
        for _ in range(ROUNDS):
            for name, (argv, want) in arms.items():
                wall, cpu = timed(argv, env, want)
                got[name][0].append(wall)
                got[name][1].append(cpu)
        base_wall = statistics.median(got["node"][0])
        base_cpu = statistics.median(got["node"][1])
        print(f"{ROUNDS} rounds, load average {os.getloadavg()[0]:.1f}; medians (p10-p90), ms")
        print(f"{'arm':8} {'wall':>22} {'vs node':>9} {'cpu':>22} {'vs node':>9}")
        for name, (wall, cpu) in got.items():
            dw = statistics.median(wall) - base_wall
            dc = statistics.median(cpu) - base_cpu
            print(f"{name:8} {spread(wall):>22} {dw:+8.1f} {spread(cpu):>22} {dc:+8.1f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
