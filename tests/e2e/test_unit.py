"""Runs every C unit test binary of the plain and the ASan+UBSan build.

One convention (tests/unit/check.h, as libfuse's and automake's): exit 0 is a
pass, 77 a skip whose reason is the test's "skipped: why" line, anything else
a failure. A skip is reported as a skip, never counted as a pass."""
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, SAN_ENV

SKIPPED = 77

BINS = sorted(p for b in ("build", "build-asan") for p in (REPO / b / "tests").glob("test_*")
              if p.is_file() and p.stat().st_mode & 0o111)


def skip_reason(stdout: str) -> str:
    for line in stdout.splitlines():
        if line.startswith("skipped: "):
            return line[len("skipped: "):]
    return "exit 77 without a 'skipped: why' line"


@pytest.mark.parametrize("binary", BINS, ids=[f"{p.parent.parent.name}/{p.name}" for p in BINS])
def test_unit(binary: Path):
    p = subprocess.run([str(binary)], capture_output=True, text=True, timeout=300,
                       env={"PATH": "/usr/bin:/bin", **SAN_ENV}, cwd=REPO)
    if p.returncode == SKIPPED:
        pytest.skip(f"{binary.parent.parent.name}/{binary.name}: {skip_reason(p.stdout)}")
    assert p.returncode == 0, f"{binary.name} failed:\n{p.stdout[-4000:]}\n{p.stderr[-4000:]}"


def test_unit_binaries_built():
    # Both builds must have produced their unit tests: an empty list would pass vacuously.
    names = {b: {p.name for p in BINS if p.parent.parent.name == b} for b in ("build", "build-asan")}
    assert names["build"], "no unit tests built: run 'make unit'"
    assert names["build"] == names["build-asan"], names
