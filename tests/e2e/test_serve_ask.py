"""Elicitation and sampling through `mcpfs serve`: a server asks during a call
that code from an MCP host's execute_code made; the host (the official
TypeScript SDK client, tests/node/serve_client.mjs) fills the form and
samples, and the answer goes back to the server. Against server-everything
over stdio and Streamable HTTP, both fronts, and our SDK server
(tests/node/servers/sdk_offers.mjs) for a host without sampling, calls that
cannot be told apart, and the answers outside serve."""
import json
import threading

import pytest

from conftest import EVERYTHING, TEST_SERVERS, everything_stdio, server_dir
from conftest_executor import run_code
from conftest_http import http_server  # noqa: F401 (fixture)
from conftest_serve import Serve, sdk

OFFERS = str(TEST_SERVERS / "sdk_offers.mjs")

EVERYTHING_CODE = """
from servers.everything import trigger_elicitation_request, trigger_sampling_request
for item in trigger_elicitation_request():
    print(item)
print(trigger_sampling_request(prompt="hello"))
"""


def target(mcpfs, front, serve):
    if front == "http":
        return ["--http", serve.url]
    return ["--stdio", mcpfs.binary, "--config", str(mcpfs.config_path), "serve", "--stdio"]


@pytest.mark.parametrize("front", ["stdio", "http"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_everything_asks_the_host(mcpfs, http_server, front, transport):  # noqa: F811
    server = (everything_stdio() if transport == "stdio"
              else {"url": http_server(EVERYTHING, "streamableHttp").url("/mcp")})
    mcpfs.write_config({"everything": server})
    s = Serve(mcpfs) if front == "http" else None
    try:
        out = sdk(mcpfs, "host", EVERYTHING_CODE, *target(mcpfs, front, s))
    finally:
        if s:
            assert s.stop() == 0
    assert out["result"]["exit_code"] == 0, out
    stdout = out["result"]["stdout"]
    # The host's user filled the form; the server got the answer.
    assert [e["message"] for e in out["elicited"]] == [
        "Please provide inputs for the following fields:"], out
    assert "name" in out["elicited"][0]["requestedSchema"]["properties"]
    assert "User provided the requested information" in stdout, stdout
    assert "- Name: Ada Lovelace" in stdout and "- Agreed to terms: true" in stdout, stdout
    # The host's model sampled.
    assert len(out["sampled"]) == 1, out
    assert out["sampled"][0]["messages"][0]["content"]["text"] == \
        "Resource trigger-sampling-request context: hello"
    assert out["sampled"][0]["maxTokens"] == 100
    assert "sampled: Resource trigger-sampling-request context: hello" in stdout, stdout
    assert "host-model" in stdout, stdout
    log = (mcpfs.root / "logs" / "everything.log").read_text()
    assert "elicitation/create: answered by the caller" in log, log[-3000:]
    assert "sampling/createMessage: answered by the caller" in log


OFFERS_CODE = """
from servers._runtime import McpBridgeError
from servers.offers import ask, sample
print(ask())
try:
    print(sample(prompt="hi"))
except McpBridgeError as e:
    print("error", e)
"""


def test_host_without_sampling_and_no_host(mcpfs, tmp_path):
    state = tmp_path / "offers"
    state.mkdir()
    mcpfs.write_config({"offers": {"command": "node", "args": [OFFERS, str(server_dir(state.parent, state.name))],
                                  "sandbox": {"rw": [str(state)]}}})
    out = sdk(mcpfs, "host", OFFERS_CODE, "--no-sampling", *target(mcpfs, "stdio", None))
    lines = out["result"]["stdout"].splitlines()
    assert json.loads(lines[0].replace("'", '"')) == \
        {"action": "accept", "content": {"colour": "teal"}}, lines
    assert lines[1].startswith("error tools/call: server 'offers': tools/call 'sample': "
                               "JSON-RPC error -32601"), lines
    assert "the MCP host that ran this code (serve-test-host) does not offer sampling" in \
        lines[1], lines
    assert out["sampled"] == [] and len(out["elicited"]) == 1, out

    # No host at all (`mcpfs exec`): the form has a required field without a
    # default, so mcpfs declines it; sampling is refused with why.
    p, res = run_code(mcpfs, OFFERS_CODE)
    assert res and res["exit_code"] == 0, (p.stderr, res)
    lines = res["stdout"].splitlines()
    assert json.loads(lines[0].replace("'", '"')) == {"action": "decline"}, lines
    assert "JSON-RPC error -32601" in lines[1] and "no model is attached to this call" in \
        lines[1], lines


def test_http_request_goes_to_the_host_of_its_stream(mcpfs, http_server):  # noqa: F811
    """Over Streamable HTTP a server asks on the response stream of the call
    it belongs to: with another host's call in flight on the same shared
    connection, the question still goes to the host whose code asked (over
    stdio mcpfs would have to answer it itself)."""
    mcpfs.write_config({"everything": {"url": http_server(EVERYTHING, "streamableHttp").url("/mcp")}})
    s = Serve(mcpfs)
    outs = {}

    def run(name, code):
        outs[name] = sdk(mcpfs, "host", code, "--http", s.url)

    # B holds a call open for 20 s; A asks once B's call is under way.
    b = threading.Thread(target=run, args=("b", (
        "from servers.everything import trigger_long_running_operation\n"
        "open('b-started', 'w').close()\n"
        "trigger_long_running_operation(duration=20, steps=2)\n"
        "print('b done')\n")))
    try:
        b.start()
        run("a", "import os, time\n"
                 "deadline = time.time() + 120\n"
                 "while not os.path.exists('b-started') and time.time() < deadline:\n"
                 "    time.sleep(0.05)\n"
                 "time.sleep(1)\n"
                 "from servers.everything import trigger_elicitation_request\n"
                 "for item in trigger_elicitation_request():\n"
                 "    print(item)\n")
        b.join()
    finally:
        assert s.stop() == 0
    a = outs["a"]
    assert a["result"]["exit_code"] == 0, outs
    assert [e["message"] for e in a["elicited"]] == [
        "Please provide inputs for the following fields:"], outs
    assert "- Name: Ada Lovelace" in a["result"]["stdout"], outs
    assert outs["b"]["elicited"] == [] and outs["b"]["result"]["stdout"] == "b done\n", outs
    log = (mcpfs.root / "logs" / "everything.log").read_text()
    assert "elicitation/create: answered by the caller" in log, log[-3000:]


def test_calls_of_two_hosts_are_not_mixed(mcpfs, tmp_path):
    """Two hosts' runs call one shared stdio server at once, and it asks
    during both: a request over stdio does not say which call it belongs to,
    so neither host is shown a question that may be the other's; mcpfs
    answers both itself."""
    state = tmp_path / "offers"
    state.mkdir()
    mcpfs.write_config({"offers": {"command": "node", "args": [OFFERS, str(server_dir(state.parent, state.name))],
                                  "sandbox": {"rw": [str(state)]}}})
    s = Serve(mcpfs)
    outs = [None, None]

    def one(i):
        outs[i] = sdk(mcpfs, "host", "from servers.offers import ask\nprint(ask(together=2))",
                      "--http", s.url)

    try:
        threads = [threading.Thread(target=one, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        assert s.stop() == 0
    for out in outs:
        assert out and out["result"]["exit_code"] == 0, outs
        assert out["elicited"] == [], outs
        assert out["result"]["stdout"] == "{'action': 'decline'}\n", outs
