"""mcpfs serve: clients that are not ours (the MCP inspector CLI, the official
TypeScript SDK) over stdio and HTTP, bad input, tokens and customers, many
sessions at once, kill -9, drain, and two daemons on one data root."""
import http.client
import json
import os
import signal
import threading
import time
import urllib.request

import pytest

from conftest import mounts_under
from conftest_executor import host_unchanged  # noqa: F401 (a fixture)
from conftest_serve import (Http, Serve, Stdio, inspector, jailed_code_pids, sdk,
                            serve_config, session_logs_valid, stdio_server_env, wait_for)

TOOLS = {"execute_code", "list_servers", "get_tool_definitions", "list_skills", "load_skill",
         "save_skill", "list_workspace_files", "read_workspace_file", "write_workspace_file",
         "get_session", "search_tools"}
GET_SUM = "from servers.everything import get_sum\nprint(get_sum(a=2, b=3))"
TOOL_FILE = "mcpfs:///servers/everything/get_sum.py"


def check_listing(mcpfs, run):
    tools = run("--method", "tools/list")["tools"]
    assert TOOLS <= {t["name"] for t in tools}
    for t in tools:
        assert len(t["description"]) > 80 and t["inputSchema"]["type"] == "object", t
        assert "annotations" in t, t
    by = {t["name"]: t for t in tools}
    assert by["list_servers"]["annotations"]["readOnlyHint"] is True
    assert by["execute_code"]["annotations"]["readOnlyHint"] is False
    assert "outputSchema" in by["execute_code"]
    assert "20,000" in by["execute_code"]["description"]  # states its limits
    uris = {r["uri"] for r in run("--method", "resources/list")["resources"]}
    assert {"mcpfs:///README.md", "mcpfs:///servers/everything/README.md", TOOL_FILE} <= uris
    text = run("--method", "resources/read", "--uri", TOOL_FILE)["contents"][0]["text"]
    # The same bytes as the tree `mcpfs generate` writes: one renderer.
    out = mcpfs.tmp / "tree"
    mcpfs.run("generate", "--out", out, check=0)
    assert text == (out / "servers" / "everything" / "get_sum.py").read_text()
    r = run("--method", "tools/call", "--tool-name", "execute_code", "--tool-arg",
            f"code={GET_SUM}")
    assert r["isError"] is False, r
    assert r["structuredContent"]["stdout"] == "The sum of 2 and 3 is 5.\n"
    assert r["structuredContent"]["tool_calls"] == 1


def test_inspector_over_stdio(mcpfs):
    serve_config(mcpfs)
    env = stdio_server_env(mcpfs)
    check_listing(mcpfs, lambda *a: inspector(mcpfs, [mcpfs.binary, "serve", "--stdio"], *a,
                                              env_for_server=env))


def test_inspector_over_http_with_token(mcpfs, host_unchanged):
    serve_config(mcpfs)
    token = mcpfs.run("token", "create", "acme", check=0).stdout.strip()
    s = Serve(mcpfs)
    try:
        check_listing(mcpfs, lambda *a: inspector(
            mcpfs, [s.url], "--transport", "http", "--header", f"Authorization: Bearer {token}",
            *a))
        # the token decided the customer
        assert (mcpfs.root / "workspaces" / "acme").is_dir()
    finally:
        assert s.stop() == 0


def sent_progress(out):
    """The progress notifications serve wrote before execute_code's result,
    as the SDK client's transport read them; the SDK delivered a prefix of
    them (a notification read with the result is dropped: typescript-sdk#2580)."""
    wire = out["wire"]
    result = max(i for i, m in enumerate(wire) if "response" in m)
    progress = [m for m in wire[:result] if "progress" in m]
    assert not [m for m in wire[result:] if "progress" in m], wire
    delivered = [p["progress"] for p in out["delivered"]]
    assert delivered == [p["progress"] for p in progress][:len(delivered)], out
    return progress


