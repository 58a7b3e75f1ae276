#!/bin/sh
# PII: scan throughput on 100 MB of mixed text against Python's re running
# the same patterns in the same run, and the filter's cost per tool call
# (bench/pii_scan.c). Built against build/libmcpfs.a.
set -eu
cd "$(dirname "$0")/.."
make -s BUILD=build build/libmcpfs.a
mkdir -p build/bench
cc -std=gnu11 -O2 -o build/bench/pii_scan bench/pii_scan.c build/libmcpfs.a \
	$(pkg-config --cflags --libs fuse3 jansson libcurl libpcre2-8 libseccomp) -lpthread
text=build/bench/pii_100mb.txt
[ -s "$text" ] || /usr/bin/python3 bench/pii_text.py "$text" 100
out=$(taskset -c 0 build/bench/pii_scan "$text" build/bench/pii_patterns.json)
echo "$out"
rate=$(echo "$out" | sed -n 's/.* = \([0-9]*\) MB\/s.*/\1/p')
taskset -c 0 /usr/bin/python3 bench/pii_re.py "$text" build/bench/pii_patterns.json "$rate"
# The filter on real calls: server-everything's echo of a 10 KB message with
# ten entities, sequential calls with PII off and on, same run.
EVERYTHING=servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '{"mcpServers": {"everything": {"command": "node", "args": ["%s/%s", "stdio"]}}, "pii": {}}\n' \
	"$PWD" "$EVERYTHING" > "$tmp/config.json"
/usr/bin/python3 -c '
import json
parts, i = [], 0
while sum(map(len, parts)) < 10000:
    parts.append(f"Record {i} opened 2021-03-{i % 28 + 1:02d}, tier {i % 5}, status active. ")
    if i % 9 == 0:
        parts.append(f"Contact user{i}@example.com or (415) 555-{i:04d}. ")
    i += 1
print(json.dumps({"message": "".join(parts)}))' > "$tmp/args.json"
N=${N:-2000}
costs=""
for round in 1 2 3 4 5; do
	for mode in off on; do
		r=$(MCPFS_ROOT="$tmp/root" build/mcpfs --config "$tmp/config.json" call everything echo - \
			--pii $mode --repeat $((N + 1)) < "$tmp/args.json" 2>&1 >/dev/null |
			sed -n 's/.*: \([0-9]*\) calls\/s/\1/p')
		eval "rate_$mode=$r"
	done
	cost=$(/usr/bin/python3 -c "print(round(1e6 / $rate_on - 1e6 / $rate_off))")
	costs="$costs $cost"
	echo "round $round: echo of 10 KB, $N calls: PII off $rate_off calls/s, on $rate_on calls/s," \
		"cost $cost us per call"
done
echo "median cost of the filter per 10 KB call: $(/usr/bin/python3 -c "import statistics, sys; print(statistics.median(map(int, sys.argv[1:])))" $costs) us"
