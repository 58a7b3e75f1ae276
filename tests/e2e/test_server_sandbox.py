"""Every stdio server in a sandbox of its own: jailed code cannot get around
its jail through the tools it calls (issue: server sandboxes).

The attacks are the ones an outside audit found with the default config:
server-filesystem's check-then-open race, a URL-fetching tool aimed at the
host's loopback, the jail's kernel counts charged to root, and mcpfs's own
command line read from inside. The module runs as a normal user too
(`rootless`): each server then is that user outside, in namespaces of its
own, seeing only its binds."""
import ctypes
import http.server
import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import EVERYTHING, FILESYSTEM, MEMORY, REPO, ROOTLESS_UID
from conftest_executor import run_code

pytestmark = pytest.mark.rootless

SERVERS_DIR = REPO / "servers"
SHARED_UID = 64001
CUSTOMER_UID = 64000
NS_GET_OWNER_UID = 0xB704  # _IO(0xb7, 0x4)


def default_like_config(mcpfs, **everything_extra) -> None:
    """The default config's servers, with the test's node_modules."""
    mcpfs.write_config({
        "everything": {"command": "node", "args": [EVERYTHING, "stdio"],
                       "sandbox": {"network": "none"}, **everything_extra},
        "filesystem": {"command": "node", "args": [FILESYSTEM, "${WORKSPACE}"],
                       "scope": "customer"},
        "memory": {"command": "node", "args": [MEMORY],
                   "env": {"MEMORY_FILE_PATH": "${STATE}/memory.jsonl"}, "scope": "customer"},
    })


# The attack: a thread swaps a folder of the workspace with a symlink to a
# folder outside it (renameat2 RENAME_EXCHANGE) while the main thread asks
# server-filesystem to read and write a file in that folder. Unsandboxed,
# the server checks the path's realpath, then opens it again, and the swap
# wins in about 50 tries.
RACE = r'''
import ctypes, json, os, threading, time
from servers.filesystem import read_text_file, write_file

WS = @WS@
TARGETS = @TARGETS@
ATTEMPTS = @ATTEMPTS@
libc = ctypes.CDLL(None, use_errno=True)
SYS_renameat2, AT_FDCWD, RENAME_EXCHANGE = 316, -100, 2

os.makedirs("d", exist_ok=True)
with open("d/f.txt", "w") as f:
    f.write("mine")
stop = threading.Event()

def swapper(link):
    while not stop.is_set():
        libc.syscall(SYS_renameat2, AT_FDCWD, b"d", AT_FDCWD, link.encode(), RENAME_EXCHANGE)

seen, attempts, t0 = set(), 0, time.time()
for i, target in enumerate(TARGETS):
    link = f"s{i}"
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(target, link)
    t = threading.Thread(target=swapper, args=(link,))
    t.start()
    for n in range(ATTEMPTS // len(TARGETS)):
        attempts += 1
        try:
            seen.add(read_text_file(path=f"{WS}/d/f.txt")["content"])
        except Exception as e:
            seen.add("error")
        try:
            write_file(path=f"{WS}/d/w{n}.txt", content="planted")
        except Exception:
            pass
    stop.set()
    t.join()
    stop.clear()
    # put d back where it was, whatever the last swap left
    if os.path.islink("d"):
        libc.syscall(SYS_renameat2, AT_FDCWD, b"d", AT_FDCWD, link.encode(), RENAME_EXCHANGE)
print(json.dumps({"seen": sorted(seen), "attempts": attempts, "s": time.time() - t0}))
'''


def ws_of(mcpfs, customer: str) -> Path:
    return mcpfs.root / "workspaces" / customer / "workspace"


