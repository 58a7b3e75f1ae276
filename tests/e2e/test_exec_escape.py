"""The escape and abuse suite: each case is a payload in tests/jail/ that
tries one forbidden act and prints the errno it got (or ALLOWED when the act
worked), or dies by the signal the policy promises. A case passes only when
the act failed the expected way. The host is checked unchanged after each."""
import os
import signal
import socket
import stat
import threading
import time

import pytest

from conftest_executor import exec_config, host_unchanged, payload, run_code  # noqa: F401

# payload -> (expected stdout, extra exec flags)
ERRNO_CASES = {
    "read_shadow.py": ("ENOENT", []),
    "host_pids.py": ("ISOLATED", []),
    "write_usr.py": ("EROFS", []),
    "write_root.py": ("EROFS", []),
    "write_tree.py": ("EROFS EROFS", []),
    "write_shared_skills.py": ("EROFS", []),
    "net_packet.py": ("EAFNOSUPPORT EAFNOSUPPORT", []),
    "unshare.py": ("EPERM", []),
    "clone_newns.py": ("EPERM", []),
    "clone3.py": ("ENOSYS", []),
    "setns.py": ("EPERM", []),
    "mount.py": ("EPERM", []),
    "ptrace.py": ("EPERM", []),
    "keyctl.py": ("EPERM", []),
    "bpf.py": ("EPERM", []),
    "userfaultfd.py": ("EPERM", []),
    "io_uring.py": ("EPERM", []),
    "tiocsti.py": ("EPERM EPERM", []),
    "setuid.py": ("EPERM", []),
    "memory_shm.py": ("ENOSPC", []),
    "disk_tmp.py": ("ENOSPC", []),
    "fd_leak.py": ("0 1 2 3", []),
    "wrong_token.py": ("REFUSED", []),
}


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
    assert res["signal"] == signal.SIGSYS, res
    assert "ALLOWED" not in res["stdout"]
    assert p.returncode == 128 + signal.SIGSYS


def test_host_environment_hidden(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, payload("host_environ.py"),
                      env={"MCPFS_HOST_SECRET": "s3cr3t", "LD_PRELOAD": "/nonexistent.so",
                           "PYTHONSTARTUP": "/nonexistent.py"})
    assert res["stdout"].strip() == "HIDDEN", res
    assert res["stderr"] == "", res  # LD_PRELOAD would have complained


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


def test_host_loopback_unreachable(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    srv.settimeout(0.2)
    port = srv.getsockname()[1]
    p, res = run_code(mcpfs, payload("net_host.py", port=port))
    assert res["stdout"].strip() == "ECONNREFUSED", res
    with pytest.raises(socket.timeout):
        srv.accept()
    srv.close()


def test_fork_bomb(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    p, res = run_code(mcpfs, payload("fork_bomb.py"), "--timeout", "30")
    assert res["stdout"].strip() == "EAGAIN", res
    assert "pids" in res["limits"], res
    assert not res["timed_out"]


@pytest.mark.parametrize("name", ["memory_heap.py", "memory_memfd.py"])
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
    assert took < 10, took


def test_orphan_dies_with_run(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    t0 = time.monotonic()
    p, res = run_code(mcpfs, payload("orphan.py"), "--timeout", "30")
    assert res["stdout"].strip() == "PARENT EXITS" and res["exit_code"] == 0, res
    assert time.monotonic() - t0 < 10  # did not wait for the grandchild's 60 s


def test_other_runs_bridge_unreachable(mcpfs, host_unchanged):  # noqa: F811
    exec_config(mcpfs)
    (mcpfs.tmp / "sleeper.py").write_text("import time; time.sleep(4)\n")
    first = {}

    def sleeper():
        first["p"] = mcpfs.run("exec", "--json", mcpfs.tmp / "sleeper.py", timeout=60)

    t = threading.Thread(target=sleeper)
    t.start()
    run_dir = mcpfs.root / "run"
    sock = None
    for _ in range(200):
        socks = list(run_dir.glob("exec-*/bridge.sock")) if run_dir.exists() else []
        if socks:
            sock = socks[0]
            break
        time.sleep(0.02)
    assert sock is not None, "the first run's bridge socket never appeared"
    p, res = run_code(mcpfs, payload("other_bridge.py", socket=sock))
    t.join()
    assert res["stdout"].strip() == "ENOENT", res
    assert first["p"].returncode == 0, first["p"].stderr
