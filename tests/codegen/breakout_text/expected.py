"""we_ird_name: T \"\"" */ `x` ${y}

MCP tool "we\"ird */ name" of server "srv"; its definition is in we_ird_name.json.
"""
from __future__ import annotations

import typing as _t

from .. import _runtime as _rt


WeIrdNameInput = _t.TypedDict("WeIrdNameInput", {
    "q\"*/": "str",
}, total=False)


def we_ird_name(*, q: str = "a\"\"\"b*/\x00") -> _t.Any:
    """T \"\"" */ `x` ${y}

    Ends \"\"" a docstring, */ a comment, `bt`, ${x}, NUL \x00 here,
    CRLF
    CR, U+2028
    , tab    , backslash \\ and a trailing quote ".

    Args:
        q: */ \"\"" \x00 Default: "a\\"\\"\\"b*/\\u0000". Its MCP name is "q\\"*/".

    Returns:
        The result's content: one text item as its text (a JSON object or
        array in it parsed), several items as a list, images, audio and
        resources as their MCP content dicts (root README.md, "Results").

    Raises:
        McpToolError: the tool reported an error (isError); its content is on the exception.
    """
    _args: dict[str, _t.Any] = {}
    _args["q\"*/"] = q
    return _rt.call_tool("srv", "we\"ird */ name", _args)

