"""`make install DESTDIR=...` puts mcpfs in place like a Unix tool: the man
page renders and names every subcommand and option of --help, the bash
completion completes subcommands, options and the config's server names, and
so does the zsh one in an interactive zsh on a pty, TAB pressed,
the systemd unit runs `serve --http`; `make uninstall` takes it all away.
A plain `make` where npm never ran, installed, runs Python and says what to
run for TypeScript."""
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import time

import pytest

from conftest import BUILDS, REPO, SAN_ENV

PREFIX = "/usr/local"
MAN = REPO / "dist" / "mcpfs.1"


@pytest.fixture(scope="module")
def dest(tmp_path_factory):
    d = tmp_path_factory.mktemp("dest")
    p = subprocess.run(["make", "-s", "install", f"DESTDIR={d}", f"PREFIX={PREFIX}"],
                       cwd=REPO, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return d


def mcpfs_help(*args) -> str:
    return subprocess.run([str(BUILDS["plain"]), *args, "--help"], capture_output=True,
                          text=True, check=True).stdout


def commands() -> list:
    text = mcpfs_help()
    block = text.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines()]


def man_sections() -> dict:
    """{subcommand: its .SS section's text, escapes undone}."""
    src = MAN.read_text().replace("\\-", "-")
    src = re.sub(r"\\f[BIRP]", "", src)
    parts = re.split(r"^\.SS (\S+)\n", src, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_man_page_in_step_with_help():
    """Every subcommand of `mcpfs --help` has its section, and every option
    its `--help` names is in that section; the global options are in the page."""
    sections = man_sections()
    missing = []
    for cmd in commands():
        if cmd not in sections:
            missing.append(cmd)
            continue
        for opt in set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])\b", mcpfs_help(cmd))):
            if opt not in ("-h", "--help") and not re.search(
                    rf"(?<![\w-]){re.escape(opt)}(?![\w-])", sections[cmd]):
                missing.append(f"{cmd} {opt}")
    page = MAN.read_text().replace("\\-", "-")
    for opt in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", mcpfs_help()):
        if opt not in page:
            missing.append(opt)
    assert not missing, f"not in {MAN.name}: {missing}"


def test_man_page_renders(dest):
    page = dest / PREFIX.lstrip("/") / "share/man/man1/mcpfs.1"
    p = subprocess.run(["man", "-l", str(page)], capture_output=True, text=True,
                       env={**os.environ, "MANWIDTH": "100", "MAN_KEEP_FORMATTING": ""},
                       timeout=60)
    assert p.returncode == 0, p.stderr
    text = subprocess.run(["col", "-b"], input=p.stdout, capture_output=True,
                          text=True).stdout
    assert "\nCOMMANDS\n" in text and "\nEXIT STATUS\n" in text
    words = " ".join(text.split())  # justified lines have runs of blanks
    assert "mcpfs - MCP servers as a tree" in words and "mcpfs doctor" in words
    warn = subprocess.run(["groff", "-man", "-ww", "-z", str(page)], capture_output=True,
                          text=True)
    assert warn.returncode == 0 and warn.stderr == "", warn.stderr


