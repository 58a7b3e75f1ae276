"""Streamable HTTP and legacy HTTP+SSE through the mcpfs binary, against
server-everything and tests/node/servers/http_probe.mjs (official SDK)."""
import json
import socket
import subprocess
import time

import pytest

from conftest import EVERYTHING
from conftest_http import PROBE, http_server  # noqa: F401 (fixture)


def text_of(result: dict) -> str:
    return result["content"][0]["text"]


def one_line_error(p) -> str:
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("mcpfs: "), p.stderr
    return lines[0]


def test_streamable_http_tools_and_call(mcpfs, http_server):
    srv = http_server(EVERYTHING, "streamableHttp")
    mcpfs.write_config({"ev": {"url": srv.url("/mcp")}})
    tools = mcpfs.json("tools", "ev")
    names = {t["name"] for t in tools}
    assert {"echo", "get-sum", "get-structured-content"} <= names, names
    assert len(tools) >= 13
    assert text_of(mcpfs.json("call", "ev", "get-sum", '{"a": 2, "b": 3}')) \
        == "The sum of 2 and 3 is 5."


@pytest.mark.parametrize("how", ["type sse", "fallback"])
def test_legacy_sse(mcpfs, http_server, how):
    srv = http_server(EVERYTHING, "sse")
    if how == "type sse":
        mcpfs.write_config({"old": {"type": "sse", "url": srv.url("/sse")}}, key="servers")
    else:
        # A plain url is Streamable HTTP first; the 4xx to the POST and the
        # endpoint event to the GET make it legacy for the transport's life.
        mcpfs.write_config({"old": {"url": srv.url("/sse")}})
    assert "get-sum" in {t["name"] for t in mcpfs.json("tools", "old")}
    assert text_of(mcpfs.json("call", "old", "get-sum", '{"a": 20, "b": 22}')) \
        == "The sum of 20 and 22 is 42."
    if how == "fallback":
        assert "legacy HTTP+SSE" in (mcpfs.root / "logs" / "old.log").read_text()


def test_headers_session_version_delete(mcpfs, http_server, tmp_path):
    log = tmp_path / "requests.jsonl"
    srv = http_server(PROBE, env={"PROBE_LOG": str(log), "PROBE_TOKEN": "s3cret"})
    mcpfs.write_config({"p": {"url": srv.url("/mcp"),
                              "headers": {"Authorization": "Bearer s3cret"}}})
    assert text_of(mcpfs.json("call", "p", "echo", '{"message": "hi"}')) == "hi"
    reqs = [json.loads(line) for line in log.read_text().splitlines()]
    methods = [r["method"] for r in reqs]
    # initialize, initialized, the GET stream, tools/list (a server not
    # listed yet is listed before its tool is called), tools/call, DELETE.
    assert methods.count("POST") == 4 and methods.count("GET") == 1, methods
    assert methods[-1] == "DELETE", methods
    assert all(r["auth"] == "Bearer s3cret" for r in reqs), reqs
    init, later = reqs[0], reqs[1:]
    assert init["session"] is None and init["version"] is None, init
    assert "text/event-stream" in init["accept"] and "application/json" in init["accept"]
    session = later[0]["session"]
    assert session and all(r["session"] == session for r in later), reqs
    assert all(r["version"] == "2025-11-25" for r in later), reqs
    get = next(r for r in reqs if r["method"] == "GET")
    assert get["accept"] == "text/event-stream", get


def test_bearer_missing_is_reported(mcpfs, http_server):
    srv = http_server(PROBE, env={"PROBE_TOKEN": "s3cret"})
    mcpfs.write_config({"p": {"url": srv.url("/mcp")}})
    p = mcpfs.run("call", "p", "echo", '{"message": "hi"}', check=3)
    assert "HTTP 401" in one_line_error(p)


def test_json_responses(mcpfs, http_server):
    srv = http_server(PROBE, env={"PROBE_JSON": "1"})
    mcpfs.write_config({"p": {"url": srv.url("/mcp")}})
    assert text_of(mcpfs.json("call", "p", "echo", '{"message": "plain json"}')) == "plain json"


