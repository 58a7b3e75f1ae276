"""no_schema: no-schema

MCP tool "no-schema" of server "srv"; its definition is in no_schema.json.
"""
from __future__ import annotations

import typing as _t

from .. import _runtime as _rt


def no_schema(**_extra: _t.Any) -> _t.Any:
    """no-schema

    Args:
        **_extra: other arguments, sent as given.

    Returns:
        The result's content: one text item as its text (a JSON object or
        array in it parsed), several items as a list, images, audio and
        resources as their MCP content dicts (root README.md, "Results").

    Raises:
        McpToolError: the tool reported an error (isError); its content is on the exception.
    """
    _args: dict[str, _t.Any] = {}
    _args.update(_extra)
    return _rt.call_tool("srv", "no-schema", _args)