@pytest.mark.parametrize("front", ["http", "stdio"])
def test_sdk_progress_and_cancel(mcpfs, host_unchanged, front):
    serve_config(mcpfs)
    s = Serve(mcpfs) if front == "http" else None
    target = (["--http", s.url] if s else
              ["--stdio", mcpfs.binary, "--config", str(mcpfs.config_path), "serve", "--stdio"])
    try:
        out = sdk(mcpfs, "progress", *target)
        assert out["result"]["tool_calls"] == 5 and out["result"]["stdout"] == "total 120\n"
        progress = sent_progress(out)
        values = [p["progress"] for p in progress]
        assert len(values) >= 5 and values == sorted(set(values)), progress
        assert "5 tool calls" in " ".join(p.get("message", "") for p in progress)
        out = sdk(mcpfs, "cancel", *target)
        # the run ended (its task record written after the jail was reaped)
        # within 1 s of notifications/cancelled
        assert out["ended_ms"] is not None and out["ended_ms"] < 1000, out
        assert out["last"]["exit_code"] == 137, out
        assert jailed_code_pids(mcpfs.root) == []
    finally:
        if s:
            assert s.stop() == 0


def test_sdk_host_hears_the_servers_progress(mcpfs, host_unchanged):
    """A server's progress on a tool call that the host's code made, and a
    task's status messages, reach the host in execute_code's progress."""
    serve_config(mcpfs)
    s = Serve(mcpfs)
    try:
        out = sdk(mcpfs, "progress", "from servers.everything import "
                  "trigger_long_running_operation, simulate_research_query\n"
                  "trigger_long_running_operation(duration=3, steps=3)\n"
                  "simulate_research_query(topic='ants')\n", "--http", s.url)
    finally:
        assert s.stop() == 0
    assert out["result"]["exit_code"] == 0, out
    progress = sent_progress(out)
    messages = [p.get("message", "") for p in progress]
    assert any("everything.trigger-long-running-operation: " in m and "/3" in m
               for m in messages), messages
    assert any("everything.simulate-research-query: " in m for m in messages), messages
    values = [p["progress"] for p in progress]
    assert values == sorted(set(values)), progress


def test_bad_input_over_stdio(mcpfs, host_unchanged):
    serve_config(mcpfs)
    c = Stdio(mcpfs)
    try:
        r = c.request("tools/list")
        assert r["error"]["code"] == -32600 and "initialize" in r["error"]["message"]
        c.initialize()
        c.send_line("this is not json")
        assert c.read()["error"]["code"] == -32700
        c.send_line("[1, 2]")
        assert "batch" in c.read()["error"]["message"]
        assert c.request("no/such/method")["error"]["code"] == -32601
        r = c.request("tools/call", {"name": "rm_rf", "arguments": {}})
        assert r["error"]["code"] == -32602 and "rm_rf" in r["error"]["message"]
        assert c.request("resources/read", {"uri": "file:///etc/passwd"})["error"]["code"] == -32002
        assert c.request("resources/read",
                         {"uri": "mcpfs:///servers/../../etc/passwd"})["error"]["code"] == -32002

        def fails(tool, args, words):
            r = c.request("tools/call", {"name": tool, "arguments": args})["result"]
            assert r["isError"] is True, r
            assert words in r["content"][0]["text"], r
            assert "\n" not in r["content"][0]["text"]

        fails("execute_code", {}, "missing argument 'code'")
        fails("execute_code", {"code": 5}, "'code' must be a string")
        fails("execute_code", {"code": "1", "language": "ruby"},
              "must be one of: python, typescript")
        fails("execute_code", {"code": "1", "shell": "sh"}, "unknown argument 'shell'")
        fails("execute_code", {"code": "#" * (1 << 20) + "x"}, "longer than 1048576")
        fails("execute_code", {"code": "1", "timeout_s": 100000}, "at most 300")
        ws = mcpfs.root / "workspaces" / "default" / "workspace"
        c.request("tools/call", {"name": "list_workspace_files", "arguments": {}})
        os.symlink("/etc", ws / "etc-link")
        fails("read_workspace_file", {"path": "../sessions/x.json"}, "leaves the workspace")
        fails("read_workspace_file", {"path": "/etc/passwd"}, "is absolute")
        fails("read_workspace_file", {"path": "etc-link/passwd"}, "symlink")
        fails("write_workspace_file", {"path": "a/../../../x", "content": "x"},
              "leaves the workspace")
        fails("write_workspace_file", {"path": "etc-link/evil", "content": "x"}, "symlink")
        fails("save_skill", {"name": "Bad Name", "description": "d", "instructions": "i"},
              "skill name")
        assert not os.path.exists("/etc/evil")
        # nothing was lost: the session goes on
        r = c.request("tools/call", {"name": "execute_code", "arguments": {"code": GET_SUM}})
        assert r["result"]["structuredContent"]["stdout"] == "The sum of 2 and 3 is 5.\n"
    finally:
        assert c.close() == 0


