"""Issue 23: mcpfs works with the servers and configs users already have.

Configs as the hosts write them (Claude Desktop's claude_desktop_config.json,
Claude Code's .mcp.json, VS Code's mcp.json with `servers` + `inputs`), found by
`mcpfs config` and used through --config or "imports"; unset variables disable
their server alone. Servers that misbehave a little, as real ones from the npm
registry do, played by tests/node/servers/sdk_compat.mjs: a banner on stdout
before JSON-RPC (time-mcp), invalid UTF-8 in one description, one schema past
the decoder's depth, one name three times, catalogs past the caps.
"""
import json
import sys

from conftest import everything_stdio, sdk_server


def compat(*args):
    return sdk_server("sdk_compat.mjs", *args)


# --- command line ----------------------------------------------------------


def test_version_and_one_line_usage_errors(mcpfs):
    p = mcpfs.run("--version", check=0, config=False)
    assert p.stdout.startswith("mcpfs ") and "MCP 2025-11-25" in p.stdout
    for args, names in ((["--bogus"], "'--bogus'"), ([], "no command"),
                        (["tools", "--bogus"], "'--bogus'"), (["tools", "-x"], "'-x'"),
                        (["workspace"], "no verb"), (["call", "x"], "arguments"),
                        (["--config"], "'--config'")):
        p = mcpfs.run(*args, check=2, config=False)
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and names in lines[0] and "--help'" in lines[0], p.stderr
        assert "usage:" not in p.stderr and p.stdout == ""


# --- configs users already have ---------------------------------------------


def test_one_unset_variable_disables_that_server_alone(mcpfs):
    mcpfs.write_config({
        "ev": everything_stdio(),
        "off": {"command": "${MCPFS_T_A}", "args": ["${env:MCPFS_T_B}", "${MCPFS_T_A}"],
                "env": {"K": "${MCPFS_T_C}"}},
    })
    servers = {s["name"]: s for s in mcpfs.json("servers")}
    assert servers["ev"]["state"] == "ready" and servers["ev"]["tools"] > 0
    off = servers["off"]
    assert off["state"] == "disabled"
    assert "${MCPFS_T_A}, ${env:MCPFS_T_B}, ${MCPFS_T_C}" in off["error"], off["error"]
    p = mcpfs.run("tools", check=3)
    assert "ev echo" in p.stdout
    assert "server 'off' is disabled" in p.stderr and "${MCPFS_T_C}" in p.stderr
    p = mcpfs.run("call", "off", "x", check=2)
    assert "${MCPFS_T_A}, ${env:MCPFS_T_B}, ${MCPFS_T_C}" in p.stderr
    mcpfs.run("call", "ev", "echo", '{"message": "hi"}', check=0)


def host_files(tmp):
    """The three hosts' files, each as its host writes it."""
    home = tmp / "home"
    project = tmp / "project"
    (home / ".config" / "Claude").mkdir(parents=True)
    (project / ".vscode").mkdir(parents=True)
    (home / ".config" / "Claude" / "claude_desktop_config.json").write_text(json.dumps({
        "mcpServers": {"desk": everything_stdio()}, "globalShortcut": "Ctrl+Space"}))
    (project / ".mcp.json").write_text(json.dumps({
        "mcpServers": {"code": {"type": "stdio", **everything_stdio(),
                                "env": {"WS": "${MCPFS_T_UNSET:-fallback}"}}}}))
    (project / ".vscode" / "mcp.json").write_text(json.dumps({
        "inputs": [{"type": "promptString", "id": "api-key", "description": "Key",
                    "password": True}],
        "servers": {
            # cwd fails to spawn unless ${workspaceFolder} became the project
            "vs": {"type": "stdio", **everything_stdio(), "cwd": "${workspaceFolder}/.vscode",
                   "env": {"HOME_TOO": "${env:HOME}"}},
            "vs-key": {"type": "stdio", "command": "node", "env": {"KEY": "${input:api-key}"}},
        }}))
    return home, project


def test_config_lists_the_hosts_files_and_the_one_in_use(mcpfs, tmp_path):
    home, project = host_files(tmp_path)
    env = {"HOME": str(home), "XDG_CONFIG_HOME": ""}
    p = mcpfs.run("config", check=0, config=False, env=env, cwd=project)
    assert "in use: (embedded default)" in p.stdout
    out = mcpfs.json("config", config=False, env=env, cwd=project)
    assert out["in_use"] == "(embedded default)"
    src = {s["name"]: s for s in out["sources"]}
    assert src["claude-desktop"]["found"] and src["claude-code"]["found"]
    assert src["vscode"]["found"] and not src["cursor"]["found"]
    assert [s["name"] for s in src["claude-desktop"]["servers"]] == ["desk"]
    vs = {s["name"]: s for s in src["vscode"]["servers"]}
    assert "disabled" not in vs["vs"] and "${input:api-key}" in vs["vs-key"]["disabled"]
    assert "${env:NAME}" in vs["vs-key"]["disabled"]


