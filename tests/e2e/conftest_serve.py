"""Helpers for serve's tests: a daemon over HTTP, a raw Streamable HTTP
client (for what a well-behaved client would never send), a stdio client,
and the clients that are not ours (the MCP inspector CLI, the official
TypeScript SDK through tests/node/serve_client.mjs)."""
import json
import os
import select
import signal
import subprocess
import time
import urllib.error
import urllib.request

from conftest import JAIL_HOST_UID, REPO, SAN_ENV, TESTS_NM, everything_stdio, node22
from conftest_executor import code_jail_pids_of

INSPECTOR = TESTS_NM / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"
SDK_CLIENT = REPO / "tests" / "node" / "serve_client.mjs"
INIT = {"protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "pytest", "version": "1"}}


def serve_config(mcpfs):
    mcpfs.write_config({"everything": everything_stdio()})


class Serve:
    """`mcpfs serve --http 127.0.0.1:0 ARGS`, started; .url is where."""

    def __init__(self, mcpfs, *args, env=None):
        e = dict(mcpfs.env)
        e.update(env or {})
        self.log = open(mcpfs.tmp / f"serve-{time.monotonic_ns()}.log", "w+")
        self.p = subprocess.Popen(mcpfs.cmd("serve", "--http", "127.0.0.1:0", *args),
                                  stdout=subprocess.PIPE, stderr=self.log, text=True, env=e)
        ready, _, _ = select.select([self.p.stdout], [], [], 60)
        assert ready, "serve --http printed no URL within 60 s"
        self.url = self.p.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), self.stderr()
        self.base = self.url[: -len("/mcp")]

    def stderr(self) -> str:
        self.log.seek(0)
        return self.log.read()

    def stop(self, sig=signal.SIGTERM, timeout=60) -> int:
        if self.p.poll() is None:
            self.p.send_signal(sig)
        rc = self.p.wait(timeout=timeout)
        assert rc not in (86, 87), f"sanitizer report:\n{self.stderr()}"
        return rc


def sse_messages(body: str) -> list:
    out = []
    for event in body.split("\n\n"):
        data = [line[5:].lstrip() for line in event.split("\n") if line.startswith("data:")]
        if data and "".join(data):
            out.append(json.loads("\n".join(data)))
    return out


class Http:
    """A raw Streamable HTTP client of one session."""

    def __init__(self, url, token=None):
        self.url, self.token, self.session, self.next_id = url, token, None, 1

    def send(self, msg, method="POST", headers=None, raw=None):
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        if self.session:
            h["Mcp-Session-Id"] = self.session
        h.update(headers or {})
        data = raw if raw is not None else (json.dumps(msg).encode() if msg is not None else None)
        req = urllib.request.Request(self.url, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=300) as r:
                status, hdrs, body = r.status, dict(r.headers), r.read().decode()
        except urllib.error.HTTPError as e:
            status, hdrs, body = e.code, dict(e.headers), e.read().decode()
        if hdrs.get("Content-Type", "").startswith("text/event-stream"):
            msgs = sse_messages(body)
        else:
            msgs = [json.loads(body)] if body.strip() else []
        return status, hdrs, msgs

    def request(self, method, params=None):
        i, self.next_id = self.next_id, self.next_id + 1
        msg = {"jsonrpc": "2.0", "id": i, "method": method}
        if params is not None:
            msg["params"] = params
        status, hdrs, msgs = self.send(msg)
        answers = [m for m in msgs if m.get("id") == i]
        return status, hdrs, (answers[0] if answers else None), msgs

    def initialize(self):
        status, hdrs, answer, _ = self.request("initialize", INIT)
        assert status == 200, (status, answer)
        self.session = hdrs["Mcp-Session-Id"]
        assert self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})[0] == 202
        return answer["result"]

    def call(self, tool, args):
        status, _, answer, _ = self.request("tools/call", {"name": tool, "arguments": args})
        assert status == 200 and answer, (status, answer)
        return answer


