"""Sum numbers pairwise with server-everything's get-sum."""
import re

from servers._runtime import call_tool

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _value(result) -> float:
    if isinstance(result, (int, float)):
        return float(result)
    found = _NUMBER.findall(str(result))
    if not found:
        raise ValueError(f"get-sum gave no number: {result!r}")
    return float(found[-1])


def total(numbers) -> float:
    acc = 0.0
    for n in numbers:
        acc = _value(call_tool("everything", "get-sum", {"a": acc, "b": float(n)}))
    return acc
