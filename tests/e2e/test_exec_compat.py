"""Compatibility: everyday Python and Node programs run in the jail many
times with the same output and never a SIGSYS. The count is
$MCPFS_COMPAT_RUNS: 200 by default, in each build; `make bench` runs them again."""
import json
import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest_executor import JAIL, exec_config, host_unchanged  # noqa: F401

pytestmark = pytest.mark.rootless

RUNS = int(os.environ.get("MCPFS_COMPAT_RUNS", "200"))

EXPECTED = {
    "compat.py": {"child": "child ok", "echoed": "async ok", "re": ["xok", "yok"], "sqlite": 6,
                  "squares": 285, "threads": 8},
    "compat.ts": {"worker": 42, "child": "child ok", "fsText": "hello", "sha": "f2c5ba373cc5",
                  "zipped": "zlib ok", "wasm": 42},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_compat_runs(mcpfs, host_unchanged, name):  # noqa: F811
    exec_config(mcpfs)
    prog = JAIL / "compat" / name

    def one(_):
        p = mcpfs.run("exec", "--json", prog, timeout=120)
        return p.returncode, json.loads(p.stdout) if p.stdout else p.stderr

    with ThreadPoolExecutor(2) as ex:
        results = list(ex.map(one, range(RUNS)))
    bad = [r for r in results if r[0] != 0 or not isinstance(r[1], dict)
           or r[1]["signal"] != 0 or json.loads(r[1]["stdout"]) != EXPECTED[name]]
    assert bad == [], f"{len(bad)} of {RUNS} runs differed, first: {bad[0]}"
