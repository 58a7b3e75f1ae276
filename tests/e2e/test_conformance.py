"""The MCP conformance suite (@modelcontextprotocol/conformance, client mode)
against the mcpfs binary, through tests/conformance_client.sh. Every
scenario must pass with all checks green and no warnings."""
import os
import re
import subprocess

import pytest

from conftest import REPO, TESTS_NM, node22

CONFORMANCE = TESTS_NM / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
CLIENT = REPO / "tests" / "conformance_client.sh"
SCENARIOS = [
    "initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults",
    # OAuth (servers/oauth*.c): tests/conformance_client.sh logs in when mcpfs
    # says to, with tests/oauth_browser.sh as the browser.
    "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
    "auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none", "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported",
    "auth/client-credentials-jwt", "auth/client-credentials-basic",
    "auth/cross-app-access-complete-flow",
]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_conformance(mcpfs, scenario, tmp_path):
    if not CONFORMANCE.exists():
        pytest.skip("tests/node has no @modelcontextprotocol/conformance: run 'make deps'")
    env = dict(mcpfs.env)
    env["PATH"] = f"{TESTS_NM / '.bin'}:{env['PATH']}"
    env["MCPFS_BIN"] = mcpfs.binary
    p = subprocess.run(
        [node22(), str(CONFORMANCE), "client", "--command", f"sh {CLIENT}",
         "--scenario", scenario, "--timeout", "20000"],
        capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    out = re.sub(r"\x1b\[[0-9;]*m", "", p.stdout + p.stderr)
    assert "sanitizer" not in out.lower(), out
    assert p.returncode == 0, out
    m = re.search(r"Passed: (\d+)/(\d+), (\d+) failed, (\d+) warnings", out)
    assert m, out
    passed, total, failed, warnings = map(int, m.groups())
    assert total > 0 and passed == total and failed == 0 and warnings == 0, out
    assert "OVERALL: PASSED" in out, out


def test_every_client_scenario_is_run():
    # A scenario the suite adds must not pass by being left out.
    if not CONFORMANCE.exists():
        pytest.skip("tests/node has no @modelcontextprotocol/conformance: run 'make deps'")
    p = subprocess.run([node22(), str(CONFORMANCE), "list", "--client"], capture_output=True,
                       text=True, timeout=120)
    listed = re.findall(r"^\s+- (\S+)", re.sub(r"\x1b\[[0-9;]*m", "", p.stdout), re.M)
    assert listed and sorted(listed) == sorted(SCENARIOS), listed