def test_each_hosts_file_works_with_config(mcpfs, tmp_path):
    home, project = host_files(tmp_path)
    env = {"HOME": str(home)}
    for path, name in ((home / ".config/Claude/claude_desktop_config.json", "desk"),
                       (project / ".mcp.json", "code"),
                       (project / ".vscode" / "mcp.json", "vs")):
        p = mcpfs.run("--config", path, "call", name, "echo", '{"message": "x"}', check=0,
                      config=False, env=env)
        assert "x" in p.stdout, (path, p.stderr)
    p = mcpfs.run("--config", project / ".vscode" / "mcp.json", "call", "vs-key", "x",
                  check=2, config=False, env=env)
    assert "${input:api-key}" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_imports_in_mcpfs_own_config(mcpfs, tmp_path):
    home, project = host_files(tmp_path)
    (project / "mcpfs.json").write_text(json.dumps({
        "imports": ["claude-desktop", "./.vscode/mcp.json"],
        "mcpServers": {"desk": {"command": "/nonexistent/ours-wins"}}}))
    env = {"HOME": str(home), "XDG_CONFIG_HOME": ""}
    out = mcpfs.json("config", config=False, env=env, cwd=project)
    assert out["in_use"] == "mcpfs.json"
    assert [s["name"] for s in out["servers"]] == ["desk", "vs", "vs-key"]
    p = mcpfs.run("call", "vs", "echo", '{"message": "imported"}', check=0, config=False,
                  env=env, cwd=project)
    assert "imported" in p.stdout
    p = mcpfs.run("call", "desk", "echo", check=3, config=False, env=env, cwd=project)
    assert "ours-wins" in p.stderr
    (project / "mcpfs.json").write_text(json.dumps({"imports": ["windsurf"]}))
    p = mcpfs.run("servers", check=2, config=False, env=env, cwd=project)
    assert "imports[0]: no config of 'windsurf' found" in p.stderr


def test_servers_says_which_config_it_used(mcpfs, tmp_path):
    """Without a config the demo servers no longer appear silently: the last
    line of `mcpfs servers` names the config in use, whichever it is."""
    home, project = host_files(tmp_path)
    env = {"HOME": str(home), "XDG_CONFIG_HOME": ""}
    hint = " (sources: 'mcpfs config')"

    def last_line(*args, cwd):
        p = mcpfs.run(*args, "servers", config=False, env=env, cwd=cwd, timeout=180)
        return p.stdout.strip().splitlines()[-1]

    assert last_line(cwd=project) == "config: (embedded default)" + hint
    desk = home / ".config" / "Claude" / "claude_desktop_config.json"
    assert last_line("--config", desk, cwd=project) == f"config: {desk}{hint}"
    (project / "mcpfs.json").write_text(json.dumps({"imports": ["claude-code"]}))
    assert last_line(cwd=project) == "config: mcpfs.json" + hint


# --- servers that misbehave a little ----------------------------------------


def test_banner_lines_on_stdout_are_logged_and_skipped(mcpfs):
    """time-mcp prints a banner before JSON-RPC; the SDK client logs it."""
    mcpfs.write_config({"c": compat("--banner", "3")})
    p = mcpfs.run("call", "c", "ok", check=0)
    assert p.stdout == "called ok\n"
    log = (mcpfs.root / "logs" / "c.log").read_text()
    assert log.count("is not JSON-RPC") == 3 and "sdk-compat banner line 2" in log


def test_banner_lines_have_a_cap(mcpfs):
    mcpfs.write_config({"c": compat("--banner", "1001")})
    p = mcpfs.run("call", "c", "ok", check=3)
    assert "more than 1000 stdout lines were not JSON-RPC" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_one_bad_tool_never_takes_out_the_server(mcpfs, tmp_path):
    """Invalid UTF-8 in one description is repaired (U+FFFD); a schema deeper
    than the decoder's limit and the repeats of one name are skipped, and said
    so in `tools`, the server's log, and the server's README."""
    mcpfs.write_config({"c": compat()})
    tools = mcpfs.json("tools", "c")
    names = [t["name"] for t in tools]
    assert names == ["ok", "bad_utf8", "same"]
    assert tools[1]["description"].startswith("Broken \ufffd")
    assert tools[2]["description"] == "The first same."
    p = mcpfs.run("tools", "c", check=0)
    assert "skipped tool 'deep': its definition is nested deeper than 2000 levels" in p.stderr
    assert p.stderr.count("a second tool named 'same'") == 2
    log = (mcpfs.root / "logs" / "c.log").read_text()
    assert "skipped tool 'deep'" in log
    mcpfs.run("call", "c", "bad_utf8", check=0)
    out = tmp_path / "tree"
    p = mcpfs.run("generate", "--out", out, check=0)
    assert "server 'c': skipped tool 'deep'" in p.stderr
    assert p.stderr.count("a second tool named 'same'") == 2
    readme = (out / "servers" / "c" / "README.md").read_text()
    assert "deep" in readme and "nested deeper than 2000 levels" in readme
    assert "a second tool named 'same'" in readme
    assert not (out / "servers" / "c" / "same_2.py").exists()


