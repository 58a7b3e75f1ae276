"""What servers offer beside tools: resources, resource templates and prompts
listed in the tree (static and mounted), read from jailed code through the
bridge (read_resource / readResource, get_prompt / getPrompt), a
resource_link followed, and the listing kept current on list_changed.
Against server-everything over stdio and Streamable HTTP, and our SDK server
tests/node/servers/sdk_offers.mjs for lists driven from outside."""
import json
import time
from pathlib import Path

import pytest

from conftest import EVERYTHING, SERVERS_NM, TEST_SERVERS, everything_stdio, server_dir
from conftest_executor import run_code
from conftest_http import http_server  # noqa: F401 (fixture)
from conftest_mount import mounted, wait_until  # noqa: F401 (fixture)
from conftest_serve import Stdio

DOCS = SERVERS_NM / "server-everything" / "dist" / "docs"
OFFERS = str(TEST_SERVERS / "sdk_offers.mjs")
ARCH = "demo://resource/static/document/architecture.md"


@pytest.fixture(params=["stdio", "http"])
def everything(request, http_server):  # noqa: F811 (fixture)
    """server-everything's config entry over one transport."""
    if request.param == "stdio":
        return everything_stdio()
    return {"url": http_server(EVERYTHING, "streamableHttp").url("/mcp")}


def offers(state: Path) -> dict:
    """sdk_offers.mjs, which reads and writes files in @state: its sandbox
    may write there."""
    server_dir(state.parent, state.name)
    return {"command": "node", "args": [OFFERS, str(state)], "sandbox": {"rw": [str(state)]}}


def write_json(path: Path, value):
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(value))
    tmp.rename(path)


def test_tree_lists_resources_and_prompts(mcpfs, everything, tmp_path):
    mcpfs.write_config({"everything": everything})
    out = tmp_path / "tree"
    mcpfs.run("generate", "--out", out, check=0, timeout=180)
    srv = out / "servers" / "everything"
    res = (srv / "_resources.md").read_text()
    for doc in sorted(DOCS.iterdir()):
        assert f"- `demo://resource/static/document/{doc.name}` ({doc.name}, " in res, res
    assert "- `demo://resource/dynamic/text/{resourceId}` (Dynamic Text Resource, " in res
    assert 'read_resource("everything", uri)' in res
    prompts = (srv / "_prompts.md").read_text()
    assert "- `args-prompt` (Arguments Prompt): A prompt with two arguments" in prompts
    assert "  - `city` (required): Name of the city\n  - `state`\n" in prompts
    readme = (srv / "README.md").read_text()
    assert ("offers 7 resources and 2 resource templates (`_resources.md`: read them with "
            "`read_resource`) and 4 prompts (`_prompts.md`") in readme, readme
    assert "read_resource(server, uri)" in (out / "README.md").read_text()


READ = """
import gzip
from servers._runtime import McpBridgeError, get_prompt, read_resource
from servers.everything import gzip_file_as_resource

text = read_resource("everything", "%(arch)s")
assert isinstance(text, str)
print("text", len(text.encode()))
blob = read_resource("everything", "demo://resource/dynamic/blob/3")
print("blob", type(blob).__name__, blob[:30].decode())
link = gzip_file_as_resource(name="hello.txt.gz", data="data:text/plain;base64,aGVsbG8gdGhlcmU=")
print("link", link["type"], link["uri"])
print("gunzip", gzip.decompress(read_resource("everything", link["uri"])).decode())
msgs = get_prompt("everything", "args-prompt", {"city": "Paris"})
print("prompt", msgs[0]["role"], msgs[0]["content"]["text"])
for args in [("nowhere", "demo://x"), ("everything", "not a uri"),
             ("everything", "demo://resource/nothing")]:
    try:
        read_resource(*args)
    except McpBridgeError as e:
        print("error", e)
try:
    get_prompt("everything", "no-such-prompt")
except McpBridgeError as e:
    print("error", e)
"""

READ_TS = """
import { getPrompt, readResource } from "./servers/_runtime.ts";
const text = await readResource("everything", "%(arch)s");
console.log("text", typeof text, (text as string).length);
const blob = await readResource("everything", "demo://resource/dynamic/blob/3");
console.log("blob", blob instanceof Uint8Array, new TextDecoder().decode((blob as Uint8Array).slice(0, 30)));
const msgs = await getPrompt("everything", "args-prompt", { city: "Oslo", state: "Viken" });
console.log("prompt", msgs[0].content.text);
try { await readResource("nowhere", "demo://x"); } catch (e) { console.log("error", String(e)); }
"""