class Stdio:
    """`mcpfs serve --stdio ARGS` with a line-by-line client."""

    def __init__(self, mcpfs, *args):
        self.log = open(mcpfs.tmp / f"stdio-{time.monotonic_ns()}.log", "w+")
        self.p = subprocess.Popen(mcpfs.cmd("serve", "--stdio", *args), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.log, text=True,
                                  env=mcpfs.env)
        self.next_id, self.notes, self.buf = 1, [], b""

    def send_line(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def read(self, timeout=120):
        # Lines are split here, not by the pipe's file object: its buffer
        # can hold a second line that select() then never reports.
        fd = self.p.stdout.fileno()
        while b"\n" not in self.buf:
            ready, _, _ = select.select([fd], [], [], timeout)
            assert ready, "no message from serve --stdio"
            chunk = os.read(fd, 1 << 16)
            assert chunk, f"serve --stdio ended:\n{self.stderr()}"
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def request(self, method, params=None, timeout=120):
        i, self.next_id = self.next_id, self.next_id + 1
        msg = {"jsonrpc": "2.0", "id": i, "method": method}
        if params is not None:
            msg["params"] = params
        self.send_line(json.dumps(msg))
        while True:
            m = self.read(timeout)
            if m.get("id") == i and "method" not in m:
                return m
            self.notes.append(m)

    def initialize(self):
        r = self.request("initialize", INIT)
        self.send_line(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        return r["result"]

    def stderr(self):
        self.log.seek(0)
        return self.log.read()

    def close(self, timeout=60) -> int:
        self.p.stdin.close()
        rc = self.p.wait(timeout=timeout)
        assert rc not in (86, 87), f"sanitizer report:\n{self.stderr()}"
        return rc


def client_env(mcpfs):
    env = dict(mcpfs.env)
    env["PATH"] = f"{TESTS_NM / '.bin'}:{env['PATH']}"
    return env


def inspector(mcpfs, target: list, *args, env_for_server=None, timeout=180):
    """mcp-inspector --cli TARGET ARGS; its JSON output."""
    server_env = []
    for k, v in (env_for_server or {}).items():
        server_env += ["-e", f"{k}={v}"]
    p = subprocess.run([node22(), str(INSPECTOR), "--cli", *server_env, *target, *args],
                       capture_output=True, text=True, timeout=timeout, env=client_env(mcpfs),
                       cwd=mcpfs.tmp)
    assert p.returncode == 0, f"inspector failed ({p.returncode}):\n{p.stdout}\n{p.stderr}"
    return json.loads(p.stdout)


def stdio_server_env(mcpfs) -> dict:
    """What the inspector must hand the stdio server it starts."""
    return {"MCPFS_CONFIG": str(mcpfs.config_path), "MCPFS_ROOT": str(mcpfs.root),
            "HOME": str(mcpfs.tmp / "home"), **SAN_ENV}


def sdk(mcpfs, scenario, *args, timeout=300):
    p = subprocess.run([node22(), str(SDK_CLIENT), scenario, *args], capture_output=True,
                       text=True, timeout=timeout, env=client_env(mcpfs), cwd=REPO / "tests" / "node")
    out = json.loads(p.stdout.strip().splitlines()[-1]) if p.stdout.strip() else {}
    assert p.returncode == 0 and "failed" not in out, f"{p.stdout}\n{p.stderr}"
    return out


def wait_for(cond, timeout=60, what="condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _ppid(pid: int) -> int:
    return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])


def jailed_code_pids(root) -> list:
    """Processes running a run's program (/run/code/main.py or .ts) of data
    root @root, or orphaned. The jail's pid 1 scrubs its environment, so the
    mcpfs above it is found by walking up the parents."""
    from conftest_executor import jail_pids
    out = []
    for pid in jail_pids():
        try:
            if b"/run/code/main" not in open(f"/proc/{pid}/cmdline", "rb").read():
                continue
            up = _ppid(pid)
            while up > 1 and os.stat(f"/proc/{up}").st_uid == 64000:
                up = _ppid(up)
            if up <= 1 or f"MCPFS_ROOT={root}".encode() in open(f"/proc/{up}/environ",
                                                                 "rb").read():
                out.append(pid)
        except (OSError, ValueError, IndexError):
            pass
    return out


def session_logs_valid(root) -> int:
    """Every session log under @root parses; returns how many there are."""
    n = 0
    for dirpath, _, files in os.walk(root / "workspaces"):
        if os.path.basename(dirpath) == "sessions":
            for f in files:
                if f.endswith(".json"):
                    with open(os.path.join(dirpath, f)) as fh:
                        json.load(fh)
                    n += 1
    return n


def parked(root, uid=JAIL_HOST_UID) -> list:
    """Parked jails of data root @root (of jail host uid @uid): jailed, with a
    /run/code, still a copy of `mcpfs serve` (a run's pid 1 wipes that
    command line, its program names /run/code/main)."""
    out = []
    for p in code_jail_pids_of(root, uid):
        try:
            if b"serve" in open(f"/proc/{p}/cmdline", "rb").read().split(b"\0"):
                out.append(p)
        except OSError:
            pass  # gone meanwhile
    return out


def run_locks(root) -> set:
    return {p.name[len("exec-"):-len(".lock")] for p in (root / "run").glob("exec-*.lock")}
