"""The reference servers from npm over stdio: everything's content kinds,
filesystem and memory as per-customer servers, sequential-thinking's stderr."""
import json

from conftest import EVERYTHING, FILESYSTEM, MEMORY, SEQTHINK, everything_stdio


def test_everything_content_kinds(mcpfs):
    mcpfs.write_config({"everything": everything_stdio()})
    img = mcpfs.json("call", "everything", "get-tiny-image")
    kinds = [c["type"] for c in img["content"]]
    assert "image" in kinds and "text" in kinds
    out = mcpfs.run("call", "everything", "get-tiny-image", check=0).stdout
    assert "[image: image/png," in out
    links = mcpfs.run("call", "everything", "get-resource-links", '{"count": 2}', check=0).stdout
    assert "[resource link: demo://resource/" in links
    ref = mcpfs.run("call", "everything", "get-resource-reference", check=0).stdout
    assert "[resource: demo://resource/" in ref


def test_everything_structured_content(mcpfs):
    mcpfs.write_config({"everything": everything_stdio()})
    r = mcpfs.json("call", "everything", "get-structured-content", '{"location": "Chicago"}')
    assert "temperature" in r["structuredContent"]


def test_everything_annotated_message(mcpfs):
    mcpfs.write_config({"everything": everything_stdio()})
    r = mcpfs.json("call", "everything", "get-annotated-message", '{"messageType": "error"}')
    assert r["content"][0]["annotations"]


def fs_memory_config():
    return {
        "filesystem": {"command": "node", "args": [FILESYSTEM, "${WORKSPACE}"],
                       "scope": "customer"},
        "memory": {"command": "node", "args": [MEMORY],
                   "env": {"MEMORY_FILE_PATH": "${STATE}/memory.jsonl"}, "scope": "customer"},
    }


def test_filesystem_per_customer_workspace(mcpfs):
    mcpfs.write_config(fs_memory_config())
    assert len(mcpfs.json("tools", "filesystem")) == 14
    ws = mcpfs.root / "workspaces" / "acme" / "workspace"
    p = mcpfs.run("call", "filesystem", "write_file", "--customer", "acme",
                  json.dumps({"path": str(ws / "note.txt"), "content": "hello acme"}), check=0)
    assert (ws / "note.txt").read_text() == "hello acme"
    r = mcpfs.json("call", "filesystem", "read_text_file", "--customer", "acme",
                   json.dumps({"path": str(ws / "note.txt")}))
    assert r["content"][0]["text"] == "hello acme"
    # Another customer's server cannot reach acme's workspace.
    p = mcpfs.run("call", "filesystem", "read_text_file", "--customer", "globex",
                  json.dumps({"path": str(ws / "note.txt")}), check=1)
    assert "denied" in p.stderr.lower() or "outside" in p.stderr.lower(), p.stderr


def test_memory_state_per_customer(mcpfs):
    mcpfs.write_config(fs_memory_config())
    ents = {"entities": [{"name": "Ada", "entityType": "person", "observations": ["math"]}]}
    mcpfs.run("call", "memory", "create_entities", json.dumps(ents), check=0)
    state = mcpfs.root / "workspaces" / "default" / "state" / "memory.jsonl"
    assert "Ada" in state.read_text()
    g = mcpfs.json("call", "memory", "read_graph")
    assert "Ada" in json.dumps(g)
    other = mcpfs.json("call", "memory", "read_graph", "--customer", "globex")
    assert "Ada" not in json.dumps(other)


def test_bad_customer_id_refused(mcpfs):
    mcpfs.write_config(fs_memory_config())
    p = mcpfs.run("call", "memory", "read_graph", "--customer", "../../etc", check=2)
    assert "invalid customer id" in p.stderr


def test_sequential_thinking_stderr_goes_to_the_log(mcpfs):
    mcpfs.write_config({"think": {"command": "node", "args": [SEQTHINK]}})
    args = {"thought": "first", "nextThoughtNeeded": False, "thoughtNumber": 1,
            "totalThoughts": 1}
    r = mcpfs.json("call", "think", "sequentialthinking", json.dumps(args))
    assert not r.get("isError")
    assert (mcpfs.root / "logs" / "think.log").stat().st_size > 0