def test_malformed_message_ends_the_connection(mcpfs, http_server):
    srv = http_server(PROBE)
    mcpfs.write_config({"bad": {"url": srv.url("/garbage")}})
    p = mcpfs.run("tools", "bad", check=3)
    assert "malformed JSON" in one_line_error(p)


def test_oversized_message_ends_the_connection(mcpfs, http_server):
    srv = http_server(PROBE)
    mcpfs.write_config({"big": {"url": srv.url("/huge")}})
    p = mcpfs.run("tools", "big", check=3)
    assert f"larger than {32 << 20} bytes" in one_line_error(p)


def test_killed_server_is_reported(mcpfs, http_server):
    srv = http_server(EVERYTHING, "streamableHttp")
    mcpfs.write_config({"ev": {"url": srv.url("/mcp")}})
    assert text_of(mcpfs.json("call", "ev", "get-sum", '{"a": 1, "b": 1}')) \
        == "The sum of 1 and 1 is 2."
    srv.kill()
    p = mcpfs.run("call", "ev", "get-sum", '{"a": 1, "b": 1}', check=3)
    line = one_line_error(p)
    assert srv.url("/mcp") in line and "onnect" in line, line


def test_nothing_listening(mcpfs):
    from conftest_http import free_port
    mcpfs.write_config({"gone": {"url": f"http://127.0.0.1:{free_port()}/mcp"}})
    p = mcpfs.run("call", "gone", "echo", "{}", check=3)
    assert "onnect" in one_line_error(p)


def test_legacy_endpoint_on_another_origin_is_refused(mcpfs, http_server):
    srv = http_server(PROBE)
    mcpfs.write_config({"evil": {"type": "sse", "url": srv.url("/evil-sse")}}, key="servers")
    p = mcpfs.run("tools", "evil", check=3)
    assert "not on the server's origin" in one_line_error(p)


def test_legacy_malformed_message_ends_the_connection(mcpfs, http_server):
    srv = http_server(PROBE)
    mcpfs.write_config({"bad": {"type": "sse", "url": srv.url("/bad-sse")}}, key="servers")
    p = mcpfs.run("tools", "bad", check=3)
    assert "malformed JSON" in one_line_error(p)


def test_legacy_not_found_is_reported(mcpfs, http_server):
    srv = http_server(PROBE)
    mcpfs.write_config({"nf": {"type": "sse", "url": srv.url("/nothing")}}, key="servers")
    p = mcpfs.run("tools", "nf", check=3)
    assert f"GET {srv.url('/nothing')}: HTTP 404" in one_line_error(p)


def test_new_session_closes_the_old_get_stream(mcpfs, http_server):
    # The server forgets the session but keeps its GET stream open; the next
    # call gets 404, mcpfs initializes again and opens a new GET stream, and
    # must close the old one itself (issue: it stayed open for good).
    srv = http_server(PROBE)
    mcpfs.write_config({"p": {"url": srv.url("/mcp")}})
    sock = mcpfs.tmp / "b.sock"
    bridge = subprocess.Popen(mcpfs.cmd("bridge", "--socket", sock), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=mcpfs.env)
    try:
        env = dict(bridge.stdout.readline().strip().split("=", 1) for _ in range(2))
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(str(sock))
        f = s.makefile("rb")
        ids = iter(range(1, 1000))

        def rpc(method, params):
            s.sendall(json.dumps({"jsonrpc": "2.0", "id": next(ids), "method": method,
                                  "params": params}).encode() + b"\n")
            reply = json.loads(f.readline())
            assert "result" in reply, reply
            return reply["result"]

        def call(name, args=None):
            return rpc("tools/call", {"server": "p", "name": name,
                                      "arguments": args or {}})["content"][0]["text"]

        rpc("auth", {"token": env["MCPFS_BRIDGE_TOKEN"]})
        assert call("echo", {"message": "a"}) == "a"
        old = call("forget_session").split()[1]
        assert call("echo", {"message": "b"}) == "b"  # 404, then a new session
        deadline = time.monotonic() + 60
        while True:
            gets = json.loads(call("open_gets"))
            if len(gets) == 1 and gets[0] not in (old, ""):
                break  # the new session's stream alone
            assert time.monotonic() < deadline, f"GET streams open: {gets}, old {old}"
            time.sleep(0.1)
        s.close()
    finally:
        bridge.terminate()
        bridge.communicate(timeout=60)
