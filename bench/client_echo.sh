#!/bin/sh
# Sequential tools/call of server-everything's echo over stdio: mcpfs's client
# against the official TypeScript SDK client, same server, same run, the same
# number of calls after one warm-up call each. MCPFS=path overrides the binary.
set -eu
cd "$(dirname "$0")/.."
N=${N:-3000}
MCPFS=${MCPFS:-build/mcpfs}
EVERYTHING=servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '{"mcpServers": {"everything": {"command": "node", "args": ["%s/%s", "stdio"]}}}\n' \
	"$PWD" "$EVERYTHING" > "$tmp/config.json"
echo "sequential echo calls over stdio, $N calls after a warm-up (server-everything)"
for round in 1 2 3; do
	ours=$(MCPFS_ROOT="$tmp/root" "$MCPFS" --config "$tmp/config.json" call everything echo \
		'{"message": "x"}' --repeat $((N + 1)) 2>&1 >/dev/null | sed -n 's/.*: \([0-9]*\) calls\/s/\1/p')
	sdk=$(node bench/client_sdk.mjs echo "$N" node "$EVERYTHING" stdio |
		python3 -c 'import json,sys; print(round(json.load(sys.stdin)["per_s"]))')
	echo "round $round: mcpfs $ours calls/s, SDK client $sdk calls/s, ratio $(python3 -c "print(round($ours / $sdk, 2))")"
done
