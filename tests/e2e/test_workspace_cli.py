"""mcpfs workspace / session: provisioning, ids, symlinks, quotas, gc."""
import json
import os
import subprocess
import time

import pytest

from conftest_ws import images_possible, loops_of, mounts_under, ws  # noqa: F401 (fixture)

pytestmark = pytest.mark.rootless

HOSTILE = ["..", ".", "a/b", "../etc", "", "x" * 65, ".hidden", "a b", "é", "a\nb"]


def test_create_is_idempotent_and_listed(ws):
    p1 = ws.run("workspace", "create", "acme", check=0)
    p2 = ws.run("workspace", "create", "acme", check=0)
    assert p1.stdout == p2.stdout
    ws.run("workspace", "create", "beta", check=0)
    assert ws.json("workspace", "list") == ["acme", "beta"]
    base = ws.root / "workspaces" / "acme"
    for sub in ("workspace", "skills", "sessions", "state"):
        assert (base / sub).is_dir() and not (base / sub).is_symlink()
    show = ws.json("workspace", "show", "acme")
    assert show["customer"] == "acme" and show["sessions"] == 0 and show["last_use"] is None
    assert show["quota"]["bytes"] > 0
    # a plain folder (a normal user has no loop devices) says its quota is not enforced
    assert show["quota"]["enforced"] is not ws.rootless
    assert show["usage"]["bytes_total"] > 0 or not show["quota"]["enforced"]
    human = ws.run("workspace", "show", "acme", check=0).stdout
    assert "size:" in human and "files:" in human and "last use:  never" in human


@pytest.mark.parametrize("bad", HOSTILE)
def test_hostile_ids_refused(ws, bad):
    for args in (("workspace", "create", bad), ("workspace", "show", bad),
                 ("workspace", "rm", bad), ("session", "list", bad),
                 ("skill", "list", bad)):
        p = ws.run(*args, check=2)
        assert "customer id" in p.stderr and p.stderr.count("\n") == 1, p.stderr
    assert not (ws.root / "etc").exists()
    assert ws.json("workspace", "list") == []


def test_hostile_session_ids_refused(ws):
    ws.run("workspace", "create", "acme", check=0)
    for bad in ("..", "../../x", "a/b", "", "x" * 65):
        p = ws.run("session", "show", "acme", bad, check=2)
        assert "session id" in p.stderr


def test_symlinked_customer_refused(ws):
    ws.run("workspace", "create", "victim", check=0)
    (ws.root / "workspaces" / "evil").symlink_to(ws.root / "workspaces" / "victim")
    for args in (("workspace", "show", "evil"), ("workspace", "create", "evil"),
                 ("session", "list", "evil")):
        p = ws.run(*args, check=1)
        assert "symlink" in p.stderr
    assert "evil" not in ws.json("workspace", "list")


def test_symlinked_subfolder_refused(ws):
    ws.run("workspace", "create", "acme", check=0)
    ws.run("workspace", "umount", "acme", check=0)
    outside = ws.tmp / "outside"
    outside.mkdir()
    ws.give(outside)
    sessions = ws.root / "workspaces" / "acme" / "sessions"
    sessions.rmdir()
    sessions.symlink_to(outside)
    p = ws.run("session", "checkpoint", "acme", "s1", "--set", '{"step": 1}', check=1)
    assert "symlink" in p.stderr
    assert list(outside.iterdir()) == []


def test_planted_symlinks_in_skills_not_followed(ws):
    ws.run("workspace", "create", "acme", check=0)
    secret = ws.tmp / "secret"
    secret.mkdir()
    ws.give(secret)
    (secret / "SKILL.md").write_text("---\nname: secret\ndescription: other's\n---\n")
    skills = ws.root / "workspaces" / "acme" / "skills"
    (skills / "secret").symlink_to(secret)
    listed = ws.json("skill", "list", "acme")
    assert all(s["name"] != "secret" for s in listed)
    ws.run("skill", "show", "acme", "secret", check=2)
    ws.run("skill", "rm", "acme", "secret", check=0)  # removes the link, not the target
    assert (secret / "SKILL.md").exists()


