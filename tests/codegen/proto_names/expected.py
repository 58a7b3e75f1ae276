"""proto: proto

MCP tool "proto" of server "srv"; its definition is in proto.json.
"""
from __future__ import annotations

import typing as _t

from .. import _runtime as _rt


class ProtoInput(_t.TypedDict, total=False):
    constructor: str
    toString: bool
    valueOf: int
    hasOwnProperty: list[_t.Literal["x", "y"]]
    isPrototypeOf: str


def proto(*, constructor: str | None = None, toString: bool = False, valueOf: int | None = None, hasOwnProperty: list[_t.Literal["x", "y"]] | None = None, isPrototypeOf: str | None = None) -> _t.Any:
    """Properties named like members of Object.prototype, all optional.

    Hints from the server: destructive (may delete or overwrite), not idempotent, open world (reaches outside systems).

    Args:
        constructor: Not the constructor.
        toString: Default: False.
        valueOf: From 0 to 9.
        hasOwnProperty: At least 1 item. No duplicate items. Each item one of: "x", "y".
        isPrototypeOf: 1 to 8 characters. Format: hostname. Pattern: ^[a-z]+$.

    Returns:
        The result's content: one text item as its text (a JSON object or
        array in it parsed), several items as a list, images, audio and
        resources as their MCP content dicts (root README.md, "Results").

    Raises:
        McpToolError: the tool reported an error (isError); its content is on the exception.
    """
    _args: dict[str, _t.Any] = {}
    if constructor is not None:
        _args["constructor"] = constructor
    _args["toString"] = toString
    if valueOf is not None:
        _args["valueOf"] = valueOf
    if hasOwnProperty is not None:
        _args["hasOwnProperty"] = hasOwnProperty
    if isPrototypeOf is not None:
        _args["isPrototypeOf"] = isPrototypeOf
    return _rt.call_tool("srv", "proto", _args)

