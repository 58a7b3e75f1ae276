/* The bridge: a unix socket through which generated code calls tools.
 *
 * Wire protocol (shared with templates/_runtime.py and _runtime.ts):
 * newline-delimited JSON-RPC 2.0 over a SOCK_STREAM unix socket whose path is
 * in $MCPFS_BRIDGE. The first request on every connection is
 *   {"jsonrpc":"2.0","id":0,"method":"auth","params":{"token":"<$MCPFS_BRIDGE_TOKEN>"}}
 * answered {"result":{}} or an error, after which the server closes. Then:
 *   tools/call       {"server": <configured name>, "name": <MCP tool name>,
 *                     "arguments": {...}}  -> the MCP CallToolResult
 *   checkpoint/set   {"step": n, "last_task": s, "context": {...}} -> {}
 *   checkpoint/get   {} -> the checkpoint object, or null
 * Several requests may be in flight on one connection; replies carry their
 * ids and may come in any order. Errors are JSON-RPC errors with a one-line
 * message. Lines are capped (MCPFS_BRIDGE_MAX_LINE); a longer one is an error. */
#ifndef MCPFS_EXECUTOR_BRIDGE_H
#define MCPFS_EXECUTOR_BRIDGE_H

#define BRIDGE_ENV_SOCKET "MCPFS_BRIDGE"
#define BRIDGE_ENV_TOKEN "MCPFS_BRIDGE_TOKEN"
#define MCPFS_BRIDGE_MAX_LINE (16u << 20)

#endif
