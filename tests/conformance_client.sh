#!/bin/sh
# The client command for the MCP conformance suite (@modelcontextprotocol/conformance):
#   conformance client --command "sh tests/conformance_client.sh" --scenario NAME
# The suite appends the mock server's URL as the last argument and names the
# scenario in $MCP_CONFORMANCE_SCENARIO. We write a config naming that URL and
# drive the mcpfs binary ($MCPFS_BIN, else build/mcpfs) as a user would.
set -eu

for url; do :; done
[ -n "${url:-}" ] || { echo "usage: $0 [ARGS...] URL" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${MCPFS_BIN:-$here/build/mcpfs}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# OAuth scenarios: the client configuration a user would write, from the
# suite's context (MCP_CONFORMANCE_CONTEXT) where it gives one.
python3 - "$url" "$work" <<'PY'
import json, os, sys
url, work = sys.argv[1], sys.argv[2]
scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
ctx = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
server = {"url": url, "timeout": 20}
oauth = {"client_metadata_url": "https://conformance-test.local/client-metadata.json"}
if scenario == "auth/pre-registration":
    oauth = {"client_id": ctx["client_id"], "client_secret": ctx["client_secret"]}
elif scenario == "auth/client-credentials-basic":
    oauth = {"grant": "client_credentials", "client_id": ctx["client_id"],
             "client_secret": ctx["client_secret"]}
elif scenario == "auth/client-credentials-jwt":
    key = os.path.join(work, "client-key.pem")
    with open(key, "w") as f:
        f.write(ctx["private_key_pem"])
    oauth = {"grant": "client_credentials", "client_id": ctx["client_id"],
             "private_key_file": key, "signing_alg": ctx.get("signing_algorithm") or "ES256"}
elif scenario == "auth/cross-app-access-complete-flow":
    oauth = {"grant": "id-jag", "client_id": ctx["client_id"],
             "client_secret": ctx["client_secret"], "id_token": ctx["idp_id_token"],
             "idp_token_endpoint": ctx["idp_token_endpoint"],
             "idp_client_id": ctx["idp_client_id"]}
server["oauth"] = oauth
with open(os.path.join(work, "config.json"), "w") as f:
    json.dump({"mcpServers": {"conformance": server}}, f)
PY

mcpfs() {
	MCPFS_ROOT="$work/root" "$bin" --config "$work/config.json" "$@"
}

# Run mcpfs as a user would: when it says to log in, log in (the browser
# step is tests/oauth_browser.sh) and run the command again; at most three
# logins in all, so a server that always asks for more ends it.
export BROWSER="sh $here/tests/oauth_browser.sh"
logins=0
step() {
	while :; do
		if mcpfs "$@" 2>"$work/stderr"; then
			cat "$work/stderr" >&2
			return 0
		else
			rc=$?
		fi
		cat "$work/stderr" >&2
		grep -q '`mcpfs login' "$work/stderr" && [ "$logins" -lt 3 ] || return "$rc"
		logins=$((logins + 1))
		mcpfs login conformance --timeout 60 || return $?
	done
}

case "${MCP_CONFORMANCE_SCENARIO:-}" in
tools_call)
	mcpfs call conformance add_numbers '{"a": 2, "b": 3}' --json ;;
sse-retry)
	mcpfs call conformance test_reconnection '{}' --json ;;
elicitation-sep1034-client-defaults)
	mcpfs call conformance test_client_elicitation_defaults '{}' --json ;;
auth/client-credentials-* | auth/cross-app-access-*)
	# Headless: the token comes from the config's client, no login.
	mcpfs tools conformance --json ;;
auth/*)
	step tools conformance --json
	step call conformance test-tool '{}' --json ;;
*)
	# initialize and anything else: connect, initialize, list the tools.
	mcpfs tools conformance --json ;;
esac