def test_workspace_skills_and_cut_output(mcpfs, host_unchanged):
    serve_config(mcpfs)
    c = Stdio(mcpfs, "--customer", "acme")
    try:
        c.initialize()

        def call(tool, **args):
            r = c.request("tools/call", {"name": tool, "arguments": args})["result"]
            assert r["isError"] is False, r
            return r.get("structuredContent", r)

        assert call("write_workspace_file", path="in/data.txt", content="hello\n")["bytes"] == 6
        assert call("write_workspace_file", path="in/data.txt", content="more\n",
                    append=True)["appended"]
        r = call("execute_code", code="print(open('in/data.txt').read().split())")
        assert r["stdout"] == "['hello', 'more']\n"
        paths = [e["path"] for e in call("list_workspace_files", recursive=True)["entries"]]
        assert "in/data.txt" in paths
        r = call("read_workspace_file", path="in/data.txt", offset=6, length=2)
        assert r["content"] == "mo" and r["eof"] is False and r["size"] == 11
        call("save_skill", name="greet", description="says hi",
             instructions="call hi()", files={"__init__.py": "def hi():\n    return 'hi'\n"})
        assert "greet" in [s["name"] for s in call("list_skills")["skills"]]
        assert call("load_skill", name="greet")["module"] == "skills.greet"
        assert call("execute_code", code="from skills.greet import hi\nprint(hi())")["stdout"] == "hi\n"
        r = call("execute_code", code="print('x' * 50000)")
        assert r["stdout_cut"] is True and len(r["stdout"]) == 20000
        whole = call("read_workspace_file", path=r["output_file"], offset=49990)
        assert whole["content"] == "x" * 10 + "\n" and whole["eof"]
        text = c.request("tools/call", {"name": "execute_code",
                                        "arguments": {"code": "print('y' * 30000)"}})
        assert ".outputs/" in text["result"]["content"][0]["text"]
        d = call("get_tool_definitions", tools=["everything.get-sum"])["tools"][0]
        assert "def get_sum(" in d["definition"] and d["file"] == "servers/everything/get_sum.py"
        found = call("search_tools", query="add two numbers", limit=3)["results"]
        assert found[0]["name"] == "everything.get-sum", found
        r = call("execute_code", code="from servers._runtime import search_tools\n"
                                      "print(search_tools('add two numbers')[0]['name'])")
        assert r["stdout"] == "everything.get-sum\n"
        servers = call("list_servers")["servers"]
        assert servers[0]["name"] == "everything" and servers[0]["module"] == "everything"
        sess = call("get_session")
        assert sess["customer"] == "acme" and sess["task_count"] == 5
    finally:
        assert c.close() == 0
    assert session_logs_valid(mcpfs.root) == 1


MEMORY_CODE = ("from servers.memory import create_entities, read_graph\n"
               "if NAME:\n"
               "    create_entities(entities=[{'name': NAME, 'entityType': 'person',\n"
               "                               'observations': ['met at the fair']}])\n"
               "print(sorted(e['name'] for e in read_graph()['entities']))\n")


