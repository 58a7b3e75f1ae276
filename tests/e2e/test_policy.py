"""Per-customer policy (policy/, README "Policy"): two customers with other
rules over the real server-everything and server-memory; each one's tree
shows only what it may call; what is hidden is refused through the
generated runtime, a raw bridge message, odd spellings of its name,
resources and prompts; `ask` with no person there is refused with the
reason; approval through serve (the SDK client as the MCP host) and on a
terminal (tmux); a rate limit of one customer leaves the other's calls
alone."""
import json
import os
import shutil
import subprocess
import time

import pytest

from conftest import everything_stdio, memory_server
from conftest_executor import go_waiter, run_code
from conftest_mount import mounted  # noqa: F401
from conftest_serve import Serve, Stdio, sdk, wait_for

POLICY = {
    # acme: the memory server and everything's echo; what may destroy asks.
    "acme": {"allow": ["memory.*", "everything.echo"], "destructive": "ask",
             "callsPerMinute": {"everything.echo": 3}, "maxRuns": 1},
    # beta: only read-only tools, and not get-env; memory's prompts and
    # resources are open, everything's are too.
    "beta": {"readOnly": True, "deny": ["everything.get-env"],
             "callsPerMinute": {"everything.echo": 3}},
    # everyone else: everything but the memory server.
    "default": {"deny": ["memory"]},
}


def policy_config(mcpfs, policy=None):
    cfg = {"mcpServers": {"everything": everything_stdio(), "memory": memory_server(mcpfs.tmp)},
           "policy": policy or POLICY}
    mcpfs.config_path.write_text(json.dumps(cfg, indent=2))


LIST_TREE = """
import os, json
tree = {}
for s in sorted(os.listdir("/mcp/servers")):
    if os.path.isdir("/mcp/servers/" + s):
        tree[s] = sorted(f[:-5] for f in os.listdir("/mcp/servers/" + s) if f.endswith(".json"))
print(json.dumps(tree))
"""


def tree_of(mcpfs, customer):
    p, res = run_code(mcpfs, LIST_TREE, "--customer", customer)
    assert p.returncode == 0, p.stderr
    return json.loads(res["stdout"])


def test_each_tree_shows_only_its_tools(mcpfs):
    policy_config(mcpfs)
    acme, beta, other = (tree_of(mcpfs, c) for c in ("acme", "beta", "someone"))
    assert acme["everything"] == ["echo"], acme
    assert "delete_entities" in acme["memory"] and "read_graph" in acme["memory"], acme
    assert sorted(beta["memory"]) == ["open_nodes", "read_graph", "search_nodes"], beta
    assert "get_env" not in beta["everything"] and "get_sum" in beta["everything"], beta
    assert "toggle_simulated_logging" not in beta["everything"], beta  # not readOnlyHint
    assert "memory" not in other and "get_env" in other["everything"], other
    # The mcpfs tools listing is not the tree: all tools stay listed there.
    assert len(mcpfs.json("tools", "everything")) > 10



