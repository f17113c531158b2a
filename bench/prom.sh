#!/bin/sh
# Cost of scx-agg's Prometheus output per interval, against the number of
# CPUs: agg-gen streams on synthetic 2-, 64- and 512-CPU topologies through
# bench/prom (engine at a 10ms interval of event time, so each stream gives
# a few hundred intervals), median thread CPU time of folding a snapshot
# into the cumulative figures, formatting the exposition and rewriting the
# textfile.  The share of a core is at the 15 s interval a fleet would use.
# Writes bench/results/prom.md.
#
#   N=2000000 sh bench/prom.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
SCX_BUILD=${SCX_BUILD:-$here/../.output}
gen=$SCX_BUILD/bench/agg-gen
prom=$SCX_BUILD/bench/prom
N=${N:-2000000}
out=$here/results/prom.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scx-bench-prom.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -x "$gen" ] && [ -x "$prom" ] || { echo "prom: build first (make)" >&2; exit 1; }

load=$(cut -d" " -f1 /proc/loadavg)
{
	echo "# Prometheus output: cost per interval"
	echo
	echo "$(date -u +%Y-%m-%d), load average $load at the start, $N events per stream, 10ms intervals."
	echo "Medians over the intervals, thread CPU time; the engine's own work is not included."
	echo
	echo "| CPUs | threads | intervals | exposition bytes | samples | fold us | format us | textfile write us | share of a core at 15 s |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for c in 2 64 512; do
		t=$((c * 8)); [ $t -lt 200 ] && t=200
		"$gen" -f binary -c $c -t $t -n "$N" -o "$tmp/ev.bin"
		set -- $("$prom" "$tmp/ev.bin" 10ms "$tmp/scx.prom")
		samples=$(grep -vc '^#' "$tmp/scx.prom")
		share=$(awk -v a="$3" -v b="$4" -v w="$5" 'BEGIN { printf "%.4f%%", (a + b + w) / 15e6 * 100 }')
		echo "| $c | $t | $1 | $2 | $samples | $3 | $4 | $5 | $share |"
	done
} | tee "$out"
