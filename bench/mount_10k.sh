#!/bin/sh
# The FUSE mount with a 10,000-tool catalog against the generated tree on
# tmpfs, same run (bench/mount_walk.py has the details).
set -eu
cd "$(dirname "$0")/.."
exec /usr/bin/python3 bench/mount_walk.py
