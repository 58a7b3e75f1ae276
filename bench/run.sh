#!/bin/sh
# `make bench`: every bench/*.sh entry point in turn. Each prints its figures as
# ratios against a baseline measured in the same run; record them, with the
# machine and the date, in BENCHMARKS.md.
set -u
cd "$(dirname "$0")/.."
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -r); date: $(date -u +%Y-%m-%d)"
status=0
for b in bench/*.sh; do
	case $b in bench/run.sh) continue ;; esac
	[ -f "$b" ] || continue
	echo
	echo "== $b"
	sh "$b" || { echo "$b failed"; status=1; }
done
exit $status
