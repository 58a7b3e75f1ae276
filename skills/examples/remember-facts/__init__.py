"""Facts in the customer's knowledge graph (server-memory, one per customer)."""
from servers._runtime import call_tool


def _entities(result):
    if isinstance(result, dict):
        return result.get("entities", [])
    return []


def remember(name: str, kind: str, facts: list) -> None:
    """Create entity `name` of type `kind` with `facts`, or add the facts to it."""
    known = {e["name"] for e in _entities(call_tool("memory", "open_nodes", {"names": [name]}))}
    if name in known:
        call_tool("memory", "add_observations",
                  {"observations": [{"entityName": name, "contents": list(facts)}]})
    else:
        call_tool("memory", "create_entities",
                  {"entities": [{"name": name, "entityType": kind, "observations": list(facts)}]})


def recall(query: str) -> list:
    """Entities whose name, type or observations match `query`."""
    return _entities(call_tool("memory", "search_nodes", {"query": query}))
