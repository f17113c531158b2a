#!/bin/sh
# Cost of scx-agg --by cgroup at fleet scale, per 15 s interval: bench/cgroup
# on a synthetic 512-CPU machine with 10,000 cgroups (20,000 threads, each
# woken and run once an interval), -f prometheus with the atomic textfile
# rewrite, against the same stream grouped by cpu only.  Medians of thread
# CPU time over the intervals.  Writes bench/results/cgroup.md.
#
#   IV=7 sh bench/cgroup.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
SCX_BUILD=${SCX_BUILD:-$here/../.output}
bin=$SCX_BUILD/bench/cgroup
IV=${IV:-7}
out=$here/results/cgroup.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scx-bench-cgroup.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -x "$bin" ] || { echo "cgroup: build first (make)" >&2; exit 1; }

load=$(cut -d" " -f1 /proc/loadavg)
{
	echo "# --by cgroup: cost per 15 s interval"
	echo
	echo "$(date -u +%Y-%m-%d), load average $load at the start, $IV intervals per row, medians, thread CPU time."
	echo "close: the engine closing the interval (rollups, per-thread fold into cgroups, top 50 + other);"
	echo "prom: fold into the exporter, format, atomic textfile rewrite; events: feeding the interval's events."
	echo
	echo "| CPUs | cgroups | --by | events/interval | close ms | prom ms | events ms | exposition bytes | cgroup rows | close+prom, share of a core at 15 s | with events |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	for cfg in "512 10000 cpu" "512 10000 cpu,cgroup" "2 100 cpu,cgroup" "2 10000 cpu,cgroup"; do
		set -- $cfg
		c=$1 g=$2 by=$3
		set -- $("$bin" $c $g "$IV" "$tmp/scx.prom" $by)
		awk -v c=$c -v g=$g -v by=$by -v ev=$2 -v cl=$3 -v pr=$4 -v eu=$5 -v b=$6 -v rows=$7 'BEGIN {
			printf "| %s | %s | %s | %s | %.1f | %.1f | %.1f | %s | %s | %.3f%% | %.3f%% |\n",
				c, g, by, ev, cl / 1e3, pr / 1e3, eu / 1e3, b, rows,
				(cl + pr) / 15e6 * 100, (cl + pr + eu) / 15e6 * 100 }'
	done
} | tee "$out"
