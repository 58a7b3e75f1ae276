#!/bin/sh
# Every C file must match .clang-format (clang-format 14 or newer).
set -eu
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
	echo "format-check: clang-format not found; skipped (apt-get install clang-format)" >&2
	exit 0
fi
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find . -name '*.[ch]' -not -path './build*')
# shellcheck disable=SC2086
clang-format --dry-run -Werror $files