def complete(dest, words: list, env: dict) -> list:
    script = dest / PREFIX.lstrip("/") / "share/bash-completion/completions/mcpfs"
    arr = " ".join(f"'{w}'" for w in words)
    p = subprocess.run(["bash", "-c", f"source {script}; COMP_WORDS=({arr}); "
                        f"COMP_CWORD={len(words) - 1}; _mcpfs; echo \"${{COMPREPLY[@]}}\""],
                       capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    return p.stdout.split()


def test_bash_completion(dest, tmp_path):
    cfg = tmp_path / "c.json"
    cfg.write_text('{"mcpServers": {"alpha": {"command": "/nonexistent"}, '
                   '"beta": {"url": "https://example.test/mcp"}}}')
    env = {"PATH": f"{dest}{PREFIX}/bin:/usr/bin:/bin", "HOME": str(tmp_path),
           "MCPFS_ROOT": str(tmp_path / "root")}
    assert complete(dest, ["mcpfs", "se"], env) == ["servers", "search", "session", "serve"]
    assert "doctor" in complete(dest, ["mcpfs", ""], env)
    assert complete(dest, ["mcpfs", "--config", str(cfg), "call", ""], env) == ["alpha", "beta"]
    assert complete(dest, ["mcpfs", "--config", str(cfg), "tools", "a"], env) == ["alpha"]
    assert complete(dest, ["mcpfs", "servers", "--c"], env) == ["--check"]
    assert complete(dest, ["mcpfs", "workspace", ""], env) == \
        ["create", "gc", "list", "rm", "show", "umount"]
    # the embedded default config's servers, with no config given
    assert complete(dest, ["mcpfs", "login", ""], env) == ["everything", "filesystem", "memory"]
    assert not (tmp_path / "root" / "logs").exists()  # nothing was started


class Zsh:
    """An interactive zsh on a pty of its own, the installed completion
    loaded by compinit, as a person's shell has it."""

    def __init__(self, dest, env, tmp):
        (tmp / ".zshrc").write_text(
            f"fpath=({dest}{PREFIX}/share/zsh/site-functions $fpath)\n"
            "autoload -Uz compinit && compinit -u -d " + str(tmp / "zcompdump") + "\n"
            "bindkey -e\nPROMPT='zsh%% '\n")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve("/usr/bin/env", ["env", "zsh", "-i"],
                      {**env, "ZDOTDIR": str(tmp), "TERM": "xterm"})
        self.out = b""

    def read_until(self, pattern, timeout=120) -> str:
        """What zsh drew (escapes made line ends) once @pattern matches it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if select.select([self.fd], [], [], 0.2)[0]:
                try:
                    self.out += os.read(self.fd, 65536)
                except OSError:
                    break
            # an escape (a cursor move, mostly) ends a word
            text = re.sub(r"\x1b(\[[0-9;?]*[a-zA-Z]|[()][0-9A-Z]|[=>])", "\n",
                          self.out.decode(errors="replace")).replace("\r", "")
            if re.search(pattern, text):
                self.out = b""
                return text
        raise AssertionError(f"{pattern!r} never showed:\n{self.out!r}")

    def send(self, keys: str):
        os.write(self.fd, keys.encode())

    def completed(self, typed: str) -> str:
        """The command line after @typed and TAB: zsh prints it once the
        line is put back in front of an echo."""
        self.send(typed + "\t\x01echo LINE: \n")  # keys queue while it completes
        return self.read_until(r"\nLINE: [^\n]*\n").split("\nLINE: ")[-1].split("\n")[0]

    def listed(self, typed: str, last: str) -> str:
        """The choices TAB lists under an ambiguous @typed, up to @last."""
        self.send(typed + "\t")
        text = self.read_until(rf"\b{last}\b")
        self.send("\x01echo LINE: \n")  # run the line, to start the next one afresh
        self.read_until(r"\nLINE: [^\n]*\n")
        # The list follows the typed line, which zsh may have drawn in pieces
        # (keys echoed as they came, then redrawn): it starts after the last
        # word ending in what was typed last before the list's @last.
        words = text.replace("\a", " ").split()  # \a: its bell
        end = words.index(last)
        start = max(k for k in range(end) if words[k].endswith(typed.split()[-1]))
        return " ".join(words[start + 1:end + 1])

    def close(self):
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def test_zsh_completion_completes(dest, tmp_path):
    if not shutil.which("zsh"):
        pytest.skip("no zsh: make deps-test installs it")
    cfg = tmp_path / "c.json"
    cfg.write_text('{"mcpServers": {"alpha": {"command": "/nonexistent"}, '
                   '"beta": {"url": "https://example.test/mcp"}}}')
    env = {"PATH": f"{dest}{PREFIX}/bin:/usr/bin:/bin", "HOME": str(tmp_path),
           "MCPFS_ROOT": str(tmp_path / "root")}
    zsh = Zsh(dest, env, tmp_path)
    try:
        zsh.read_until("zsh% ")
        assert zsh.completed("mcpfs doc") == "mcpfs doctor"
        assert zsh.completed("mcpfs workspace cr") == "mcpfs workspace create"
        assert zsh.completed(f"mcpfs --config {cfg} call al") == f"mcpfs --config {cfg} call alpha"
        assert zsh.completed("mcpfs servers --ch") == "mcpfs servers --check"
        assert zsh.listed("mcpfs workspace ", "umount") == "create gc list rm show umount"
        # the embedded default config's servers, with no config given
        assert zsh.listed("mcpfs login ", "memory") == "everything filesystem memory"
        assert "serve servers session" in zsh.listed("mcpfs se", "session")
    finally:
        zsh.close()
    assert not (tmp_path / "root" / "logs").exists()  # nothing was started


def test_what_goes_where_and_uninstall(dest, tmp_path):
    root = dest / PREFIX.lstrip("/")
    unit = (root / "lib/systemd/system/mcpfs.service").read_text()
    assert f"ExecStart={PREFIX}/bin/mcpfs --config {PREFIX}/etc/mcpfs/config.json serve " \
        "--http 127.0.0.1:8808" in unit and "Delegate=yes" in unit
    assert (root / "etc/mcpfs/config.json").read_text() == \
        (REPO / "servers/default.json").read_text()
    assert (root / "share/doc/mcpfs/README.md").exists()
    assert (root / "lib/mcpfs/servers/node_modules/@modelcontextprotocol").is_dir()
    out = subprocess.run([str(root / "bin/mcpfs"), "--root", str(tmp_path / "r"), "doctor"],
                         capture_output=True, text=True, timeout=120)
    assert re.search(r"^ok +server everything ", out.stdout, re.M), out.stdout
    p = subprocess.run(["make", "-s", "uninstall", f"DESTDIR={dest}", f"PREFIX={PREFIX}"],
                       cwd=REPO, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    left = [str(f) for f in dest.rglob("*") if f.is_file()]
    assert left == [], left


@pytest.mark.parametrize("build", list(BUILDS))
def test_typescript_without_the_runtime_says_what_to_run(build, tmp_path):
    """The source as a user gets it (no node_modules: npm never ran, so the
    TypeScript runtime is not built), `make install` into a PREFIX of its
    own: Python runs; TypeScript fails with one line saying what to run."""
    src, prefix = tmp_path / "src", tmp_path / "prefix"
    src.mkdir()
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard"], cwd=REPO, capture_output=True,
                           check=True).stdout
    subprocess.run(f"tar --null -T - -cf - | tar -xf - -C {src}", shell=True, cwd=REPO,
                   input=files, check=True)
    assert not (src / "executor/runtime/node_modules").exists()
    flags = ["SANITIZER=1"] if build == "asan" else []
    p = subprocess.run(["make", "-s", "-j2", *flags, f"PREFIX={prefix}", "install"], cwd=src,
                       capture_output=True, text=True, timeout=1800)
    assert p.returncode == 0, p.stderr
    assert not (prefix / "lib/mcpfs/runtime").exists()
    cfg = tmp_path / "c.json"
    cfg.write_text('{"mcpServers": {}}')
    env = {**os.environ, **SAN_ENV}
    mcpfs = [str(prefix / "bin/mcpfs"), "--config", str(cfg), "--root", str(tmp_path / "r")]
    (tmp_path / "main.py").write_text("print('py', 6 * 7)\n")
    (tmp_path / "main.ts").write_text("const n: number = 42;\nconsole.log(n);\n")
    try:
        py, p = (subprocess.run([*mcpfs, "exec", str(tmp_path / main)], capture_output=True,
                                text=True, env=env, timeout=300)
                 for main in ("main.py", "main.ts"))
    finally:  # the runs mount the default workspace's image
        subprocess.run([*mcpfs, "workspace", "umount", "--all"], capture_output=True,
                       env=env, timeout=60)
    assert (py.returncode, py.stdout) == (0, "py 42\n"), py.stderr
    assert p.returncode == 1 and p.stdout == "", p.stderr
    assert p.stderr == (
        "mcpfs: TypeScript needs the jail's runtime (sucrase, built), in neither "
        f"{src}/executor/runtime/dist nor {prefix}/lib/mcpfs/runtime/dist: run 'make deps' "
        "(it runs npm ci in executor/runtime), then 'make' and 'make install', in mcpfs's "
        "source folder\n"), p.stderr
