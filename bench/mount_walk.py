#!/usr/bin/env python3
"""The mount with a 10,000-tool catalog against the same tree written by
`mcpfs generate` to tmpfs, in the same run:
  - cold full walk: `ls -R` plus reading every file, first time through the
    mount (the catalog already fetched, nothing rendered yet); goal <= 2 s
  - one cold read: open+read+close of one file never read before (median of
    200, each a different tool, in-process); goal <= 1 ms
  - warm walk: `ls -R` plus reading every file, mount / tmpfs; goal <= 1.5x
  - resident memory of the daemon with every file rendered; goal <= 64 MB
TOOLS=N changes the catalog size, MCPFS=path the binary, ROUNDS the warm
repetitions (best of)."""
import glob
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MCPFS = os.environ.get("MCPFS", str(REPO / "build" / "mcpfs"))
TOOLS = int(os.environ.get("TOOLS", "10000"))
ROUNDS = int(os.environ.get("ROUNDS", "7"))
SERVER = REPO / "tests" / "node" / "servers" / "sdk_mount_dynamic.mjs"


def walk(top: Path) -> float:
    """ls -R plus every file read (find | xargs cat): seconds."""
    t0 = time.monotonic()
    subprocess.run(["ls", "-R", str(top)], stdout=subprocess.DEVNULL, check=True)
    subprocess.run(f"find '{top}' -type f -print0 | xargs -0 cat > /dev/null", shell=True,
                   check=True)
    return time.monotonic() - t0


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def unmount(point: Path):
    subprocess.run(["fusermount3", "-u", str(point)], capture_output=True)


def main() -> int:
    if not os.access("/dev/fuse", os.R_OK | os.W_OK):
        print("SKIP: no usable /dev/fuse")
        return 0
    work = Path(tempfile.mkdtemp(prefix="mcpfs-bench-mount-"))
    shm = Path(tempfile.mkdtemp(prefix="mcpfs-bench-gen-", dir="/dev/shm"))
    point = work / "mnt"
    point.mkdir()
    (work / "state").mkdir()
    cfg = work / "mcpfs.json"
    cfg.write_text(json.dumps({"mcpServers": {"synthetic": {
        "command": "node", "args": [str(SERVER), str(work / "state"), str(TOOLS)],
        "connect_timeout": 120}}}))
    env = {**os.environ, "MCPFS_ROOT": str(work / "root")}
    base = [MCPFS, "--config", str(cfg)]
    status = 0
    try:
        gen = shm / "gen"
        t0 = time.monotonic()
        subprocess.run(base + ["generate", "--out", str(gen)], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        gen_s = time.monotonic() - t0
        nfiles = sum(1 for p in gen.rglob("*") if p.is_file())

        t0 = time.monotonic()
        subprocess.run(base + ["mount", str(point)], env=env, check=True)
        mount_s = time.monotonic() - t0
        pid = json.loads(Path(glob.glob(str(work / "root" / "run" / "mount-*.json"))[0])
                         .read_text())["pid"]
        folder = point / "servers" / "synthetic"
        t0 = time.monotonic()
        os.stat(folder / "index.ts")  # starts the server, fetches the catalog
        catalog_s = time.monotonic() - t0

        # One cold read, in-process: files nobody has looked up or rendered.
        picks = random.Random(7).sample(range(TOOLS), 200)
        lat = []
        for i in picks:
            path = folder / f"tool_{i:05d}.py"
            t0 = time.perf_counter()
            with open(path, "rb") as f:
                f.read()
            lat.append(time.perf_counter() - t0)
        cold_read_ms = statistics.median(lat) * 1000
        # A cold walk needs a fresh daemon: nothing rendered, nothing cached.
        unmount(point)
        subprocess.run(base + ["mount", str(point)], env=env, check=True)
        pid = json.loads(Path(glob.glob(str(work / "root" / "run" / "mount-*.json"))[0])
                         .read_text())["pid"]
        os.stat(folder / "index.ts")
        subprocess.run(["sh", "-c", "sync; echo 3 > /proc/sys/vm/drop_caches"],
                       capture_output=True)
        cold_s = walk(point)
        rss = rss_mb(pid)

        diff = subprocess.run(["diff", "-r", "-q", str(gen), str(point)], capture_output=True,
                              text=True)
        same = diff.returncode == 0

        # Interleaved, best of ROUNDS each: both see the same machine load.
        warm_mount, warm_tmpfs = float("inf"), float("inf")
        for _ in range(ROUNDS):
            warm_mount = min(warm_mount, walk(point))
            warm_tmpfs = min(warm_tmpfs, walk(gen))
        ratio = warm_mount / warm_tmpfs

        print(f"catalog: {TOOLS + 1} tools, {nfiles} files; generate to tmpfs {gen_s:.2f} s; "
              f"mount returned in {mount_s * 1000:.0f} ms; first look at the folder "
              f"(server start + tools/list) {catalog_s:.2f} s")
        print(f"mount == generate (diff -r): {'yes' if same else 'NO'}")
        print(f"cold walk (ls -R + read all, nothing rendered): {cold_s:.2f} s (goal <= 2 s)")
        print(f"one cold read (median of 200): {cold_read_ms:.3f} ms (goal <= 1 ms)")
        print(f"warm walk: mount {warm_mount:.3f} s, tmpfs {warm_tmpfs:.3f} s, "
              f"ratio {ratio:.2f}x (goal <= 1.5x)")
        print(f"daemon RSS with all rendered: {rss:.1f} MB (goal <= 64 MB)")
        if not same:
            print(diff.stdout[:2000])
            status = 1
    finally:
        unmount(point)
        shutil.rmtree(shm, ignore_errors=True)
        time.sleep(0.5)
        shutil.rmtree(work, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
