"""Generated MCP tool packages: one subpackage per server (see README.md one level up)."""
