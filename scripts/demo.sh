#!/bin/sh
# The main job on the embedded default servers, start to end: list the
# servers and their tools, call a few, write the tree of code files, mount it,
# browse it, and run agent code in the jail that imports from it.
set -eu
cd "$(dirname "$0")/.."
bin=${MCPFS_BIN:-$PWD/build/mcpfs}
demo=$(mktemp -d /tmp/mcpfs-demo.XXXXXX)
export MCPFS_ROOT="$demo/root"
mnt=$demo/mnt
cleanup() {
	if mountpoint -q "$mnt" 2>/dev/null; then fusermount3 -u "$mnt" || fusermount3 -uz "$mnt"; fi
	"$bin" workspace umount --all >/dev/null 2>&1 || true
	rm -rf "$demo"
}
trap cleanup EXIT INT TERM
# Bold headings on a terminal only: a log or a pipe gets plain text.
if [ -t 1 ]; then bold=$(printf '\033[1m') plain=$(printf '\033[0m'); else bold='' plain=''; fi
step() { printf '\n%s== %s%s\n$ %s\n' "$bold" "$1" "$plain" "$2"; }

step "The configured servers (the embedded default set)" "mcpfs servers"
"$bin" servers

step "Their tools" "mcpfs tools everything"
"$bin" tools everything

step "Call a tool" "mcpfs call everything get-sum '{\"a\": 2, \"b\": 40}'"
"$bin" call everything get-sum '{"a": 2, "b": 40}'

step "Call a per-customer server" "mcpfs call memory create_entities ..."
"$bin" call memory create_entities \
	'{"entities": [{"name": "mcpfs", "entityType": "project", "observations": ["turns MCP servers into code"]}]}'
"$bin" call memory read_graph

step "Write the tree of importable code files" "mcpfs generate --out $demo/tree"
"$bin" generate --out "$demo/tree"
ls "$demo/tree/servers/everything" | head -8
echo "..."
sed -n '1,25p' "$demo/tree/servers/everything/get_sum.py"

step "Mount the same tree with FUSE" "mcpfs mount $mnt"
mkdir -p "$mnt"
"$bin" mount "$mnt"
cat "$mnt/servers/everything/README.md" | head -8
diff -r "$demo/tree" "$mnt" && echo "the mount and the generated tree are identical"

step "Run agent code in the jail" "mcpfs exec --customer demo -"
"$bin" exec --customer demo --lang python - <<'PY'
import re
from servers.everything import get_sum
# The tool answers in prose ("The sum of 2 and 2 is 4."): parse it in code, so
# only the small result travels back.
answers = [get_sum(a=i, b=i) for i in range(10)]
total = sum(int(re.search(r"is (-?\d+)", a).group(1)) for a in answers)
print(f"{len(answers)} calls; first answer {answers[0]!r}; total {total}")
PY

step "The same in TypeScript" "mcpfs exec --customer demo --lang typescript -"
"$bin" exec --customer demo --lang typescript - <<'TS'
import * as everything from "./servers/everything";
const results = await Promise.all([1, 2, 3].map((i) => everything.get_sum({ a: i, b: 1 })));
console.log("three calls at once from TypeScript:", JSON.stringify(results));
TS

step "The customer's session log" "mcpfs session list demo"
"$bin" session list demo
fusermount3 -u "$mnt"
echo
echo "demo done"
