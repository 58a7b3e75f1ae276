"""combinators: combinators

MCP tool "combinators" of server "srv"; its definition is in combinators.json.
"""
from __future__ import annotations

import typing as _t

from .. import _runtime as _rt


class CombinatorsInput(_t.TypedDict, total=False):
    any: str | int
    one: _t.Literal["a", 1] | None
    all: CombinatorsInputAll
    nullable: list[str] | None
    anything: _t.Any
    nothing: _t.NoReturn
    yes: _t.Any
    ghost: _t.Required[_t.Any]


class CombinatorsInputAll(_t.TypedDict, total=False):
    a: _t.Required[str]
    b: int


def combinators(*, ghost: _t.Any, any: str | int | None = None, one: _t.Literal["a", 1] | None = None, all: CombinatorsInputAll | None = None, nullable: list[str] | None = None, anything: _t.Any = None, nothing: _t.NoReturn | None = None, yes: _t.Any = None) -> _t.Any:
    """Unions.

    Args:
        ghost: No description.
        any: No description.
        one: No description.
        all: No description.
        nullable: No description.
        anything: No description.
        nothing: No description.
        yes: No description.

    Returns:
        The result's content: one text item as its text (a JSON object or
        array in it parsed), several items as a list, images, audio and
        resources as their MCP content dicts (root README.md, "Results").

    Raises:
        McpToolError: the tool reported an error (isError); its content is on the exception.
    """
    _args: dict[str, _t.Any] = {}
    _args["ghost"] = ghost
    if any is not None:
        _args["any"] = any
    if one is not None:
        _args["one"] = one
    if all is not None:
        _args["all"] = all
    if nullable is not None:
        _args["nullable"] = nullable
    if anything is not None:
        _args["anything"] = anything
    if nothing is not None:
        _args["nothing"] = nothing
    if yes is not None:
        _args["yes"] = yes
    return _rt.call_tool("srv", "combinators", _args)