def test_mount_shows_the_customers_view(mcpfs, mounted):
    """`mount --customer C`: the mount's view for a customer holds only what
    it may call, as the tree bound into its runs does."""
    policy_config(mcpfs)
    env = dict(mcpfs.env, **mounted.env)
    mounted.proc = subprocess.Popen(mcpfs.cmd("mount", mounted.point, "-f", "--customer", "beta"),
                                    env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
    top = mounted.point / "servers"
    assert wait_for(lambda: mounted.proc.poll() is not None or top.is_dir(), 60), \
        mounted.proc.communicate()[1]
    assert mounted.proc.poll() is None, mounted.proc.communicate()[1]
    assert sorted(p.name for p in top.iterdir() if p.is_dir()) == ["everything", "memory"]
    memory = sorted(p.stem for p in (top / "memory").glob("*.py") if not p.stem.startswith("_"))
    assert memory == ["open_nodes", "read_graph", "search_nodes"], memory
    everything = {p.stem for p in (top / "everything").glob("*.py")}
    assert "get_sum" in everything and "get_env" not in everything, everything
    assert not (top / "everything" / "get_env.py").exists()
    mounted.stop()
    # someone else's view: everything but the memory server
    mounted.proc = subprocess.Popen(mcpfs.cmd("mount", mounted.point, "-f", "--customer",
                                              "someone"), env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
    assert wait_for(lambda: mounted.proc.poll() is not None or top.is_dir(), 60), \
        mounted.proc.communicate()[1]
    assert mounted.proc.poll() is None, mounted.proc.communicate()[1]
    assert sorted(p.name for p in top.iterdir() if p.is_dir()) == ["everything"]
    assert (top / "everything" / "get_env.py").stat().st_size > 0
    p = mcpfs.run("mount", mounted.point, "--customer", "../x", check=2)
    assert "customer" in p.stderr and len(p.stderr.splitlines()) == 1

REFUSALS = r"""
import json, os, socket
from servers._runtime import call_tool, read_resource, get_prompt
out = {}
def attempt(key, fn):
    try:
        fn()
        out[key] = "ran"
    except Exception as e:
        out[key] = str(e)
SERVER, TOOL = "@SERVER@", "@TOOL@"
attempt("runtime", lambda: call_tool(SERVER, TOOL, {}))
attempt("upper", lambda: call_tool(SERVER, TOOL.upper(), {}))
attempt("unicode", lambda: call_tool(SERVER, TOOL.replace("-", "\u2010").replace("_", "\uff3f"), {}))
attempt("allowed", lambda: call_tool("everything", "echo", {"message": "hi"}))
attempt("resource", lambda: read_resource("memory", "memory://x"))
attempt("prompt", lambda: get_prompt("memory", "p"))
s = socket.socket(socket.AF_UNIX)
s.connect(os.environ["MCPFS_BRIDGE"])
f = s.makefile("rw")
def rpc(i, method, params):
    f.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
    f.flush()
    return json.loads(f.readline())
rpc(0, "auth", {"token": os.environ["MCPFS_BRIDGE_TOKEN"]})
out["raw"] = rpc(1, "tools/call", {"server": SERVER, "name": TOOL, "arguments": {}})
print(json.dumps(out))
"""


def refusals(server, tool):
    return REFUSALS.replace("@SERVER@", server).replace("@TOOL@", tool)


def test_hidden_tools_are_refused_however_called(mcpfs):
    policy_config(mcpfs)
    # "someone" (the default rules) may not reach memory at all.
    p, res = run_code(mcpfs, refusals("memory", "read_graph"), "--customer", "someone")
    assert p.returncode == 0, p.stderr
    out = json.loads(res["stdout"])
    for key in ("runtime", "upper", "unicode"):
        assert "refused" in out[key] and "customer default" in out[key], (key, out)
    assert "closed to customer default" in out["runtime"], out
    assert out["allowed"] == "ran", out
    for key in ("resource", "prompt"):
        assert "refused" in out[key] and "closed to customer default" in out[key], (key, out)
    assert "refused" in out["raw"]["error"]["message"], out
    assert "result" not in out["raw"], out

    # acme: get-env is named by no allow pattern; a name the server does
    # not list byte for byte is refused before any server sees it.
    p, res = run_code(mcpfs, refusals("everything", "get-env"), "--customer", "acme")
    out = json.loads(res["stdout"])
    assert "no allow pattern names it" in out["runtime"], out
    assert "lists no tool by that name" in out["upper"], out
    assert "lists no tool by that name" in out["unicode"], out
    assert out["allowed"] == "ran", out
    assert "no allow pattern names it" in out["raw"]["error"]["message"], out


def test_cli_call_is_held_too(mcpfs):
    policy_config(mcpfs)
    p = mcpfs.run("call", "everything", "get-env", "{}", "--customer", "beta", check=1)
    assert "refused: denied by policy for customer beta (deny \"everything.get-env\")" in p.stderr
    assert p.stderr.count("\n") == 1, p.stderr
    p = mcpfs.run("call", "memory", "create_entities", '{"entities": []}', "--customer", "beta",
                  check=1)
    assert "readOnly" in p.stderr, p.stderr
    mcpfs.run("call", "memory", "read_graph", "{}", "--customer", "beta", check=0)


def test_bad_policy_is_one_clear_line(mcpfs):
    policy_config(mcpfs, {"acme": {"alow": ["x.*"]}})
    p = mcpfs.run("call", "everything", "echo", '{"message": "x"}', check=2)
    assert "policy for customer \"acme\": \"alow\" is not a policy field" in p.stderr, p.stderr
    assert p.stderr.count("\n") == 1, p.stderr


ASK_CODE = """
from servers.memory import create_entities, delete_entities, read_graph
create_entities(entities=[{"name": "a", "entityType": "t", "observations": []},
                          {"name": "b", "entityType": "t", "observations": []}])
for name in ("a", "b"):
    try:
        delete_entities(entityNames=[name])
        print("deleted", name)
    except Exception as e:
        print("refused", name, e)
print("left", sorted(e["name"] for e in read_graph()["entities"]))
"""


def test_ask_without_a_person_is_refused(mcpfs):
    policy_config(mcpfs)
    p, res = run_code(mcpfs, ASK_CODE, "--customer", "acme")
    assert p.returncode == 0, p.stderr
    out = res["stdout"]
    assert "refused a" in out and "refused b" in out, out
    assert "needs approval by policy for customer acme (destructive: ask)" in out, out
    assert "no one is there to approve it" in out, out
    assert "left ['a', 'b']" in out, out


def test_ask_through_serve_approved_once_declined_once(mcpfs):
    policy_config(mcpfs)
    cmd = ["--stdio", mcpfs.binary, "--config", str(mcpfs.config_path), "serve", "--stdio",
           "--customer", "acme"]
    out = sdk(mcpfs, "host", ASK_CODE, "--approvals", "yes,no", *cmd)
    stdout = out["result"]["stdout"]
    assert "deleted a" in stdout, out
    assert "refused b" in stdout and "the MCP host's user declined it (decline)" in stdout, out
    assert "left ['b']" in stdout, out
    asked = [e for e in out["elicited"] if "approve" in e["requestedSchema"]["properties"]]
    assert len(asked) == 2, out["elicited"]
    assert "customer acme's code calls memory.delete_entities" in asked[0]["message"], asked
    assert '"entityNames":["a"]' in asked[0]["message"], asked
    assert '"entityNames":["b"]' in asked[1]["message"], asked


def tmux_text(sock, name):
    return subprocess.run(["tmux", "-S", sock, "capture-pane", "-p", "-J", "-t", name],
                          capture_output=True, text=True).stdout


@pytest.mark.skipif(not shutil.which("tmux"), reason="tmux is not installed")
def test_ask_on_a_terminal_approved_once_declined_once(mcpfs):
    policy_config(mcpfs)
    prog = mcpfs.tmp / "ask.py"
    prog.write_text(ASK_CODE)
    out = mcpfs.tmp / "out.txt"
    sock = str(mcpfs.tmp / "tmux.sock")
    env = " ".join(f"{k}='{v}'" for k, v in mcpfs.env.items())
    cmd = " ".join(mcpfs.cmd("exec", "--customer", "acme", prog))
    subprocess.run(["tmux", "-S", sock, "new-session", "-d", "-s", "t", "-x", "250", "-y", "50",
                    f"env -i {env} {cmd} > {out}; echo exit=$? >> {out}; sleep 600"], check=True)
    try:
        wait_for(lambda: '"entityNames":["a"]' in tmux_text(sock, "t"), 120, "the first prompt")
        assert "Approve? [y/N]" in tmux_text(sock, "t")
        subprocess.run(["tmux", "-S", sock, "send-keys", "-t", "t", "y", "Enter"], check=True)
        wait_for(lambda: '"entityNames":["b"]' in tmux_text(sock, "t"), 120, "the second prompt")
        subprocess.run(["tmux", "-S", sock, "send-keys", "-t", "t", "n", "Enter"], check=True)
        wait_for(lambda: out.exists() and "exit=" in out.read_text(), 120, "the run's end")
    finally:
        subprocess.run(["tmux", "-S", sock, "kill-server"])
    text = out.read_text()
    assert "deleted a" in text and "refused b" in text, text
    assert "declined on the terminal" in text, text
    assert "left ['b']" in text and "exit=0" in text, text


ECHO_FIVE = """
from servers.everything import echo
for i in range(5):
    try:
        echo(message=f"m{i}")
        print("ok", i)
    except Exception as e:
        print("refused", i, e)
"""


def test_rate_limit_of_one_customer_leaves_the_other_alone(mcpfs):
    policy_config(mcpfs)
    ta = mcpfs.run("token", "create", "acme", check=0).stdout.strip()
    tb = mcpfs.run("token", "create", "beta", check=0).stdout.strip()
    s = Serve(mcpfs)  # one engine, both customers
    try:
        a = sdk(mcpfs, "host", ECHO_FIVE, "--http", s.url, "--token", ta)["result"]["stdout"]
        b = sdk(mcpfs, "host", ECHO_FIVE.replace("range(5)", "range(3)"), "--http", s.url,
                "--token", tb)["result"]["stdout"]
    finally:
        assert s.stop() == 0
    assert [line.split()[0] for line in a.splitlines()] == ["ok"] * 3 + ["refused"] * 2, a
    assert "rate limit for customer acme: 3 calls a minute to \"everything.echo\"" in a, a
    assert b.split() == ["ok", "0", "ok", "1", "ok", "2"], b


def test_rate_limit_holds_across_processes(mcpfs):
    """Two `exec` processes of one customer without a daemon share its
    window (policy/rates.c): 2 calls each against 3 a minute, the fourth is
    refused; `mcpfs call` for another customer is not."""
    policy_config(mcpfs)
    two = ECHO_FIVE.replace("range(5)", "range(2)")
    p1, r1 = run_code(mcpfs, two, "--customer", "acme")
    p2, r2 = run_code(mcpfs, two, "--customer", "acme")
    assert r1["stdout"].split() == ["ok", "0", "ok", "1"], r1
    out = r2["stdout"].splitlines()
    assert out[0] == "ok 0" and out[1].startswith("refused 1"), r2
    assert "rate limit for customer acme" in out[1], r2
    for _ in range(3):
        mcpfs.run("call", "--customer", "beta", "everything", "echo", '{"message": "b"}')


def test_max_runs_per_customer(mcpfs):
    policy_config(mcpfs)
    ws = mcpfs.root / "workspaces" / "acme" / "workspace"
    prog = mcpfs.tmp / "hold.py"
    prog.write_text(go_waiter("print('held')\n"))
    held = subprocess.Popen(mcpfs.cmd("exec", "--customer", "acme", prog), env=mcpfs.env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: any((mcpfs.root / "workspaces" / "acme" / "run-slots").glob("*.lock"))
                 and ws.exists(), 120, "the first run")
        time.sleep(0.5)
        second = mcpfs.run("exec", "--customer", "acme", mcpfs.tmp / "hold.py", check=1)
        assert "customer acme has 1 runs going, its policy's maxRuns" in second.stderr, second
        p, res = run_code(mcpfs, "print('other')\n", "--customer", "beta")
        assert res["stdout"] == "other\n", p.stderr
    finally:
        (ws / "go").write_text("")
        out, err = held.communicate(timeout=120)
    assert held.returncode == 0 and out == "held\n", err
    p, res = run_code(mcpfs, "print('after')\n", "--customer", "acme")
    assert res["stdout"] == "after\n", p.stderr


def test_exec_into_an_ended_session_runs_nothing(mcpfs):
    policy_config(mcpfs)
    run_code(mcpfs, "open('one.txt', 'w').write('1')\n", "--customer", "beta", "--session", "s1")
    mcpfs.run("session", "end", "beta", "s1", check=0)
    p = mcpfs.run("exec", "--customer", "beta", "--session", "s1", mcpfs.tmp / "prog.py",
                  check=2)
    assert "session s1 of customer beta has ended: nothing was run" in p.stderr, p.stderr
    (mcpfs.tmp / "prog.py").write_text("open('two.txt', 'w').write('2')\n")
    mcpfs.run("exec", "--customer", "beta", "--session", "s1", mcpfs.tmp / "prog.py", check=2)
    assert not (mcpfs.root / "workspaces" / "beta" / "workspace" / "two.txt").exists()
    assert (mcpfs.root / "workspaces" / "beta" / "workspace" / "one.txt").exists()


AUDITED = """
import sys
from servers._runtime import call_tool
print(call_tool("everything", "echo", {"message": "mail a@example.com"}))
try:
    call_tool("everything", "get-env", {})
except Exception as e:
    print("refused")
print("boom on stderr", file=sys.stderr)
sys.exit(3)
"""


def export(mcpfs, customer, session):
    p = mcpfs.run("session", "export", customer, session, check=0)
    return [json.loads(line) for line in p.stdout.splitlines()]


def test_records_hold_each_call_decision_error_and_stderr(mcpfs):
    policy_config(mcpfs)
    p, res = run_code(mcpfs, AUDITED, "--customer", "acme", "--session", "audit", "--pii", "on")
    assert res["exit_code"] == 3, p.stderr
    lines = export(mcpfs, "acme", "audit")
    calls = [x for x in lines if x["type"] == "call"]
    tasks = [x for x in lines if x["type"] == "task"]
    assert [c["tool"] for c in calls] == ["echo", "get-env"] and len(tasks) == 1, lines
    echo, env = calls
    assert echo["ok"] and echo["decision"] == "allowed by policy", echo
    assert echo["arguments"] == '{"message":"mail [EMAIL_1]"}', echo  # tokenized
    assert "a@example.com" not in json.dumps(lines)
    assert echo["start_ms"] >= 0 and echo["duration_ms"] >= 0, echo
    assert not env["ok"] and "no allow pattern names it" in env["error"], env
    assert env["decision"].startswith("denied: "), env
    assert all(x["customer"] == "acme" and x["session_id"] == "audit" for x in lines)
    task = tasks[0]
    assert task["end_reason"] == "exit 3" and "boom on stderr" in task["stderr"], task
    text = mcpfs.run("session", "show", "acme", "audit", check=0).stdout
    assert "exit 3  2 tool calls, 1 failed" in text, text
    assert "failed: everything.get-env:" in text and "stderr: boom on stderr" in text, text
    assert "output: Echo: mail [EMAIL_1]" in text and "checkpoint: none" in text, text

    p, res = run_code(mcpfs, "import time\ntime.sleep(60)\n", "--customer", "acme", "--session",
                      "audit", "--timeout", "1")
    assert export(mcpfs, "acme", "audit")[-1]["end_reason"] == "timeout limit"


def test_records_say_who_approved(mcpfs):
    policy_config(mcpfs)
    cmd = ["--stdio", mcpfs.binary, "--config", str(mcpfs.config_path), "serve", "--stdio",
           "--customer", "acme"]
    sdk(mcpfs, "host", ASK_CODE, "--approvals", "yes,no", *cmd)
    sessions = mcpfs.json("session", "list", "acme")
    assert len(sessions) == 1, sessions
    calls = [x for x in export(mcpfs, "acme", sessions[0]["session_id"]) if x["type"] == "call"]
    deletes = [c for c in calls if c["tool"] == "delete_entities"]
    assert deletes[0]["decision"] == "approved by the MCP host's user (form elicitation)", deletes
    assert deletes[0]["ok"] and deletes[0]["arguments"] == '{"entityNames":["a"]}', deletes
    assert deletes[1]["decision"].startswith("denied: ") and "declined" in deletes[1]["error"]
    assert [c["decision"] for c in calls if c["tool"] == "create_entities"] == \
        ["allowed by policy"], calls


SEARCH = """
import json
from servers._runtime import search_tools
print(json.dumps(sorted(r["name"] for r in search_tools("environment variables echo sum", limit=20))))
"""


def test_search_from_code_shows_only_what_the_customer_may_call(mcpfs):
    policy_config(mcpfs)
    _, res = run_code(mcpfs, SEARCH, "--customer", "someone")
    assert "everything.get-env" in json.loads(res["stdout"]), res
    _, res = run_code(mcpfs, SEARCH, "--customer", "acme")
    names = json.loads(res["stdout"])
    assert "everything.echo" in names and "everything.get-env" not in names, names
    assert all(n == "everything.echo" or n.startswith("memory.") for n in names), names



def test_serve_catalog_tools_show_only_what_the_customer_may_call(mcpfs):
    policy_config(mcpfs)
    found, defs, servers = {}, {}, {}
    for customer in ("acme", "someone"):
        s = Stdio(mcpfs, "--customer", customer)
        try:
            s.initialize()
            r = s.request("tools/call", {"name": "search_tools", "arguments": {
                "query": "environment variables echo", "limit": 20}})
            found[customer] = [x["name"] for x in r["result"]["structuredContent"]["results"]]
            r = s.request("tools/call", {"name": "get_tool_definitions", "arguments": {
                "tools": ["everything.get-env"]}})
            defs[customer] = r["result"]
            r = s.request("tools/call", {"name": "list_servers", "arguments": {}})
            servers[customer] = [x["name"] for x in r["result"]["structuredContent"]["servers"]]
        finally:
            assert s.close() == 0
    assert "everything.get-env" in found["someone"], found
    assert "everything.echo" in found["acme"] and "everything.get-env" not in found["acme"], found
    assert not defs["someone"].get("isError"), defs
    assert defs["acme"].get("isError") and "has no tool 'get-env'" in json.dumps(defs["acme"])
    assert servers == {"acme": ["everything", "memory"], "someone": ["everything"]}, servers


def test_approve_for_the_session_asks_once(mcpfs):
    policy = json.loads(json.dumps(POLICY))
    policy["acme"]["askSession"] = True
    policy_config(mcpfs, policy)
    code = ASK_CODE.replace('("a", "b")', '("a", "b", "a")')
    cmd = ["--stdio", mcpfs.binary, "--config", str(mcpfs.config_path), "serve", "--stdio",
           "--customer", "acme"]
    out = sdk(mcpfs, "host", code, "--approvals", "session", *cmd)
    asked = [e for e in out["elicited"] if "approve" in e["requestedSchema"]["properties"]]
    assert len(asked) == 1 and "session" in asked[0]["requestedSchema"]["properties"], asked
    assert "deleted a" in out["result"]["stdout"] and "deleted b" in out["result"]["stdout"], out
    calls = [x for x in export(mcpfs, "acme", mcpfs.json("session", "list", "acme")[0]["session_id"])
             if x.get("tool") == "delete_entities"]
    assert [c["decision"] for c in calls] == [
        "approved by the MCP host's user (form elicitation)",
        "approved for this session earlier", "approved for this session earlier"], calls


@pytest.mark.skipif(not shutil.which("tmux"), reason="tmux is not installed")
def test_unanswered_prompt_declines_at_its_timeout(mcpfs):
    policy = json.loads(json.dumps(POLICY))
    policy["acme"]["askTimeout"] = 2
    policy_config(mcpfs, policy)
    prog = mcpfs.tmp / "ask.py"
    prog.write_text(ASK_CODE)
    out = mcpfs.tmp / "out.txt"
    sock = str(mcpfs.tmp / "tmux.sock")
    env = " ".join(f"{k}='{v}'" for k, v in mcpfs.env.items())
    cmd = " ".join(mcpfs.cmd("exec", "--customer", "acme", prog))
    subprocess.run(["tmux", "-S", sock, "new-session", "-d", "-s", "t", "-x", "250", "-y", "50",
                    f"env -i {env} {cmd} > {out}; echo exit=$? >> {out}; sleep 600"], check=True)
    try:
        wait_for(lambda: out.exists() and "exit=" in out.read_text(), 180, "the run's end")
    finally:
        subprocess.run(["tmux", "-S", sock, "kill-server"])
    text = out.read_text()
    assert text.count("no approval within 2 s") == 2 and "left ['a', 'b']" in text, text
