"""Helpers for the HTTP transport tests: HTTP MCP servers on 127.0.0.1."""
import os
import signal
import socket
import subprocess
import time

import pytest

from conftest import EVERYTHING, TEST_SERVERS

PROBE = str(TEST_SERVERS / "http_probe.mjs")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen, timeout: float = 15.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


class NodeServer:
    """`node SCRIPT MODE` with PORT/PROBE_PORT set; killed at teardown."""

    def __init__(self, script: str, mode: str = "", env: dict | None = None):
        self.port = free_port()
        e = dict(os.environ, PORT=str(self.port), PROBE_PORT=str(self.port), **(env or {}))
        args = ["node", script] + ([mode] if mode else [])
        self.proc = subprocess.Popen(args, env=e, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        wait_port(self.port, self.proc)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def kill(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


@pytest.fixture
def http_server():
    """A factory: http_server(script, mode, env) -> NodeServer."""
    started = []

    def start(script: str = EVERYTHING, mode: str = "", env: dict | None = None):
        s = NodeServer(script, mode, env)
        started.append(s)
        return s

    yield start
    for s in started:
        s.kill()
