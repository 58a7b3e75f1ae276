#!/bin/sh
# Tool search: quality over tests/search/queries*.tsv with each ranking part
# turned off (bench/search_eval.c), then speed at 1,000 to 100,000 tools
# (bench/search_speed.c). Catalogs: ../shared/catalog (or
# $MCPFS_SHARED_CATALOG) plus the default filesystem server's, listed live.
# Built against build/libmcpfs.a.
set -eu
cd "$(dirname "$0")/.."
make -s BUILD=build build/libmcpfs.a build/mcpfs
mkdir -p build/bench
for p in search_eval search_speed; do
	cc -std=gnu11 -O2 -o build/bench/$p bench/$p.c build/libmcpfs.a \
		$(pkg-config --cflags --libs fuse3 jansson msgpack libcurl libpcre2-8 libseccomp) -lpthread -ldl -lm
done
cats=${MCPFS_SHARED_CATALOG:-../shared/catalog}
[ -d "$cats" ] || { echo "search: $cats is missing"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The server's folder beside the data root, not above it: a server's
# sandbox never binds a folder that holds the data root.
mkdir "$tmp/files"
printf '{"mcpServers": {"filesystem": {"command": "node", "args": ["%s/servers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "%s"]}}}\n' \
	"$PWD" "$tmp/files" > "$tmp/config.json"
build/mcpfs --config "$tmp/config.json" --root "$tmp/root" tools filesystem --json > "$tmp/filesystem.json"
build/bench/search_eval tests/search/queries.tsv tests/search/queries_dev.tsv \
	tests/search/queries_holdout.tsv "$cats"/*.json "$tmp/filesystem.json"
taskset -c 0 build/bench/search_speed tests/search/queries.tsv "$cats"/*.json "$tmp/filesystem.json"
