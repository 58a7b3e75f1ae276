"""Runs every C unit test binary of the plain and the ASan+UBSan build."""
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, SAN_ENV

BINS = sorted(p for b in ("build", "build-asan") for p in (REPO / b / "tests").glob("test_*")
              if p.is_file() and p.stat().st_mode & 0o111)


@pytest.mark.parametrize("binary", BINS, ids=[f"{p.parent.parent.name}/{p.name}" for p in BINS])
def test_unit(binary: Path):
    p = subprocess.run([str(binary)], capture_output=True, text=True, timeout=300,
                       env={"PATH": "/usr/bin:/bin", **SAN_ENV}, cwd=REPO)
    assert p.returncode == 0, f"{binary.name} failed:\n{p.stdout[-4000:]}\n{p.stderr[-4000:]}"


def test_unit_binaries_built():
    # Both builds must have produced their unit tests: an empty list would pass vacuously.
    names = {b: {p.name for p in BINS if p.parent.parent.name == b} for b in ("build", "build-asan")}
    assert names["build"], "no unit tests built: run 'make unit'"
    assert names["build"] == names["build-asan"], names
