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
    half = [s for s in samples if s[0] >= duration / 2]
    first = [s for s in samples if s[0] < duration / 2]
    assert half and first
    # Before reclaim every generation's files stayed: f_files grew by 3+ per change.
    assert max(s[1] for s in half) <= max(s[1] for s in first) + 16, (
        f"inodes grew: first half max {max(s[1] for s in first)}, "
        f"second half max {max(s[1] for s in half)}, {len(gens)} generations")
    assert max(s[1] for s in samples) < 200, max(s[1] for s in samples)
    if mounted.m.build == "plain":  # ASan's quarantine holds freed memory back
        early = statistics.median(s[2] for s in first[len(first) // 2:])
        late = statistics.median(s[2] for s in half[len(half) // 2:])
        assert late <= early + 4096, f"RSS grew from {early} kB to {late} kB"
    print(f"{len(gens)} generations in {duration:.0f} s; f_files max "
          f"{max(s[1] for s in samples)}; RSS {samples[0][2]} -> {samples[-1][2]} kB")
