"""Every setup step fails closed: when the jail cannot be made whole, the
agent's code never runs. Each case takes one thing the jail needs away from
mcpfs, in a mount namespace of the test's own (unshare -m: the host keeps
it), and runs a program that would leave a mark in the workspace. The run
must fail with one line naming the step, leave no mark and nothing behind."""
import os
import shutil
import subprocess

import pytest

from conftest_executor import exec_config, host_unchanged  # noqa: F401

pytestmark = pytest.mark.rootless

MARK = "open('ran', 'w').write('the code ran')\n"

# case -> (shell commands run first in the private mount namespace, the words
# the error must carry)
CASES = {
    # no memory or pids controller: refused before the jail's process exists
    "no cgroups": ("mount -t tmpfs none /sys/fs/cgroup", "cgroup"),
    # the child cannot open /dev/zero to bind it in: refused between clone and exec
    "no /dev/zero": ("mount -t tmpfs none /dev && mknod -m 666 /dev/null c 1 3",
                     "mount sources"),
    # the interpreter is not a program: the last step, exec, fails
    "broken interpreter": ("mount --bind /dev/null /usr/bin/python3", "exec"),
}


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare(1) (util-linux)")
@pytest.mark.parametrize("case", [
    pytest.param(c, marks=pytest.mark.needs_root(
        "a normal user without a delegated group has no cgroup to lose: the run goes on "
        "under its rlimits (test_rootless.py)")) if c == "no cgroups" else c
    for c in sorted(CASES)])
def test_setup_failure_runs_nothing(mcpfs, host_unchanged, case):  # noqa: F811
    exec_config(mcpfs)
    setup, words = CASES[case]
    prog = mcpfs.tmp / "mark.py"
    prog.write_text(MARK)
    env = dict(mcpfs.env, MCPFS_QUOTA_MODE="none")  # a plain workspace folder to look in
    workspace = mcpfs.json("workspace", "create", "default", env=env)["path"] + "/workspace"
    cmd = ["unshare", "-m", "--propagation", "private", "sh", "-c",
           f'{setup} && exec "$@"', "sh"] + mcpfs.cmd("exec", prog)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode not in (0, 86, 87), p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcpfs: ") and words in lines[0], p.stderr
    assert sorted(os.listdir(workspace)) == [], "the code ran although the jail was not whole"
