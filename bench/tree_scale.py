#!/usr/bin/env python3
"""The tree at scale (issue 27), each figure beside its baseline in the same
run. The catalog comes from a real SDK server (tests/node/servers/
big_catalog.mjs) serving N generated tools, P per tools/list page.
  pages: 100,000 tools at several page sizes load (tools/list wall, peak RSS)
  ls:    cold `ls` of a 10,000-tool folder (fresh mount, catalog loaded,
         nothing rendered), and warm `ls` of ~100,000 entries against the
         same tree from `mcpfs generate` on tmpfs
  walk:  a warm walk of a 2,000-tool mount, os.walk opening and reading
         every file (with open(), and with os.open(), which skips open()'s
         isatty()) and `find | xargs cat`, against tmpfs; the round trip of
         that isatty() (ioctl TCGETS), the one request of a warm walk; and
         the open() walk with the daemon pinned to the walker's CPU or the
         other one (what a cross-CPU wake-up costs)
  jail:  the same open() and os.open walks by code in a run's jail, of
         /mcp (the live mount, bound as it is; and a tree the run wrote on
         disk, through the jail's read-only overlay) against a copy of it on
         the jail's own tmpfs
  idle:  the os.open walk after IDLE seconds idle (default 65: the entry
         and attribute timeouts were 60 s), best of IDLE_ROUNDS pauses, the
         mounts (new, base) and tmpfs taking turns at walking first
  rss:   the daemon's resident memory per tool after listing, and after a
         full walk, at 10,000 tools
  bytes: bytes an agent reads to find and call one tool (root README + the
         server's README + one .py tool file, through the mount) against
         `tools/list`'s JSON (compact, every page's tools in one array)
MCPFS=path the binary, BASE=path a second binary measured beside it (e.g.
the build before a change), PARTS=comma list of the parts above, ROUNDS the
warm repetitions (best of), RSS_TOOLS the tools of the rss part (10,000)."""
import fcntl
import glob
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MCPFS = os.environ.get("MCPFS", str(REPO / "build" / "mcpfs"))
BASE = os.environ.get("BASE", "")
PARTS = os.environ.get("PARTS", "pages,ls,walk,jail,idle,rss,bytes").split(",")
IDLE = float(os.environ.get("IDLE", "65"))
IDLE_ROUNDS = int(os.environ.get("IDLE_ROUNDS", "3"))
ROUNDS = int(os.environ.get("ROUNDS", "5"))
RSS_TOOLS = int(os.environ.get("RSS_TOOLS", "10000"))
SERVER = str(REPO / "tests" / "node" / "servers" / "big_catalog.mjs")


class Mcpfs:
    """A data root and config of servers NAME -> (tools, page size)."""

    def __init__(self, binary: str, servers: dict):
        self.binary = binary
        self.work = Path(tempfile.mkdtemp(prefix="mcpfs-bench-scale-"))
        self.point = self.work / "mnt"
        self.point.mkdir()
        self.cfg = self.work / "mcpfs.json"
        self.cfg.write_text(json.dumps({"mcpServers": {
            name: {"command": "node", "args": [SERVER, str(n), str(page)],
                   "connect_timeout": 300, "timeout": 300, "max_tools": 200000,
                   "max_catalog_bytes": 1 << 30}
            for name, (n, page) in servers.items()}}))
        self.env = {**os.environ, "MCPFS_ROOT": str(self.work / "root")}

    def run(self, *args, **kw):
        return subprocess.run([self.binary, "--config", str(self.cfg), *args], env=self.env,
                              **kw)

    def mount(self, *opts) -> int:
        self.run("mount", *opts, str(self.point), check=True)
        run = glob.glob(str(self.work / "root" / "run" / "mount-*.json"))
        return json.loads(Path(run[0]).read_text())["pid"]

    def unmount(self):
        subprocess.run(["fusermount3", "-u", str(self.point)], capture_output=True)
        time.sleep(0.3)

    def close(self):
        self.unmount()
        # a run leaves its customer's workspace and skills mounted until idle
        self.run("workspace", "umount", "--all", capture_output=True)
        shutil.rmtree(self.work, ignore_errors=True)