def test_two_customers_two_tokens(mcpfs, host_unchanged):
    from conftest import MEMORY, everything_stdio
    # memory: one instance per customer, its graph in the customer's state
    mcpfs.write_config({"everything": everything_stdio(),
                        "memory": {"command": "node", "args": [MEMORY],
                                   "env": {"MEMORY_FILE_PATH": "${STATE}/memory.jsonl"},
                                   "scope": "customer"}})
    ta = mcpfs.run("token", "create", "alpha", check=0).stdout.strip()
    tb = mcpfs.run("token", "create", "beta", check=0).stdout.strip()
    assert len(ta) == 70 and ta != tb
    tokdir = mcpfs.root / "tokens"
    assert oct(tokdir.stat().st_mode & 0o777) == "0o700"
    for f in tokdir.iterdir():
        assert oct(f.stat().st_mode & 0o777) == "0o600" and ta not in f.read_text()
    s = Serve(mcpfs)
    try:
        for tok in (None, "mcpfs_" + "0" * 64, "nonsense"):
            st, hdrs, msgs = Http(s.url, tok).send(
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
            assert st == 401 and "Bearer" in hdrs.get("WWW-Authenticate", ""), (st, msgs)
        a, b = Http(s.url, ta), Http(s.url, tb)
        a.initialize()
        b.initialize()
        assert a.call("write_workspace_file", {"path": "secret.txt", "content": "A's"})[
            "result"]["isError"] is False
        assert a.call("execute_code", {"code": "print(open('secret.txt').read())"})[
            "result"]["structuredContent"]["stdout"] == "A's\n"
        a.call("save_skill", {"name": "mine", "description": "d", "instructions": "i"})
        r = b.call("execute_code", {"code": "import os\nprint(os.listdir('.'))"})["result"]
        assert "secret.txt" not in r["structuredContent"]["stdout"]
        assert b.call("read_workspace_file", {"path": "secret.txt"})["result"]["isError"]
        assert b.call("list_skills", {})["result"]["structuredContent"]["skills"] == []
        assert b.call("get_session", {})["result"]["structuredContent"]["customer"] == "beta"

        def memory(client, name):
            r = client.call("execute_code", {"code": f"NAME = {name!r}\n" + MEMORY_CODE})
            assert r["result"]["structuredContent"]["exit_code"] == 0, r
            return r["result"]["structuredContent"]["stdout"]

        assert memory(a, "Ada") == "['Ada']\n"
        assert memory(b, "") == "[]\n"  # A's entity is not in B's memory
        assert memory(b, "Bob") == "['Bob']\n"
        assert memory(a, "") == "['Ada']\n"
        for who, name in (("alpha", "Ada"), ("beta", "Bob")):
            graph = (mcpfs.root / "workspaces" / who / "state" / "memory.jsonl").read_text()
            assert name in graph and ({"Ada", "Bob"} - {name}).pop() not in graph
        # B's token on A's session: no such session for B
        stolen = Http(s.url, tb)
        stolen.session = a.session
        assert stolen.request("tools/list")[0] == 404
        # a revoked token is refused at once
        tid = mcpfs.json("token", "list", "alpha")[0]["id"]
        mcpfs.run("token", "revoke", "alpha", tid, check=0)
        assert a.request("tools/list")[0] == 401
        assert b.request("tools/list")[0] == 200
    finally:
        assert s.stop() == 0


def test_non_loopback_without_tokens_is_refused(mcpfs):
    serve_config(mcpfs)
    p = mcpfs.run("serve", "--http", "0.0.0.0:0", check=2, timeout=60)
    assert "not loopback" in p.stderr and "token" in p.stderr


def test_http_protocol_edges(mcpfs, host_unchanged):
    serve_config(mcpfs)
    s = Serve(mcpfs)
    try:
        assert urllib.request.urlopen(s.base + "/healthz", timeout=60).read() == b"ok\n"
        c = Http(s.url)
        st, _, msgs = c.send(None, raw=b"{nope")
        assert st == 400 and msgs[0]["error"]["code"] == -32700
        assert c.request("tools/list")[0] == 400  # no session
        c.session = "20261125T000000Z-0000000000000000"
        assert c.request("tools/list")[0] == 404
        c.session = None
        assert c.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
                      headers={"Origin": "http://evil.example"})[0] == 403
        assert c.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
                      headers={"MCP-Protocol-Version": "1999-01-01"})[0] == 400
        info = c.initialize()
        assert info["protocolVersion"] == "2025-11-25" and "execute_code" in info["instructions"]
        st, hdrs, answer, _ = c.request("tools/list")
        assert st == 200 and hdrs["Content-Type"] == "application/json"
        r = c.call("execute_code", {"code": GET_SUM})
        assert r["result"]["structuredContent"]["stdout"] == "The sum of 2 and 3 is 5.\n"
        metrics = urllib.request.urlopen(s.base + "/metrics", timeout=60).read().decode()
        for line in ('mcpfs_runs_total{outcome="ok"} 1', "mcpfs_sessions_active 1",
                     'mcpfs_tool_calls_total{server="everything",outcome="ok"} 1',
                     "mcpfs_runs_queued 0", "mcpfs_run_duration_seconds_count 1"):
            assert line in metrics, metrics
        assert c.send(None, method="DELETE")[0] == 200
        assert c.request("tools/list")[0] == 404
    finally:
        assert s.stop() == 0


