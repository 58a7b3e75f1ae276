#!/bin/sh
# Start to full catalog of the default servers: see bench/client_catalog.py.
set -eu
cd "$(dirname "$0")/.."
exec python3 bench/client_catalog.py
