"""The escape and abuse suite: each case is a payload in tests/jail/ that
tries one forbidden act and prints the errno it got (or ALLOWED when the act
worked), or dies by the signal the policy promises. A case passes only when
the act failed the expected way; where the kernel itself might refuse the
act too, the same payload run unfiltered on the host shows it would not.
Beside them, what the jail does give: its limits, its own loopback, its
root and environment, exactly. The host is checked unchanged after each."""
import contextlib
import fcntl
import json
import math
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import termios
import time
from pathlib import Path

import pytest

from conftest_executor import (code_jail_pids_of, exec_config, go_file,  # noqa: F401
                               go_waiter, host_unchanged, payload, run_code)

pytestmark = pytest.mark.rootless

# payload -> (expected stdout, extra exec flags)
ERRNO_CASES = {
    "read_shadow.py": ("ENOENT", []),
    "host_pids.py": ("ISOLATED", []),
    "write_usr.py": ("EROFS", []),
    "write_root.py": ("EROFS", []),
    "write_tree.py": ("EROFS EROFS", []),
    "write_shared_skills.py": ("EROFS", []),
    "net_packet.py": ("EAFNOSUPPORT EAFNOSUPPORT", []),
    "memory_shm.py": ("ENOSPC", []),
    "disk_tmp.py": ("ENOSPC", []),
    "fd_leak.py": ("0 1 2 3", []),
    "wrong_token.py": ("REFUSED", []),
}

# Calls the seccomp filter refuses (executor/policy/seccomp_policy.c: EPERM
# for "denied" and namespace flags of clone, ENOSYS by default).
# payload -> (what the jail gets, what the kernel answers the same payload
# run on the host by an unprivileged user, without the filter). The two
# differ, so the jail's answer is the filter's: an EPERM the kernel would
# give for want of a capability proves nothing (STYLE.md rule 20).
FILTER_CASES = {
    "clone_newns.py": ("EPERM EPERM", "EINVAL ALLOWED"),
    "clone3.py": ("ENOSYS", "ALLOWED"),
    "unshare.py": ("EPERM EPERM", "EINVAL ALLOWED"),
    "setns.py": ("EPERM EPERM", "EBADF EPERM"),
    "mount.py": ("EPERM EPERM", "EFAULT EPERM"),
    "bpf.py": ("EPERM", "EINVAL"),
    "userfaultfd.py": ("EPERM", "ALLOWED"),
    "ptrace.py": ("EPERM", "ALLOWED"),
    "keyctl.py": ("EPERM", "ALLOWED"),
    "io_uring.py": ("EPERM", "ALLOWED"),
    "tiocsti.py": ("EPERM EPERM", "ENOTTY ENOTTY"),
    "tty_ioctl.py": ("ENOTTY EBADF", "EBADF EBADF"),
    "setuid.py": ("EPERM EPERM", "EPERM ALLOWED"),
}

MiB = 1 << 20


def jail_rlimits(timeout=30.0, memory_mb=512, rootless=False):
    """name -> (soft, hard): what executor/run.c asks for (jail_up; a 30 s
    timeout and 512 MiB by default) as executor/jail_rlimit.c sets it.
    Rootless, with no pids cgroup, RLIMIT_NPROC takes pids.max's 256."""
    cpu = math.ceil(timeout)
    data = (2048 if memory_mb < 1024 else 2 * memory_mb) * MiB
    nproc = 256 if rootless else 4096
    return {"RLIMIT_CPU": (cpu + 1, cpu + 2), "RLIMIT_FSIZE": (256 * MiB, 256 * MiB),
            "RLIMIT_NOFILE": (1024, 1024), "RLIMIT_NPROC": (nproc, nproc),
            "RLIMIT_DATA": (data, data), "RLIMIT_CORE": (0, 0),
            "RLIMIT_MEMLOCK": (64 << 10, 64 << 10)}


# case -> (exec flags, jail_rlimits arguments)
RLIMIT_CASES = {
    "defaults": ([], {}),
    "from-flags": (["--timeout", "2.5", "--memory", "1536"], {"timeout": 2.5, "memory_mb": 1536}),
}