def test_filesystem_race_reaches_nothing_outside_the_customer(mcpfs):
    """Rootless, the host folder and both customers are the same uid's: only
    the sandbox's binds keep them apart."""
    default_like_config(mcpfs)
    host = mcpfs.tmp / "host-secret"
    host.mkdir(mode=0o700)
    (host / "f.txt").write_text("HOST-SECRET")
    mcpfs.give(host)
    host_before = sorted(os.listdir(host))
    for c in ("alice", "bob"):  # provision both, and a file each that the other must not read
        mcpfs.run("exec", "--customer", c, "-", input="open('f.txt','w').write('%s-SECRET')" % c,
                  check=0)
    procs = {}
    for me, other in (("alice", "bob"), ("bob", "alice")):
        code = (RACE.replace("@WS@", json.dumps(str(ws_of(mcpfs, me))))
                .replace("@TARGETS@", json.dumps([str(host), str(ws_of(mcpfs, other))]))
                .replace("@ATTEMPTS@", "2000"))
        path = mcpfs.tmp / f"race-{me}.py"
        path.write_text(code)
        procs[me] = subprocess.Popen(mcpfs.cmd("exec", "--customer", me, "--timeout", "600", path),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=mcpfs.env)
    for me, p in procs.items():
        out, err = p.communicate(timeout=900)
        assert p.returncode == 0, err
        res = json.loads(out.strip().splitlines()[-1])
        assert res["attempts"] == 2000
        # only its own file, or an error: never the host's or the other customer's
        assert set(res["seen"]) <= {"mine", "error"}, (me, res)
    assert sorted(os.listdir(host)) == host_before
    assert (host / "f.txt").read_text() == "HOST-SECRET"
    for c in ("alice", "bob"):
        assert (ws_of(mcpfs, c) / "f.txt").read_text() == f"{c}-SECRET"
        planted = [p for p in ws_of(mcpfs, c).iterdir() if p.name.startswith("w")]
        assert not planted, planted  # written only inside its d/, never beside


class Listener:
    """An HTTP service on the host's loopback that counts who reached it."""

    def __init__(self):
        hits = self.hits = []

        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                hits.append(self.path)
                body = b"host-only data"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        self.srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.srv.server_address[1]}/inside"
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()


@pytest.mark.parametrize("network,reached", [("none", False), ("host", True)])
def test_url_fetch_to_the_hosts_loopback(mcpfs, network, reached):
    """server-everything fetches any URL it is given. With the default
    config's sandbox ("none") the host's 127.0.0.1 is out of its reach;
    "host" is the control that shows the call would reach it."""
    lis = Listener()
    try:
        default_like_config(mcpfs, sandbox={"network": network})
        p = mcpfs.run("call", "everything", "gzip-file-as-resource",
                      json.dumps({"name": "x.gz", "data": lis.url, "outputType": "resource"}),
                      "--json", timeout=120)
        out = json.loads(p.stdout) if p.stdout.strip() else {}
    finally:
        lis.close()
    assert bool(lis.hits) == reached, (lis.hits, p.stdout, p.stderr)
    if not reached:
        assert p.returncode != 0 or out.get("isError"), p.stdout


def test_the_default_config_gives_everything_no_network(mcpfs):
    """As shipped: no default server can reach the network."""
    p = mcpfs.run("servers", "--json", check=0, config=False)
    notes = {s["name"]: s["sandbox"] for s in json.loads(p.stdout)}
    assert notes == {"everything": "sandboxed, no network",
                     "filesystem": "sandboxed, no network",
                     "memory": "sandboxed, no network"}, notes


def start_holding(mcpfs, customer: str, prog: Path, marker: str) -> subprocess.Popen:
    """`mcpfs exec` of @prog, in the background, once it has made the file
    @marker in its workspace (240 s at most)."""
    p = subprocess.Popen(mcpfs.cmd("exec", "--customer", customer, "--timeout", "300", prog),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=mcpfs.env)
    made = ws_of(mcpfs, customer) / marker
    deadline = time.time() + 240
    while not made.exists() and p.poll() is None and time.time() < deadline:
        time.sleep(0.1)
    if not made.exists():
        (ws_of(mcpfs, customer) / "release").write_text("")
        _, err = p.communicate(timeout=120)
        pytest.fail(f"no {marker} from the program: {err}")
    return p


def _inotify_init():
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(0)
    err = ctypes.get_errno()
    if fd >= 0:
        os.close(fd)
    return fd, err


INOTIFY_HOG = r'''
import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
n = 0
while libc.inotify_init1(0) >= 0:
    n += 1
open("taken", "w").write(str(n))
for _ in range(1200):
    try:
        open("release").close()
        break
    except OSError:
        time.sleep(0.05)
print(n)
'''


