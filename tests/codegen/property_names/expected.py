"""props: props

MCP tool "props" of server "srv"; its definition is in props.json.
"""
from __future__ import annotations

import typing as _t

from .. import _runtime as _rt


PropsInput = _t.TypedDict("PropsInput", {
    "a-b": "int",
    "a_b": "int",
    "class": "_t.Required[str]",
    "str": "str",
    "_x": "str",
    "1st": "str",
}, total=False)


def props(*, class_: str, a_b_2: int | None = None, a_b: int | None = None, str_: str | None = None, arg: str | None = None, x: str | None = None, arg_1st: str | None = None, **_extra: str) -> _t.Any:
    """Keys that are no identifiers.

    Args:
        class_: Its MCP name is "class".
        a_b_2: Its MCP name is "a-b".
        a_b: No description.
        str_: Its MCP name is "str".
        arg: Its MCP name is \"".
        x: Its MCP name is "_x".
        arg_1st: Its MCP name is "1st".
        **_extra: other arguments, sent as given.

    Returns:
        The result's content: one text item as its text (a JSON object or
        array in it parsed), several items as a list, images, audio and
        resources as their MCP content dicts (root README.md, "Results").

    Raises:
        McpToolError: the tool reported an error (isError); its content is on the exception.
    """
    _args: dict[str, _t.Any] = {}
    _args["class"] = class_
    if a_b_2 is not None:
        _args["a-b"] = a_b_2
    if a_b is not None:
        _args["a_b"] = a_b
    if str_ is not None:
        _args["str"] = str_
    if arg is not None:
        _args[""] = arg
    if x is not None:
        _args["_x"] = x
    if arg_1st is not None:
        _args["1st"] = arg_1st
    _args.update(_extra)
    return _rt.call_tool("srv", "props", _args)

