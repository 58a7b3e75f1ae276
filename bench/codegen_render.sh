#!/bin/sh
# Codegen: tools rendered per second, and context efficiency (see
# bench/codegen_render.c). Built against build/libmcpfs.a.
set -eu
cd "$(dirname "$0")/.."
make -s BUILD=build build/libmcpfs.a
mkdir -p build/bench
cc -std=gnu11 -O2 -o build/bench/codegen_render bench/codegen_render.c build/libmcpfs.a \
	$(pkg-config --cflags --libs fuse3 jansson msgpack libcurl libpcre2-8 libseccomp) -lpthread
build/bench/codegen_render
