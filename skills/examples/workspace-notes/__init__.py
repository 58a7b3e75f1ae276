"""Markdown notes in the customer's workspace, through server-filesystem."""
import re

from servers._runtime import call_tool

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def _text(result) -> str:
    if isinstance(result, dict):
        return str(result.get("content", result))
    return str(result)


def _root() -> str:
    # The server knows the workspace by its host path; ask it.
    text = _text(call_tool("filesystem", "list_allowed_directories", {}))
    dirs = [line.strip() for line in text.splitlines() if line.strip().startswith("/")]
    if not dirs:
        raise RuntimeError(f"filesystem server gave no allowed directory: {text!r}")
    return dirs[0]


def _path(name: str) -> str:
    if not _NAME.match(name):
        raise ValueError(f"bad note name {name!r}")
    return f"{_root()}/notes/{name}.md"


def write_note(name: str, text: str) -> None:
    call_tool("filesystem", "create_directory", {"path": f"{_root()}/notes"})
    call_tool("filesystem", "write_file", {"path": _path(name), "content": text})


def read_note(name: str) -> str:
    return _text(call_tool("filesystem", "read_text_file", {"path": _path(name)}))


def list_notes() -> list:
    text = _text(call_tool("filesystem", "list_directory", {"path": f"{_root()}/notes"}))
    return sorted(m.group(1) for m in re.finditer(r"\[FILE\] (.+)\.md", text))
