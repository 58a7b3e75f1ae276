"""values: values

MCP tool "values" of server "srv"; its definition is in values.json.
"""
from __future__ import annotations

import typing as _t

from .. import _runtime as _rt


class ValuesInput(_t.TypedDict, total=False):
    e: _t.Literal["s", 1, True] | float | None | dict[str, _t.Any] | list[_t.Any]
    map: dict[str, int]
    pattern: dict[str, str]
    tuple: list[str | int]
    rest: list[str | bool]
    n: int
    mode: _t.Literal["x", "y"]
    bad_default: int


def values(*, e: _t.Literal["s", 1, True] | float | None | dict[str, _t.Any] | list[_t.Any] = None, map: dict[str, int] | None = None, pattern: dict[str, str] | None = None, tuple: list[str | int] | None = None, rest: list[str | bool] | None = None, n: int = 3, mode: _t.Literal["x", "y"] = "y", bad_default: int | None = None) -> _t.Any:
    """Values.

    Args:
        e: Allowed: "s", 1, 2.5, True, None, {"o": 1}, [1].
        map: No description.
        pattern: No description.
        tuple: No description.
        rest: No description.
        n: Format: int32. Default: 3.
        mode: Allowed: "x", "y". Default: "y".
        bad_default: Default: "z".

    Returns:
        The result's content: one text item as its text (a JSON object or
        array in it parsed), several items as a list, images, audio and
        resources as their MCP content dicts (root README.md, "Results").

    Raises:
        McpToolError: the tool reported an error (isError); its content is on the exception.
    """
    _args: dict[str, _t.Any] = {}
    if e is not None:
        _args["e"] = e
    if map is not None:
        _args["map"] = map
    if pattern is not None:
        _args["pattern"] = pattern
    if tuple is not None:
        _args["tuple"] = tuple
    if rest is not None:
        _args["rest"] = rest
    _args["n"] = n
    _args["mode"] = mode
    if bad_default is not None:
        _args["bad_default"] = bad_default
    return _rt.call_tool("srv", "values", _args)