# The program's whole environment (executor/run.c, jail_up's envp), but the
# run's bridge token: 16 random bytes in hex.
JAIL_ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8",
            "MCPFS_BRIDGE": "/run/mcpfs/bridge.sock", "PYTHONPATH": "/mcp:/"}

# The jail's root, Python run (executor/jail_mount.c and the binds of
# executor/run.c; the TypeScript runtime's node_modules is bound for
# TypeScript only).
JAIL_DEV = {"null", "zero", "full", "random", "urandom",  # fixed[]: the host's nodes
            "fd", "stdin", "stdout", "stderr",  # dev_links[]
            "shm"}  # a tmpfs of its own
JAIL_ETC = {"ld.so.cache", "passwd", "group", "hosts", "hostname"}  # fixed[], etc_files[]
TOP_LINKS = ("bin", "lib", "lib64", "sbin")  # the host's usr-merge links, or binds
JAIL_FRESH = {"/": "tmpfs", "/dev/shm": "tmpfs", "/tmp": "tmpfs", "/proc": "proc"}


@pytest.mark.parametrize("name", sorted(ERRNO_CASES))
def test_denied(mcpfs, host_unchanged, name):  # noqa: F811
    exec_config(mcpfs)
    want, flags = ERRNO_CASES[name]
    p, res = run_code(mcpfs, payload(name), *flags)
    assert res is not None, p.stderr
    assert res["signal"] == 0, res
    assert res["stdout"].strip() == want, res


@pytest.mark.parametrize("name", ["x32.py", "int80.py"])
def test_foreign_abi_killed(mcpfs, host_unchanged, name):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, payload(name))
    assert "ALLOWED" not in res["stdout"], res
    if res["signal"] != signal.SIGSYS:
        # Some (virtualised) kernels fault on the instruction itself, before
        # any filter sees a system call: then the jail must end exactly as
        # the unfiltered host does, and the filter's kill is not shown here.
        host = unfiltered_run(payload(name))
        assert host.returncode < 0 and "ALLOWED" not in host.stdout, \
            f"the host runs {name} unfiltered ({host}), the jail did not die of SIGSYS: {res}"
        assert res["signal"] == -host.returncode, (res, host)
        pytest.skip(f"{name} dies of signal {-host.returncode} on this host unfiltered too: "
                    "the filter's SIGSYS is not shown")
    assert p.returncode == 128 + signal.SIGSYS


def unfiltered_run(code: str) -> subprocess.CompletedProcess:
    """@code run on the host as nobody, without the jail's seccomp filter:
    the kernel's own answer to an unprivileged caller."""
    if not shutil.which("setpriv"):
        pytest.skip("no setpriv: cannot run the unfiltered control")
    return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                           "/usr/bin/python3", "-c", code], capture_output=True, text=True,
                          timeout=30, cwd="/", env={"PATH": "/usr/bin:/bin"})


def unfiltered(code: str) -> str:
    """What @code prints run unfiltered on the host (unfiltered_run)."""
    p = unfiltered_run(code)
    assert (p.returncode, p.stderr) == (0, ""), p
    return p.stdout.strip()


@pytest.mark.parametrize("name", sorted(FILTER_CASES))
def test_denied_by_filter(mcpfs, host_unchanged, name):  # noqa: F811
    exec_config(mcpfs)
    jailed, control = FILTER_CASES[name]
    p, res = run_code(mcpfs, payload(name))
    assert res["signal"] == 0 and res["stderr"] == "", res
    assert res["stdout"].strip() == jailed, res
    got = unfiltered(payload(name))
    if got != control and all(g in (c, "EPERM") for g, c in zip(got.split(), control.split())):
        pytest.skip(f"this host refuses {name} to unprivileged users unfiltered too ({got}): "
                    "the jail's EPERM is not shown to be the filter's")
    assert got == control


def jail_env_only(env: dict) -> None:
    env = dict(env)
    assert re.fullmatch("[0-9a-f]{32}", env.pop("MCPFS_BRIDGE_TOKEN", "")), env
    assert env == JAIL_ENV


# In the environment of mcpfs; each would change or break the program that got it.
HOSTILE_ENV = {"MCPFS_HOST_SECRET": "s3cr3t", "LD_PRELOAD": "/nonexistent.so",
               "PYTHONHOME": "/nonexistent", "PYTHONPATH": "/nonexistent",
               "PYTHONSTARTUP": "/nonexistent.py", "PYTHONINSPECT": "1",
               "PYTHONWARNINGS": "error"}


