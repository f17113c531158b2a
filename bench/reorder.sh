#!/bin/sh
# The reorder buffer (lib/core/reorder.c) that puts scx-events' per-CPU batches in
# one time order, and scx-top's per-cpu ordered input: CPU ns per event
# pushed and popped through a 100 ms window, median of 3 runs, for a 2-CPU
# machine like this one and a 512-CPU one at two rates.  No peer: perf and
# scxtop leave the stream in per-CPU order (perf sorts at report time).
set -u
B=${SCX_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/.output}

echo "## Reorder buffer ($(nproc) cpus, $(uname -r))"
echo
echo "| cpus | events per cpu per 50 ms batch | events | ns/event (median of 3) |"
echo "|---:|---:|---:|---:|"
for args in "2 5000 200" "512 2 400" "512 50 40"; do
	set -- $args
	for i in 1 2 3; do "$B/bench/reorder" "$@"; done |
		sed -n 's/.* \([0-9]*\) events, \([0-9.]*\) ns\/event.*/\1 \2/p' | sort -k2 -n |
		sed -n 2p | { read -r n ns; echo "| $1 | $2 | $n | $ns |"; }
done
