#!/bin/sh
# make check-mcp: scx-mcp against the real MCP clients (official TypeScript
# SDK v1 and v2, inspector-cli, the conformance suite) through
# ../shared/tools/mcp-check.  Not part of make check: it needs npm packages
# (mcp-check --install, and the conformance suite's 2026-07-28 release).
#
#   1. every part in the legacy era (SDK v2 in 'auto' mode), calling every
#      read-only tool, with a stand-in event producer of known schedule;
#   2. SDK v2 pinned to 2026-07-28 (--expect-modern), every read-only tool;
#   3. the conformance suite's newest version (the first with 2026-07-28
#      requirement sets), the scenarios that apply to a server without the
#      suite's fixture tools (CONFORMANCE_2025 and _2026 below);
#   4. with root and BPF, run 1 again with the real scx-events.
set -u
SCX_SRC=${SCX_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
SCX_BUILD=${SCX_BUILD:-$SCX_SRC/.output}
TOOLS=${MCP_TOOLS:-$SCX_SRC/../shared/tools}
CHECK=$TOOLS/mcp-check
PEERS=${MCP_PEERS:-$HOME/.cache/mcp-peers}
NEXT=${MCP_CONFORMANCE_NEXT:-$HOME/.cache/mcp-conformance-next}
NEXT_VERSION=0.2.0-alpha.12
MCP=$SCX_BUILD/scx-mcp

# 2026-07-28 scenarios that a server without the suite's fixtures
# (test_simple_text, test://static-text, ...) can pass.  Left out: the
# tools-call-*, resources-read-*, prompts-get-* and input-required-result-*
# scenarios (they call fixture names), and the HTTP-only ones
# (dns-rebinding-protection, http-*-validation, server-sse-*): over the
# bridge they would test the bridge, not a stdio server.
CONFORMANCE_2026=server-stateless,tools-list,resources-list,prompts-list,completion-complete,sep-2164-resource-not-found,caching
# and the generic scenarios of the session era, by the same suite version
CONFORMANCE_2025=server-initialize,ping,tools-list,resources-list,prompts-list,logging-set-level,completion-complete

dir=$(mktemp -d "${TMPDIR:-/tmp}/scx-mcp-check.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cp "$SCX_SRC/t/data/mcp-handmade.pb" "$dir/handmade.pb"
cd "$dir" || exit 1

rc=0
# mcp-check's sdk2 part calls ping, which 2026-07-28 removed: SDK v2 refuses
# it locally, before anything is sent, so no server can pass that one check
# in the modern era.  That failure, and only that one, is reported as known.
KNOWN='^FAIL sdk2/ping: \[METHOD_NOT_SUPPORTED_BY_PROTOCOL_VERSION\]'
run() {
	echo "== mcp-check $*"
	"$CHECK" --tool load_perfetto_trace --tool-args '{"file_path":"handmade.pb"}' \
		--uri events://stream --expect-update --call-readonly \
		--prompt debug_high_latency --prompt-args '{"pid":"1"}' "$@" >log 2>&1
	r=$?
	grep -E '^(FAIL|WARN)' log
	tail -n 2 log
	if [ $r != 0 ]; then
		if grep '^FAIL' log | grep -qvE "$KNOWN"; then
			rc=1
		else
			echo "== the one failure is mcp-check calling ping in the 2026-07-28 era (known)"
		fi
	fi
}

FAKE="--capture --events-cmd $SCX_SRC/t/data/mcp-fake-events.sh --root $dir"
# shellcheck disable=SC2086
run -- "$MCP" $FAKE
# shellcheck disable=SC2086
run --only sdk2 --expect-modern -- "$MCP" $FAKE

echo "== conformance $NEXT_VERSION"
CBIN=$NEXT/node_modules/@modelcontextprotocol/conformance/dist/index.js
NODE=$PEERS/node_modules/.bin/node
if [ ! -f "$CBIN" ]; then
	mkdir -p "$NEXT" && (cd "$NEXT" && npm init -y >/dev/null &&
		npm install "@modelcontextprotocol/conformance@$NEXT_VERSION" >/dev/null 2>&1)
fi
# one scenario through the shared stdio-to-HTTP bridge: PASS, FAIL or SKIP
conformance() {
	ver=$1 s=$2
	timeout 300 "$NODE" "$CBIN" server --url "$(cat "$dir/url")" --spec-version "$ver" \
		--scenario "$s" -o "$dir/conf" >"conf-$ver-$s.log" 2>&1
	if [ $? = 0 ]; then
		echo "PASS conformance/$ver/$s"
	elif grep -q "no valid session ID" "conf-$ver-$s.log"; then
		# the bridge puts SDK v1's session transport in front of the server:
		# stateless 2026-07-28 requests are refused there, never reach us
		echo "SKIP conformance/$ver/$s: the bridge serves initialize sessions only"
	else
		echo "FAIL conformance/$ver/$s"
		grep -E "Error|FAIL|✗" "conf-$ver-$s.log" | head -n 10
		rc=1
	fi
}
if [ ! -f "$CBIN" ] || [ ! -x "$NODE" ]; then
	echo "FAIL conformance: cannot install @modelcontextprotocol/conformance@$NEXT_VERSION"
	rc=1
else
	"$NODE" "$TOOLS/mcp-stdio-http-bridge.cjs" --url-file "$dir/url" -- "$MCP" --no-live \
		--root "$dir" >bridge.log 2>&1 &
	bridge=$!
	for _ in $(seq 50); do [ -s "$dir/url" ] && break; sleep 0.1; done
	for s in $(echo "$CONFORMANCE_2025" | tr , ' '); do
		conformance 2025-11-25 "$s"
	done
	for s in $(echo "$CONFORMANCE_2026" | tr , ' '); do
		conformance 2026-07-28 "$s"
	done
	kill "$bridge" 2>/dev/null
	wait "$bridge" 2>/dev/null
fi

if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] && [ -x "$SCX_BUILD/scx-events" ]; then
	run -- "$MCP" --capture --root "$dir"
else
	echo "== skipped the run with scx-events: needs root, BTF and a built scx-events"
fi
exit $rc
