"""The mounted tree is the generated tree: byte for byte, under POSIX tools,
read-only, and under concurrent readers."""
import errno
import os
import stat
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest_mount import mounted, wait_until  # noqa: F401 (fixture)


def files_under(top: Path) -> list:
    return sorted(p.relative_to(top) for p in top.rglob("*") if p.is_file())


def test_mount_matches_generate(mounted, tmp_path):
    t0 = time.monotonic()
    mounted.start()
    took = time.monotonic() - t0
    gen = tmp_path / "gen"
    mounted.m.run("generate", "--out", gen, env=mounted.env, check=0)
    p = subprocess.run(["diff", "-r", str(gen), str(mounted.point)], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, f"mount differs from generate:\n{p.stdout[-4000:]}{p.stderr}"
    names = {p.name for p in (mounted.point / "servers").iterdir()}
    assert {"everything", "filesystem", "memory", "dyn"} <= names, names
    assert (mounted.point / "servers" / "everything" / "get_sum.py").stat().st_size > 0
    assert took < 10, f"mount took {took:.1f} s to return"


def test_mount_posix_tools(mounted, tmp_path):
    mounted.start()
    top = mounted.point
    st = os.stat(top)
    assert stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o555
    readme = top / "servers" / "dyn" / "README.md"
    a, b = os.stat(readme), os.stat(readme)
    assert stat.S_ISREG(a.st_mode) and stat.S_IMODE(a.st_mode) == 0o444
    assert a.st_ino == b.st_ino and a.st_size == len(readme.read_bytes())
    assert a.st_mtime > 0
    # Inode numbers are distinct and stable across lookups.
    inos = {os.stat(p).st_ino for p in (top / "servers" / "everything").iterdir()}
    assert len(inos) == len(list((top / "servers" / "everything").iterdir()))
    assert os.stat(top / "servers" / "dyn" / ".").st_ino == os.stat(top / "servers" / "dyn").st_ino
    assert os.stat(top / "servers" / "dyn" / "..").st_ino == os.stat(top / "servers").st_ino
    with pytest.raises(FileNotFoundError):
        os.stat(top / "servers" / "dyn" / "no_such_tool.py")
    with pytest.raises(FileNotFoundError):
        os.stat(top / "nope")
    with pytest.raises(NotADirectoryError):
        os.stat(top / "README.md" / "x")

    ls = subprocess.run(["ls", "-laR", str(top)], capture_output=True, text=True, check=True)
    assert "-r--r--r--" in ls.stdout and "dr-xr-xr-x" in ls.stdout
    subprocess.run(["stat", str(readme)], capture_output=True, check=True)
    found = subprocess.run(["find", str(top), "-type", "f"], capture_output=True, text=True,
                           check=True).stdout.split()
    assert sorted(Path(f).relative_to(top) for f in found) == files_under(top)
    assert any(f.endswith("servers/dyn/echo.py") for f in found)
    du = subprocess.run(["du", "-sb", str(top)], capture_output=True, text=True, check=True)
    total = sum(os.stat(top / f).st_size for f in files_under(top))
    assert int(du.stdout.split()[0]) >= total
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-r", str(top), str(copy)], check=True, timeout=120)
    p = subprocess.run(["diff", "-r", str(top), str(copy)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-2000:]
    grep = subprocess.run(["grep", "-rl", "def echo", str(top / "servers")],
                          capture_output=True, text=True)
    assert "servers/dyn/echo.py" in grep.stdout


def write_errno(fn) -> int:
    try:
        fn()
    except OSError as e:
        return e.errno
    return 0


def test_mount_is_read_only(mounted):
    mounted.start()
    top = mounted.point
    f = top / "servers" / "dyn" / "echo.py"
    before = f.read_bytes()
    denied = (errno.EROFS, errno.EACCES, errno.EPERM)
    attempts = {
        "open for write": lambda: open(f, "wb").close(),
        "append": lambda: open(f, "ab").close(),
        "create": lambda: open(top / "servers" / "dyn" / "new.py", "w").close(),
        "mkdir": lambda: os.mkdir(top / "servers" / "x"),
        "unlink": lambda: os.unlink(f),
        "rmdir": lambda: os.rmdir(top / "servers" / "dyn"),
        "rename": lambda: os.rename(f, top / "servers" / "dyn" / "other.py"),
        "chmod": lambda: os.chmod(f, 0o666),
        "truncate": lambda: os.truncate(f, 0),
        "symlink": lambda: os.symlink("/etc/passwd", top / "servers" / "link"),
        "utime": lambda: os.utime(f, (0, 0)),
    }
    for what, fn in attempts.items():
        e = write_errno(fn)
        assert e in denied, f"{what}: wanted EROFS/EACCES, got {errno.errorcode.get(e, e)}"
    assert f.read_bytes() == before


def test_mount_concurrent_readers(mounted, tmp_path):
    mounted.start()
    gen = tmp_path / "gen"
    mounted.m.run("generate", "--out", gen, env=mounted.env, check=0)
    files = files_under(gen)
    assert len(files) > 40
    listing = tmp_path / "files.txt"
    listing.write_text("\n".join(str(f) for f in files) + "\n")

    # Eight processes each cat every file (in a different order), cold.
    def reader(k):
        order = files[k::] + files[:k]
        p = subprocess.run(["cat", *[str(mounted.point / f) for f in order]],
                           capture_output=True, timeout=120)
        return order, p

    with ThreadPoolExecutor(8) as ex:
        results = list(ex.map(reader, range(8)))
    for order, p in results:
        assert p.returncode == 0, p.stderr
        want = b"".join((gen / f).read_bytes() for f in order)
        assert p.stdout == want


def test_mount_python_imports_from_it(mounted):
    mounted.start()
    code = ("from servers.dyn import echo\n"
            "import servers.everything.get_sum as m\n"
            "print(callable(echo), hasattr(m, 'get_sum'))\n")
    p = subprocess.run(["/usr/bin/python3", "-B", "-c", code], cwd=mounted.point,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["True", "True"], p.stdout
