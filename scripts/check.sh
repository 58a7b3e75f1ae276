#!/bin/sh
# The test suite: one pytest session over the C unit tests and the end-to-end
# tests, each run against the plain and the ASan+UBSan build. Its last line is
# pytest's summary, which CI reads.
set -u
cd "$(dirname "$0")/.."
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=python3
exec "$PYTHON" -m pytest -p no:cacheprovider -q -rs tests "$@"
