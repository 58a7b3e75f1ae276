#!/bin/sh
# Embed files in the binary: prints a C file defining
#   const struct embedded_file NAME[] = { {"basename", bytes, len}, ..., {0} };
# Uses od(1) only, so the build needs nothing beyond POSIX tools.
set -eu
name=$1; shift
echo '#include <stddef.h>'
echo '#include "../../common/embed.h"'
i=0
for f in "$@"; do
	printf 'static const unsigned char f%d[] = {' "$i"
	od -An -v -tx1 "$f" | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'
	echo '0x00};'
	i=$((i + 1))
done
printf 'const struct embedded_file %s[] = {\n' "$name"
i=0
for f in "$@"; do
	printf '\t{"%s", (const char *)f%d, sizeof(f%d) - 1},\n' "$(basename "$f")" "$i" "$i"
	i=$((i + 1))
done
echo '	{NULL, NULL, 0},'
echo '};'
