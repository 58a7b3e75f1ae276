"""Protocol details and faults, against SDK servers of ours (tests/node/servers):
pagination, audio, progress, server requests, crash, hang, garbage, oversized
messages, version negotiation, the child's environment, stderr into the log."""
import json
import os
import pty
import select
import subprocess
import time

import pytest

from conftest import EVERYTHING, everything_stdio, sdk_server
from conftest_mount import pid_alive, wait_until


def faults(*args):
    return sdk_server("sdk_faults.mjs", *args)


def test_paginated_tools_list_follows_every_cursor(mcpfs):
    mcpfs.write_config({"f": faults("--page", "3", "--extra", "10")})
    tools = mcpfs.json("tools", "f")
    names = [t["name"] for t in tools]
    assert len(names) == 24 and len(set(names)) == 24
    assert names[-1] == "filler_9"


def test_audio_content(mcpfs):
    mcpfs.write_config({"f": faults()})
    assert mcpfs.run("call", "f", "audio", check=0).stdout == "[audio: audio/wav, 52 bytes]\n"
    r = mcpfs.json("call", "f", "audio")
    assert r["content"][0]["type"] == "audio" and r["content"][0]["mimeType"] == "audio/wav"


def test_crash_mid_call_fails_at_once(mcpfs):
    mcpfs.write_config({"f": faults()})
    t0 = time.monotonic()
    p = mcpfs.run("call", "f", "crash", "--timeout", "120", check=3)
    assert time.monotonic() - t0 < 60
    assert "server 'f' exited with status 3" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_hang_times_out_and_cancels(mcpfs):
    mcpfs.write_config({"f": faults()})
    t0 = time.monotonic()
    p = mcpfs.run("call", "f", "hang", "--timeout", "1", check=3)
    assert time.monotonic() - t0 < 30  # the server hangs for ever
    assert "timed out after 1 s" in p.stderr
    log = (mcpfs.root / "logs" / "f.log").read_text()
    assert "sent notifications/cancelled" in log


def test_server_that_stops_reading_is_stopped(mcpfs):
    """A 1 MiB call to a server that no longer reads stdin fills the pipe:
    the write gives up once nothing was taken for the server's timeout, instead of
    blocking for ever."""
    mcpfs.write_config({"f": {**faults("--deaf"), "timeout": 2}})
    t0 = time.monotonic()
    p = mcpfs.run("call", "f", "echo", "-", input=json.dumps({"message": "x" * (1 << 20)}),
                  check=3, timeout=60)
    assert time.monotonic() - t0 < 45
    assert p.stderr == ("mcpfs: server 'f' stopped reading its stdin: nothing taken for 2 s; "
                        "it was stopped\n")
    log = (mcpfs.root / "logs" / "f.log").read_text()
    assert "stdin not read for 2000 ms: SIGKILL" in log


def _children(pid):
    try:
        return [int(c) for t in os.listdir(f"/proc/{pid}/task")
                for c in open(f"/proc/{pid}/task/{t}/children").read().split()]
    except OSError:
        return []


def test_server_dies_with_mcpfs_killed(mcpfs):
    """A server that never sees the end of its stdin (this one stops reading
    it) does not outlive an mcpfs killed with SIGKILL."""
    mcpfs.write_config({"f": faults("--deaf")})
    p = subprocess.Popen(mcpfs.cmd("call", "f", "echo", "-"), stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=mcpfs.env)
    try:
        p.stdin.write(json.dumps({"message": "x" * (1 << 20)}).encode())
        p.stdin.close()
        servers = wait_until(lambda: _children(p.pid), 30)
        assert servers, "the server never started"
        time.sleep(1.0)  # initialized, then deaf: the call waits on it
        assert all(pid_alive(s) for s in servers)
    finally:
        p.kill()
        p.wait()
    wait_until(lambda: not any(pid_alive(s) for s in servers), 5)
    left = [s for s in servers if pid_alive(s)]
    for s in left:
        os.kill(s, 9)
    assert not left, "the server outlived mcpfs"
    # the next run on the data root removes the sandbox's cgroups the
    # killed mcpfs left (else another test session could count them)
    mcpfs.run("exec", "-", input="pass\n", check=0)


def test_config_timeout_applies(mcpfs):
    mcpfs.write_config({"f": {**faults(), "timeout": 1}})
    p = mcpfs.run("call", "f", "hang", check=3)
    assert "timed out after 1 s" in p.stderr


def test_garbage_on_stdout_is_logged_and_skipped(mcpfs):
    """As the official SDK client does: the line goes to the server's log (the
    cap on such lines is in test_compat.py)."""
    mcpfs.write_config({"f": faults()})
    p = mcpfs.run("call", "f", "garbage", check=0)
    assert p.stdout == "after garbage\n"
    log = (mcpfs.root / "logs" / "f.log").read_text()
    assert "is not JSON-RPC" in log and "skipped: this is not json" in log


def test_oversized_message_is_capped(mcpfs):
    mcpfs.write_config({"f": faults()})
    t0 = time.monotonic()
    p = mcpfs.run("call", "f", "oversized", '{"mb": 40}', check=3)
    assert "passed the 32 MiB cap" in p.stderr
    assert time.monotonic() - t0 < 45


def test_unsupported_protocol_version_disconnects(mcpfs):
    mcpfs.write_config({"old": faults("--raw-version", "1999-01-01")})
    p = mcpfs.run("call", "old", "echo", check=3)
    assert "protocol version '1999-01-01'" in p.stderr