def status_kb(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def binaries():
    yield "new", MCPFS
    if BASE:
        yield "base", BASE


def part_pages():
    print("| page size | build | exit | tools | wall | mcpfs peak RSS | error |")
    print("|---|---|---|---|---|---|---|")
    for page in (10000, 100, 1):
        for label, binary in binaries():
            m = Mcpfs(binary, {"big": (100000, page)})
            try:
                with open(m.work / "out", "w+b") as out, open(m.work / "err", "w+b") as err:
                    t0 = time.monotonic()
                    p = subprocess.Popen([binary, "--config", str(m.cfg), "tools", "big",
                                          "--json"], env=m.env, stdout=out, stderr=err)
                    hwm = 0
                    while p.poll() is None:
                        hwm = max(hwm, status_kb(p.pid, "VmHWM"))
                        time.sleep(0.02)
                    wall = time.monotonic() - t0
                    out.seek(0)
                    err.seek(0)
                    tools = len(json.load(out)) if p.returncode == 0 else 0
                    msg = err.read().decode().strip().replace("\n", " ")[:120]
                print(f"| {page:,} | {label} | {p.returncode} | {tools:,} | {wall:.1f} s | "
                      f"{hwm / 1024:.0f} MiB | {msg} |", flush=True)
            finally:
                m.close()


def timed(cmd) -> float:
    t0 = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    return time.monotonic() - t0


def part_ls():
    for label, binary in binaries():
        m = Mcpfs(binary, {"big": (10000, 1000)})
        try:
            m.mount()
            folder = m.point / "servers" / "big"
            os.stat(folder / "README.md")  # starts the server, loads the catalog
            cold = timed(["ls", str(folder)])
            n = len(os.listdir(folder))
            print(f"cold ls of a 10,000-tool folder ({n:,} entries), {label}: "
                  f"{cold * 1000:.0f} ms (goal <= 100 ms)", flush=True)
        finally:
            m.close()
    tools = 33333  # three files each, plus README.md and __init__.py: 100,001 entries
    for label, binary in binaries():
        m = Mcpfs(binary, {"big": (tools, 1000)})
        shm = Path(tempfile.mkdtemp(prefix="mcpfs-bench-scale-", dir="/dev/shm"))
        try:
            m.run("generate", "--out", str(shm / "gen"), check=True, stdout=subprocess.DEVNULL)
            m.mount()
            folder, gen = m.point / "servers" / "big", shm / "gen" / "servers" / "big"
            subprocess.run(["ls", str(folder)], stdout=subprocess.DEVNULL, check=True)
            mnt_s, tmp_s = float("inf"), float("inf")
            for _ in range(ROUNDS):
                mnt_s = min(mnt_s, timed(["ls", str(folder)]))
                tmp_s = min(tmp_s, timed(["ls", str(gen)]))
            n = len(os.listdir(folder))
            print(f"warm ls of {n:,} entries, {label}: mount {mnt_s * 1000:.0f} ms, tmpfs "
                  f"{tmp_s * 1000:.0f} ms, ratio {mnt_s / tmp_s:.2f}x (goal <= 2x)", flush=True)
        finally:
            m.close()
            shutil.rmtree(shm, ignore_errors=True)


def os_walk_read(top: Path) -> float:
    t0 = time.monotonic()
    for d, _, files in os.walk(top):
        for f in files:
            with open(os.path.join(d, f), "rb") as fh:
                fh.read()
    return time.monotonic() - t0


def os_walk_fd(top: Path) -> float:
    t0 = time.monotonic()
    for d, _, files in os.walk(top):
        for f in files:
            fd = os.open(os.path.join(d, f), os.O_RDONLY)
            while os.read(fd, 1 << 16):
                pass
            os.close(fd)
    return time.monotonic() - t0


def tcgets(path: Path, n: int = 2000) -> float:
    """Seconds per ioctl(TCGETS) on @path, what open() asks through isatty()."""
    fd = os.open(path, os.O_RDONLY)
    t0 = time.monotonic()
    for _ in range(n):
        try:
            fcntl.ioctl(fd, termios.TCGETS, bytes(64))
        except OSError:
            pass
    t = time.monotonic() - t0
    os.close(fd)
    return t / n


def pin(pid: int, daemon: set, walker: set):
    for tid in os.listdir(f"/proc/{pid}/task"):
        os.sched_setaffinity(int(tid), daemon)
    os.sched_setaffinity(0, walker)


def find_cat(top: Path) -> float:
    t0 = time.monotonic()
    subprocess.run(f"find '{top}' -type f -print0 | xargs -0 cat > /dev/null", shell=True,
                   check=True)
    return time.monotonic() - t0


def part_walk():
    for label, binary in binaries():
        m = Mcpfs(binary, {"big": (2000, 1000)})
        shm = Path(tempfile.mkdtemp(prefix="mcpfs-bench-scale-", dir="/dev/shm"))
        try:
            gen = shm / "gen"
            m.run("generate", "--out", str(gen), check=True, stdout=subprocess.DEVNULL)
            pid = m.mount()
            os_walk_read(m.point)
            find_cat(m.point)
            same = subprocess.run(["diff", "-r", "-q", str(gen), str(m.point)],
                                  capture_output=True).returncode == 0
            for name, fn in (("os.walk + open + read", os_walk_read),
                             ("os.walk + os.open + os.read", os_walk_fd), ("find | cat", find_cat)):
                mnt_s, tmp_s = float("inf"), float("inf")
                for _ in range(ROUNDS):
                    mnt_s = min(mnt_s, fn(m.point))
                    tmp_s = min(tmp_s, fn(gen))
                print(f"warm walk of a 2,000-tool mount, {name}, {label}: mount "
                      f"{mnt_s * 1000:.0f} ms, tmpfs {tmp_s * 1000:.0f} ms, ratio "
                      f"{mnt_s / tmp_s:.2f}x (goal <= 1.5x)", flush=True)
            mnt_s, tmp_s = float("inf"), float("inf")
            for _ in range(ROUNDS):
                mnt_s = min(mnt_s, tcgets(m.point / "README.md"))
                tmp_s = min(tmp_s, tcgets(gen / "README.md"))
            print(f"ioctl(TCGETS), open()'s isatty(), {label}: mount {mnt_s * 1e6:.1f} us, tmpfs "
                  f"{tmp_s * 1e6:.1f} us", flush=True)
            cpus = sorted(os.sched_getaffinity(0))
            for where, daemon in (("the walker's CPU", cpus[:1]), ("another CPU", cpus[1:2])):
                if not daemon:
                    continue
                mnt_s, tmp_s = float("inf"), float("inf")
                try:
                    pin(pid, set(daemon), set(cpus[:1]))
                    for _ in range(ROUNDS):
                        mnt_s = min(mnt_s, os_walk_read(m.point))
                        tmp_s = min(tmp_s, os_walk_read(gen))
                finally:
                    pin(pid, set(cpus), set(cpus))
                print(f"os.walk + open + read, daemon pinned to {where}, {label}: mount "
                      f"{mnt_s * 1000:.0f} ms, tmpfs {tmp_s * 1000:.0f} ms, ratio "
                      f"{mnt_s / tmp_s:.2f}x", flush=True)
            print(f"mount == generate (diff -r), {label}: {'yes' if same else 'NO'}")
        finally:
            m.close()
            shutil.rmtree(shm, ignore_errors=True)


# Run in the jail, after os_walk_read and os_walk_fd: both walks of
# /mcp/servers and of a copy on /tmp (tmpfs), best of ROUNDS each, taking
# turns; one JSON line of seconds.
JAIL_WALK = """
shutil.copytree('/mcp/servers', '/tmp/servers')
out = {}
for name, fn in (('open', os_walk_read), ('os.open', os_walk_fd)):
    fn('/mcp/servers')
    best = {'mcp': float('inf'), 'tmp': float('inf')}
    for _ in range(ROUNDS):
        best['mcp'] = min(best['mcp'], fn('/mcp/servers'))
        best['tmp'] = min(best['tmp'], fn('/tmp/servers'))
    out[name] = best
print(json.dumps(out))
"""


def part_jail():
    for label, binary in binaries():
        for tree, live in (("the live mount", True), ("a written tree", False)):
            m = Mcpfs(binary, {"big": (2000, 1000)})
            try:
                if live:
                    m.mount("-o", "allow_other")  # else the run writes a tree of its own
                prog = m.work / "walk.py"
                prog.write_text("import json, os, shutil, time\nfrom pathlib import Path\n"
                                f"ROUNDS = {ROUNDS}\n" +
                                inspect.getsource(os_walk_read) + inspect.getsource(os_walk_fd) +
                                JAIL_WALK)
                p = m.run("exec", "--json", "--timeout", "600", "--memory", "1024", prog,
                          capture_output=True, text=True)
                res = json.loads(p.stdout) if p.stdout.strip() else {}
                if res.get("exit_code") != 0:
                    print(f"jail walk, {label}: failed: {p.stderr.strip()} "
                          f"{res.get('stderr', '')}")
                    continue
                for name, best in json.loads(res["stdout"]).items():
                    print(f"warm walk in the jail, {tree}, os.walk + {name} + read, {label}: "
                          f"/mcp {best['mcp'] * 1000:.0f} ms, jail tmpfs "
                          f"{best['tmp'] * 1000:.0f} ms, ratio {best['mcp'] / best['tmp']:.2f}x "
                          "(goal <= 1.5x)", flush=True)
            finally:
                m.close()


def part_idle():
    mounts = [(label, Mcpfs(binary, {"big": (2000, 1000)})) for label, binary in binaries()]
    shm = Path(tempfile.mkdtemp(prefix="mcpfs-bench-scale-", dir="/dev/shm"))
    try:
        gen = shm / "gen"
        mounts[0][1].run("generate", "--out", str(gen), check=True, stdout=subprocess.DEVNULL)
        arms = [(label, m.point) for label, m in mounts] + [("tmpfs", gen)]
        for _, m in mounts:
            m.mount()
        for _, top in arms:
            os_walk_fd(top)
        late = {label: float("inf") for label, _ in arms}
        for i in range(IDLE_ROUNDS):  # the arms take turns at walking first
            time.sleep(IDLE)
            for label, top in arms[i % len(arms):] + arms[:i % len(arms)]:
                late[label] = min(late[label], os_walk_fd(top))
        for label, _ in mounts:
            print(f"os.walk + os.open + os.read of a 2,000-tool mount after {IDLE:.0f} s idle, "
                  f"{label}: mount {late[label] * 1000:.0f} ms, tmpfs {late['tmpfs'] * 1000:.0f} "
                  f"ms, ratio {late[label] / late['tmpfs']:.2f}x (goal <= 1.5x)", flush=True)
    finally:
        for _, m in mounts:
            m.close()
        shutil.rmtree(shm, ignore_errors=True)


def part_rss():
    tools = RSS_TOOLS
    for label, binary in binaries():
        m = Mcpfs(binary, {"big": (tools, 1000)})
        try:
            pid = m.mount()
            idle = status_kb(pid, "VmRSS")
            folder = m.point / "servers" / "big"
            subprocess.run(["ls", str(folder)], stdout=subprocess.DEVNULL, check=True)
            listed = status_kb(pid, "VmRSS")
            find_cat(m.point)
            walked = status_kb(pid, "VmRSS")
            print(f"daemon RSS at {tools:,} tools, {label}: before {idle / 1024:.1f} MB, after "
                  f"listing {listed / 1024:.1f} MB ({(listed - idle) * 1024 / tools:,.0f} B per "
                  f"tool; goal <= 2 KB), after a full walk {walked / 1024:.1f} MB (goal <= 32 MB)",
                  flush=True)
        finally:
            m.close()


def part_bytes():
    shapes = (("1,000 tools on one server", {"big": (1000, 0)}),
              ("10,000 tools over 10 servers", {f"s{i}": (1000, 0) for i in range(10)}),
              ("100,000 tools on one server", {"big": (100000, 1000)}))
    print("| shape | build | tools/list bytes | root README | server README | tool file | "
          "total | fewer |")
    print("|---|---|---|---|---|---|---|---|")
    for shape, servers in shapes:
        for label, binary in binaries():
            m = Mcpfs(binary, servers)
            try:
                listed = 0
                for name in servers:
                    p = m.run("tools", name, "--json", check=True, capture_output=True)
                    tools = json.loads(p.stdout)
                    listed += len(json.dumps({"tools": tools}, separators=(",", ":")))
                m.mount()
                server = next(iter(servers))
                root = len((m.point / "README.md").read_bytes())
                readme = len((m.point / "servers" / server / "README.md").read_bytes())
                tool = len((m.point / "servers" / server / "github_create_000168.py").read_bytes())
                total = root + readme + tool
                print(f"| {shape} | {label} | {listed:,} | {root:,} | {readme:,} | {tool:,} | "
                      f"{total:,} | {100 * (1 - total / listed):.2f}% |", flush=True)
            finally:
                m.close()


def main() -> int:
    if not os.access("/dev/fuse", os.R_OK | os.W_OK):
        print("SKIP: no usable /dev/fuse")
        return 0
    for part in PARTS:
        print(f"\n-- {part}")
        globals()[f"part_{part}"]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
