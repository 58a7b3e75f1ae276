"""The rest of MCP on the client side: a tool that requires a task
(server-everything's simulate-research-query) is called as one, from the
command line and from jailed code, and cancelled on timeout, also the run's;
a tool that allows one (tests/node/servers/sdk_tasks.mjs) is called as one;
progress reaches jailed Python and TypeScript; initialize is
bounded by `call --timeout` and never cancelled (the spec forbids it); form
elicitation is declared and answered, URL mode refused with -32602;
"logLevel" is sent as logging/setLevel and the server's messages land in
its log."""
import json
import os
import socket
import subprocess
import time

from conftest import TEST_SERVERS, everything_stdio
from conftest_executor import exec_config, host_unchanged, run_code  # noqa: F401


def test_required_task_tool_from_call(mcpfs):
    mcpfs.write_config({"everything": everything_stdio()})
    p = mcpfs.run("call", "everything", "simulate-research-query", '{"topic": "bees"}',
                  "--json", timeout=120, check=0)
    res = json.loads(p.stdout)
    assert not res.get("isError"), res
    assert "# Research Report: bees" in res["content"][0]["text"]


def test_required_task_tool_from_jailed_python(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, "from servers.everything import simulate_research_query\n"
                             "print(simulate_research_query(topic='ants').splitlines()[0])\n")
    assert res["exit_code"] == 0, res
    assert res["stdout"] == "# Research Report: ants\n", res
    assert res["tool_calls"] == 1


def test_task_timeout_cancels_the_task(mcpfs):
    mcpfs.write_config({"everything": everything_stdio()})
    t0 = time.monotonic()
    p = mcpfs.run("call", "--timeout", "2", "everything", "simulate-research-query",
                  '{"topic": "bees"}', timeout=120)
    assert p.returncode == 3, p.stderr
    assert "timed out" in p.stderr and p.stderr.count("\n") == 1, p.stderr
    assert time.monotonic() - t0 < 60
    log = (mcpfs.root / "logs" / "everything.log").read_text()
    assert "sent tasks/cancel for task" in log, log[-2000:]


PROGRESS_PY = """
import json
from servers._runtime import on_progress
from servers.everything import simulate_research_query, trigger_long_running_operation
seen = []
on_progress(seen.append)
simulate_research_query(topic='ants')
trigger_long_running_operation(duration=2, steps=4)
print(json.dumps(seen))
"""

PROGRESS_TS = """
import { onProgress } from "./servers/_runtime";
import * as everything from "./servers/everything";
const seen: unknown[] = [];
onProgress((p) => seen.push(p));
await everything.simulate_research_query({ topic: "ants" });
await everything.trigger_long_running_operation({ duration: 2, steps: 4 });
console.log(JSON.stringify(seen));
"""


def check_progress(seen):
    task = [s for s in seen if s["tool"] == "simulate-research-query"]
    steps = [s for s in seen if s["tool"] == "trigger-long-running-operation"]
    assert all(s["server"] == "everything" for s in seen), seen
    # The task's status messages, polled with tasks/get.
    assert task and all(s.get("message") for s in task), seen
    # The server's own notifications, with their totals.
    assert steps and all(s["total"] == 4 for s in steps), seen
    assert [s["progress"] for s in steps] == sorted(s["progress"] for s in steps), seen


def test_progress_reaches_jailed_python(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, PROGRESS_PY)
    assert res["exit_code"] == 0, (p.stderr, res)
    check_progress(json.loads(res["stdout"]))


def test_progress_reaches_jailed_typescript(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, PROGRESS_TS, lang="typescript")
    assert res["exit_code"] == 0, (p.stderr, res)
    check_progress(json.loads(res["stdout"]))


def test_optional_task_tool_is_called_as_a_task(mcpfs, host_unchanged):  # noqa: F811
    # crunch allows a task (taskSupport "optional") on a server that takes
    # them: called as one, its status messages reach the code as progress;
    # called plainly, the SDK would poll for itself and none would.
    mcpfs.write_config({"tasks": {"command": "node",
                                  "args": [str(TEST_SERVERS / "sdk_tasks.mjs")]}})
    p, res = run_code(mcpfs, "import json\n"
                             "from servers._runtime import on_progress\n"
                             "from servers.tasks import crunch\n"
                             "seen = []\n"
                             "on_progress(seen.append)\n"
                             "print(crunch(steps=3))\n"
                             "print(json.dumps(seen))\n")
    assert res["exit_code"] == 0, (p.stderr, res)
    out, seen = res["stdout"].splitlines()
    assert out == "crunched 3 stages", res
    messages = [s.get("message") for s in json.loads(seen)]
    assert "stage 1 of 3" in messages or "stage 2 of 3" in messages, messages


