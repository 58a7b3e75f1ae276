"""mcpfs servers / tools / call: options, output shapes, exit codes, config errors."""
import json
import time

from conftest import EVERYTHING, everything_stdio, sdk_server


def test_help_for_every_command(mcpfs):
    for cmd in ("servers", "tools", "call"):
        p = mcpfs.run(cmd, "--help", check=0)
        assert p.stdout.startswith(f"usage: mcpfs {cmd}"), p.stdout


def test_bad_options_are_usage_errors(mcpfs):
    mcpfs.write_config({"everything": everything_stdio()})
    assert mcpfs.run("servers", "--bogus").returncode == 2
    assert mcpfs.run("tools", "a", "b").returncode == 2
    assert mcpfs.run("call", "everything").returncode == 2
    p = mcpfs.run("call", "everything", "echo", "--timeout", "soon", check=2)
    assert "--timeout" in p.stderr


def test_bad_config_is_one_line_naming_file_server_field(mcpfs):
    mcpfs.config_path.write_text(json.dumps(
        {"mcpServers": {"good": everything_stdio(),
                        "broken": {"command": "node", "args": "not-a-list"}}}))
    p = mcpfs.run("servers", check=2)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert str(mcpfs.config_path) in lines[0]
    assert "server 'broken'" in lines[0] and "field 'args'" in lines[0]


def test_malformed_json_config_gives_line_and_column(mcpfs):
    mcpfs.config_path.write_text('{"mcpServers": {\n  "a": {"command": "x",}\n}}')
    p = mcpfs.run("tools", check=2)
    assert f"{mcpfs.config_path}:2:" in p.stderr, p.stderr
    assert "invalid JSON" in p.stderr


def test_unset_variable_names_the_variable(mcpfs):
    """The server is disabled, not the config (more in test_compat.py)."""
    mcpfs.write_config({"a": {"command": "node", "env": {"T": "${MCPFS_NO_SUCH_VAR}"}}})
    p = mcpfs.run("call", "a", "x", check=2)
    assert "server 'a' is disabled" in p.stderr
    assert "not set in the environment: ${MCPFS_NO_SUCH_VAR}" in p.stderr


def test_variables_expand_from_the_environment(mcpfs):
    mcpfs.write_config({"everything": {"command": "node", "args": ["${EVERYTHING_JS}", "stdio"]}})
    tools = mcpfs.json("tools", "everything", env={"EVERYTHING_JS": EVERYTHING})
    assert any(t["name"] == "echo" for t in tools)


def test_servers_form_with_type(mcpfs):
    mcpfs.write_config({"ev": {"type": "stdio", **everything_stdio()}}, key="servers")
    out = mcpfs.json("servers")
    assert out[0]["name"] == "ev" and out[0]["state"] == "ready"


def test_tools_json_is_mcp_tools_plus_server(mcpfs):
    mcpfs.write_config({"everything": everything_stdio()})
    tools = mcpfs.json("tools")
    names = {t["name"] for t in tools}
    assert {"echo", "get-sum", "get-structured-content"} <= names
    for t in tools:
        assert t["server"] == "everything"
        assert t["inputSchema"]["type"] == "object"
    assert any("outputSchema" in t for t in tools)


def test_tools_text_one_line_per_tool(mcpfs):
    mcpfs.write_config({"everything": everything_stdio()})
    p = mcpfs.run("tools", "everything", check=0)
    lines = p.stdout.splitlines()
    assert len(lines) == len(mcpfs.json("tools", "everything"))
    assert any(l.startswith("everything echo Echoes back") for l in lines), p.stdout


def test_unknown_server(mcpfs):
    mcpfs.write_config({"everything": everything_stdio()})
    assert "no server named 'nope'" in mcpfs.run("tools", "nope", check=2).stderr
    assert "no server named 'nope'" in mcpfs.run("call", "nope", "x", check=2).stderr


def test_call_text_and_json(mcpfs):
    mcpfs.write_config({"everything": everything_stdio()})
    p = mcpfs.run("call", "everything", "echo", '{"message": "hello there"}', check=0)
    assert p.stdout == "Echo: hello there\n"
    r = mcpfs.json("call", "everything", "get-sum", '{"a": 2, "b": 40}')
    assert r["content"][0]["text"].endswith("is 42.")
    assert not r.get("isError")


def test_call_args_from_stdin(mcpfs):
    mcpfs.write_config({"everything": everything_stdio()})
    p = mcpfs.run("call", "everything", "echo", "-", input='{"message": "piped"}', check=0)
    assert p.stdout == "Echo: piped\n"


def test_call_bad_args_json_exits_2(mcpfs):
    mcpfs.write_config({"everything": everything_stdio()})
    p = mcpfs.run("call", "everything", "echo", "{not json", check=2)
    assert "ARGS_JSON" in p.stderr and "1:" in p.stderr
    p = mcpfs.run("call", "everything", "echo", "[1, 2]", check=2)
    assert "must be a JSON object" in p.stderr


def test_call_unknown_tool_is_error_result_exit_1(mcpfs):
    mcpfs.write_config({"everything": everything_stdio()})
    p = mcpfs.run("call", "everything", "no-such-tool", check=1)
    assert "no-such-tool" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    r = json.loads(mcpfs.run("call", "everything", "no-such-tool", "--json", check=1).stdout)
    assert r["isError"] is True


