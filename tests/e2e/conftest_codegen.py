"""Helpers for the codegen tests: configs over the real reference servers and
hostile.mjs, the type checkers, and a running `mcpfs bridge`."""
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import (EVERYTHING, FILESYSTEM, REPO, SEQTHINK, TEST_SERVERS, TESTS_NM,
                      everything_stdio, memory_server, server_dir)

MYPY = ["/usr/bin/python3", "-m", "mypy"]
TSC = TESTS_NM / ".bin" / "tsc"
PYRIGHT = TESTS_NM / ".bin" / "pyright"
ESBUILD = TESTS_NM / ".bin" / "esbuild"
# The jail's TypeScript runner, started as executor/run.c starts it; its
# sucrase bundle is built by `make` (executor/runtime/dist).
TS_RUNTIME = REPO / "executor" / "runtime"
TS_RUN = ["node", "--experimental-vm-modules", "--disable-warning=ExperimentalWarning",
          str(TS_RUNTIME / "ts.cjs")]
HOSTILE = str(TEST_SERVERS / "hostile.mjs")


def reference_servers(tmp: Path) -> dict:
    return {
        "everything": everything_stdio(),
        "filesystem": {"command": "node", "args": [FILESYSTEM, str(server_dir(tmp, "files"))]},
        "memory": memory_server(tmp),
        "sequential-thinking": {"command": "node", "args": [SEQTHINK]},
    }


def hostile_servers() -> dict:
    # The same hostile catalog under a plain name and under a name that is
    # no identifier in either language.
    return {
        "hostile": {"command": "node", "args": [HOSTILE]},
        "Weird Name-2 ünï class": {"command": "node", "args": [HOSTILE]},
    }


def tree_files(top: Path) -> dict:
    return {str(p.relative_to(top)): p.read_bytes() for p in sorted(top.rglob("*"))
            if p.is_file()}


@pytest.fixture(scope="session")
def mypy_cache(tmp_path_factory) -> Path:
    """One mypy cache for the session: the standard library is analysed once."""
    return tmp_path_factory.mktemp("mypy-cache")


def run_mypy(top: Path, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run(MYPY + ["--strict", "--cache-dir", str(cache), "-p", "servers"],
                          cwd=top, capture_output=True, text=True, timeout=600)


def run_tsc(top: Path, tmp: Path) -> subprocess.CompletedProcess:
    """tsc --strict as a TypeScript user runs it: no @types/node (the tree needs
    none), and imports that name their .ts files (allowImportingTsExtensions,
    as the root README says)."""
    cfg = tmp / "tsconfig.codegen.json"
    cfg.write_text(json.dumps({
        "compilerOptions": {
            "strict": True, "noEmit": True, "module": "esnext", "moduleResolution": "bundler",
            "target": "es2022", "types": [], "allowImportingTsExtensions": True,
        },
        "include": [str(top / "servers" / "**" / "*.ts")],
    }))
    return subprocess.run([str(TSC), "-p", str(cfg)], capture_output=True, text=True,
                          timeout=600)


def run_pyright(top: Path, tmp: Path) -> subprocess.CompletedProcess:
    """pyright (npm) in strict mode, as many Python users run it. Its config
    sits outside the tree (a generated tree holds only generated files)."""
    cfg = tmp / "pyrightconfig.json"
    cfg.write_text(json.dumps({
        "typeCheckingMode": "strict", "pythonVersion": "3.11",
        "include": [os.path.relpath(top / "servers", tmp)],
    }))
    return subprocess.run([str(PYRIGHT), "-p", str(cfg), "--stats"], capture_output=True,
                          text=True, timeout=600, cwd=tmp)


class Bridge:
    """`mcpfs bridge --socket PATH` for the test's config, stopped at teardown."""

    def __init__(self, mcpfs, tmp: Path):
        self.sock = tmp / "bridge.sock"
        self.env = {"MCPFS_BRIDGE": str(self.sock), "MCPFS_BRIDGE_TOKEN": "codegen-test"}
        e = dict(mcpfs.env)
        e.update(self.env)
        self.proc = subprocess.Popen(mcpfs.cmd("bridge", "--socket", self.sock), env=e,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while not self.sock.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"bridge did not start: {self.proc.stderr.read()}")
            time.sleep(0.05)

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        err = self.proc.stderr.read()
        self.proc.stdout.close()
        self.proc.stderr.close()
        assert self.proc.returncode not in (86, 87), f"sanitizer report:\n{err}"
        return err


def clean_env(extra: dict) -> dict:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent"}
    env.update(extra)
    return env
