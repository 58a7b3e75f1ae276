"""Tool calls from jailed code through the run's bridge: many at once from
threads and from Promise.all, each answered with its own result; a call to
a tool that never answers ends at the server's timeout and the run goes on;
a tool's error reaches the code as McpToolError; processes forked after a
call (multiprocessing) make calls of their own. Calls in flight end with the
run (its timeout, or the code's exit); a result over the cap is an error.
Every call is counted."""
import json
import re
import time

import pytest

from conftest import everything_stdio, sdk_server
from conftest_executor import host_unchanged, run_code  # noqa: F401

pytestmark = pytest.mark.rootless

THREADS_PY = """
from concurrent.futures import ThreadPoolExecutor
from servers.everything import get_sum

def worker(k):
    return sum(get_sum(a=k, b=i) == f"The sum of {k} and {i} is {k + i}." for i in range(25))

with ThreadPoolExecutor(8) as ex:
    print(sum(ex.map(worker, range(8))))
"""

POOL_PY = """
import multiprocessing
from servers.everything import get_sum

def worker(k):
    return sum(get_sum(a=k, b=i) == f"The sum of {k} and {i} is {k + i}." for i in range(25))

print(get_sum(a=1, b=1))  # the parent's connection exists before the fork
with multiprocessing.Pool(4) as pool:
    print(sum(pool.map(worker, range(8))))
print(worker(100))
"""

PROMISE_ALL_TS = """
import * as everything from "./servers/everything";
const sums = await Promise.all(
  Array.from({ length: 50 }, (_, i) => everything.get_sum({ a: i, b: 1000 })));
const right = sums.filter((s, i) => s === `The sum of ${i} and 1000 is ${i + 1000}.`);
console.log(right.length);
"""

TIMEOUT_PY = """
import time
from servers._runtime import McpBridgeError, McpToolError
from servers.f import fail, hang
from servers.everything import get_sum
t0 = time.monotonic()
try:
    hang()
    print("ANSWERED")
except McpBridgeError as e:
    print(round(time.monotonic() - t0), "timed out" in str(e))
try:
    fail()
    print("NO ERROR")
except McpToolError as e:
    print(e.server, e.tool)
print(get_sum(a=1, b=2))
"""


def test_threads_each_get_their_own_results(mcpfs, host_unchanged):  # noqa: F811
    mcpfs.write_config({"everything": everything_stdio()})
    p, res = run_code(mcpfs, THREADS_PY)
    assert (res["exit_code"], res["stdout"]) == (0, "200\n"), res
    assert res["tool_calls"] == 200


def test_forked_processes_each_get_their_own_results(mcpfs, host_unchanged):  # noqa: F811
    mcpfs.write_config({"everything": everything_stdio()})
    p, res = run_code(mcpfs, POOL_PY)
    assert (res["exit_code"], res["stdout"]) == (0, "The sum of 1 and 1 is 2.\n200\n25\n"), res
    assert res["tool_calls"] == 226


def test_promise_all_each_get_their_own_results(mcpfs, host_unchanged):  # noqa: F811
    mcpfs.write_config({"everything": everything_stdio()})
    p, res = run_code(mcpfs, PROMISE_ALL_TS, lang="typescript")
    assert (res["exit_code"], res["stdout"]) == (0, "50\n"), res
    assert res["tool_calls"] == 50


def test_hung_tool_times_out_and_run_goes_on(mcpfs, host_unchanged):  # noqa: F811
    mcpfs.write_config({"everything": everything_stdio(),
                        "f": {**sdk_server("sdk_faults.mjs"), "timeout": 1}})
    t0 = time.monotonic()
    p, res = run_code(mcpfs, TIMEOUT_PY, "--customer", "acme", "--session", "s1")
    assert res["stdout"] == "1 True\nf fail\nThe sum of 1 and 2 is 3.\n", res
    assert res["exit_code"] == 0 and res["tool_calls"] == 3
    assert time.monotonic() - t0 < 30
    log = json.loads((mcpfs.root / "workspaces" / "acme" / "sessions" / "s1.json").read_text())
    calls = [(c["server"], c["tool"], c["ok"]) for c in log["tasks"][-1]["tool_calls"]]
    assert calls == [("f", "hang", False), ("f", "fail", False), ("everything", "get-sum", True)]
    by_tool = [(t["server"], t["tool"], t["calls"], t["failed"])
               for t in log["tasks"][-1]["tool_calls_by_tool"]]
    assert by_tool == [("f", "hang", 1, 1), ("f", "fail", 1, 1), ("everything", "get-sum", 1, 0)]
    assert "tool_calls_dropped" not in log["tasks"][-1]
    shown = mcpfs.run("session", "show", "acme", "s1", check=0).stdout
    assert "exit 0  3 tool calls, 2 failed" in shown, shown


