"""Every C file matches .clang-format (STYLE.md #22)."""
import shutil
import subprocess

import pytest

from conftest import REPO


def test_clang_format():
    if not shutil.which("clang-format"):
        pytest.skip("clang-format is not installed (apt-get install clang-format)")
    p = subprocess.run(["sh", "scripts/format-check.sh"], cwd=REPO, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-4000:]
