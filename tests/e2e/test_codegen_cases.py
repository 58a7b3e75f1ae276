"""The reviewed outputs in tests/codegen/<case>/expected.{py,ts} (which the C
unit test test_codegen_cases compares the renderer against) compile and type-check,
and hostile text stays inside its docstring or comment."""
import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO
from conftest_codegen import mypy_cache, run_mypy, run_tsc

__all__ = ["mypy_cache"]  # a fixture: imported so pytest finds it

CASES = sorted(p for p in (REPO / "tests" / "codegen").iterdir() if p.is_dir())


def build_tree(tmp: Path) -> Path:
    top = tmp / "tree"
    srv = top / "servers" / "srv"
    srv.mkdir(parents=True)
    shutil.copy(REPO / "templates" / "servers_init.py", top / "servers" / "__init__.py")
    shutil.copy(REPO / "templates" / "_runtime.py", top / "servers" / "_runtime.py")
    shutil.copy(REPO / "templates" / "_runtime.ts", top / "servers" / "_runtime.ts")
    (srv / "__init__.py").write_text("")
    for case in CASES:
        shutil.copy(case / "expected.py", srv / f"{case.name}.py")
        shutil.copy(case / "expected.ts", srv / f"{case.name}.ts")
    return top


def test_cases_exist():
    assert len(CASES) >= 8
    for case in CASES:
        for f in ("tool.json", "expected.py", "expected.ts", "expected.json"):
            assert (case / f).is_file(), case / f


def test_expected_files_type_check(tmp_path, mypy_cache):
    top = build_tree(tmp_path)
    p = subprocess.run([sys.executable, "-m", "py_compile",
                        *map(str, (top / "servers" / "srv").glob("*.py"))],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    p = run_mypy(top, mypy_cache)
    assert p.returncode == 0, p.stdout[-4000:]
    p = run_tsc(top, tmp_path)
    assert p.returncode == 0, p.stdout[-4000:]


def test_expected_json_is_the_tool_as_sent():
    for case in CASES:
        sent = json.loads((case / "tool.json").read_text())
        assert json.loads((case / "expected.json").read_text()) == sent, case.name


def test_hostile_text_stays_in_its_docstring():
    case = REPO / "tests" / "codegen" / "breakout_text"
    tree = ast.parse((case / "expected.py").read_text())
    funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert len(funcs) == 1, "a description must not be able to add code"
    doc = ast.get_docstring(funcs[0])
    assert 'Ends """ a docstring, */ a comment, `bt`, ${x}, NUL \x00 here,' in doc
    assert 'backslash \\ and a trailing quote ".\n\nArgs:' in doc  # the sentence ended
    ts = (case / "expected.ts").read_text()
    # Outside comments, the TS file holds only what codegen wrote: no comment
    # may end early, so stripping /** ... */ blocks leaves no description text.
    code = ts
    while "/**" in code:
        start = code.index("/**")
        code = code[:start] + code[code.index("*/", start) + 2:]
    assert "docstring" not in code and "Ends" not in code
