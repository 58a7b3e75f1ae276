"""The client side of the mcpfs bridge, used by every generated tool module.

Standard library only. The bridge is a unix socket whose path is in
$MCPFS_BRIDGE (set inside `mcpfs exec`; on your own machine start
`mcpfs bridge --socket PATH` and export MCPFS_BRIDGE=PATH). The protocol is
newline-delimited JSON-RPC 2.0: an "auth" request with $MCPFS_BRIDGE_TOKEN
first, then "tools/call", "tools/search", "resources/read", "prompts/get",
"checkpoint/set" and "checkpoint/get".

Each thread gets its own connection, and so does a forked child process
(multiprocessing), so calls from several threads or processes run at the
same time and replies never need sorting out.
"""
from __future__ import annotations

import base64
import binascii
import json
import os
import socket
import threading
import traceback
import typing as _t

__all__ = [
    "McpBridgeError",
    "McpToolError",
    "call_tool",
    "get_checkpoint",
    "get_prompt",
    "read_resource",
    "search_tools",
    "set_checkpoint",
]

_MAX_LINE = 16 << 20


def _as_dict(v: object) -> dict[str, _t.Any] | None:
    """@v as a JSON object, or None: what json.loads gives is untyped."""
    return _t.cast("dict[str, _t.Any]", v) if isinstance(v, dict) else None


def _dicts(v: object) -> list[dict[str, _t.Any]]:
    """The JSON objects in the array @v (none when it is not one)."""
    items: list[object] = _t.cast("list[object]", v) if isinstance(v, list) else []
    return [d for d in map(_as_dict, items) if d is not None]


class McpBridgeError(RuntimeError):
    """The bridge could not be reached, or it refused the request."""


class McpToolError(Exception):
    """A tool answered with isError: the message is its text content."""

    def __init__(self, server: str, tool: str, content: list[dict[str, _t.Any]]) -> None:
        text = "\n".join(str(c.get("text", "")) for c in content if c.get("type") == "text")
        super().__init__(f"{server}/{tool}: {text or 'the tool reported an error'}")
        self.server = server
        self.tool = tool
        self.content = content


class _Connection:
    def __init__(self) -> None:
        path = os.environ.get("MCPFS_BRIDGE", "")
        if not path:
            raise McpBridgeError(
                "MCPFS_BRIDGE is not set: run `mcpfs bridge --socket PATH` and "
                "`export MCPFS_BRIDGE=PATH` (inside `mcpfs exec` it is set for you)")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.connect(path)
        except OSError as e:
            self.sock.close()
            raise McpBridgeError(f"connect({path}): {e.strerror or e}") from None
        self.file = self.sock.makefile("rb")
        self.next_id = 1
        self.request("auth", {"token": os.environ.get("MCPFS_BRIDGE_TOKEN", "")}, id_=0)

    def request(self, method: str, params: dict[str, _t.Any], id_: int | None = None) -> _t.Any:
        if id_ is None:
            id_ = self.next_id
            self.next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
        msg: dict[str, _t.Any] | None = None
        try:
            self.sock.sendall(line.encode() + b"\n")
            while True:
                raw = self.file.readline(_MAX_LINE + 1)
                if not raw:
                    raise McpBridgeError(f"{method}: the bridge closed the connection")
                if len(raw) > _MAX_LINE:
                    raise McpBridgeError(f"{method}: reply longer than {_MAX_LINE} bytes")
                msg = _as_dict(json.loads(raw))
                if msg is not None and msg.get("id") == id_:
                    break
                if msg is not None and msg.get("method") == "notifications/progress":
                    _progress(_as_dict(msg.get("params")))
        except OSError as e:
            raise McpBridgeError(f"{method}: {e.strerror or e}") from None
        if "error" in msg:
            err = _as_dict(msg["error"])
            text = str(err.get("message", "error")) if err is not None else str(msg["error"])
            raise McpBridgeError(f"{method}: {text}")
        return msg.get("result")


_local = threading.local()
_on_progress: _t.Callable[[dict[str, _t.Any]], None] | None = None


def on_progress(handler: _t.Callable[[dict[str, _t.Any]], None] | None) -> None:
    """Have `handler` called with the progress of every tool call this
    program makes from now on (None: no longer), on the calling thread,
    while the call waits: a dict with "server", "tool", "progress", and
    "total" and "message" when the server gave them. A task's status
    messages come the same way. Exceptions it raises are printed and
    ignored; progress may be dropped, never the result.
    """
    global _on_progress
    _on_progress = handler


def _progress(params: dict[str, _t.Any] | None) -> None:
    handler = _on_progress
    if handler is None or params is None:
        return
    try:
        handler({k: v for k, v in params.items() if k != "id"})
    except Exception:  # noqa: BLE001 (the call must go on)
        traceback.print_exc()


def _forget_after_fork() -> None:
    # A forked child (multiprocessing) must not share its parent's
    # connection: both would read replies off one socket and each could
    # swallow the other's. Close the child's copy; the first call reconnects.
    global _local
    c: _Connection | None = getattr(_local, "conn", None)
    if c is not None:
        c.file.close()
        c.sock.close()
    _local = threading.local()


