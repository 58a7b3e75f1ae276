"""Shared fixtures for mcpfs tests.

Every test that runs the binary takes the `mcpfs` fixture, which is
parametrized over the plain build and the ASan+UBSan build, so the suite runs
once under the sanitizers as well. Each test gets its own data root and a
config written for it; nothing touches the user's real config or data.

A test module marked `pytest.mark.rootless` runs once more, on the plain build (plain_rootless),
as an unprivileged user (ROOTLESS_UID, through setpriv, with a home and data
root of its own): the rootless jail, plain workspace folders, FUSE through
fusermount3. `mcpfs.rootless` tells a test which it is; `mcpfs.jail_uid` is the
host uid of the jail's user either way.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SERVERS_NM = REPO / "servers" / "node_modules" / "@modelcontextprotocol"
TESTS_NM = REPO / "tests" / "node" / "node_modules"
TEST_SERVERS = REPO / "tests" / "node" / "servers"
# Real servers' recorded catalogs, beside the clone (not in it).
CATALOGS = Path(os.environ.get("MCPFS_SHARED_CATALOG", REPO.parent / "shared" / "catalog"))
BUILDS = {"plain": REPO / "build" / "mcpfs", "asan": REPO / "build-asan" / "mcpfs"}

EVERYTHING = str(SERVERS_NM / "server-everything" / "dist" / "index.js")
FILESYSTEM = str(SERVERS_NM / "server-filesystem" / "dist" / "index.js")
MEMORY = str(SERVERS_NM / "server-memory" / "dist" / "index.js")
SEQTHINK = str(SERVERS_NM / "server-sequential-thinking" / "dist" / "index.js")

# Sandboxed, a shared server runs as this uid and writes only where its
# config's "sandbox" "rw" says (README, "Server sandboxes").
SHARED_SERVER_UID = 64001
# The jail's user on the host when mcpfs runs as root (executor/jail.h).
JAIL_HOST_UID = 64000
# A throwaway uid for the rootless runs: no login, no groups, owns nothing but
# the test's folder. Not root: the jail may map only this uid.
ROOTLESS_UID = 64100


def server_dir(tmp: Path, name: str = "server-files") -> Path:
    """A folder beside the data root that a shared server may write: give it
    to the server with {"sandbox": {"rw": [str(folder)]}}."""
    d = tmp / name
    d.mkdir(exist_ok=True)
    # a rootless mcpfs (its folder is the user's) runs its servers as that user
    owner = tmp.stat().st_uid or SHARED_SERVER_UID
    if os.geteuid() == 0:
        os.chown(d, owner, owner)
    return d


def memory_server(tmp: Path) -> dict:
    """server-memory, shared, its graph in server_dir(tmp)/memory.jsonl."""
    d = server_dir(tmp)
    return {"command": "node", "args": [MEMORY], "env": {"MEMORY_FILE_PATH": str(d / "memory.jsonl")},
            "sandbox": {"rw": [str(d)]}}


# LeakSanitizer stays on: every exit path must free what it allocated.
SAN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0:exitcode=86",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1:exitcode=87",
}


class Mcpfs:
    """One build of the binary, a private data root and a config file."""

    def __init__(self, binary: Path, build: str, tmp: Path, uid: int = 0):
        self.binary = str(binary)
        self.build = build
        self.tmp = tmp
        self.uid = uid  # 0: as the tests run (root); else setpriv to this uid
        self.rootless = uid != 0
        self.jail_uid = uid or JAIL_HOST_UID
        self.root = tmp / "root"
        self.root.mkdir()
        self.config_path = tmp / "mcpfs.json"
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp / "home"),
            "MCPFS_ROOT": str(self.root),
            **SAN_ENV,
        }
        (tmp / "home").mkdir()
        if uid:
            for d in (tmp, self.root, tmp / "home"):
                os.chown(d, uid, uid)

    def give(self, path: Path) -> Path:
        """Make @path and what is below it (made by the test, as root) the
        mcpfs user's, as mcpfs would have made them: what a test says mcpfs
        must not write is then refused by mcpfs, not by the host's
        permissions."""
        if self.uid:
            os.chown(path, self.uid, self.uid, follow_symlinks=False)
            for top, dirs, files in os.walk(path):
                for name in dirs + files:
                    os.chown(os.path.join(top, name), self.uid, self.uid, follow_symlinks=False)
        return path

    def write_config(self, servers: dict, key: str = "mcpServers") -> Path:
        self.config_path.write_text(json.dumps({key: servers}, indent=2))
        return self.config_path

    def cmd(self, *args, config=True):
        out = [self.binary]
        if self.uid:
            out = ["setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups",
                   "--", self.binary]
        if config and self.config_path.exists():
            out += ["--config", str(self.config_path)]
        return out + [str(a) for a in args]

    def run(self, *args, input=None, timeout=120, check=None, config=True, env=None, cwd=None):
        """Run mcpfs; `check` is the expected exit status (None: any)."""
        e = dict(self.env)
        if env:
            e.update(env)
        p = subprocess.run(self.cmd(*args, config=config), input=input, capture_output=True,
                           text=True, timeout=timeout, env=e, cwd=cwd)
        assert p.returncode not in (86, 87), f"sanitizer report:\n{p.stderr}"
        if check is not None:
            assert p.returncode == check, (
                f"exit {p.returncode}, wanted {check}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
        return p

    def json(self, *args, **kw):
        p = self.run(*args, "--json", check=0, **kw)
        return json.loads(p.stdout)


def mounts_under(path: Path) -> list:
    """Mount points at or below `path`, deepest first."""
    prefix = str(path)
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            mnt = line.split()[4].replace("\\040", " ")
            if mnt == prefix or mnt.startswith(prefix + "/"):
                found.append(mnt)
    return sorted(found, key=len, reverse=True)


def unmount_all_under(path: Path) -> list:
    """Unmount whatever a test left mounted below `path` (FUSE trees,
    workspace images); returns what was found so a test can assert on it."""
    left = mounts_under(path)
    for mnt in left:
        if subprocess.run(["fusermount3", "-uz", mnt], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", mnt], capture_output=True)
    return left


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "rootless: the module runs as an unprivileged user too (plain_rootless)")
    config.addinivalue_line(
        "markers", "needs_root(why): skipped in the rootless run, for the reason given")


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc):
    # A parametrize mark, which the fixture's own params give way to; added
    # before pytest reads the marks.
    if "mcpfs" in metafunc.fixturenames and metafunc.definition.get_closest_marker("rootless"):
        metafunc.definition.add_marker(
            pytest.mark.parametrize("mcpfs", [*BUILDS, "plain_rootless"], indirect=True))


@pytest.fixture(params=list(BUILDS))
def mcpfs(request, tmp_path):
    build, _, user = request.param.partition("_")
    binary = BUILDS[build]
    if not binary.exists():
        pytest.fail(f"{binary} is not built: run 'make all' (and 'make SANITIZER=1 all')")
    tmp = tmp_path
    if user:
        why = request.node.get_closest_marker("needs_root")
        if why:
            pytest.skip(f"rootless: {why.args[0]}")
        if os.geteuid() != 0:
            pytest.skip("the rootless runs need root to make the user's folder")
        # pytest's folders are root's (0700): the user gets one of its own
        tmp = Path(tempfile.mkdtemp(prefix="mcpfs-rootless-"))
        os.chmod(tmp, 0o755)
    m = Mcpfs(binary, build, tmp, uid=ROOTLESS_UID if user else 0)
    yield m
    # Workspace images are loop-mounted; release them the way a user would,
    # then sweep anything still mounted below this test's folder.
    subprocess.run(m.cmd("workspace", "umount", "--all"), capture_output=True, env=m.env,
                   timeout=60)
    unmount_all_under(tmp)
    if user:
        shutil.rmtree(tmp, ignore_errors=True)


FIGURES = pytest.StashKey[list]()


@pytest.fixture
def figures(request):
    """A list a test appends measured figures to (lines of text): pytest
    prints them in a "figures" section of its summary whatever -r, -s or -q
    say, so a passing run shows them too."""
    return request.config.stash.setdefault(FIGURES, [])


def pytest_terminal_summary(terminalreporter, config):
    lines = config.stash.get(FIGURES, [])
    if lines:
        terminalreporter.section("figures")
        for line in lines:
            terminalreporter.write_line(line)


def node22() -> str:
    return str(TESTS_NM / ".bin" / "node")


def everything_stdio() -> dict:
    return {"command": "node", "args": [EVERYTHING, "stdio"]}


def sdk_server(name: str, *args: str) -> dict:
    """A server of ours under tests/node/servers (official TypeScript SDK)."""
    return {"command": "node", "args": [str(TEST_SERVERS / name), *args],
            }