def test_read_resources_and_prompts_from_jailed_code(mcpfs, everything):
    mcpfs.write_config({"everything": everything})
    p, res = run_code(mcpfs, READ % {"arch": ARCH}, timeout=180)
    assert res and res["exit_code"] == 0, (p.stderr, res)
    lines = res["stdout"].splitlines()
    assert lines[0] == f"text {len((DOCS / 'architecture.md').read_bytes())}", lines
    assert lines[1] == "blob bytes Resource 3: This is a base64 b", lines
    assert lines[2] == "link resource_link demo://resource/session/hello.txt.gz", lines
    assert lines[3] == "gunzip hello there", lines
    assert lines[4] == "prompt user What's weather in Paris?", lines
    assert lines[5] == "error resources/read: no server named 'nowhere' in the config", lines
    assert lines[6] == ("error resources/read: 'not a uri' is not a URI (scheme:rest, without "
                        "spaces or control characters)"), lines
    assert lines[7].startswith("error resources/read: server 'everything': resources/read "
                               "'demo://resource/nothing': JSON-RPC error "), lines
    assert "not found" in lines[7], lines
    assert lines[8].startswith("error prompts/get: server 'everything': prompts/get "
                               "'no-such-prompt': JSON-RPC error"), lines
    assert len(lines) == 9, lines
    # Resource reads and prompts are not tool calls: one call, the gzip tool.
    assert res["tool_calls"] == 1, res

    p, res = run_code(mcpfs, READ_TS % {"arch": ARCH}, lang="typescript", timeout=180)
    assert res and res["exit_code"] == 0, (p.stderr, res)
    assert res["stdout"].splitlines() == [
        f"text string {len((DOCS / 'architecture.md').read_text())}",
        "blob true Resource 3: This is a base64 b",
        "prompt What's weather in Oslo, Viken?",
        "error McpBridgeError: resources/read: no server named 'nowhere' in the config",
    ], res


def test_a_server_without_resources_says_so(mcpfs):
    from conftest import sdk_server
    mcpfs.write_config({"f": sdk_server("sdk_faults.mjs")})
    p, res = run_code(mcpfs, "from servers._runtime import read_resource, get_prompt\n"
                             "for f, a in [(read_resource, 'x://y'), (get_prompt, 'p')]:\n"
                             "    try:\n"
                             "        f('f', a)\n"
                             "    except Exception as e:\n"
                             "        print(e)\n")
    assert res["stdout"].splitlines() == [
        "resources/read: server 'f' offers no resources (it did not declare them)",
        "prompts/get: server 'f' offers no prompts (it did not declare them)"], res


def test_a_list_that_fails_never_takes_out_the_server(mcpfs, tmp_path):
    state = tmp_path / "offers"
    state.mkdir()
    (state / "broken").write_text("")
    mcpfs.write_config({"offers": offers(state)})
    out = tmp_path / "tree"
    mcpfs.run("generate", "--out", out, check=0)
    srv = out / "servers" / "offers"
    readme = (srv / "README.md").read_text()
    assert "- `(item 2 of resources/list)`: no usable \"uri\" string" in readme, readme
    assert ("- `prompts/list`: server 'offers': prompts/list: JSON-RPC error -32603: "
            "MCP error -32603: the prompt store is down") in readme, readme
    assert "offers 1 resource and 1 resource template" in readme, readme
    assert "note://logo.bin" in (srv / "_resources.md").read_text()
    assert not (srv / "_prompts.md").exists() and (srv / "link.py").exists()
    log = (mcpfs.root / "logs" / "offers.log").read_text()
    assert "not listed: 'prompts/list': server 'offers'" in log, log