def test_host_environment_hidden(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    control = subprocess.run(["/usr/bin/python3", "-c", "pass"], capture_output=True,
                             text=True, env={"PATH": "/usr/bin:/bin", **HOSTILE_ENV})
    assert control.returncode == 1 and "init_fs_encoding" in control.stderr  # PYTHONHOME
    p, res = run_code(mcpfs, payload("host_environ.py"), env=HOSTILE_ENV)
    assert (res["exit_code"], res["stderr"]) == (0, ""), res
    seen = json.loads(res["stdout"])
    jail_env_only(seen["environ"])
    # the program and the jail's pid 1, a copy of mcpfs that no one may read
    assert seen["proc"] == {"1": "EACCES", str(seen["pid"]): seen["environ"]}


def test_host_environment_hidden_typescript(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    hostile = {"NODE_OPTIONS": "--require /nonexistent.js", "MCPFS_HOST_SECRET": "s3cr3t"}
    control = subprocess.run(["/usr/bin/node", "-e", ""], capture_output=True, text=True,
                             env={"PATH": "/usr/bin:/bin", **hostile})
    assert control.returncode == 1 and "Cannot find module '/nonexistent.js'" in control.stderr
    run_code(mcpfs, "pass\n")  # the servers write the tree's catalogs without NODE_OPTIONS
    p, res = run_code(mcpfs, payload("host_environ.ts"), lang="typescript", env=hostile)
    assert (res["exit_code"], res["stderr"]) == (0, ""), res
    jail_env_only(json.loads(res["stdout"]))


WRITE_SUB_PY = """
import errno
try:
    open("/skills/shared/sub/x", "w")
    print("WROTE")
except OSError as e:
    print(errno.errorcode[e.errno])
"""


def test_mount_under_a_read_only_bind_is_read_only(mcpfs, host_unchanged):  # noqa: F811
    """A mount inside a read-only bind's source (here a world-writable tmpfs
    in the operator's shared skills) is read-only in the jail as well."""
    exec_config(mcpfs)
    run_code(mcpfs, "pass\n")  # makes the data root's folders
    sub = mcpfs.root / "skills-shared" / "sub"
    sub.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=1777,size=1m", "sub", str(sub)],
                   check=True)
    try:
        p, res = run_code(mcpfs, WRITE_SUB_PY)
    finally:
        subprocess.run(["umount", str(sub)], check=True)
    assert res and res["stdout"] == "EROFS\n", (p.stderr, res)


def test_symlink_out_of_workspace(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    shadow = os.stat("/etc/shadow")
    for _ in range(2):  # the second run finds the planted links already there
        p, res = run_code(mcpfs, payload("symlink_out.py"), "--customer", "evil")
        assert res["stdout"].strip() == "ENOENT ENOENT", res
    ws = mcpfs.root / "workspaces" / "evil" / "workspace"
    assert os.path.islink(ws / "evil-shadow")
    after = os.stat("/etc/shadow")
    assert (after.st_uid, after.st_gid, stat.S_IMODE(after.st_mode)) == (
        shadow.st_uid, shadow.st_gid, stat.S_IMODE(shadow.st_mode))


@contextlib.contextmanager
def host_listener():
    """A TCP listener on the host's 127.0.0.1; yields its port, and checks
    on the way out that nobody connected."""
    srv = socket.socket()
    try:
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        srv.settimeout(0.2)
        yield srv.getsockname()[1]
        with pytest.raises(socket.timeout):
            srv.accept()
    finally:
        srv.close()


def test_host_loopback_unreachable(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    with host_listener() as port:
        p, res = run_code(mcpfs, payload("net_host.py", port=port))
        assert res["stdout"].strip() == "ECONNREFUSED", res


def test_jail_loopback_works(mcpfs, host_unchanged):  # noqa: F811
    """The jail's own 127.0.0.1, on the port the host's listener holds."""
    exec_config(mcpfs)
    with host_listener() as port:
        p, res = run_code(mcpfs, payload("net_loopback.py", port=port))
        assert (res["stdout"], res["stderr"]) == ("ping\n", ""), res


def test_fork_bomb(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, payload("fork_bomb.py"), "--timeout", "30")
    assert res["stdout"].strip() == "EAGAIN", res
    if mcpfs.rootless:
        # no pids cgroup: RLIMIT_NPROC, counted in the jail's own user
        # namespace, stops it, and the result says which bound held
        assert "pids" not in res["limits_in_force"], res
        assert res["limits_in_force"]["processes"] == 256, res
    else:
        assert "pids" in res["limits"], res
        assert res["limits_in_force"]["pids"] == 256, res
    assert not res["timed_out"]


@pytest.mark.parametrize("name", ["memory_heap.py", "memory_memfd.py"])
@pytest.mark.needs_root("no memory cgroup for a normal user without a delegated one: "
                        "RLIMIT_DATA bounds each process's heap, memfd and tmpfs go unbounded")
def test_memory_bomb(mcpfs, host_unchanged, name):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, payload(name), "--memory", "128", "--timeout", "60")
    assert res["signal"] == signal.SIGKILL, res
    assert "memory" in res["limits"], res
    assert "ALLOWED" not in res["stdout"]


def test_disk_fill_workspace(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, payload("disk_workspace.py"), "--timeout", "60")
    # the customer's quota (ENOSPC) or the file size rlimit (EFBIG), whichever is lower
    assert res["stdout"].strip() in ("ENOSPC", "EFBIG"), res


def test_cpu_spin_times_out(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    t0 = time.monotonic()
    p, res = run_code(mcpfs, payload("cpu_spin.py"), "--timeout", "1.5")
    took = time.monotonic() - t0
    assert res["timed_out"] is True and res["signal"] == signal.SIGKILL, res
    assert "timeout" in res["limits"]
    assert p.returncode == 128 + signal.SIGKILL
    assert took < 45, took  # it spins for ever


def test_orphan_dies_with_run(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    t0 = time.monotonic()
    p, res = run_code(mcpfs, payload("orphan.py"), "--timeout", "30")
    assert res["stdout"].strip() == "PARENT EXITS" and res["exit_code"] == 0, res
    assert time.monotonic() - t0 < 25  # did not wait for the grandchild's 60 s (nor the 30 s timeout)


def test_other_runs_bridge_unreachable(mcpfs, host_unchanged):  # noqa: F811
    """A run's bridge socket lives in its jail's own root: while the first
    run waits (for a file the test makes only after the second run probed),
    no socket of it is on the host under the data root, and the second run
    cannot reach it by the path the host sees it at (through the first
    jail's /proc/PID/root)."""
    exec_config(mcpfs)
    go = go_file(mcpfs)
    waiter = mcpfs.tmp / "waiter.py"
    waiter.write_text(go_waiter("print('went' if os.path.exists('go') else 'timed out')\n"))
    first = subprocess.Popen(mcpfs.cmd("exec", "--json", waiter), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=mcpfs.env)
    try:
        sock = None
        for _ in range(1500):
            for pid in code_jail_pids_of(mcpfs.root, mcpfs.jail_uid):
                s = Path(f"/proc/{pid}/root/run/mcpfs/bridge.sock")
                with contextlib.suppress(OSError):
                    if stat.S_ISSOCK(s.stat().st_mode):
                        sock = s
            if sock or first.poll() is not None:
                break
            time.sleep(0.02)
        assert sock, "the first run's bridge socket never appeared in its jail"
        on_host = [os.path.join(d, f) for d, _, fs in os.walk(mcpfs.root) for f in fs
                   if stat.S_ISSOCK(os.lstat(os.path.join(d, f)).st_mode)]
        assert on_host == [], on_host
        p, res = run_code(mcpfs, payload("other_bridge.py", socket=sock))
        # still there, the first run still waiting: the probe met a live socket
        assert stat.S_ISSOCK(sock.stat().st_mode) and first.poll() is None
        go.write_text("")
        out, err = first.communicate(timeout=60)
    finally:
        first.kill()
        first.wait()
        go.unlink(missing_ok=True)
    assert res["stdout"].strip() == "ENOENT", res
    assert first.returncode == 0 and json.loads(out)["stdout"] == "went\n", (out, err)


@pytest.mark.parametrize("case", sorted(RLIMIT_CASES))
def test_rlimits(mcpfs, host_unchanged, case):  # noqa: F811
    exec_config(mcpfs)
    flags, kw = RLIMIT_CASES[case]
    p, res = run_code(mcpfs, payload("rlimits.py"), *flags)
    assert res["exit_code"] == 0, res
    seen = {f[0]: (int(f[1]), int(f[2])) for f in map(str.split, res["stdout"].splitlines())}
    assert seen == jail_rlimits(**kw, rootless=mcpfs.rootless)


def test_open_files_limit(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, payload("open_files.py"))
    nofile = jail_rlimits()["RLIMIT_NOFILE"][0]
    assert res["stdout"] == f"EMFILE {nofile - 1}\n", res


def test_file_size_limit(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, payload("file_size.py", limit=jail_rlimits()["RLIMIT_FSIZE"][0]))
    assert res["stdout"] == "1 1 EFBIG EFBIG\n", res
    assert res["signal"] == 0 and res["limits"] == [], res


def test_cpu_limit(mcpfs, host_unchanged):  # noqa: F811
    """Past RLIMIT_CPU the run ends at the soft limit's SIGXCPU and says why.
    (Were the program its PID namespace's init, the kernel would not deliver
    a signal it has no handler for, and only the hard limit's SIGKILL would
    end it, with no reason given.)"""
    exec_config(mcpfs)
    p, res = run_code(mcpfs, payload("cpu_rlimit.py"), "--timeout", "20")
    assert res["stdout"] == "SPINNING\n", res
    assert res["timed_out"] is False and res["signal"] == signal.SIGXCPU, res
    assert res["limits"] == ["cpu"], res


def test_timeout_ends_the_whole_tree(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    run_code(mcpfs, "pass\n")  # the tree's catalogs: the time below is the run's
    t0 = time.monotonic()
    p, res = run_code(mcpfs, payload("tree_spin.py"), "--timeout", "1.5")
    took = time.monotonic() - t0
    assert res["stdout"] == "SPINNING DETACHED\n", res
    assert res["timed_out"] is True and res["signal"] == signal.SIGKILL, res
    assert res["limits"] == ["timeout"], res
    assert took < 5, took
    # host_unchanged: none of the five outlived the run


def _stat_field(pid: int, n: int) -> int:
    """Field @n (1-based, as proc(5) counts) of /proc/@pid/stat."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[n - 3])


def test_own_session_without_terminal(mcpfs, host_unchanged):  # noqa: F811
    """The jailed process leads a session of its own, without a controlling
    terminal to push input into, though mcpfs runs with one. Its standard
    input is that terminal still: terminal requests on 0-2 reach it."""
    exec_config(mcpfs)
    prog = mcpfs.tmp / "sleep.py"
    prog.write_text("import os, time\nprint('up', os.isatty(0), flush=True)\n"
                    "time.sleep(30)\n")
    master, slave = os.openpty()

    def login_session():  # as a shell in a terminal starts it
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(mcpfs.cmd("exec", prog), stdin=slave, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=mcpfs.env,
                            preexec_fn=login_session)
    try:
        assert proc.stdout.readline() == "up True\n"
        pids = code_jail_pids_of(mcpfs.root, mcpfs.jail_uid)
        assert len(pids) == 1, pids
        pid = pids[0]
        assert _stat_field(proc.pid, 7) == os.fstat(slave).st_rdev  # what it would inherit
        assert os.getsid(pid) == pid != os.getsid(proc.pid)
        assert _stat_field(pid, 7) == 0  # tty_nr
    finally:
        proc.terminate()  # mcpfs kills the jail and cleans up (host_unchanged checks)
        proc.communicate(timeout=30)
        os.close(master)
        os.close(slave)
    assert proc.returncode == 128 + signal.SIGKILL


def _host_mount_of(path: str):
    """(root in its file system, type) of host @path: from the host mount
    that holds it, the last one at the longest mount point."""
    best = None
    for line in open("/proc/self/mountinfo"):
        f = line.split()
        mnt = f[4].replace("\\040", " ")
        if path == mnt or path.startswith(mnt.rstrip("/") + "/"):
            if best is None or len(mnt) >= len(best[0]):
                best = (mnt, f[3], f[f.index("-") + 1])
    mnt, root, fstype = best
    return os.path.normpath(os.path.join(root, path[len(mnt):].lstrip("/"))), fstype


def test_jail_view(mcpfs, host_unchanged):  # noqa: F811
    """Exactly the jail's own root: listings of /, /dev, /etc and /run, and
    a mount table of the jail's mounts only: the host's /usr and devices
    and the workspace bound as they are, the shared skills and tree each a
    file system of its own (an overlay whose root is the folder), and the
    skills the customer's overlay (workspaces/overlay.h), or, rootless,
    the folder bound as it is."""
    exec_config(mcpfs)
    p, res = run_code(mcpfs, payload("jail_view.py"))
    assert res["exit_code"] == 0, res
    view = json.loads(res["stdout"])
    top = [n for n in TOP_LINKS if os.path.lexists("/" + n)]
    assert view["/"] == sorted({"usr", "etc", "dev", "proc", "tmp", "workspace", "skills",
                                "mcp", "run", *top})
    assert view["links"] == {n: os.readlink("/" + n) for n in top if os.path.islink("/" + n)}
    assert view["/dev"] == sorted(JAIL_DEV)
    assert view["/etc"] == sorted(JAIL_ETC)
    assert view["/run"] == ["code", "mcpfs"]
    assert view["/run/code"] == ["main.py", "servers"]
    assert view["/run/mcpfs"] == ["bridge.sock"]
    assert view["/tmp"] == []

    root = Path(os.path.realpath(mcpfs.root))
    binds = {"/usr": "/usr", "/etc/ld.so.cache": "/etc/ld.so.cache",
             **{f"/dev/{d}": f"/dev/{d}" for d in ("null", "zero", "full", "random", "urandom")},
             **{f"/{n}": f"/{n}" for n in top if not os.path.islink("/" + n)},
             "/workspace": str(root / "workspaces" / "default" / "workspace")}
    if mcpfs.rootless:
        binds["/skills"] = str(root / "workspaces" / "default" / "skills")
    want = {m: ["/", t] for m, t in JAIL_FRESH.items()}
    want.update({m: list(_host_mount_of(src)) for m, src in binds.items()})
    want.update({m: ["/", "overlay"] for m in ("/skills", "/skills/shared", "/mcp",
                                               "/run/code/servers") if m not in binds})
    seen = [m[1] for m in view["mounts"]]
    assert sorted(seen) == sorted(want), "a mount the jail should not have, or one missing"
    assert {m[1]: [m[0], m[2]] for m in view["mounts"]} == want


def _mountinfo_naming(mcpfs, what: str):
    """The lines of a run's /proc/self/mountinfo that name @what."""
    exec_config(mcpfs)
    p, res = run_code(mcpfs, "print(open('/proc/self/mountinfo').read())")
    assert res and res["exit_code"] == 0, (p.stderr, res)
    return [line for line in res["stdout"].splitlines() if what in line], res


def test_mountinfo_names_no_run_folder(mcpfs, host_unchanged):  # noqa: F811
    """The bridge socket is made in the jail's own root: no run folder of
    the data root is bound in (issue 19)."""
    root = os.path.realpath(mcpfs.root)
    lines, res = _mountinfo_naming(mcpfs, f"{root}/run")
    assert lines == [], lines
    assert not [line for line in res["stdout"].splitlines() if res["run_id"] in line]


def test_mountinfo_names_no_data_root(mcpfs, host_unchanged):  # noqa: F811
    """Nothing in the jail's mount table names a path under the data root
    (issue 19), but, rootless, the workspace and skills: a normal user can
    make them no file system of their own on the host, so they are binds (an
    overlay per run would not show what the host or another run adds while
    the run looks: executor/README.md)."""
    root = os.path.realpath(mcpfs.root)
    customer = Path(root) / "workspaces" / "default"
    lines, _ = _mountinfo_naming(mcpfs, root)
    for name in ("workspace", "skills"):
        if not os.path.ismount(customer / name):
            assert mcpfs.rootless, f"{name}: no file system of its own"
            bound = [_host_mount_of(str(customer / name))[0], "/" + name]
            lines = [line for line in lines if line.split()[3:5] != bound]
    assert lines == [], lines
