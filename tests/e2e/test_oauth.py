"""OAuth for remote servers (servers/oauth*.c) against an authorization
server of our own (tests/node/servers/oauth_server.mjs): login through the
loopback redirect, calls, expiry and refresh (before expiry, and on a 401 the
local expiry did not foresee), a rotating refresh token renewed by two
processes at once, revocation, a step-up on 403, a changed URL, a server with
no way to register, no token in session records, and bad input that must
fail in one line and store nothing."""
import json
import os
import stat
import subprocess
import time
import urllib.request

import pytest

from conftest import REPO, TEST_SERVERS
from conftest_http import PROBE, http_server  # noqa: F401 (fixture)
from conftest_executor import run_code
from conftest_mount import mounted, wait_until  # noqa: F401 (fixture)

SERVER = str(TEST_SERVERS / "oauth_server.mjs")
BROWSER = f"sh {REPO / 'tests' / 'oauth_browser.sh'}"
LOGIN_HINT = "run `mcpfs login remote`"


def start(http_server, mcpfs, env=None, config=None):  # noqa: F811
    srv = http_server(SERVER, env=env or {})
    mcpfs.write_config({"remote": {"url": srv.url("/mcp"), **(config or {})}})
    return srv


def stats(srv) -> dict:
    with urllib.request.urlopen(srv.url("/_stats"), timeout=30) as r:
        return json.load(r)


def post(srv, path: str) -> dict:
    with urllib.request.urlopen(urllib.request.Request(srv.url(path), method="POST"),
                                timeout=30) as r:
        return json.load(r)


def lock_waiters(path) -> int:
    """Processes blocked in flock() on @path: the kernel lists each in
    /proc/locks with "->" before it."""
    ino = str(os.stat(path).st_ino)
    n = 0
    with open("/proc/locks") as f:
        for line in f:
            fields = line.split()
            if "->" in fields and any(x.count(":") == 2 and x.split(":")[2] == ino
                                      for x in fields):
                n += 1
    return n


def store(mcpfs):
    return mcpfs.root / "oauth" / "remote.json"


def stored(mcpfs) -> dict:
    p = store(mcpfs)
    return json.loads(p.read_text()) if p.exists() else {}


def login(mcpfs, check=0, **kw):
    return mcpfs.run("login", "remote", "--timeout", "60", check=check,
                     env={"BROWSER": BROWSER}, **kw)


def whoami(mcpfs) -> str:
    return mcpfs.json("call", "remote", "whoami")["content"][0]["text"]


def one_line(p) -> str:
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    return lines[0]


def wait_expired(mcpfs, deadline_s=60):
    """Until the stored token's absolute expiry has passed (a wall-clock
    condition, not a guess at speed)."""
    exp = stored(mcpfs)["token"]["expires_at"]
    end = time.time() + deadline_s
    while time.time() <= exp:
        assert time.time() < end
        time.sleep(0.05)


def test_login_call_logout(mcpfs, http_server):  # noqa: F811
    srv = start(http_server, mcpfs)
    p = mcpfs.run("call", "remote", "whoami", check=3)
    assert LOGIN_HINT in one_line(p)
    # One POST, refused; no GET: a 401 is never taken for a legacy SSE server.
    s = stats(srv)
    assert s["mcp_401"] == 1 and s["mcp_get"] == 0, s
    p = login(mcpfs)
    assert srv.url("/authorize?") in p.stdout and "Logged in to 'remote'" in p.stdout
    st = store(mcpfs)
    assert stat.S_IMODE(st.stat().st_mode) == 0o600
    assert stat.S_IMODE(st.parent.stat().st_mode) == 0o700
    tok = stored(mcpfs)["token"]
    assert tok["expires_at"] > time.time() + 3000 and tok["resource"] == srv.url("/mcp")
    assert whoami(mcpfs) == "token 1"
    outs = [p.stdout + p.stderr]
    for args in (["servers", "--json"], ["tools", "remote", "--json"],
                 ["call", "remote", "echo", '{"message": "hi"}', "--json"]):
        q = mcpfs.run(*args, check=0)
        outs.append(q.stdout + q.stderr)
    logs = "".join(f.read_text(errors="replace") for f in (mcpfs.root / "logs").glob("*"))
    for secret in (tok["access_token"], tok["refresh_token"]):
        assert all(secret not in o for o in outs + [logs])
    assert stats(srv)["register"] == 1
    p = mcpfs.run("logout", "remote", check=0)
    assert "Logged out of 'remote'" in p.stdout and not st.exists()
    assert LOGIN_HINT in one_line(mcpfs.run("call", "remote", "whoami", check=3))


