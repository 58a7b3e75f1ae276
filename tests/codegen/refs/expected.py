"""refs: refs

MCP tool "refs" of server "srv"; its definition is in refs.json.
"""
from __future__ import annotations

import typing as _t

from .. import _runtime as _rt


RefsInput = _t.TypedDict("RefsInput", {
    "node": "_t.Required[RefsNode]",
    "legacy": "RefsLegacy",
    "self": "RefsInput",
    "loop": "RefsLoop",
    "missing": "_t.Any",
    "list": "RefsList",
}, total=False)


class RefsNode(_t.TypedDict, total=False):
    v: str
    kids: list[RefsNode]


RefsLegacy: _t.TypeAlias = "int"


RefsLoop: _t.TypeAlias = "_t.Any"


RefsList: _t.TypeAlias = "list[RefsList | int]"


def refs(*, node: RefsNode, legacy: RefsLegacy | None = None, self: RefsInput | None = None, loop: RefsLoop | None = None, missing: _t.Any = None, list_: RefsList | None = None) -> _t.Any:
    """Refs.

    Args:
        node: No description.
        legacy: No description.
        self: No description.
        loop: No description.
        missing: JSON Schema: {"$ref":"#/$defs/Nope"}
        list_: Its MCP name is "list".

    Returns:
        The result's content: one text item as its text (a JSON object or
        array in it parsed), several items as a list, images, audio and
        resources as their MCP content dicts (root README.md, "Results").

    Raises:
        McpToolError: the tool reported an error (isError); its content is on the exception.
    """
    _args: dict[str, _t.Any] = {}
    _args["node"] = node
    if legacy is not None:
        _args["legacy"] = legacy
    if self is not None:
        _args["self"] = self
    if loop is not None:
        _args["loop"] = loop
    if missing is not None:
        _args["missing"] = missing
    if list_ is not None:
        _args["list"] = list_
    return _rt.call_tool("srv", "refs", _args)