def test_fifty_sessions_at_once(mcpfs, host_unchanged):
    serve_config(mcpfs)
    s = Serve(mcpfs)
    try:
        out = sdk(mcpfs, "many", "50", "--http", s.url, timeout=900)
        assert len(out["results"]) == 50
        for r in out["results"]:
            assert r["stdout"] == f"The sum of {r['i']} and 1000 is {r['i'] + 1000}.\n", r
            assert r["calls"] == 1
    finally:
        assert s.stop() == 0


def start_sleeper(url, seconds=60):
    """A session running code that sleeps, in a thread; returns (client, thread)."""
    c = Http(url)
    c.initialize()

    def run():
        try:
            c.send({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                    "params": {"name": "execute_code",
                               "arguments": {"code": f"import time\nprint('up', flush=True)\n"
                                                     f"time.sleep({seconds})",
                                             "timeout_s": 120}}})
        except (OSError, http.client.HTTPException):
            pass  # the daemon went away mid-answer: what the test is about

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return c, t


def test_kill9_mid_run_then_restart(mcpfs, host_unchanged):
    """What the killed daemon left (its run's lock and cgroups, its socket)
    does not stop the CLI, and the next daemon sweeps it."""
    serve_config(mcpfs)
    s = Serve(mcpfs)
    c = Http(s.url)
    c.initialize()
    c.call("execute_code", {"code": "print(1)"})  # a session log exists
    start_sleeper(s.url)
    wait_for(lambda: jailed_code_pids(mcpfs.root), what="the run to start")
    s.p.kill()
    s.p.wait(timeout=60)
    wait_for(lambda: not jailed_code_pids(mcpfs.root), timeout=30, what="the jail to die")
    assert session_logs_valid(mcpfs.root) >= 1
    run = mcpfs.root / "run"
    left = sorted(p.name for p in run.iterdir() if p.name.startswith("exec-"))
    runs = [name for name in left if not name.startswith("exec-srv-")]  # servers' locks beside
    # exec-ID.lock alone: the bridge's socket was in the jail's own root; the
    # run's, and a parked jail's (--pool) once the pool made one
    assert 1 <= len(runs) <= 2 and all(n.endswith(".lock") for n in runs), left
    assert (run / "serve.sock").is_socket()
    # the CLI finds no daemon behind the socket and works alone, at once
    # (`call`: an `exec` would sweep what the daemon left, as the next one does)
    assert mcpfs.run("call", "everything", "get-sum", '{"a": 2, "b": 3}', check=0,
                     timeout=120).stdout.strip() == "The sum of 2 and 3 is 5."
    assert all((run / name).exists() for name in left)
    s2 = Serve(mcpfs)
    try:
        assert not any((run / name).exists() for name in left)
        assert (f"swept what {len(runs)} killed run{'s' if len(runs) > 1 else ''} left behind"
                in s2.stderr())
        c2 = Http(s2.url)
        c2.initialize()
        r = c2.call("execute_code", {"code": GET_SUM})
        assert r["result"]["structuredContent"]["stdout"] == "The sum of 2 and 3 is 5.\n"
    finally:
        assert s2.stop() == 0
    assert session_logs_valid(mcpfs.root) >= 2
    assert not (run / "serve.sock").exists()


def test_sigterm_drains(mcpfs, host_unchanged):
    serve_config(mcpfs)
    s = Serve(mcpfs, "--drain", "1")
    _, t = start_sleeper(s.url)
    wait_for(lambda: jailed_code_pids(mcpfs.root), what="the run to start")
    t0 = time.monotonic()
    assert s.stop(signal.SIGTERM) == 0
    assert time.monotonic() - t0 < 30
    t.join(timeout=60)
    assert jailed_code_pids(mcpfs.root) == []
    assert "draining" in s.stderr()
    assert session_logs_valid(mcpfs.root) == 1
    # the workspace the run used is not left mounted
    assert [m for m in mounts_under(mcpfs.root) if m.endswith("/workspace")] == []