def test_needs_login_is_said_everywhere(mcpfs, http_server, mounted):  # noqa: F811
    srv = start(http_server, mcpfs)
    servers = mcpfs.run("servers", "--json", check=None)
    assert LOGIN_HINT in servers.stdout, servers.stdout
    assert LOGIN_HINT in one_line(mcpfs.run("tools", "remote", check=3))
    out = mcpfs.tmp / "tree"
    mcpfs.run("generate", "--out", out, check=None)
    assert "run 'mcpfs login remote'" in (out / "servers" / "remote" / "README.md").read_text()
    p = mcpfs.run("exec", "--lang", "python", "-", input="from servers.remote import whoami\n",
                  check=1)
    assert LOGIN_HINT in p.stderr, p.stderr
    mounted.start(servers={"remote": {"url": srv.url("/mcp")}})
    readme = mounted.point / "servers" / "remote" / "README.md"
    assert wait_until(lambda: "mcpfs login remote" in readme.read_text(), 60), readme.read_text()


def test_expiry_and_refresh(mcpfs, http_server):  # noqa: F811
    srv = start(http_server, mcpfs, env={"OAUTH_EXPIRES_IN": "2"})
    login(mcpfs)
    refused = stats(srv)["mcp_401"]  # the login's own unauthenticated probe
    wait_expired(mcpfs)
    # Renewed before the request went: the server never saw the old token again.
    assert whoami(mcpfs) == "token 2"
    s = stats(srv)
    assert s["refresh"] == 1 and s["refresh_reused"] == 0 and s["mcp_401"] == refused, s
    assert stored(mcpfs)["token"]["expires_at"] > time.time() + 3000
    assert whoami(mcpfs) == "token 2" and stats(srv)["refresh"] == 1


