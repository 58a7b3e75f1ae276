"""The mount's inode table keeps only what the kernel still knows (issue 23):
under a catalog that changes 100 times a second (sdk_compat.mjs --churn 10)
while a reader lists and stats the folder, the live inode count (statfs
f_files) and the daemon's memory stay flat.

The issue asks for 10 minutes; make check runs MCPFS_CHURN_S seconds (default
30: thousands of catalog changes) and checks the trend, not a figure that
depends on speed: the second half must not hold more than the first.
"""
import os
import statistics
import time

from conftest import sdk_server
from conftest_mount import mounted, wait_until  # noqa: F401 (fixture)


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_inode_table_and_memory_flat_under_catalog_churn(mounted):
    duration = float(os.environ.get("MCPFS_CHURN_S", "30"))
    mounted.start(servers={"c": sdk_server("sdk_compat.mjs", "--churn", "10")})
    folder = mounted.point / "servers" / "c"
    assert wait_until(lambda: any(n.startswith("gen_") for n in os.listdir(folder)), 60)
    pid = mounted.pidfile()["pid"]
    seen, samples = set(), []
    t0 = time.monotonic()
    while time.monotonic() - t0 < duration:
        for name in os.listdir(folder):
            try:
                os.stat(folder / name)
            except FileNotFoundError:
                pass  # gone since the listing: the catalog moved on
            seen.add(name)
        samples.append((time.monotonic() - t0, os.statvfs(mounted.point).f_files, rss_kb(pid)))
    gens = {n.split(".")[0] for n in seen if n.startswith("gen_")}
    assert len(gens) >= 20, f"the catalog barely changed: {len(gens)} generations seen"
    inodes = [s[1] for s in samples]
    # Before reclaim every generation's files stayed: thousands of changes
    # meant thousands of nodes. Now the table holds what the kernel caches,
    # more when the kernel's FORGETs lag behind on a loaded machine.
    assert max(inodes) < 1000, f"max {max(inodes)} inodes after {len(gens)} generations"
    # Once the reader stops, the kernel forgets every old generation and the
    # table comes back to what it held at the start: nothing leaked.
    base = min(inodes[:20])
    assert wait_until(lambda: os.statvfs(mounted.point).f_files <= base + 8, 120, 0.5), (
        f"inodes stay at {os.statvfs(mounted.point).f_files}, started at {base}")
    settled = os.statvfs(mounted.point).f_files
    if mounted.m.build == "plain":  # ASan's quarantine holds freed memory back
        quarter = len(samples) // 4
        early = statistics.median(s[2] for s in samples[quarter:2 * quarter])
        late = statistics.median(s[2] for s in samples[3 * quarter:])
        assert late <= early + 4096, f"RSS grew from {early} kB to {late} kB"
    print(f"{len(gens)} generations in {duration:.0f} s; inodes max {max(inodes)}, "
          f"start {base}, settled {settled}; RSS {samples[0][2]} -> "
          f"{statistics.median(s[2] for s in samples[len(samples) // 2:])} (median of "
          f"the second half) -> {samples[-1][2]} kB")
