#!/bin/sh
# Install what mcpfs needs and is missing: Debian packages (when root), the
# pinned npm MCP servers (servers/package-lock.json) and the test tools
# (tests/node/package-lock.json). Says what it needs when it cannot.
# --test: also what only the tests use (qemu and busybox for the cgroup v2
# guest of tests/vm, zsh to try its completion, tmux for what a terminal
# shows, strace to count a walk's requests). --bench: also what only the
# benchmarks use (bubblewrap, the baseline of bench/jail_start.sh).
set -eu
cd "$(dirname "$0")/.."

debs="build-essential pkg-config libfuse3-dev fuse3 libjansson-dev libmsgpack-dev libcurl4-openssl-dev
libpcre2-dev libseccomp-dev libmicrohttpd-dev libssl-dev python3 python3-pytest python3-mypy nodejs npm clang-format e2fsprogs"
[ "${1-}" != --test ] || debs="$debs qemu-system-x86 busybox-static xz-utils zsh tmux strace"
[ "${1-}" != --bench ] || debs="$debs bubblewrap"
missing=""
for p in $debs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
# A node from elsewhere (nvm, a tarball) counts as installed.
case " $missing " in *" nodejs "*) command -v node >/dev/null && missing=$(echo "$missing" | sed 's/ nodejs//');; esac
case " $missing " in *" npm "*) command -v npm >/dev/null && missing=$(echo "$missing" | sed 's/ npm//');; esac
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "deps: installing Debian packages:$missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		# shellcheck disable=SC2086
		apt-get install -y -qq --no-install-recommends $missing >/dev/null
	else
		echo "deps: missing Debian packages:$missing" >&2
		echo "deps: run as root, or: sudo apt-get install$missing" >&2
		exit 2
	fi
fi

npm_ci() {
	dir=$1
	stamp=$dir/node_modules/.mcpfs-lock
	if [ -f "$stamp" ] && cmp -s "$dir/package-lock.json" "$stamp"; then
		return 0
	fi
	echo "deps: npm ci in $dir"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || {
		echo "deps: npm ci failed in $dir: the npm registry must be reachable" >&2
		exit 2
	}
	cp "$dir/package-lock.json" "$stamp"
}
npm_ci servers
npm_ci tests/node
[ ! -f executor/runtime/package-lock.json ] || npm_ci executor/runtime
