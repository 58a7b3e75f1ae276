#!/bin/sh
# Jail start-up (issue 27): mcpfs's jail against bubblewrap with the same
# namespaces, binds and seccomp filter, interleaved in one run, for `true`
# and `python3 -c pass` (bench/jail_start.c). Needs root and bwrap.
set -eu
cd "$(dirname "$0")/.."
command -v bwrap >/dev/null || { echo "jail_start: bwrap missing: make deps" >&2; exit 2; }
make -s BUILD=build build/libmcpfs.a
mkdir -p build/bench
cc -std=gnu11 -O2 -o build/bench/jail_start bench/jail_start.c build/libmcpfs.a \
	$(pkg-config --cflags --libs fuse3 jansson msgpack libcurl libpcre2-8 libseccomp) -ldl -lpthread
N=${N:-60}
build/bench/jail_start "$(command -v bwrap)" "$N" /usr/bin/true
build/bench/jail_start "$(command -v bwrap)" "$N" /usr/bin/python3 -c pass
