"""get_structured_content: Weather

MCP tool "get-structured-content" of server "srv"; its definition is in get_structured_content.json.
"""
from __future__ import annotations

import typing as _t

from .. import _runtime as _rt


class GetStructuredContentInput(_t.TypedDict, total=False):
    location: _t.Required[_t.Literal["New York", "Chicago"]]


class GetStructuredContentOutput(_t.TypedDict, total=False):
    temperature: _t.Required[float]
    tags: list[str]
    where: GetStructuredContentOutputWhere


class GetStructuredContentOutputWhere(_t.TypedDict, total=False):
    lat: _t.Required[float]
    lon: float


def get_structured_content(*, location: _t.Literal["New York", "Chicago"]) -> GetStructuredContentOutput:
    """Weather

    Returns structured content.

    Args:
        location: Choose city. Allowed: "New York", "Chicago".

    Returns:
        The tool's structuredContent, typed as its outputSchema says.

    Raises:
        McpToolError: the tool reported an error (isError); its content is on the exception.
    """
    _args: dict[str, _t.Any] = {}
    _args["location"] = location
    _result = _rt.call_tool("srv", "get-structured-content", _args)
    return _t.cast("GetStructuredContentOutput", _result)

