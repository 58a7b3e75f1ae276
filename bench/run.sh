#!/bin/sh
# `make bench`: every benchmark in turn. Each prints its figures as ratios
# against a baseline measured in the same run; record them, with the machine
# and the date, in BENCHMARKS.md.
set -u
cd "$(dirname "$0")/.."
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -r); date: $(date -u +%Y-%m-%dT%H:%MZ)"
status=0
run() {
	echo
	echo "== $*"
	"$@" || { echo "failed: $*"; status=1; }
}
run sh bench/client_echo.sh
run sh bench/client_catalog.sh
run sh bench/codegen_render.sh
run sh bench/search.sh
run sh bench/pii_scan.sh
run sh bench/mount_10k.sh
run /usr/bin/python3 bench/tree_scale.py
run /usr/bin/python3 bench/catalog_caps.py
run /usr/bin/python3 bench/exec_bench.py build
run /usr/bin/python3 bench/serve_bench.py build
run /usr/bin/python3 bench/serve_load.py build
run /usr/bin/python3 bench/workspace_idle.py build
run /usr/bin/python3 bench/server_start.py build
run /usr/bin/python3 bench/ts_start.py build
run sh bench/jail_start.sh
exit $status