@pytest.mark.needs_root("the jail's user is the caller's own uid: its inotify instances count "
                        "against the caller, as the caller's other processes' do")
def test_inotify_of_the_jail_is_not_charged_to_root(mcpfs, tmp_path):
    """The jail's user namespace is owned by its own uid: instances it takes
    count against that uid's limit (128 here), and root's still work."""
    default_like_config(mcpfs)
    prog = tmp_path / "hog.py"
    prog.write_text(INOTIFY_HOG)
    p = start_holding(mcpfs, "hog", prog, "taken")
    try:
        n = int((ws_of(mcpfs, "hog") / "taken").read_text())
        fd, err = _inotify_init()
    finally:
        (ws_of(mcpfs, "hog") / "release").write_text("")
        out, errtext = p.communicate(timeout=120)
    assert n >= 16, n  # it did take many: the limit it met was its own
    assert fd >= 0, f"root's inotify_init1 failed with errno {err} while the jail held {n}"


def _owner_uid(pid: int) -> int:
    import fcntl
    fd = os.open(f"/proc/{pid}/ns/user", os.O_RDONLY)
    try:
        buf = bytearray(4)
        fcntl.ioctl(fd, NS_GET_OWNER_UID, buf)
        return int.from_bytes(buf, "little")
    finally:
        os.close(fd)


def _procs_under(root_pid: int) -> list:
    """Every process below @root_pid, as (pid, uid, cmdline)."""
    kids = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            st = (d / "status").read_text()
            ppid = int(next(l for l in st.splitlines() if l.startswith("PPid:")).split()[1])
            uid = int(next(l for l in st.splitlines() if l.startswith("Uid:")).split()[2])
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, StopIteration, ValueError):
            continue
        kids.setdefault(ppid, []).append((int(d.name), uid, cmd))
    out, pending = [], [root_pid]
    while pending:
        for k in kids.get(pending.pop(), []):
            out.append(k)
            pending.append(k[0])
    return out


def test_servers_run_as_their_own_uid_in_namespaces_they_own(mcpfs):
    """Rootless, both are the caller outside, in user namespaces it owns (a
    plain child would be in the host's, owned by root)."""
    default_like_config(mcpfs)
    prog = mcpfs.tmp / "hold.py"
    prog.write_text("from servers.everything import get_sum\n"
                    "from servers.memory import read_graph\n"
                    "get_sum(a=1, b=2); read_graph()\n"
                    "import os, time\n"
                    "open('up', 'w').close()\n"
                    "while not os.path.exists('release'): time.sleep(0.05)\n")
    p = start_holding(mcpfs, "own", prog, "up")
    try:
        procs = _procs_under(p.pid)
        servers = {name: [(pid, uid) for pid, uid, cmd in procs if path in cmd]
                   for name, path in (("everything", EVERYTHING), ("memory", MEMORY))}
        owners = {name: {(uid, _owner_uid(pid)) for pid, uid in found}
                  for name, found in servers.items()}
    finally:
        (ws_of(mcpfs, "own") / "release").write_text("")
        p.communicate(timeout=120)
    shared, customer = (ROOTLESS_UID, ROOTLESS_UID) if mcpfs.rootless else \
        (SHARED_UID, CUSTOMER_UID)
    assert owners["everything"] == {(shared, shared)}, owners
    assert owners["memory"] == {(customer, customer)}, owners
    assert all(uid != 0 for _, uid, cmd in procs if "node" in cmd), procs


def test_nothing_of_mcpfs_command_line_inside(mcpfs):
    """/proc/1/cmdline in the jail would be mcpfs's argv: config path, data
    root and customer."""
    default_like_config(mcpfs)
    p, res = run_code(mcpfs, "import sys\n"
                      "sys.stdout.write(open('/proc/1/cmdline','rb').read().decode('latin-1'))\n",
                      "--customer", "secretive")
    assert res and res["exit_code"] == 0, p.stderr
    seen = res["stdout"]
    for leak in (str(mcpfs.root), str(mcpfs.config_path), "secretive", "mcpfs"):
        assert leak not in seen, (leak, seen)