def test_rm_removes_everything(ws):
    ws.run("workspace", "create", "gone", check=0)
    ws.run("workspace", "rm", "gone", check=0)
    assert not (ws.root / "workspaces" / "gone").exists()
    assert mounts_under(ws.root) == []
    ws.run("workspace", "show", "gone", check=2)
    ws.run("workspace", "rm", "gone", check=2)


def test_usage_errors(ws):
    ws.run("workspace", check=2)
    ws.run("workspace", "frobnicate", check=2)
    ws.run("workspace", "create", check=2)
    ws.run("workspace", "create", "a", "--quota-bytes", "lots", check=2)
    ws.run("workspace", "create", "a", "--quota-bytes", "10", check=2)
    ws.run("workspace", "create", "a", "--quota-files", "1", check=2)
    assert ws.run("workspace", "--help", check=0).stdout.startswith("usage:")
    assert ws.run("session", "--help", check=0).stdout.startswith("usage:")
    ws.run("session", "end", "nobody", "s", check=2)


def test_sessions_checkpoint_and_end(ws):
    ws.run("workspace", "create", "acme", check=0)
    assert ws.json("session", "list", "acme") == []
    cp = ws.json("session", "checkpoint", "acme", "s1", "--set",
                 '{"step": 2, "last_task": "t1", "context": {"page": 7}}')
    assert cp["step"] == 2 and cp["context"] == {"page": 7} and cp["timestamp"]
    log = ws.json("session", "show", "acme", "s1")
    for key in ("session_id", "customer_uid", "started_at", "ended_at", "tasks", "state_files",
                "checkpoint"):
        assert key in log, key
    assert log["customer_uid"] == "acme" and log["ended_at"] is None
    ws.run("session", "end", "acme", "s1", check=0)
    assert ws.json("session", "show", "acme", "s1")["ended_at"]
    listed = ws.json("session", "list", "acme")
    assert [s["session_id"] for s in listed] == ["s1"] and listed[0]["ended_at"]
    assert ws.json("session", "checkpoint", "acme", "nosuch") is None
    ws.run("session", "show", "acme", "nosuch", check=2)
    assert ws.json("workspace", "show", "acme")["sessions"] == 1


def test_gc_removes_only_stale(ws):
    ws.run("workspace", "create", "acme", check=0)
    ws.json("session", "checkpoint", "acme", "old", "--set", '{"step": 1}')
    ws.json("session", "checkpoint", "acme", "new", "--set", '{"step": 1}')
    sessions = ws.root / "workspaces" / "acme" / "sessions"
    leftover = sessions / ".new.json.tmp.999999"
    leftover.write_text("{")
    past = time.time() - 40 * 86400
    for f in (sessions / "old.json", sessions / "old.lock", leftover):
        os.utime(f, (past, past))
    dry = ws.json("workspace", "gc", "acme", "--dry-run")
    assert "sessions/old.json" in dry["acme"] and (sessions / "old.json").exists()
    gone = ws.json("workspace", "gc", "--max-age-days", "30")
    assert "sessions/old.json" in gone["acme"]
    assert "sessions/.new.json.tmp.999999" in gone["acme"]
    assert not (sessions / "old.json").exists() and (sessions / "new.json").exists()
    assert [s["session_id"] for s in ws.json("session", "list", "acme")] == ["new"]


def needs_images(test):
    """A test of ext4 workspace images; a normal user's workspaces are plain folders."""
    test = pytest.mark.needs_root("workspace images need loop devices: plain folders")(test)
    return pytest.mark.skipif(not images_possible(),
                              reason="ext4 quota images need root and /dev/loop-control")(test)