def test_two_daemons_one_data_root(mcpfs, host_unchanged):
    serve_config(mcpfs)
    token = mcpfs.run("token", "create", "shared", check=0).stdout.strip()
    daemons = [Serve(mcpfs), Serve(mcpfs)]
    code = ("import fcntl\nfor i in range(20):\n"
            "    with open('log.txt', 'a') as f:\n"
            "        fcntl.flock(f, fcntl.LOCK_EX)\n"
            "        f.write('%s %d\\n' % (TAG, i))\n")
    results = []

    def worker(url, tag):
        c = Http(url, token)
        c.initialize()
        for k in range(3):
            r = c.call("execute_code", {"code": f"TAG = '{tag}-{k}'\n" + code})
            results.append(r["result"]["structuredContent"]["exit_code"])

    try:
        threads = [threading.Thread(target=worker, args=(d.url, f"{n}{j}"))
                   for n, d in enumerate(daemons) for j in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
        assert results == [0] * 12
    finally:
        for d in daemons:
            assert d.stop() == 0
    ws = mcpfs.root / "workspaces" / "shared"
    mcpfs.json("workspace", "show", "shared")  # the daemons unmounted it: mount it to read
    lines = (ws / "workspace" / "log.txt").read_text().splitlines()
    assert len(lines) == 12 * 20 and len(set(lines)) == 240
    logs = list((ws / "sessions").glob("*.json"))
    assert len(logs) == 4
    assert sum(len(json.loads(p.read_text())["tasks"]) for p in logs) == 12


def test_exec_and_call_go_through_the_daemon(mcpfs, host_unchanged):
    """With a daemon on the data root, `mcpfs exec`, `call`, `servers` and
    `tools` use its warm servers: the server starts once (a wrapper counts
    its starts)."""
    from conftest import EVERYTHING, server_dir
    starts = server_dir(mcpfs.tmp) / "starts"
    mcpfs.write_config({"everything": {
        "command": "sh", "args": ["-c", f'echo x >> {starts}; exec node "$0" stdio', EVERYTHING],
        "sandbox": {"rw": [str(starts.parent)]}}})
    prog = mcpfs.tmp / "p.py"
    prog.write_text(GET_SUM)
    s = Serve(mcpfs)
    try:
        sock = mcpfs.root / "run" / "serve.sock"
        assert sock.is_socket() and oct(sock.stat().st_mode & 0o777) == "0o600"
        for _ in range(3):
            p = mcpfs.run("exec", prog, check=0)
            assert p.stdout == "The sum of 2 and 3 is 5.\n"
        assert mcpfs.run("call", "everything", "get-sum", '{"a": 1, "b": 5}',
                         check=0).stdout.strip() == "The sum of 1 and 5 is 6."
        assert mcpfs.json("servers")[0]["state"] == "ready"
        assert "get-sum" in [t["name"] for t in mcpfs.json("tools", "everything")]
        assert "everything get-sum" in mcpfs.run("tools", check=0).stdout
        res = mcpfs.json("exec", "--customer", "acme", prog)
        assert res["tool_calls"] == 1 and res["customer"] == "acme"
        assert starts.read_text() == "x\n"  # the daemon's one start
        # asked not to, exec starts a server of its own
        mcpfs.run("exec", prog, check=0, env={"MCPFS_NO_DAEMON": "1"})
        assert starts.read_text() == "x\nx\n"
        p = mcpfs.run("call", "everything", "no-such-tool", check=1)
        assert "no-such-tool" in p.stderr or "Unknown tool" in p.stderr, p.stderr
    finally:
        assert s.stop() == 0
    assert not (mcpfs.root / "run" / "serve.sock").exists()
    # without the daemon, exec works on its own again
    assert mcpfs.run("exec", prog, check=0).stdout == "The sum of 2 and 3 is 5.\n"


def test_resources_follow_catalog_changes(mcpfs, host_unchanged):
    """A server's new tool: notifications/resources/list_changed, then the
    resource is listed and readable."""
    from conftest import sdk_server
    mcpfs.write_config({"dyn": sdk_server("sdk_dynamic.mjs")})
    c = Stdio(mcpfs)
    try:
        c.initialize()
        uri = "mcpfs:///servers/dyn/brand_new.py"
        assert uri not in {r["uri"] for r in c.request("resources/list")["result"]["resources"]}
        r = c.request("tools/call", {"name": "execute_code", "arguments": {
            "code": "from servers.dyn import add_tool\nprint(add_tool(name='brand_new'))"}})
        assert r["result"]["structuredContent"]["stdout"] == "added brand_new\n", r
        changed = lambda m: m.get("method") == "notifications/resources/list_changed"  # noqa
        while not any(changed(m) for m in c.notes):
            c.notes.append(c.read(timeout=60))
        assert uri in {r["uri"] for r in c.request("resources/list")["result"]["resources"]}
        text = c.request("resources/read", {"uri": uri})["result"]["contents"][0]["text"]
        assert "def brand_new(" in text
    finally:
        assert c.close() == 0
