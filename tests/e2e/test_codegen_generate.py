"""`mcpfs generate`: the static tree of the real reference servers and of the
hostile catalog compiles and type-checks (py_compile, mypy --strict, tsc
--strict), is deterministic, stays inside its folder, and its functions call
real tools through `mcpfs bridge`."""
import json
import os
import stat
import subprocess
import sys

import pytest

from conftest import CATALOGS, TEST_SERVERS, node22
from conftest_codegen import (ESBUILD, TS_RUN, TS_RUNTIME, Bridge, clean_env, hostile_servers,
                              mypy_cache, reference_servers, run_mypy, run_pyright, run_tsc,
                              tree_files)
from conftest_http import PROBE, http_server

__all__ = ["http_server", "mypy_cache"]  # fixtures: imported so pytest finds them


def generate(mcpfs, out, *extra, check=0):
    return mcpfs.run("generate", "--out", out, *extra, check=check, timeout=180)


def test_reference_and_hostile_trees_type_check(mcpfs, tmp_path, mypy_cache):
    mcpfs.write_config({**reference_servers(tmp_path), **hostile_servers()})
    out = tmp_path / "tree"
    p = generate(mcpfs, out, "--json")
    summary = json.loads(p.stdout)
    assert summary["unreachable"] == [], p.stderr
    assert summary["servers"] == 6
    # 13 + 14 + 9 + 1 reference tools at least, and the hostile catalog twice.
    assert summary["tools"] >= 37 + 2 * 40
    files = tree_files(out)
    assert summary["files"] == len(files)
    for server in ("everything", "filesystem", "memory", "sequential_thinking", "hostile",
                   "weird_name_2_n_class"):
        assert f"servers/{server}/README.md" in files
        assert f"servers/{server}/__init__.py" in files
        assert f"servers/{server}/index.ts" in files
    assert "servers/everything/get_sum.py" in files
    assert "servers/everything/get_structured_content.ts" in files
    assert "servers/everything/get_sum.json" in files

    pyfiles = [str(out / f) for f in files if f.endswith(".py")]
    p = subprocess.run([sys.executable, "-m", "py_compile", *pyfiles], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    p = run_mypy(out, mypy_cache)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
    assert "Success: no issues found" in p.stdout
    p = run_tsc(out, tmp_path)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]


def test_every_test_servers_tree_passes_pyright_and_tsc_strict(mcpfs, tmp_path, http_server):
    """Issue 23: the reference servers and every SDK server of ours, through
    pyright --strict (npm) and tsc --strict without @types/node: 0 errors.
    (oauth_server.mjs is left out: its two tools, one without a schema and
    an echo, are shapes the others have, behind a login.)"""
    servers = {**reference_servers(tmp_path), **hostile_servers()}
    for name, args in (("sdk_dynamic.mjs", ()), ("sdk_faults.mjs", ("--extra", "3")),
                       ("sdk_compat.mjs", ()),
                       ("sdk_mount_dynamic.mjs", (str(tmp_path), "5"))):
        servers[name.split(".")[0]] = {"command": "node",
                                       "args": [str(TEST_SERVERS / name), *args]}
    servers["http_probe"] = {"url": http_server(PROBE).url("/mcp")}
    assert_tree_type_checks(mcpfs, tmp_path, servers)


def assert_tree_type_checks(mcpfs, tmp_path, servers):
    mcpfs.write_config(servers)
    out = tmp_path / "tree"
    summary = json.loads(generate(mcpfs, out, "--json").stdout)
    assert summary["unreachable"] == [] and summary["servers"] == len(servers), summary
    p = run_pyright(out, tmp_path)
    assert p.returncode == 0 and "0 errors" in p.stdout, p.stdout[-6000:]
    # A file per tool, an __init__.py per server, and the tree's own two.
    n = summary["tools"] + len(servers) + 2
    assert f"Found {n} source files" in p.stdout, p.stdout[:400]
    p = run_tsc(out, tmp_path)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]


def test_real_catalogs_pass_pyright_and_tsc_strict(mcpfs, tmp_path):
    """Issue 23: the recorded catalogs of 22 real servers from npm
    (../shared/catalog), each listed by tests/node/servers/sdk_catalog.mjs."""
    if not CATALOGS.is_dir():
        pytest.skip(f"{CATALOGS} is missing (CI has shared/ beside the clone)")
    servers = {cat.stem: {"command": "node",
                          "args": [str(TEST_SERVERS / "sdk_catalog.mjs"), str(cat)]}
               for cat in sorted(CATALOGS.glob("*.json"))}
    assert len(servers) >= 20
    assert_tree_type_checks(mcpfs, tmp_path, servers)