os.register_at_fork(after_in_child=_forget_after_fork)


def _conn() -> _Connection:
    c: _Connection | None = getattr(_local, "conn", None)
    if c is None:
        c = _Connection()
        _local.conn = c
    return c


def _request(method: str, params: dict[str, _t.Any]) -> _t.Any:
    try:
        return _conn().request(method, params)
    except McpBridgeError:
        # A dead connection is not reused: the next call reconnects.
        _local.conn = None
        raise


def _item(c: dict[str, _t.Any]) -> _t.Any:
    if c.get("type") != "text":
        return c
    text = str(c.get("text", ""))
    if text.lstrip()[:1] in ("{", "["):
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text


def _simplify(result: dict[str, _t.Any]) -> _t.Any:
    if "structuredContent" in result:
        return result["structuredContent"]
    content = _dicts(result.get("content"))
    if not content:
        return None
    if len(content) == 1:
        return _item(content[0])
    return [_item(c) for c in content]


def call_tool(server: str, name: str, arguments: dict[str, _t.Any] | None = None) -> _t.Any:
    """Call tool `name` (its MCP name) of `server` (its configured name).

    Returns the simplified result (root README.md, "Results"); raises
    McpToolError when the tool reports an error and McpBridgeError when the
    bridge cannot be reached.
    """
    result = _request("tools/call", {"server": server, "name": name,
                                     "arguments": arguments or {}})
    reply = _as_dict(result)
    if reply is None:
        raise McpBridgeError(f"tools/call {server}/{name}: the reply is not a result object")
    if reply.get("isError"):
        raise McpToolError(server, name, _dicts(reply.get("content")))
    return _simplify(reply)


def search_tools(query: str, detail: _t.Literal["name", "summary", "full"] = "summary",
                 limit: int = 5, regex: bool = False) -> list[dict[str, _t.Any]]:
    """The tools that fit `query` (words saying what you want done), best first.

    Each result has "server" and "tool" (the MCP names), "name"
    ("server.tool") and "score"; detail "summary" adds "title" and
    "summary", "full" adds "description", "import" (the line that imports
    the tool), "signature" and "args". An empty list means no tool fits:
    try other words. With regex=True, `query` is a regular expression
    matched against names, titles and descriptions.
    """
    result = _as_dict(_request("tools/search", {"query": query, "detail": detail,
                                                "limit": limit, "regex": regex}))
    found: object = result.get("results") if result is not None else None
    if not isinstance(found, list):
        raise McpBridgeError("tools/search: the reply has no results")
    return _dicts(_t.cast(object, found))


def _contents(c: dict[str, _t.Any]) -> str | bytes:
    if "blob" not in c:
        return str(c.get("text", ""))
    try:
        return base64.b64decode(str(c["blob"]), validate=True)
    except (binascii.Error, ValueError):
        raise McpBridgeError(f"resources/read {c.get('uri')}: the blob is not base64") from None


def read_resource(server: str, uri: str) -> str | bytes | list[str | bytes]:
    """Read resource `uri` of `server` (its configured name).

    The URIs are in servers/<server>/_resources.md; the URI of a
    resource_link item in a tool's result works too. Returns the text of a
    text resource as str and a blob as bytes; when the server sends several
    contents (or none), a list of them. Raises McpBridgeError when the server
    is not configured or offers no resources, the URI is not one, or the
    server cannot read it.
    """
    reply = _as_dict(_request("resources/read", {"server": server, "uri": uri}))
    if reply is None:
        raise McpBridgeError(f"resources/read {server} {uri}: the reply is not a result object")
    contents = [_contents(c) for c in _dicts(reply.get("contents"))]
    return contents[0] if len(contents) == 1 else contents


def get_prompt(server: str, name: str,
               arguments: dict[str, str] | None = None) -> list[dict[str, _t.Any]]:
    """Prompt `name` of `server` (its configured name) with its arguments filled in.

    The prompts and their arguments are in servers/<server>/_prompts.md.
    Returns the prompt's messages as MCP sends them: {"role": "user" or
    "assistant", "content": {"type": "text", "text": ...} or another content
    item}. Raises McpBridgeError as read_resource does.
    """
    reply = _as_dict(_request("prompts/get", {"server": server, "name": name,
                                              "arguments": arguments or {}}))
    if reply is None:
        raise McpBridgeError(f"prompts/get {server}/{name}: the reply is not a result object")
    return _dicts(reply.get("messages"))


def set_checkpoint(step: int, last_task: str, context: dict[str, _t.Any] | None = None) -> None:
    """Record where a session is, so a later run can resume from it."""
    _request("checkpoint/set", {"step": step, "last_task": last_task, "context": context or {}})


def get_checkpoint() -> dict[str, _t.Any] | None:
    """The session's last checkpoint, or None."""
    return _as_dict(_request("checkpoint/get", {}))
