#!/bin/sh
# The client command for the MCP conformance suite (@modelcontextprotocol/conformance):
#   conformance client --command "sh tests/conformance_client.sh" --scenario NAME
# The suite appends the mock server's URL as the last argument and names the
# scenario in $MCP_CONFORMANCE_SCENARIO. We write a config naming that URL and
# drive the mcpfs binary ($MCPFS_BIN, else build/mcpfs) as a user would.
set -eu

for url; do :; done
[ -n "${url:-}" ] || { echo "usage: $0 [ARGS...] URL" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${MCPFS_BIN:-$here/build/mcpfs}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '{"mcpServers": {"conformance": {"url": "%s"}}}\n' "$url" > "$work/config.json"

mcpfs() {
	MCPFS_ROOT="$work/root" "$bin" --config "$work/config.json" "$@"
}

case "${MCP_CONFORMANCE_SCENARIO:-}" in
tools_call)
	mcpfs call conformance add_numbers '{"a": 2, "b": 3}' --json ;;
sse-retry)
	mcpfs call conformance test_reconnection '{}' --json ;;
elicitation-sep1034-client-defaults)
	mcpfs call conformance test_client_elicitation_defaults '{}' --json ;;
*)
	# initialize and anything else: connect, initialize, list the tools.
	mcpfs tools conformance --json ;;
esac