def test_type_checkers_catch_a_broken_file(tmp_path, mypy_cache):
    # The checks above are only worth something if these tools fail on a bad tree.
    pkg = tmp_path / "tree/servers/bad"
    pkg.mkdir(parents=True)
    (pkg.parent / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("def f() -> int:\n    return 'x'\n")
    (pkg / "index.ts").write_text("export const x: number = 'x';\n")
    p = run_mypy(tmp_path / "tree", mypy_cache)
    assert p.returncode == 1 and "Incompatible return value" in p.stdout, p.stdout
    p = run_tsc(tmp_path / "tree", tmp_path)
    assert p.returncode != 0 and "TS2322" in p.stdout, p.stdout
    p = run_pyright(tmp_path / "tree", tmp_path)
    assert p.returncode != 0 and "reportReturnType" in p.stdout, p.stdout


def test_generate_twice_is_byte_identical(mcpfs, tmp_path):
    mcpfs.write_config({"everything": reference_servers(tmp_path)["everything"],
                        **hostile_servers()})
    generate(mcpfs, tmp_path / "a")
    generate(mcpfs, tmp_path / "b")
    a, b = tree_files(tmp_path / "a"), tree_files(tmp_path / "b")
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []
    # Generating over an existing tree replaces it in place, identically.
    (tmp_path / "a/servers/stale.txt").write_text("left from before")
    generate(mcpfs, tmp_path / "a")
    assert tree_files(tmp_path / "a") == b


def test_tree_layout_modes_and_containment(mcpfs, tmp_path):
    mcpfs.write_config(hostile_servers())
    work = tmp_path / "work"
    work.mkdir()
    out = work / "tree"
    generate(mcpfs, out)
    assert sorted(os.listdir(work)) == ["tree"], "nothing may be left beside the tree"
    for p in out.rglob("*"):
        assert not p.is_symlink()
        mode = stat.S_IMODE(p.stat().st_mode)
        assert mode == (0o755 if p.is_dir() else 0o644), p
        assert p.resolve().is_relative_to(out.resolve())
    names = set(os.listdir(out / "servers/hostile"))
    # Path-like tool names became plain identifiers.
    assert {"etc_passwd.py", "a_b_c_2.py", "tool_2e.py", "tool_2e_2e.py"} <= names
    # Collisions and shadowing names resolved stably.
    assert {"get_user.py", "get_user_2.py", "get_user_3.py", "class_.py", "from_.py",
            "default_.py", "init.py", "index_.ts", "readme_.py", "list_.py"} <= names
    assert max(len(n) for n in names) <= 64 + len(".json")
    for n in names:
        stem = n.rsplit(".", 1)[0]
        assert stem.isascii() and (stem.isidentifier() or stem == "README"), n
    readme = (out / "servers/hostile/README.md").read_text()
    assert "`get_user_3` (`get-user`)" in readme
    assert "`etc_passwd` (`../../etc/passwd`)" in readme
    # The original MCP name is kept in the file.
    assert '"../../etc/passwd"' in (out / "servers/hostile/etc_passwd.py").read_text()


def test_unreachable_servers(mcpfs, tmp_path):
    broken = {"command": "/nonexistent/mcp-server"}
    mcpfs.write_config({"everything": reference_servers(tmp_path)["everything"],
                        "broken": broken})
    out = tmp_path / "tree"
    p = generate(mcpfs, out, check=3)  # written, and exit 3 says one is missing
    assert "broken" in p.stderr and "unreachable" in p.stderr
    assert "(1 unreachable)" in p.stdout
    readme = (out / "servers/broken/README.md").read_text()
    assert "unavailable" in readme and "/nonexistent/mcp-server" in readme
    assert sorted(os.listdir(out / "servers/broken")) == ["README.md"]
    assert (out / "servers/everything/get_sum.py").exists()

    mcpfs.write_config({"broken": broken, "also-broken": broken})
    p = generate(mcpfs, tmp_path / "tree2", check=3)
    assert (tmp_path / "tree2/servers/also_broken/README.md").exists()


def test_usage_errors_and_foreign_folders(mcpfs, tmp_path):
    mcpfs.write_config({"broken": {"command": "/nonexistent/mcp-server"}})
    assert "--out" in mcpfs.run("generate", check=2).stderr
    assert "--lang" in generate(mcpfs, tmp_path / "t", "--lang", "cobol", check=2).stderr
    assert "templates" in generate(mcpfs, tmp_path / "t", "--templates", tmp_path / "nope",
                                   check=2).stderr
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("precious")
    p = generate(mcpfs, mine, check=2)
    assert "not a generated tree" in p.stderr
    assert (mine / "notes.txt").read_text() == "precious"
    assert sorted(os.listdir(mine)) == ["notes.txt"]
    readme_only = tmp_path / "project"
    readme_only.mkdir()
    (readme_only / "README.md").write_text("my project")
    assert "not a generated tree" in generate(mcpfs, readme_only, check=2).stderr
    assert (readme_only / "README.md").read_text() == "my project"
    assert "usage" in mcpfs.run("generate", "--help", check=0).stdout


def test_lang_and_template_override(mcpfs, tmp_path):
    mcpfs.write_config({"everything": reference_servers(tmp_path)["everything"]})
    out = tmp_path / "py"
    generate(mcpfs, out, "--lang", "py")
    files = tree_files(out)
    assert not [f for f in files if f.endswith(".ts")]
    assert "servers/everything/get_sum.py" in files and "servers/_runtime.py" in files

    tdir = tmp_path / "templates"
    tdir.mkdir()
    (tdir / "server.md.tmpl").write_text("CUSTOM {{name}} has {{count}} tools\n{{tools}}")
    out = tmp_path / "ts"
    generate(mcpfs, out, "--lang", "ts", "--templates", tdir)
    readme = (out / "servers/everything/README.md").read_text()
    assert readme.startswith("CUSTOM everything has ")
    assert "`get_sum` (`get-sum`)" in readme
    assert not [f for f in tree_files(out) if f.endswith(".py")]


def test_importing_one_tool_loads_only_that_tool(mcpfs, tmp_path):
    mcpfs.write_config({"everything": reference_servers(tmp_path)["everything"]})
    out = tmp_path / "tree"
    generate(mcpfs, out)
    code = ("import sys\n"
            "from servers.everything import get_sum\n"
            "mods = sorted(m for m in sys.modules if m.startswith('servers.'))\n"
            "print(mods, callable(get_sum), get_sum.__name__)\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=out, capture_output=True, text=True,
                       env=clean_env({}))
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == ("['servers._runtime', 'servers.everything', "
                                "'servers.everything.get_sum'] True get_sum")


def test_missing_bridge_says_what_to_do(mcpfs, tmp_path):
    mcpfs.write_config({"everything": reference_servers(tmp_path)["everything"]})
    out = tmp_path / "tree"
    generate(mcpfs, out)
    code = ("from servers.everything import get_sum\n"
            "from servers._runtime import McpBridgeError\n"
            "try:\n    get_sum(a=1, b=2)\n"
            "except McpBridgeError as e:\n    print(e)\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=out, capture_output=True, text=True,
                       env=clean_env({}))
    assert p.returncode == 0, p.stderr
    assert "mcpfs bridge --socket PATH" in p.stdout and "MCPFS_BRIDGE" in p.stdout


PY_CALLS = r'''
import json, threading
from servers.everything import get_sum, get_structured_content
from servers.hostile import echo_args, fails
from servers._runtime import McpToolError
out = {}
out["sum"] = get_sum(a=1, b=2)
out["structured"] = get_structured_content(location="Chicago")
out["echo"] = echo_args(a_b_2=7, class_="k", from_=True, str_="s", arg="empty key")
try:
    fails()
except McpToolError as e:
    out["error"] = [e.tool, e.server, str(e), e.content[0]["text"]]
results = []
threads = [threading.Thread(target=lambda i=i: results.append(get_sum(a=i, b=i)))
           for i in range(4)]
[t.start() for t in threads]
[t.join() for t in threads]
out["threads"] = sorted(results)
print(json.dumps(out))
'''

TS_CALLS = r'''
import { get_sum } from "./tree/servers/everything/get_sum";
import * as everything from "./tree/servers/everything";
import { echo_args, fails } from "./tree/servers/hostile";
import { McpToolError } from "./tree/servers/_runtime";
const out: Record<string, unknown> = {};
out.sum = await get_sum({ a: 1, b: 2 });
const s = await everything.get_structured_content({ location: "Chicago" });
out.structured = s;
out.temperatureIsNumber = typeof s.temperature === "number";
out.echo = await echo_args({ "a-b": 7, class: "k", "with space": "w" });
try {
	await fails();
} catch (e) {
	if (e instanceof McpToolError) out.error = [e.tool, e.server, e.message];
}
out.parallel = await Promise.all([1, 2, 3].map((i) => get_sum({ a: i, b: i })));
console.log(JSON.stringify(out));
'''


def test_generated_functions_call_real_tools(mcpfs, tmp_path):
    mcpfs.write_config({"everything": reference_servers(tmp_path)["everything"],
                        "hostile": hostile_servers()["hostile"]})
    out = tmp_path / "tree"
    generate(mcpfs, out)
    bridge = Bridge(mcpfs, tmp_path)
    try:
        p = subprocess.run([sys.executable, "-c", PY_CALLS], cwd=out, capture_output=True,
                           text=True, env=clean_env(bridge.env), timeout=120)
        assert p.returncode == 0, p.stderr
        got = json.loads(p.stdout)
        assert got["sum"] == "The sum of 1 and 2 is 3."
        assert set(got["structured"]) == {"temperature", "conditions", "humidity"}
        assert isinstance(got["structured"]["temperature"], (int, float))
        # Sanitized parameter names went out under their MCP names.
        assert got["echo"] == {"tool": "echo-args", "args": {
            "a-b": 7, "class": "k", "from": True, "str": "s", "": "empty key",
            "limit": 10, "mode": "fast", "ratio": 0.5, "flag": False}}
        assert got["error"][:2] == ["fails", "hostile"]
        assert "it failed on purpose" in got["error"][2] and got["error"][3]
        assert got["threads"] == [f"The sum of {i} and {i} is {2 * i}." for i in range(4)]

        if not (TS_RUNTIME / "dist" / "sucrase.js").exists():
            pytest.skip("executor/runtime/dist (the TypeScript runtime) is not built: make")
        script = tmp_path / "calls.ts"
        script.write_text(TS_CALLS)
        p = subprocess.run([*TS_RUN, str(script)], cwd=tmp_path,
                           capture_output=True, text=True, env=clean_env(bridge.env),
                           timeout=120)
        assert p.returncode == 0, p.stderr
        got = json.loads(p.stdout)
        assert got["sum"] == "The sum of 1 and 2 is 3."
        assert got["temperatureIsNumber"] is True
        assert got["echo"] == {"tool": "echo-args",
                               "args": {"a-b": 7, "class": "k", "with space": "w"}}
        assert got["error"][:2] == ["fails", "hostile"]
        assert got["parallel"] == [f"The sum of {i} and {i} is {2 * i}." for i in (1, 2, 3)]

        # Plain Node ESM, no loader: Node 22 strips the types itself, and the
        # tree's imports name their .ts files, so they resolve as written.
        plain = tmp_path / "calls_plain.ts"
        plain.write_text(TS_CALLS.replace('/get_sum"', '/get_sum.ts"')
                         .replace('/everything"', '/everything/index.ts"')
                         .replace('/hostile"', '/hostile/index.ts"')
                         .replace('/_runtime"', '/_runtime.ts"'))
        p = subprocess.run([node22(), str(plain)], cwd=tmp_path, capture_output=True,
                           text=True, env=clean_env(bridge.env), timeout=120)
        assert p.returncode == 0, p.stderr
        got = json.loads(p.stdout)
        assert got["sum"] == "The sum of 1 and 2 is 3." and got["error"][:2] == ["fails", "hostile"]
        assert got["parallel"] == [f"The sum of {i} and {i} is {2 * i}." for i in (1, 2, 3)]
    finally:
        bridge.stop()


# A program as a bundler user writes it: imports without extensions, a
# server's folder as a module, one tool file by name.
TS_BUNDLED = r'''
import * as ev from "./tree/servers/everything";
import { get_sum } from "./tree/servers/everything/get_sum";
import { fails } from "./tree/servers/hostile/index.ts";
import { McpToolError } from "./tree/servers/_runtime";
const out: Record<string, unknown> = {};
out.sum = await ev.get_sum({ a: 2, b: 3 });
out.direct = await get_sum({ a: 4, b: 5 });
out.structured = Object.keys(await ev.get_structured_content({ location: "Chicago" })).sort();
try {
	await fails();
} catch (e) {
	if (e instanceof McpToolError) out.error = [e.tool, e.server];
}
console.log(JSON.stringify(out));
'''


def test_esbuild_bundle_of_a_generated_tree_calls_real_tools(mcpfs, tmp_path):
    """Issue 23: the tree's relative imports resolve in a common bundler, and
    the bundle, run by plain node with no loader and no tree beside it,
    calls the real server through `mcpfs bridge`."""
    mcpfs.write_config({"everything": reference_servers(tmp_path)["everything"],
                        "hostile": hostile_servers()["hostile"]})
    generate(mcpfs, tmp_path / "tree")
    (tmp_path / "main.ts").write_text(TS_BUNDLED)
    bundle = tmp_path / "dist" / "main.mjs"
    p = subprocess.run([str(ESBUILD), "main.ts", "--bundle", "--platform=node",
                        "--format=esm", "--log-level=warning", f"--outfile={bundle}"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    code = bundle.read_text()
    assert "get_structured_content" in code and "McpToolError" in code
    (tmp_path / "tree").rename(tmp_path / "moved")  # the bundle needs none of it
    bridge = Bridge(mcpfs, tmp_path)
    try:
        p = subprocess.run(["node", str(bundle)], cwd=tmp_path / "dist", capture_output=True,
                           text=True, env=clean_env(bridge.env), timeout=120)
        assert p.returncode == 0, p.stderr
        assert json.loads(p.stdout) == {
            "sum": "The sum of 2 and 3 is 5.", "direct": "The sum of 4 and 5 is 9.",
            "structured": ["conditions", "humidity", "temperature"],
            "error": ["fails", "hostile"]}
    finally:
        bridge.stop()
