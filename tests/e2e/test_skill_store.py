"""mcpfs skill: save / list / show / rm, shared skills, validation."""
import pytest

from conftest_ws import EXAMPLES, ws  # noqa: F401 (fixture)

pytestmark = pytest.mark.rootless


def make_skill(base, name, desc="does a thing", body="# Use\nCall f().\n", extra=None):
    d = base / name
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {desc}\n---\n{body}")
    (d / "__init__.py").write_text("def f():\n    return 42\n")
    for rel, text in (extra or {}).items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(text)
    return d


def test_save_list_show_rm(ws):
    ws.run("workspace", "create", "acme", check=0)
    src = make_skill(ws.tmp / "src", "tally", extra={"lib/util.py": "X = 1\n"})
    saved = ws.json("skill", "save", "acme", str(src))
    assert saved == {"name": "tally", "scope": "customer"}
    stored = ws.root / "workspaces" / "acme" / "skills" / "tally"
    assert (stored / "lib" / "util.py").read_text() == "X = 1\n"
    listed = ws.json("skill", "list", "acme")
    assert listed == [{"name": "tally", "description": "does a thing", "scope": "customer"}]
    shown = ws.json("skill", "show", "acme", "tally")
    assert shown["instructions"] == "# Use\nCall f().\n"
    assert {f["path"] for f in shown["files"]} == {"SKILL.md", "__init__.py", "lib/util.py"}
    # Saving again replaces the old version whole.
    (src / "lib" / "util.py").unlink()
    (src / "SKILL.md").write_text("---\nname: tally\ndescription: v2\n---\n")
    ws.run("skill", "save", "acme", str(src), check=0)
    assert not (stored / "lib" / "util.py").exists()
    assert ws.json("skill", "list", "acme")[0]["description"] == "v2"
    ws.run("skill", "rm", "acme", "tally", check=0)
    assert ws.json("skill", "list", "acme") == []
    ws.run("skill", "show", "acme", "tally", check=2)
    ws.run("skill", "rm", "acme", "tally", check=2)


def test_skills_are_per_customer(ws):
    ws.run("workspace", "create", "a", check=0)
    ws.run("workspace", "create", "b", check=0)
    ws.run("skill", "save", "a", str(make_skill(ws.tmp, "only-a")), check=0)
    assert [s["name"] for s in ws.json("skill", "list", "a")] == ["only-a"]
    assert ws.json("skill", "list", "b") == []
    ws.run("skill", "show", "b", "only-a", check=2)


def test_shared_skills_seen_by_everyone(ws):
    ws.run("workspace", "create", "a", check=0)
    ws.run("workspace", "create", "b", check=0)
    ws.run("skill", "save", "--shared", str(make_skill(ws.tmp, "house-style")), check=0)
    for c in ("a", "b"):
        assert ws.json("skill", "list", c) == [
            {"name": "house-style", "description": "does a thing", "scope": "shared"}]
        assert ws.json("skill", "show", c, "house-style")["scope"] == "shared"
    assert (ws.root / "skills-shared" / "house-style" / "SKILL.md").exists()
    ws.run("skill", "rm", "a", "house-style", check=2)  # a customer cannot remove it
    ws.run("skill", "rm", "--shared", "house-style", check=0)
    assert ws.json("skill", "list", "--shared") == []


@pytest.mark.parametrize("md,why", [
    ("no front matter\n", "does not start"),
    ("---\nname: x\n", "not closed"),
    ("---\ndescription: d\n---\n", "no name"),
    ("---\nname: bad_name\ndescription: d\n---\n", "forbidden character"),
    ("---\nname: other\ndescription: d\n---\n", "names it"),
    ("---\nname: broken\n---\n", "no description"),
])
def test_broken_skill_is_reported_not_fatal(ws, md, why):
    ws.run("workspace", "create", "acme", check=0)
    skills = ws.root / "workspaces" / "acme" / "skills"
    (skills / "broken").mkdir()
    (skills / "broken" / "SKILL.md").write_text(md)
    (skills / "fine").mkdir()
    (skills / "fine" / "SKILL.md").write_text("---\nname: fine\ndescription: ok\n---\n")
    listed = {s["name"]: s for s in ws.json("skill", "list", "acme")}
    assert why in listed["broken"]["error"]
    assert listed["fine"]["description"] == "ok"
    assert "BROKEN" in ws.run("skill", "list", "acme", check=0).stdout
    p = ws.run("skill", "show", "acme", "broken", check=2)
    assert why in p.stderr


def test_save_refuses_bad_input(ws):
    ws.run("workspace", "create", "acme", check=0)
    src = make_skill(ws.tmp, "linked")
    (src / "passwd").symlink_to("/etc/passwd")
    p = ws.run("skill", "save", "acme", str(src), check=2)
    assert "symlink" in p.stderr
    ok = make_skill(ws.tmp / "x", "named")
    ws.run("skill", "save", "acme", str(ok), "--name", "different", check=2)
    ws.run("skill", "save", "acme", str(ws.tmp / "missing"), check=2)
    big = make_skill(ws.tmp / "y", "big")
    (big / "blob.bin").write_bytes(b"\0" * (9 << 20))
    assert "larger" in ws.run("skill", "save", "acme", str(big), check=2).stderr
    bad = make_skill(ws.tmp / "z", "shared")  # reserved for /skills/shared
    bad_md = bad / "SKILL.md"
    assert bad_md.exists()
    assert "reserved" in ws.run("skill", "save", "acme", str(bad), check=2).stderr
    assert ws.json("skill", "list", "acme") == []
    assert not [p for p in (ws.root / "workspaces" / "acme" / "skills").iterdir()
                if p.name.startswith(".save-")]


def test_examples_are_valid_skills(ws):
    ws.run("workspace", "create", "acme", check=0)
    names = sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir())
    assert len(names) >= 3
    for n in names:
        ws.run("skill", "save", "acme", str(EXAMPLES / n), check=0)
    listed = ws.json("skill", "list", "acme")
    assert [s["name"] for s in listed] == names
    assert all("error" not in s and s["description"] for s in listed)


def test_python_import_layout(ws):
    """skills/__init__.py maps skills.<name_with_underscores> to /skills/<name>."""
    import subprocess
    import sys
    ws.run("workspace", "create", "acme", check=0)
    ws.run("skill", "save", "acme", str(make_skill(ws.tmp / "a", "two-words")), check=0)
    ws.run("skill", "save", "--shared", str(make_skill(ws.tmp / "b", "common")), check=0)
    cdir = ws.root / "workspaces" / "acme"
    # Lay out /skills as the jail does: the customer's store with the shared one at shared/.
    shared_view = cdir / "skills" / "shared"
    subprocess.run(["mount", "--bind", str(ws.root / "skills-shared"), str(shared_view)],
                   check=False)
    try:
        if not (shared_view / "common").exists():
            pytest.skip("bind mounts unavailable")
        code = ("from skills.two_words import f; from skills.shared.common import f as g\n"
                "print(f() + g())\n")
        p = subprocess.run([sys.executable, "-c", code], cwd=cdir, capture_output=True,
                           text=True, env={"PYTHONPATH": str(cdir)})
        assert p.stdout.strip() == "84", p.stderr
    finally:
        subprocess.run(["umount", str(shared_view)], check=False)
