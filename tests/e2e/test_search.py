"""`mcpfs search` and `search_tools`: ranking, detail levels, bad input, and
an index that follows list_changed (tests/search/ has the query set)."""
import json
import subprocess
import time

from conftest import TEST_SERVERS, everything_stdio
from conftest_codegen import TS_RUN
from conftest_mount import wait_until

DYNAMIC = str(TEST_SERVERS / "sdk_mount_dynamic.mjs")


def config(mcpfs, state=None):
    servers = {"everything": everything_stdio()}
    if state:
        state.mkdir(exist_ok=True)
        servers["dyn"] = {"command": "node", "args": [DYNAMIC, str(state)]}
    mcpfs.write_config(servers)


def set_tools(state, names):
    tmp = state / "tools.json.tmp"
    tmp.write_text(json.dumps(names))
    tmp.rename(state / "tools.json")


def test_best_first_with_mcp_names(mcpfs):
    config(mcpfs)
    found = mcpfs.json("search", "add two numbers together")
    assert found and found[0]["server"] == "everything" and found[0]["tool"] == "get-sum"
    assert found[0]["name"] == "everything.get-sum"
    scores = [r["score"] for r in found]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0
    # The same query, the same answer.
    assert mcpfs.json("search", "add two numbers together") == found


def test_detail_levels(mcpfs):
    config(mcpfs)
    name = mcpfs.json("search", "sum of two numbers", "--detail", "name", "--limit", "1")
    assert set(name[0]) == {"server", "tool", "name", "score"}
    summ = mcpfs.json("search", "sum of two numbers", "--detail", "summary", "--limit", "1")
    assert summ[0]["summary"] == "Returns the sum of two numbers"
    full = mcpfs.json("search", "sum of two numbers", "--detail", "full", "--limit", "1")[0]
    assert full["import"] == "from servers.everything import get_sum"
    assert full["signature"].startswith("def get_sum(*, a: float, b: float)")
    assert {a["name"]: a["type"] for a in full["args"]} == {"a": "float", "b": "float"}
    text = mcpfs.run("search", "sum of two numbers", "--detail", "full", check=0).stdout
    assert "everything.get-sum" in text and "def get_sum(" in text
    assert mcpfs.run("search", "x", "--detail", "huge", check=2).stderr.count("\n") == 1


def test_no_fit_returns_nothing_and_a_hint(mcpfs):
    config(mcpfs)
    p = mcpfs.run("search", "book a flight to Paris", "--json", check=0)
    assert json.loads(p.stdout) == []
    assert "try other words" in p.stderr
    p = mcpfs.run("search", "the of and", check=0)
    assert p.stdout == "" and "common words" in p.stderr


def test_regex_mode(mcpfs):
    config(mcpfs)
    found = mcpfs.json("search", "^get-(sum|env)$", "--regex")
    assert sorted(r["tool"] for r in found) == ["get-env", "get-sum"]
    p = mcpfs.run("search", "get-(sum", "--regex", check=2)
    assert "invalid regex" in p.stderr and p.stderr.count("\n") == 1


def test_bad_input_never_hangs(mcpfs, tmp_path):
    state = tmp_path / "dyn"
    config(mcpfs, state)
    # A name that makes a nested quantifier backtrack exponentially.
    set_tools(state, ["a" * 40 + "!"])
    mcpfs.run("tools", "dyn", check=0)
    for args, want in [([""], "empty"), (["   "], "empty"), (["x" * 100_000], "at most"),
                       (["(a+)+$", "--regex"], "match limit"), (["[", "--regex"], "invalid")]:
        t0 = time.monotonic()
        p = mcpfs.run("search", *args, check=2, timeout=120)
        assert want in p.stderr and p.stderr.count("\n") == 1, p.stderr
        assert time.monotonic() - t0 < 60


def bridge(mcpfs):
    path = str(mcpfs.tmp / "b.sock")
    proc = subprocess.Popen(mcpfs.cmd("bridge", "--socket", path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=mcpfs.env)
    lines = [proc.stdout.readline(), proc.stdout.readline()]
    env = dict(line.strip().split("=", 1) for line in lines if "=" in line)
    assert env.get("MCPFS_BRIDGE") == path, (lines, proc.stderr.read())
    return proc, env


def runtime(mcpfs, env, code, lang="python"):
    out = mcpfs.tmp / "gen"
    if not out.exists():
        mcpfs.run("generate", "--out", out, check=0)
    e = dict(mcpfs.env, **env)
    if lang == "python":
        cmd = ["python3", "-c", code]
    else:
        (out / "prog.ts").write_text(code)
        cmd = [*TS_RUN, str(out / "prog.ts")]
    p = subprocess.run(cmd, cwd=out, env=e, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_runtime_search_follows_list_changed(mcpfs, tmp_path):
    """A long-lived bridge holds the index: a tool added by list_changed is
    found, a removed one no longer is."""
    state = tmp_path / "dyn"
    config(mcpfs, state)
    proc, env = bridge(mcpfs)
    ask = ("import json; from servers._runtime import search_tools; "
           "print(json.dumps(search_tools('forecast the weather', detail='name')))")
    try:
        assert runtime(mcpfs, env, ask) == []
        # The search may have read dyn's catalog from the disk cache: a call
        # makes sure the bridge runs the server, whose change then reaches
        # the index by notification, not by a new process.
        assert runtime(mcpfs, env, "import json; from servers._runtime import call_tool; "
                       "print(json.dumps(call_tool('dyn', 'echo', {'message': 'hi'})))") == "hi"
        set_tools(state, ["weather_forecast"])
        assert wait_until(lambda: [r["name"] for r in runtime(mcpfs, env, ask)]
                          == ["dyn.weather_forecast"], 60)
        set_tools(state, [])
        assert wait_until(lambda: runtime(mcpfs, env, ask) == [], 60)
        full = runtime(mcpfs, env, "import json; from servers._runtime import search_tools; "
                       "print(json.dumps(search_tools('sum of two numbers', "
                       "detail='full', limit=1)))")
        assert full[0]["import"] == "from servers.everything import get_sum"
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err


def test_typescript_search_tools(mcpfs):
    config(mcpfs)
    proc, env = bridge(mcpfs)
    try:
        got = runtime(mcpfs, env, 'import { searchTools } from "./servers/_runtime.ts";\n'
                      'console.log(JSON.stringify(await searchTools("sum of two numbers", '
                      '{ detail: "name", limit: 1 })));\n', lang="typescript")
        assert [r["name"] for r in got] == ["everything.get-sum"]
    finally:
        proc.terminate()
        proc.communicate(timeout=60)