def task_calls(mcpfs, customer, session):
    log = json.loads((mcpfs.root / "workspaces" / customer / "sessions" / f"{session}.json")
                     .read_text())
    return [(c["server"], c["tool"], c["ok"]) for c in log["tasks"][-1]["tool_calls"]]


def test_timeout_ends_a_run_with_a_call_in_flight(mcpfs, host_unchanged):  # noqa: F811
    """--timeout bounds the whole run: a call still waiting on its server,
    whose own timeout is a minute away, ends with the jail, and the server
    hears that it was cancelled."""
    mcpfs.write_config({"f": {**sdk_server("sdk_faults.mjs"), "timeout": 60}})
    t0 = time.monotonic()
    p, res = run_code(mcpfs, "from servers.f import hang\nhang()\n", "--timeout", "2",
                      "--customer", "acme", "--session", "s1")
    took = time.monotonic() - t0
    assert res["timed_out"] and res["limits"] == ["timeout"], res
    assert took < 8, f"mcpfs exec took {took:.1f} s with --timeout 2"
    assert task_calls(mcpfs, "acme", "s1") == [("f", "hang", False)]
    log = (mcpfs.root / "logs" / "f.log").read_text()
    assert re.search(r"tools/call 'hang' (cancelled|timed out after 1\.\d+ s): sent "
                     "notifications/cancelled", log), log[-2000:]


EXIT_IN_FLIGHT_PY = """
import threading, time
from servers.f import hang
threading.Thread(target=hang, daemon=True).start()
time.sleep(0.5)
print("done")
"""


def test_code_that_exits_with_a_call_in_flight_ends_the_run(mcpfs, host_unchanged):  # noqa: F811
    """Code that is gone reads no results: its calls in flight are cancelled
    and `mcpfs exec` returns at once, not at the run's or the call's timeout."""
    mcpfs.write_config({"f": {**sdk_server("sdk_faults.mjs"), "timeout": 60}})
    t0 = time.monotonic()
    p, res = run_code(mcpfs, EXIT_IN_FLIGHT_PY, "--timeout", "60", "--customer", "acme",
                      "--session", "s1")
    took = time.monotonic() - t0
    assert (res["exit_code"], res["stdout"], res["timed_out"]) == (0, "done\n", False), res
    assert took < 8, f"mcpfs exec took {took:.1f} s after the code exited"
    assert task_calls(mcpfs, "acme", "s1") == [("f", "hang", False)]


BIG_PY = """
from servers._runtime import McpBridgeError
from servers.f import big
try:
    big(mb=20)
    print("ANSWERED")
except McpBridgeError as e:
    print(e)
print(len(big(mb=1)))
"""


def test_result_over_the_cap_is_an_error_and_recorded_as_one(mcpfs, host_unchanged):  # noqa: F811
    """A result larger than the bridge's 16 MiB cap reaches the code as a
    one-line error, the run goes on, and the session log says it failed."""
    mcpfs.write_config({"f": sdk_server("sdk_faults.mjs")})
    p, res = run_code(mcpfs, BIG_PY, "--memory", "1024", "--customer", "acme",
                      "--session", "s1")
    first, second = res["stdout"].splitlines()
    assert first.startswith("tools/call: result of 209") and first.endswith(
        "bytes exceeds the bridge cap of 16777216 bytes"), res
    assert second == str(1 << 20) and res["exit_code"] == 0, res
    assert task_calls(mcpfs, "acme", "s1") == [("f", "big", False), ("f", "big", True)]
