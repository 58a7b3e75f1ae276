#!/bin/sh
# A browser for tests: "opens" the authorization URL by fetching it and
# following the authorization server's redirect to mcpfs's loopback
# listener, as a browser whose user approves at once would.
#   BROWSER="sh tests/oauth_browser.sh" mcpfs login SERVER
set -eu
exec curl -sS -L --max-redirs 5 -o /dev/null "$1"