def test_older_protocol_version_accepted(mcpfs):
    mcpfs.write_config({"old": faults("--raw-version", "2024-11-05")})
    out = mcpfs.json("servers")
    assert out[0]["state"] == "ready", out


def test_roots_list_answers_configured_roots(mcpfs, tmp_path):
    mcpfs.write_config({"f": {**faults(), "roots": [str(tmp_path), "file:///srv"]}})
    p = mcpfs.run("call", "f", "roots", check=0)
    assert json.loads(p.stdout) == [{"uri": f"file://{tmp_path}"}, {"uri": "file:///srv"}]


def test_sampling_request_gets_a_clear_error(mcpfs):
    mcpfs.write_config({"f": faults()})
    p = mcpfs.run("call", "f", "sample", check=0)
    assert "-32601" in p.stdout and "does not support sampling here" in p.stdout
    assert "no model is attached to this call" in p.stdout


def test_server_everything_requests_answered(mcpfs):
    """everything sends roots/list and sampling requests of its own: no hang."""
    mcpfs.write_config({"everything": {**everything_stdio(), "roots": ["/tmp"]}})
    r = mcpfs.json("call", "everything", "echo", '{"message": "x"}')
    assert r["content"][0]["text"] == "Echo: x"


def test_progress_shown_on_a_terminal(mcpfs):
    mcpfs.write_config({"f": faults()})
    master, slave = pty.openpty()
    env = dict(mcpfs.env)
    p = subprocess.Popen(mcpfs.cmd("call", "f", "progress", '{"steps": 3}'), stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    seen = b""
    while True:
        r, _, _ = select.select([master], [], [], 30)
        if not r:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    out, _ = p.communicate(timeout=30)
    os.close(master)
    assert p.returncode == 0
    assert out.decode().startswith("token ")
    assert b"f/progress: 3/3 step 3" in seen, seen


def test_no_progress_token_without_a_terminal(mcpfs):
    mcpfs.write_config({"f": faults()})
    assert mcpfs.run("call", "f", "progress", check=0).stdout == "no token\n"


@pytest.mark.parametrize("sandbox", [True, False])
def test_minimal_environment_plus_config_env(mcpfs, sandbox):
    """A few variables of ours, then the config's. Sandboxed, HOME is the
    server's own home (server sandboxes), not ours."""
    mcpfs.write_config({"everything": {**everything_stdio(), "env": {"FROM_CONFIG": "yes"},
                                       **({} if sandbox else {"sandbox": False})}})
    r = mcpfs.json("call", "everything", "get-env", env={"LEAKED_SECRET": "no"})
    env = json.loads(r["content"][0]["text"])
    assert env["FROM_CONFIG"] == "yes"
    assert "LEAKED_SECRET" not in env and "MCPFS_ROOT" not in env and "PATH" in env
    if sandbox and os.geteuid() == 0:
        assert env["HOME"] == "/home/mcpfs" and "USER" not in env, env
    else:
        assert env["HOME"] == mcpfs.env["HOME"], env


def test_cwd_from_config(mcpfs, tmp_path):
    cwd = tmp_path / "cwd"  # beside the data root: a sandbox may not bind what holds it
    cwd.mkdir()
    mcpfs.write_config({"f": {"command": "sh", "args": ["-c", "pwd >&2; exec node \"$0\"",
                                                        faults()["args"][0]],
                              "cwd": str(cwd)}})
    mcpfs.run("call", "f", "echo", '{"message": "m"}', check=0)
    assert str(cwd) in (mcpfs.root / "logs" / "f.log").read_text()


def test_stderr_drained_into_the_log(mcpfs):
    """A server that writes a lot to stderr must not block."""
    script = "for i in $(seq 1 3000); do echo stderr-noise-line-$i >&2; done; exec node \"$0\""
    mcpfs.write_config({"f": {"command": "sh", "args": ["-c", script, faults()["args"][0]]}})
    p = mcpfs.run("call", "f", "echo", '{"message": "through"}', check=0)
    assert p.stdout == "through\n"
    log = (mcpfs.root / "logs" / "f.log").read_text()
    assert "stderr-noise-line-3000" in log


def test_server_killed_by_signal_reported(mcpfs):
    mcpfs.write_config({"k": {"command": "sh", "args": ["-c", "kill -9 $$"]}})
    p = mcpfs.run("call", "k", "x", check=3)
    assert "killed by signal 9" in p.stderr


def test_elicitation_accepted_with_schema_defaults(mcpfs):
    mcpfs.write_config({"f": faults()})
    r = json.loads(mcpfs.run("call", "f", "elicit", check=0).stdout)
    assert r == {"action": "accept", "content": {"name": "Ada", "age": 36, "ok": True}}


def test_elicitation_declined_when_a_required_field_has_no_default(mcpfs):
    mcpfs.write_config({"f": faults()})
    r = json.loads(mcpfs.run("call", "f", "elicit", '{"require_free": true}', check=0).stdout)
    assert r == {"action": "decline"}


def test_log_is_size_capped_with_rotation(mcpfs):
    script = "yes stderr-noise-for-rotation | head -c 1500000 >&2; exec node \"$0\""
    mcpfs.write_config({"f": {"command": "sh", "args": ["-c", script, faults()["args"][0]]}})
    mcpfs.run("call", "f", "echo", '{"message": "m"}', check=0)
    logs = mcpfs.root / "logs"
    assert (logs / "f.log.1").exists()
    assert (logs / "f.log").stat().st_size < 1 << 20
    assert (logs / "f.log.1").stat().st_size < (1 << 20) + (64 << 10)