@needs_images
def test_quota_bytes_enforced_and_data_kept(ws):
    ws.run("workspace", "create", "small", "--quota-bytes", "4M", "--quota-files", "64", check=0)
    show = ws.json("workspace", "show", "small")
    assert show["quota"]["enforced"] and show["usage"]["mounted"]
    wdir = ws.root / "workspaces" / "small" / "workspace"
    (wdir / "keep.txt").write_text("earlier data")
    with pytest.raises(OSError) as e:
        with open(wdir / "big", "wb") as f:
            for _ in range(64):
                f.write(b"\0" * (128 << 10))
                f.flush()
                os.fsync(f.fileno())
    assert e.value.errno in (28, 122, 27)  # ENOSPC, EDQUOT, EFBIG
    assert (wdir / "keep.txt").read_text() == "earlier data"
    (wdir / "big").unlink()
    # Growing the quota keeps the data and makes room.
    ws.run("workspace", "create", "small", "--quota-bytes", "8M", check=0)
    assert (wdir / "keep.txt").read_text() == "earlier data"
    assert ws.json("workspace", "show", "small")["usage"]["bytes_total"] > 6 << 20
    p = ws.run("workspace", "create", "small", "--quota-bytes", "4M", check=2)
    assert "shrink" in p.stderr


@needs_images
def test_quota_files_enforced(ws):
    ws.run("workspace", "create", "few", "--quota-bytes", "4M", "--quota-files", "32", check=0)
    wdir = ws.root / "workspaces" / "few" / "workspace"
    made = 0
    with pytest.raises(OSError) as e:
        for i in range(1000):
            (wdir / f"f{i}").write_text("x")
            made += 1
    assert e.value.errno == 28
    assert 32 <= made < 64, made
    assert (wdir / "f0").read_text() == "x"


@needs_images
def test_workspace_persists_across_umount(ws):
    ws.run("workspace", "create", "p", "--quota-bytes", "2M", check=0)
    wdir = ws.root / "workspaces" / "p" / "workspace"
    (wdir / "state.json").write_text('{"n": 1}')
    ws.run("workspace", "umount", "p", check=0)
    assert not (wdir / "state.json").exists() and mounts_under(ws.root) == []
    ws.json("workspace", "show", "p")  # opening mounts it again
    assert json.loads((wdir / "state.json").read_text()) == {"n": 1}


def poll(cond, what, timeout=120):
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@needs_images
def test_umount_while_another_namespace_holds_it(ws):
    """A jail made while a workspace was mounted holds a copy of the mount,
    which an umount here neither fails for nor ends. The next mount takes
    the loop device still bound (one file system on the image, never two,
    which would corrupt it), and growing refuses to resize a live one."""
    ws.run("workspace", "create", "h", "--quota-bytes", "2M", check=0)
    wdir = ws.root / "workspaces" / "h" / "workspace"
    img = ws.root / "workspaces" / "h" / "workspace.img"
    (wdir / "a.txt").write_text("1")
    ours = os.readlink("/proc/self/ns/mnt")
    holder = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sleep", "600"])
    try:
        poll(lambda: os.readlink(f"/proc/{holder.pid}/ns/mnt") != ours,
             "the holder's namespace")
        ws.run("workspace", "umount", "h", check=0)
        assert mounts_under(ws.root) == []
        ws.json("workspace", "show", "h")  # mounts it again
        assert len(loops_of(ws.root)) == 1, loops_of(ws.root)
        assert (wdir / "a.txt").read_text() == "1"
        (wdir / "b.txt").write_text("2")
        p = ws.run("workspace", "create", "h", "--quota-bytes", "4M", check=1)
        assert "still has it mounted" in p.stderr
    finally:
        holder.kill()
        holder.wait()
    ws.run("workspace", "umount", "h", check=0)
    poll(lambda: loops_of(ws.root) == [], "the loop device to go")
    fsck = subprocess.run(["e2fsck", "-fn", str(img)], capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    ws.run("workspace", "create", "h", "--quota-bytes", "4M", check=0)
    assert (wdir / "a.txt").read_text() == "1" and (wdir / "b.txt").read_text() == "2"


@needs_images
def test_rm_detaches_loop_device(ws):
    ws.run("workspace", "create", "l1", "--quota-bytes", "2M", check=0)
    img = str(ws.root / "workspaces" / "l1" / "workspace.img")
    assert img in subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
    ws.run("workspace", "rm", "l1", check=0)
    assert img not in subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
    assert mounts_under(ws.root) == []