def test_run_timeout_cancels_its_task(mcpfs, host_unchanged):  # noqa: F811
    # The research task takes about 10 s; the run ends at 3 s. The server must
    # hear tasks/cancel for it (and answer it) before mcpfs lets it go.
    exec_config(mcpfs)
    p, res = run_code(mcpfs, "from servers.everything import simulate_research_query\n"
                             "print(simulate_research_query(topic='ants'))\n",
                      "--timeout", "3")
    assert res["timed_out"], res
    log = (mcpfs.root / "logs" / "everything.log").read_text()
    sent = [line for line in log.splitlines() if "sent tasks/cancel for task" in line]
    assert len(sent) == 1, log[-2000:]
    assert sent[0].rstrip().split("sent tasks/cancel for task ")[1].count(" ") == 0, sent


def test_initialize_bounded_by_timeout_and_never_cancelled(mcpfs):
    (mcpfs.tmp / "heard").mkdir()
    if os.geteuid() == 0:  # a shared server's sandbox writes as uid 64001
        os.chown(mcpfs.tmp / "heard", 64001, 64001)
    heard = mcpfs.tmp / "heard" / "heard.jsonl"
    # A server that reads and never answers (its sandbox may write the file).
    mcpfs.write_config({"silent": {"command": "sh", "args": ["-c", f"cat > {heard}"],
                                   "sandbox": {"rw": [str(heard.parent)]}}})
    t0 = time.monotonic()
    p = mcpfs.run("call", "--timeout", "3", "silent", "anything", timeout=120)
    took = time.monotonic() - t0
    assert p.returncode == 3 and "initialize timed out" in p.stderr, p.stderr
    assert took < 25, f"the default connect timeout (30 s) was used: {took:.1f} s"
    deadline = time.monotonic() + 30
    while not heard.exists() or "initialize" not in heard.read_text():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    msgs = [json.loads(line) for line in heard.read_text().splitlines()]
    methods = [m.get("method") for m in msgs]
    assert methods[0] == "initialize"
    assert "notifications/cancelled" not in methods, methods
    # What mcpfs declares: form elicitation (answered), not URL mode.
    assert msgs[0]["params"]["capabilities"]["elicitation"] == {"form": {}}


def test_form_elicitation_answered(mcpfs):
    # server-everything asks only clients that declare elicitation; its form
    # has required fields without defaults, so mcpfs (no person to ask)
    # declines, and the tool says so.
    mcpfs.write_config({"everything": everything_stdio()})
    p = mcpfs.run("call", "everything", "trigger-elicitation-request", "{}", timeout=120,
                  check=0)
    assert "declined" in p.stdout, p.stdout
    log = (mcpfs.root / "logs" / "everything.log").read_text()
    assert "declined an elicitation" in log


def test_log_level_and_server_messages(mcpfs):
    mcpfs.write_config({"everything": {**everything_stdio(), "logLevel": "debug"}})
    sock = mcpfs.tmp / "b.sock"
    bridge = subprocess.Popen(mcpfs.cmd("bridge", "--socket", sock), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=mcpfs.env)
    try:
        env = dict(bridge.stdout.readline().strip().split("=", 1) for _ in range(2))
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(str(sock))
        f = s.makefile("rb")
        for i, (method, params) in enumerate([
                ("auth", {"token": env["MCPFS_BRIDGE_TOKEN"]}),
                ("tools/call", {"server": "everything", "name": "toggle-simulated-logging",
                                "arguments": {}})]):
            s.sendall(json.dumps({"jsonrpc": "2.0", "id": i, "method": method,
                                  "params": params}).encode() + b"\n")
            assert "result" in json.loads(f.readline())
        log = mcpfs.root / "logs" / "everything.log"
        deadline = time.monotonic() + 60  # the server logs every 5 s
        while log.read_text().count("server log [") < 2:
            assert time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.1)
        assert "logging/setLevel debug: ok" in log.read_text()
        s.close()
    finally:
        bridge.terminate()
        bridge.communicate(timeout=60)


def test_bad_log_level_is_one_line(mcpfs):
    mcpfs.write_config({"everything": {**everything_stdio(), "logLevel": "loud"}})
    p = mcpfs.run("servers", timeout=60)
    assert p.returncode == 2 and "logLevel" in p.stderr and p.stderr.count("\n") == 1, p.stderr


def test_url_elicitation_refused_and_url_shown(mcpfs):
    from conftest import sdk_server
    mcpfs.write_config({"f": sdk_server("sdk_faults.mjs")})
    # URL mode is not declared: the server's request gets -32602.
    p = mcpfs.run("call", "f", "elicit", '{"url": true}', timeout=120, check=0)
    assert "url elicitation refused: -32602" in p.stdout, p.stdout
    # A -32042 error names the URL the person must open.
    p = mcpfs.run("call", "f", "needs_url", "{}", timeout=120)
    assert p.returncode == 1, p.stderr
    assert "open https://consent.example.test/e2 to go on" in p.stderr, p.stderr
    assert p.stderr.count("\n") == 1
