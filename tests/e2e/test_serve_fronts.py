"""What serve's fronts do beyond one request and its answer: the GET
stream of an HTTP session, the queue's limit, TypeScript runs, and the
detail levels of search_tools."""
import http.client
import json
import queue
import threading
import urllib.parse
import urllib.request

from conftest import sdk_server
from conftest_executor import go_file, go_waiter, host_unchanged  # noqa: F401 (a fixture)
from conftest_serve import Http, Serve, Stdio, serve_config, wait_for

GET_SUM_TS = ('import * as everything from "./servers/everything";\n'
              'const r: string = await everything.get_sum({ a: 19, b: 23 });\n'
              'console.log(r);\n')


def open_get_stream(c: Http) -> "queue.Queue":
    """GET /mcp of @c's session, read in a thread: its messages, one by one."""
    u = urllib.parse.urlsplit(c.url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=300)
    conn.request("GET", u.path, headers={"Accept": "text/event-stream",
                                         "Mcp-Session-Id": c.session})
    r = conn.getresponse()
    assert r.status == 200 and r.getheader("Content-Type").startswith("text/event-stream")
    got = queue.Queue()

    def read():
        data = []
        try:
            for raw in r:
                line = raw.decode().rstrip("\r\n")
                if line.startswith("data:"):
                    data.append(line[5:].lstrip())
                elif not line and data:
                    got.put(json.loads("\n".join(data)))
                    data = []
        except (OSError, ValueError, http.client.HTTPException):
            pass  # the stream ends with the daemon

    threading.Thread(target=read, daemon=True).start()
    return got


def test_get_stream_carries_list_changed(mcpfs, host_unchanged):
    """A server's new tool reaches a client holding GET /mcp open as
    notifications/resources/list_changed."""
    mcpfs.write_config({"dyn": sdk_server("sdk_dynamic.mjs")})
    s = Serve(mcpfs)
    try:
        c = Http(s.url)
        c.initialize()
        stream = open_get_stream(c)
        assert c.request("ping")[0] == 200  # the GET is attached by now or soon
        r = c.call("execute_code", {"code": "from servers.dyn import add_tool\n"
                                            "print(add_tool(name='fresh'))"})
        assert r["result"]["structuredContent"]["stdout"] == "added fresh\n", r
        msg = stream.get(timeout=60)
        assert msg == {"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}, msg
        uris = {x["uri"] for x in c.request("resources/list")[2]["result"]["resources"]}
        assert "mcpfs:///servers/dyn/fresh.py" in uris
        # one GET stream per session
        u = urllib.parse.urlsplit(c.url)
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
        conn.request("GET", u.path, headers={"Accept": "text/event-stream",
                                             "Mcp-Session-Id": c.session})
        assert conn.getresponse().status == 409
    finally:
        assert s.stop() == 0


def metric(s: Serve, name: str) -> float:
    text = urllib.request.urlopen(s.base + "/metrics", timeout=60).read().decode()
    return float(next(line.split()[1] for line in text.splitlines() if line.startswith(name + " ")))


def test_full_queue_is_a_clear_error(mcpfs, host_unchanged):
    serve_config(mcpfs)
    s = Serve(mcpfs, "--max-runs", "1", "--max-queue", "1")
    answers = []

    def waiter():
        c = Http(s.url)
        c.initialize()
        # the default 30 s may pass while a loaded machine gets to `go`
        answers.append(c.call("execute_code", {"code": go_waiter("print('went')"),
                                               "timeout_s": 300}))

    threads = [threading.Thread(target=waiter) for _ in range(2)]
    try:
        for t in threads:
            t.start()
        wait_for(lambda: metric(s, "mcpfs_runs_running") == 1 and
                 metric(s, "mcpfs_runs_queued") == 1, what="one run going, one waiting")
        c = Http(s.url)
        c.initialize()
        r = c.call("execute_code", {"code": "print('never')"})["result"]
        assert r["isError"] is True, r
        text = r["content"][0]["text"]
        assert text.startswith("busy: 1 runs are going and 1 more are waiting"), text
        assert "\n" not in text
        go_file(mcpfs).write_text("")
        for t in threads:
            t.join(timeout=120)
        assert [a["result"]["structuredContent"]["stdout"] for a in answers] == ["went\n"] * 2
        # a slot free again: runs go
        r = c.call("execute_code", {"code": "print('now')"})["result"]
        assert r["structuredContent"]["stdout"] == "now\n", r
    finally:
        go_file(mcpfs).parent.mkdir(parents=True, exist_ok=True)
        go_file(mcpfs).write_text("")
        assert s.stop() == 0


def test_typescript_run(mcpfs, host_unchanged):
    serve_config(mcpfs)
    c = Stdio(mcpfs)
    try:
        c.initialize()
        r = c.request("tools/call", {"name": "execute_code", "arguments": {
            "code": GET_SUM_TS, "language": "typescript"}})["result"]
        assert r["isError"] is False, r
        assert r["structuredContent"]["stdout"] == "The sum of 19 and 23 is 42.\n"
        assert r["structuredContent"]["tool_calls"] == 1
        # a type error is no error at run time (sucrase strips types), a
        # syntax error is, with the tail of stderr
        r = c.request("tools/call", {"name": "execute_code", "arguments": {
            "code": "const x: number = ;", "language": "typescript"}})["result"]
        assert r["isError"] is True and r["structuredContent"]["exit_code"] != 0, r
        assert r["structuredContent"]["stderr_tail"], r
    finally:
        assert c.close() == 0


def test_search_tools_detail_levels(mcpfs, host_unchanged):
    serve_config(mcpfs)
    c = Stdio(mcpfs)
    try:
        c.initialize()

        def search(**args):
            r = c.request("tools/call", {"name": "search_tools", "arguments": {
                "query": "add two numbers", "limit": 2, **args}})["result"]
            assert r["isError"] is False, r
            return r["structuredContent"]["results"]

        name, summary, full = (search(detail_level=d) for d in ("name", "summary", "full"))
        assert search() == summary  # the default
        assert [x["name"] for x in name] == [x["name"] for x in full] and name
        assert name[0]["name"] == "everything.get-sum"
        assert set(name[0]) == {"server", "tool", "name", "score"}
        assert {"summary"} <= set(summary[0]) - set(name[0]) and "signature" not in summary[0]
        assert {"description", "import", "signature"} <= set(full[0]) - set(summary[0])
        assert full[0]["import"] == "from servers.everything import get_sum"
        r = c.request("tools/call", {"name": "search_tools", "arguments": {
            "query": "x", "detail_level": "everything"}})["result"]
        assert r["isError"] is True and "name, summary, full" in r["content"][0]["text"], r
    finally:
        assert c.close() == 0
