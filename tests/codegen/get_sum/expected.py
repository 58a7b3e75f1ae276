"""get_sum: get-sum

MCP tool "get-sum" of server "srv"; its definition is in get_sum.json.
"""
from __future__ import annotations

import typing as _t

from .. import _runtime as _rt


class GetSumInput(_t.TypedDict, total=False):
    a: _t.Required[float]
    b: _t.Required[float]


def get_sum(*, a: float, b: float) -> _t.Any:
    """Returns the sum of two numbers.

    Args:
        a: First number.
        b: Second number.

    Returns:
        The result's content: one text item as its text (a JSON object or
        array in it parsed), several items as a list, images, audio and
        resources as their MCP content dicts (root README.md, "Results").

    Raises:
        McpToolError: the tool reported an error (isError); its content is on the exception.
    """
    _args: dict[str, _t.Any] = {}
    _args["a"] = a
    _args["b"] = b
    return _rt.call_tool("srv", "get-sum", _args)