def test_call_unreachable_exits_3(mcpfs):
    mcpfs.write_config({"ghost": {"command": "/nonexistent/server-binary"}})
    p = mcpfs.run("call", "ghost", "x", check=3)
    assert "ghost" in p.stderr and "No such file" in p.stderr


def test_broken_server_never_hides_the_others(mcpfs):
    mcpfs.write_config({
        "everything": everything_stdio(),
        "broken": {"command": "sh", "args": ["-c", "echo 'cannot start: missing key' >&2; exit 4"]},
        "ghost": {"command": "/nonexistent/server-binary"},
    })
    out = {s["name"]: s for s in mcpfs.json("servers")}
    # 15: server-everything adds trigger-elicitation-request and
    # trigger-sampling-request for clients that declare elicitation and
    # sampling, as mcpfs does.
    assert out["everything"]["state"] == "ready" and out["everything"]["tools"] == 15
    assert out["broken"]["state"] == "failed"
    assert "exited with status 4" in out["broken"]["error"]
    assert "cannot start: missing key" in out["broken"]["log_tail"]
    assert out["ghost"]["state"] == "failed"
    p = mcpfs.run("tools", check=3)
    assert "everything echo" in p.stdout
    assert "broken" in p.stderr and "ghost" in p.stderr
    text = mcpfs.run("servers", check=0).stdout
    assert "failed" in text and "ready" in text


def test_slow_server_does_not_delay_the_others_past_the_timeout(mcpfs):
    mcpfs.write_config({
        "everything": everything_stdio(),
        "slow": {"command": "sleep", "args": ["60"]},
    })
    t0 = time.monotonic()
    # 20 s: everything starts within it on a loaded machine; slow's 60 s do not
    out = {s["name"]: s for s in mcpfs.json("servers", "--timeout", "20")}
    elapsed = time.monotonic() - t0
    assert out["everything"]["state"] == "ready"
    assert out["slow"]["state"] == "failed" and "timed out" in out["slow"]["error"]
    assert elapsed < 20 + 25, elapsed


def test_embedded_default_config(mcpfs):
    """No --config, no files: the three reference servers."""
    out = {s["name"]: s for s in mcpfs.json("servers", config=False)}
    assert set(out) == {"everything", "filesystem", "memory"}
    assert all(s["state"] == "ready" for s in out.values()), out
    assert out["filesystem"]["scope"] == "customer"
    assert (mcpfs.root / "workspaces" / "default" / "workspace").is_dir()


def test_catalog_cache_and_logs_written(mcpfs):
    mcpfs.write_config({"everything": everything_stdio()})
    mcpfs.run("tools", check=0)
    cache = json.loads((mcpfs.root / "cache" / "catalogs" / "everything.json").read_text())
    assert len(cache["tools"]) == 15 and cache["config_hash"]
    log = (mcpfs.root / "logs" / "everything.log").read_text()
    assert "initialized: protocol 2025-11-25" in log


def test_server_without_a_catalog_reported_failed_once(mcpfs):
    """Connects, then never answers tools/list: reported, and not asked twice.
    Its own timeout cuts it short (the default is 60 s); everything has the
    default, which a loaded machine needs to start it."""
    mute = sdk_server("sdk_faults.mjs", "--raw-version", "2025-06-18", "--raw-no-list")
    mcpfs.write_config({"everything": everything_stdio(), "mute": {**mute, "timeout": 2}})
    t0 = time.monotonic()
    p = mcpfs.run("tools", check=3)
    assert time.monotonic() - t0 < 45
    assert "everything echo" in p.stdout
    assert "mute" in p.stderr and "tools/list timed out" in p.stderr
    out = {s["name"]: s for s in mcpfs.json("servers")}
    assert out["mute"]["state"] == "failed" and out["everything"]["state"] == "ready"


def test_servers_check_exits_3_when_one_is_down(mcpfs):
    mcpfs.write_config({"everything": everything_stdio()})
    mcpfs.run("servers", "--check", check=0)
    mcpfs.write_config({"everything": everything_stdio(),
                        "ghost": {"command": "/nonexistent/server-binary"},
                        "unset": {"command": "node", "args": ["${MCPFS_TEST_UNSET_VAR}"]}})
    p = mcpfs.run("servers", "--check", check=3)
    assert "ghost" in p.stdout and "everything" in p.stdout
    assert p.stderr.splitlines()[-1] == "mcpfs: servers: 2 of 3 not ready", p.stderr
    mcpfs.run("servers", check=0)  # without --check a report is a success


def test_servers_names_starts_nothing(mcpfs):
    mcpfs.write_config({"b": {"command": "/nonexistent/server-binary"},
                        "a": everything_stdio()})
    p = mcpfs.run("servers", "--names", check=0)
    assert p.stdout == "a\nb\n" and p.stderr == ""
    assert not (mcpfs.root / "logs").exists() or not any((mcpfs.root / "logs").iterdir())


def test_one_tool_reads_one_tool(mcpfs, tmp_path):
    mcpfs.write_config({"slow": sdk_server("slow_list.mjs", "--delay", "0")})
    p = mcpfs.run("generate", "--out", tmp_path / "t", check=0)
    assert p.stdout.startswith(f"generated {tmp_path / 't'}: 1 server, 1 tool, "), p.stdout
    readme = (tmp_path / "t" / "servers" / "slow" / "README.md").read_text()
    assert "\n1 tool. Each is" in readme, readme[:300]