def test_a_server_in_a_sandbox_sees_only_what_it_runs_from(mcpfs):
    """A shared server reads its own files and not the data root, nor other
    host folders; its home is its own (<root>/server-homes/<name>), and
    nothing inside names the data root."""
    (mcpfs.tmp / "probe").mkdir()
    probe = mcpfs.tmp / "probe" / "probe.mjs"
    probe.write_text(PROBE)
    mcpfs.give(probe.parent)
    mcpfs.write_config({"p": {"command": "node", "args": [str(probe)]},
                        "e": {"command": "node", "args": [EVERYTHING, "stdio"]}})
    mcpfs.run("exec", "--customer", "c1", "-", input="open('x','w').write('1')", check=0)
    out = mcpfs.json("call", "p", "look", json.dumps({"paths": [
        str(mcpfs.root), str(ws_of(mcpfs, "c1")), "/root", "/etc/shadow", str(probe),
        "/proc/1/cmdline"]}))
    seen = json.loads(out["content"][0]["text"])
    assert seen[str(probe)] == "readable", seen
    for hidden in (str(mcpfs.root), str(ws_of(mcpfs, "c1")), "/root", "/etc/shadow"):
        assert seen[hidden] == "ENOENT", (hidden, seen)
    assert seen["uid"] != 0 and seen["home"] == "/home/mcpfs", seen
    assert (mcpfs.root / "server-homes" / "p").is_dir()
    assert str(mcpfs.root) not in seen["/proc/1/cmdline"], seen


def test_opting_out_is_said(mcpfs):
    mcpfs.write_config({"raw": {"command": "node", "args": [EVERYTHING, "stdio"],
                                "sandbox": False}})
    p = mcpfs.run("servers", check=0)
    assert "NOT sandboxed" in p.stdout and "is not sandboxed" in p.stderr, (p.stdout, p.stderr)


@pytest.mark.parametrize("bad,why", [
    ({"network": "wifi"}, "sandbox.network"),
    ({"ro": ["relative/path"]}, "sandbox.ro"),
    ({"memory": 0}, "sandbox.memory"),
    ({"netwrok": "none"}, "sandbox.netwrok"),
    ("yes", "sandbox"),
])
def test_bad_sandbox_config_is_one_line(mcpfs, bad, why):
    mcpfs.write_config({"e": {"command": "node", "args": [EVERYTHING, "stdio"], "sandbox": bad}})
    p = mcpfs.run("servers", check=2)
    assert why in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_a_config_path_that_holds_the_data_root_is_refused(mcpfs):
    mcpfs.write_config({"e": {"command": "node", "args": [EVERYTHING, "stdio"],
                              "sandbox": {"ro": [str(mcpfs.root.parent)]}}})
    p = mcpfs.run("call", "e", "get-sum", '{"a": 1, "b": 2}')
    assert p.returncode == 3 and "data root" in p.stderr, p.stderr


def test_npx_servers_work_sandboxed(mcpfs):
    mcpfs.write_config({"mem": {"command": "npx", "args": ["--offline", "mcp-server-memory"],
                                "cwd": str(SERVERS_DIR)}})
    out = mcpfs.json("call", "mem", "read_graph", "{}")
    assert not out.get("isError"), out


PROBE = r'''
import fs from "node:fs";
import os from "node:os";
import readline from "node:readline";
const rl = readline.createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
rl.on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize")
    send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-06-18",
      capabilities: { tools: {} }, serverInfo: { name: "probe", version: "1" } } });
  else if (m.method === "tools/list")
    send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "look",
      inputSchema: { type: "object", properties: { paths: { type: "array" } } } }] } });
  else if (m.method === "tools/call") {
    const seen = { uid: process.getuid(), home: os.homedir() };
    for (const p of m.params.arguments.paths) {
      try {
        const data = fs.readFileSync(p);
        seen[p] = p.startsWith("/proc") ? data.toString("latin1") : "readable";
      } catch (e) { seen[p] = e.code === "EISDIR" ? "readable" : e.code; }
    }
    send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text",
      text: JSON.stringify(seen) }] } });
  }
});
'''