def test_catalog_caps_are_configurable_with_a_clear_error(mcpfs):
    mcpfs.write_config({"c": {**compat("--pages", "3", "--per-page", "40"), "max_tools": 100}})
    p = mcpfs.run("tools", "c", check=1)
    assert "more than 100 tools (raise \"max_tools\" in its config)" in p.stderr
    mcpfs.write_config({"c": {**compat("--pages", "3", "--per-page", "40"), "max_tools": 120}})
    assert len(mcpfs.json("tools", "c")) == 120
    mcpfs.write_config({"c": {**compat("--pages", "3", "--per-page", "40"),
                              "max_catalog_bytes": 4000}})
    p = mcpfs.run("tools", "c", check=1)
    assert "more than 4000 bytes of tools (raise \"max_catalog_bytes\"" in p.stderr


def test_catalog_pages_are_bounded_by_the_caps_not_counted(mcpfs):
    """1,500 pages of one tool load (pages were capped at 1,000); a server
    whose cursors never end meets the tool cap even with empty pages."""
    mcpfs.write_config({"c": compat("--pages", "1500", "--per-page", "1")})
    tools = mcpfs.json("tools", "c")
    assert len(tools) == 1500 and tools[-1]["name"] == "t_1499_0"
    mcpfs.write_config({"c": {**compat("--pages", "1000000", "--per-page", "0"),
                              "max_tools": 50}})
    p = mcpfs.run("tools", "c", check=1)
    assert "tools/list: 51 empty pages, and its cursors do not end" in p.stderr


def test_tools_and_generate_exit_3_when_a_server_cannot_be_reached(mcpfs, tmp_path):
    mcpfs.write_config({"ev": everything_stdio(), "gone": {"command": "/nonexistent/srv"}})
    p = mcpfs.run("tools", check=3)
    assert "ev echo" in p.stdout and "gone" in p.stderr
    p = mcpfs.run("generate", "--out", tmp_path / "t", check=3)
    assert "1 unreachable" in p.stdout
    assert (tmp_path / "t" / "servers" / "ev" / "echo.py").exists()


def test_deep_schema_json_file_is_bounded(mcpfs, tmp_path):
    """Pretty-printing indents at most 32 levels: a 1,500-level schema's
    .json stays near its compact size (it was quadratic in depth)."""
    sys.setrecursionlimit(20000)  # Python's own decoder stops at 1,000 levels
    mcpfs.write_config({"c": compat("--deep", "1500")})
    tools = {t["name"]: t for t in mcpfs.json("tools", "c")}
    assert "deep" in tools
    del tools["deep"]["server"]
    compact = len(json.dumps(tools["deep"], separators=(",", ":")))
    out = tmp_path / "tree"
    mcpfs.run("generate", "--out", out, check=0)
    path = out / "servers" / "c" / "deep.json"
    assert json.loads(path.read_text()) == tools["deep"]
    assert path.stat().st_size < 2 * compact + 4096, (path.stat().st_size, compact)
    assert (out / "servers" / "c" / "deep.py").exists()


def test_what_the_model_reads_from_a_real_server(mcpfs, tmp_path):
    """server-everything (npm): its 1,575 characters of instructions in its
    README; constraints, defaults in Python syntax and annotations in the
    docstrings and JSDoc; every Args entry says something."""
    mcpfs.write_config({"everything": everything_stdio(), "c": compat()})
    out = tmp_path / "tree"
    mcpfs.run("generate", "--out", out, check=0)
    readme = (out / "servers" / "everything" / "README.md").read_text()
    assert "The server's instructions:" in readme and "> # Everything Server" in readme
    assert "Call ok first. These instructions end here." in (
        out / "servers" / "c" / "README.md").read_text()
    py = (out / "servers" / "everything" / "gzip_file_as_resource.py").read_text()
    assert "Format: uri." in py and 'Allowed: "resourceLink", "resource".' in py
    assert "Hints from the server:" in py
    links = (out / "servers" / "everything" / "get_resource_links.py").read_text()
    assert "From 1 to 10. Default: 3." in links
    ts = (out / "servers" / "everything" / "get_resource_links.ts").read_text()
    assert "From 1 to 10. Default: 3." in ts
    for f in (out / "servers" / "everything").glob("*.py"):
        text = f.read_text()
        assert "false." not in text and "Default: null" not in text, f
        args = text.split("Args:\n", 1)[-1].split("\n\n", 1)[0]
        for line in args.splitlines():
            assert not line.rstrip().endswith(":"), (f.name, line)
