#!/bin/sh
# bench/mcp-structured.sh: what structured output costs each scx-mcp tool.
# bench/mcp-client runs every analysis and trace tool on the 45.6 MB wprof
# trace against scx-mcp as shipped (structuredContent, checked against the
# tool's outputSchema before it is sent) and against the same binary with
# SCX_MCP_BENCH_NO_STRUCTURED set (text content only, no check), in
# alternating rounds of the same run; each figure is the median over the
# rounds of the median of MCP_BENCH_REPEAT calls.  Replaces the "Structured
# output" section of bench/results/mcp.md.
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=${SCX_BUILD:-$here/../.output}
TRACE=${MCP_BENCH_TRACE:-$here/../../shared/testdata/perfetto/wprof-schedview.pb.zst}
ROUNDS=${MCP_BENCH_ROUNDS:-3}
export MCP_BENCH_REPEAT=${MCP_BENCH_REPEAT:-7}
OUT=$here/results/mcp.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcp-structured.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

[ -r "$TRACE" ] || { echo "bench/mcp-structured.sh: no trace at $TRACE" >&2; exit 1; }
i=1
while [ $i -le "$ROUNDS" ]; do
	"$B/bench/mcp-client" "$B/scx-mcp" "$TRACE" 200 >"$tmp/with.$i" || exit 1
	SCX_MCP_BENCH_NO_STRUCTURED=1 "$B/bench/mcp-client" "$B/scx-mcp" "$TRACE" 200 \
		>"$tmp/without.$i" || exit 1
	i=$((i + 1))
done
# median of a figure over the rounds of one kind
med() { cat "$tmp/$1".* | awk -v k="$2" '$1 == k { print $2 }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

{
	echo "## Structured output"
	echo
	echo "Each tool's time with structuredContent (and the outputSchema check before it is sent)"
	echo "and without (SCX_MCP_BENCH_NO_STRUCTURED, text content only), alternating in one run:"
	echo "median of $ROUNDS rounds of the median of $MCP_BENCH_REPEAT calls, ms; load average"
	echo "$(cut -d" " -f1 /proc/loadavg) at the end ($(nproc) CPUs, other jobs running)."
	echo
	echo "| tool | with | without | ratio |"
	echo "|---|---|---|---|"
	for a in roundtrip_p50 $(awk '/^(analysis|tool)_/ { print $1 }' "$tmp/with.1"); do
		w=$(med with "$a") o=$(med without "$a")
		echo "| ${a#*_} | $w | $o | $(echo "$w $o" | awk '{ printf "%.3f", ($2 > 0) ? $1 / $2 : 0 }') |"
	done
} >"$tmp/section"
if [ -f "$OUT" ]; then
	awk '/^## Structured output$/ { skip = 1; next } skip && /^## / { skip = 0 } !skip' "$OUT" >"$tmp/rest"
	# no blank line left at the end of what stays
	sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$tmp/rest" >"$OUT"
	echo >>"$OUT"
fi
cat "$tmp/section" >>"$OUT"
cat "$tmp/section"