def test_rotating_refresh_token_two_processes(mcpfs, http_server):  # noqa: F811
    # The server holds every refresh until the test releases it, so both
    # processes are certainly inside a refresh at once.
    srv = start(http_server, mcpfs, env={"OAUTH_EXPIRES_IN": "2",
                                         "OAUTH_REFRESH_DELAY_MS": "300000"},
                config={"timeout": 240})
    login(mcpfs)
    wait_expired(mcpfs)
    lock = store(mcpfs).with_name("remote.json.lock")
    call = mcpfs.cmd("call", "remote", "whoami", "--json")
    procs = []
    try:
        procs.append(subprocess.Popen(call, env=mcpfs.env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
        assert wait_until(lambda: stats(srv)["refresh_inflight"] == 1, 120), stats(srv)
        procs.append(subprocess.Popen(call, env=mcpfs.env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
        # The second waits for the lock the first holds (without the lock,
        # its refresh would reach the server with the same refresh token).
        assert wait_until(lambda: lock_waiters(lock) == 1 or stats(srv)["refresh_inflight"] > 1,
                          120), stats(srv)
    finally:
        post(srv, "/_release")
    outs = [p.communicate(timeout=240) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    texts = {json.loads(out)["content"][0]["text"] for out, _ in outs}
    assert texts == {"token 2"}, texts
    s = stats(srv)
    assert s["refresh"] == 1 and s["refresh_reused"] == 0, s


def test_refresh_on_401(mcpfs, http_server):  # noqa: F811
    srv = start(http_server, mcpfs)
    login(mcpfs)
    assert whoami(mcpfs) == "token 1"
    first = stored(mcpfs)["token"]
    before = stats(srv)
    # The server ends the token early; the stored expiry still says an hour.
    post(srv, "/_expire")
    assert stored(mcpfs)["token"]["expires_at"] > time.time() + 3000
    assert whoami(mcpfs) == "token 2"
    s = stats(srv)
    # One 401, one refresh, the request again: the call never saw the 401.
    assert s["mcp_401"] == before["mcp_401"] + 1 and s["refresh"] == 1, s
    assert s["refresh_reused"] == 0, s
    assert stored(mcpfs)["token"]["access_token"] != first["access_token"]
    assert whoami(mcpfs) == "token 2" and stats(srv)["refresh"] == 1


def test_step_up_is_a_login_with_the_wider_scope(mcpfs, http_server):  # noqa: F811
    srv = start(http_server, mcpfs)
    login(mcpfs)
    line = one_line(mcpfs.run("call", "remote", "admin", check=3))
    assert "needs more access" in line and LOGIN_HINT in line, line
    # The token keeps working for what it may do.
    assert whoami(mcpfs) == "token 1"
    login(mcpfs)
    assert set(stats(srv)["scopes"][-1].split()) == {"mcp", "admin"}, stats(srv)
    assert mcpfs.json("call", "remote", "admin")["content"][0]["text"] == "admin with token 2"
    assert stats(srv)["mcp_403"] == 1


def test_revocation_asks_for_login(mcpfs, http_server):  # noqa: F811
    srv = start(http_server, mcpfs)
    login(mcpfs)
    assert whoami(mcpfs) == "token 1"
    urllib.request.urlopen(urllib.request.Request(srv.url("/_revoke"), method="POST"),
                           timeout=30).close()
    line = one_line(mcpfs.run("call", "remote", "whoami", check=3))
    assert LOGIN_HINT in line and "refresh was refused" in line
    assert "token" not in stored(mcpfs)
    login(mcpfs)
    assert whoami(mcpfs).startswith("token ")


def test_changed_url_drops_tokens(mcpfs, http_server):  # noqa: F811
    start(http_server, mcpfs)
    login(mcpfs)
    other = http_server(SERVER)
    mcpfs.write_config({"remote": {"url": other.url("/mcp")}})
    line = one_line(mcpfs.run("call", "remote", "whoami", check=3))
    # No token went to the new URL: it asked, it was not refused one.
    assert "needs login (HTTP 401)" in line and LOGIN_HINT in line
    assert stored(mcpfs).get("url") == other.url("/mcp") and "token" not in stored(mcpfs)
    assert stats(other)["code"] == 0


@pytest.mark.parametrize("mode,says", [
    ("bad_metadata", "not a JSON object"),
    ("bad_issuer", "does not match"),
    ("wrong_state", "state does not match"),
    ("no_pkce", "does not offer PKCE S256"),
    ("wrong_iss", "names issuer http://127.0.0.1:1/evil"),
    ("hang_token", "imeout"),
])
def test_bad_input_stores_nothing(mcpfs, http_server, mode, says):  # noqa: F811
    srv = start(http_server, mcpfs, env={"OAUTH_MODE": mode}, config={"timeout": 8})
    p = login(mcpfs, check=None)
    assert p.returncode not in (0, 86, 87), p.stderr
    line = one_line(p)
    assert line.startswith("mcpfs: ") and says in line, line
    assert "token" not in stored(mcpfs) and "client" not in stored(mcpfs)
    if mode == "no_pkce":
        assert stats(srv)["authorize"] == 0


def test_no_way_to_register(mcpfs, http_server):  # noqa: F811
    srv = start(http_server, mcpfs, env={"OAUTH_MODE": "no_registration"},
                config={"oauth": {"client_metadata_url": "https://mcpfs.example/client.json"}})
    line = one_line(login(mcpfs, check=2))
    assert line.startswith("mcpfs: ") and "offers neither dynamic registration nor client ID " \
        "metadata documents" in line and '"client_id"' in line, line
    assert "token" not in stored(mcpfs) and "client" not in stored(mcpfs)
    s = stats(srv)
    assert s["register"] == 0 and s["authorize"] == 0, s


def test_no_token_in_session_records(mcpfs, http_server):  # noqa: F811
    start(http_server, mcpfs, config={"scope": "customer"})
    # The tree lists a customer-scoped server's tools through the default
    # customer's instance, so both log in: default (token 1), acme (token 2).
    for who in ("default", "acme"):
        mcpfs.run("login", "remote", "--customer", who, "--timeout", "60", check=0,
                  env={"BROWSER": BROWSER})
    code = ("from servers.remote import whoami, echo\n"
            "print(whoami())\n"
            "print(echo(message='hello'))\n")
    p, res = run_code(mcpfs, code, "--customer", "acme", "--session", "s1")
    assert res and res["exit_code"] == 0, (p.stderr, res and res["stderr"])
    assert res["stdout"] == "token 2\nhello\n", res
    secrets = []
    for who in ("default", "acme"):
        tok = json.loads((mcpfs.root / "workspaces" / who / "oauth" / "remote.json")
                         .read_text())["token"]
        secrets += [tok["access_token"], tok["refresh_token"]]
    records = list((mcpfs.root / "workspaces" / "acme" / "sessions").iterdir())
    assert any(f.name == "s1.json" for f in records), records
    shown = mcpfs.run("session", "show", "acme", "s1", "--json", check=0).stdout
    assert "whoami" in shown and "token 2" in shown, shown
    texts = [f.read_text(errors="replace") for f in records]
    texts += [p.stdout, p.stderr, shown]
    texts += [f.read_text(errors="replace") for f in (mcpfs.root / "logs").glob("*")]
    for secret in secrets:
        assert all(secret not in t for t in texts)


def test_customer_scoped_logins_are_per_customer(mcpfs, http_server):  # noqa: F811
    start(http_server, mcpfs, config={"scope": "customer"})
    p = mcpfs.run("login", "remote", "--customer", "acme", "--timeout", "60", check=0,
                  env={"BROWSER": BROWSER})
    st = mcpfs.root / "workspaces" / "acme" / "oauth" / "remote.json"
    assert stat.S_IMODE(st.stat().st_mode) == 0o600 and not store(mcpfs).exists()
    out = mcpfs.json("call", "remote", "whoami", "--customer", "acme")
    assert out["content"][0]["text"] == "token 1"
    line = one_line(mcpfs.run("call", "remote", "whoami", "--customer", "beta", check=3))
    assert "run `mcpfs login remote --customer beta`" in line
    p = mcpfs.run("login", "remote", "--customer", "../acme", check=2)
    assert "customer" in one_line(p)
    p = mcpfs.run("logout", "remote", "--customer", "acme", check=0)
    assert not st.exists()


def test_login_to_an_open_server_stores_nothing(mcpfs, http_server):  # noqa: F811
    srv = http_server(PROBE)
    mcpfs.write_config({"remote": {"url": srv.url("/mcp")}})
    p = login(mcpfs)
    assert "needs no login" in p.stdout and not store(mcpfs).exists()
    p = mcpfs.run("login", "nosuch", check=2)
    assert "no server named 'nosuch'" in one_line(p)


def test_login_refuses_what_takes_none(mcpfs, http_server):  # noqa: F811
    mcpfs.write_config({"old": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
                        "new": {"url": "http://127.0.0.1:9/mcp"},
                        "local": {"command": "true"}})
    assert "legacy HTTP+SSE" in one_line(mcpfs.run("login", "old", check=2))
    assert "local (stdio)" in one_line(mcpfs.run("login", "local", check=2))
    assert "is shared" in one_line(mcpfs.run("login", "new", "--customer", "a", check=2))