def test_mounted_listing_follows_list_changed(mounted, tmp_path):
    state = tmp_path / "offers"
    state.mkdir()
    write_json(state / "notes.json", {"alpha": "first note"})
    mounted.start(servers={"offers": offers(state)})
    srv = mounted.point / "servers" / "offers"
    res = (srv / "_resources.md").read_text()
    assert "- `note://alpha` (alpha, text/plain): The note alpha." in res, res
    assert "- `note://logo.bin` (logo, image/png)" in res
    assert "- `note://{name}` (Any note): A note by its name." in res
    assert "beta" not in res
    prompts = (srv / "_prompts.md").read_text()
    assert "- `greet` (Greeting): Greet someone.\n  - `name` (required): Who to greet.\n" \
           "  - `tone`: How.\n" in prompts, prompts

    write_json(state / "notes.json", {"alpha": "first note", "beta": "second"})
    assert wait_until(lambda: "note://beta" in (srv / "_resources.md").read_text(), 30), \
        (srv / "_resources.md").read_text()
    assert "offers 3 resources and 1 resource template" in (srv / "README.md").read_text()
    write_json(state / "prompts.json", ["fresh"])
    assert wait_until(lambda: "- `fresh`: Added at run time" in (srv / "_prompts.md").read_text(),
                      30)
    assert "and 2 prompts" in (srv / "README.md").read_text()
    # Gone when the server lists none: no empty page.
    write_json(state / "prompts.json", [])
    assert wait_until(lambda: "and 1 prompt " in (srv / "README.md").read_text(), 30)
    # The mount and generate render the same bytes.
    gen = tmp_path / "gen"
    mounted.m.run("generate", "--out", gen, env=mounted.env, check=0)
    for name in ("_resources.md", "_prompts.md", "README.md"):
        assert (gen / "servers" / "offers" / name).read_bytes() == (srv / name).read_bytes()


def test_resource_link_and_blob_from_our_server(mcpfs, tmp_path):
    state = tmp_path / "offers"
    mcpfs.write_config({"offers": offers(state)})
    write_json(state / "notes.json", {"n1": "note one"})
    p, res = run_code(mcpfs, "from servers.offers import link\n"
                             "from servers._runtime import read_resource, get_prompt\n"
                             "items = link(name='n1')\n"
                             "print(items[1]['type'], read_resource('offers', items[1]['uri']))\n"
                             "print(read_resource('offers', 'note://logo.bin').hex())\n"
                             "print(get_prompt('offers', 'greet', {'name': 'Ada'}))\n")
    assert res and res["exit_code"] == 0, (p.stderr, res)
    assert res["stdout"].splitlines() == [
        "resource_link note one", "89504e470d0a1a0aff00fe",
        "[{'role': 'user', 'content': {'type': 'text', 'text': 'Greet Ada.'}}]"], res


def test_a_read_is_bounded_and_passes_the_call_hooks(mcpfs, tmp_path):
    """A read that never ends takes the server's timeout, as a tool call
    does, and the server hears that it was given up; with PII on, the
    email in a resource reaches the code as a token."""
    state = tmp_path / "offers"
    mcpfs.config_path.write_text(json.dumps({
        "mcpServers": {"offers": {**offers(state), "timeout": 2}},
        "pii": {"enabled": True}}))
    write_json(state / "notes.json", {"who": "write to ada@example.com"})
    t0 = time.monotonic()
    p, res = run_code(mcpfs, "from servers._runtime import read_resource\n"
                             "print(read_resource('offers', 'note://who'))\n"
                             "try:\n"
                             "    read_resource('offers', 'note://hang')\n"
                             "except Exception as e:\n"
                             "    print(e)\n", "--timeout", "60")
    assert res and res["exit_code"] == 0, (p.stderr, res)
    assert time.monotonic() - t0 < 45
    lines = res["stdout"].splitlines()
    assert lines[0] == "write to [EMAIL_1]", lines
    assert "resources/read 'note://hang' timed out after 2 s" in lines[1], lines
    assert wait_until(lambda: (state / "cancelled.json").exists(), 30)


def test_everything_session_resource_shows_through_serve(mcpfs, everything):
    """server-everything registers a resource when its gzip tool runs and
    sends resources/list_changed: serve's tree (its resources) lists it,
    and the next run reads it."""
    mcpfs.write_config({"everything": everything})
    c = Stdio(mcpfs)
    page = "mcpfs:///servers/everything/_resources.md"
    uri = "demo://resource/session/note.txt.gz"

    def run(code):
        r = c.request("tools/call", {"name": "execute_code", "arguments": {"code": code}},
                      timeout=180)["result"]
        assert r["isError"] is False, r
        return r["structuredContent"]["stdout"]

    def listing():
        return c.request("resources/read", {"uri": page})["result"]["contents"][0]["text"]

    try:
        c.initialize()
        assert ARCH in listing() and uri not in listing()
        out = run("from servers.everything import gzip_file_as_resource\n"
                  "print(gzip_file_as_resource(name='note.txt.gz', "
                  "data='data:text/plain;base64,bm90ZQ==')['uri'])")
        assert out == uri + "\n"
        assert wait_until(lambda: uri in listing(), 60), listing()
        out = run("import gzip\nfrom servers._runtime import read_resource\n"
                  f"print(gzip.decompress(read_resource('everything', '{uri}')).decode())")
        assert out == "note\n"
    finally:
        assert c.close() == 0
