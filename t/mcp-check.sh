#!/bin/sh
# make check-mcp: scx-mcp against the real MCP clients (official TypeScript
# SDK v1 and v2, inspector-cli, the conformance suite) through
# ../shared/tools/mcp-check.  Not part of make check: it needs npm packages
# (mcp-check --install).  Two runs: a stand-in event producer with a known
# schedule, and, with root and BPF, the real scx-events.
set -u
SCX_SRC=${SCX_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
SCX_BUILD=${SCX_BUILD:-$SCX_SRC/.output}
CHECK=${MCP_CHECK:-$SCX_SRC/../shared/tools/mcp-check}
MCP=$SCX_BUILD/scx-mcp

dir=$(mktemp -d "${TMPDIR:-/tmp}/scx-mcp-check.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cp "$SCX_SRC/t/data/mcp-handmade.pb" "$dir/handmade.pb"
cd "$dir" || exit 1

rc=0
run() {
	echo "== mcp-check $*"
	"$CHECK" --tool load_perfetto_trace --tool-args '{"file_path":"handmade.pb"}' \
		--uri events://stream --expect-update --call-readonly \
		--prompt debug_high_latency --prompt-args '{"pid":"1"}' "$@" >log 2>&1
	r=$?
	grep -E '^(FAIL|WARN)' log
	tail -n 2 log
	[ $r = 0 ] || rc=1
}

run -- "$MCP" --capture --events-cmd "$SCX_SRC/t/data/mcp-fake-events.sh" --root "$dir"
if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] && [ -x "$SCX_BUILD/scx-events" ]; then
	run -- "$MCP" --capture --root "$dir"
else
	echo "== skipped the run with scx-events: needs root, BTF and a built scx-events"
fi
exit $rc
