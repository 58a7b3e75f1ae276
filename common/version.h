/* The version mcpfs reports (--version, the MCP clientInfo). */
#ifndef MCPFS_COMMON_VERSION_H
#define MCPFS_COMMON_VERSION_H

#define MCPFS_VERSION "0.1.0"
/* The MCP protocol version offered first. */
#define MCPFS_MCP_VERSION "2025-11-25"

#endif
