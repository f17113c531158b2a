#!/bin/sh
# scx-top: frame render time and CPU use at 4 frames/s on a synthetic
# 512-CPU, 8-node machine (bench/top-gen.c), as markdown.
#
#  1. render: bench/top-render aggregates a recorded 512-CPU stream and times
#     top_render() for every view (a 240x70 terminal frame, and a batch frame
#     with every row).
#  2. CPU: scx-top runs in a real terminal (tmux, 200x60) at -d 250ms on a
#     live paced stream; its utime+stime from /proc over 15 s, as % of one
#     core.  Inputs: scx-agg snapshots (scx-top only draws), and raw events
#     at two rates (scx-top also decodes and aggregates every event), in time
#     order as scx-events delivers them (top-gen -O) and in per-cpu order.
#  3. batch throughput: events/s aggregated by scx-top -b from a file,
#     against scx-agg on the same file in the same run.
# Peers: scxtop publishes no render or idle CPU figure (see
# ../shared/research/scxtop.md section 8), and it cannot be built here.
set -u
B=${SCX_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/.output}
gen=$B/bench/top-gen
T=$(mktemp -d /tmp/scx-top-bench.XXXXXX)
S=scx-top-bench-$$
trap 'tmux -L $S kill-server 2>/dev/null; rm -rf "$T"' EXIT
HZ=$(getconf CLK_TCK)

echo "## scx-top ($(nproc) cpus, $(uname -r))"
echo
echo "### Frame render time (512 CPUs, 8 nodes; median of 3 runs of 300 frames)"
echo
"$gen" -c 512 -N 8 -l 8 -s 2 -r 100 -f binary >"$T/big.bin"
for i in 1 2 3; do "$B/bench/top-render" "$T/big.bin" 300; done >"$T/render.txt"
echo "| view | frame | lines | us/frame | bytes |"
echo "|---|---|---:|---:|---:|"
awk '{ k = $1 " " $2; sub(":", "", k); us[k] = us[k] " " $5; lines[k] = $3; bytes[k] = $7 }
     END { for (k in us) { n = split(us[k], a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
           if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
           split(k, kk, " "); printf "| %s | %s | %s | %s | %s |\n", kk[1], kk[2], lines[k], a[2], bytes[k] } }' \
	"$T/render.txt" | sort
echo

# ticks PID: utime+stime of the whole process, of its main (ui) thread, and
# of the others (the reader: decoding and aggregation)
ticks() {
	all=$(awk '{ print $14 + $15 }' /proc/$1/stat)
	ui=$(awk '{ print $14 + $15 }' /proc/$1/task/$1/stat)
	echo "$all $ui"
}

# live NAME CMD [OPTION...]: CMD feeds scx-top -d 250ms in a 200x60 tmux
# pane; CPU over 15 s
live() {
	tmux -L $S kill-server 2>/dev/null
	tmux -L $S new-session -d -x 200 -y 60 "$2 | $B/scx-top --no-config -d 250ms ${3:-}"
	sleep 4
	pid=$(pgrep -n -x scx-top)
	a=$(ticks "$pid")
	sleep 15
	b=$(ticks "$pid")
	tmux -L $S capture-pane -p | head -1 | grep -o "events [0-9.kM]*/s" | sed 's/events //' >"$T/ev" || true
	echo "$a $b" | awk -v hz="$HZ" -v n="$1" -v ev="$(cat "$T/ev")" '{
		all = ($3 - $1) / hz / 15 * 100; ui = ($4 - $2) / hz / 15 * 100;
		printf "| %s | %s | %.2f | %.2f | %.2f |\n", n, ev, all, ui, all - ui }'
	tmux -L $S kill-server 2>/dev/null
	sleep 1
}

echo "### CPU use at 4 frames/s (-d 250ms), 512 CPUs, 8 nodes, 200x60 terminal"
echo
echo "Percent of one core over 15 s; ui = the main thread (keys, render, write);"
echo "reader = decoding and aggregation (lib/stream, lib/agg, lib/json)."
echo
echo "| input | events/s | scx-top total | ui thread | reader thread |"
echo "|---|---:|---:|---:|---:|"
if command -v tmux >/dev/null; then
	live "scx-agg snapshots (--by cpu,llc,node,tgid,pid,dsq -I 250ms)" \
		"$gen -c 512 -N 8 -l 8 -s 25 -r 20 -O -R -f binary | $B/scx-agg -I 250ms --by cpu,llc,node,tgid,pid,dsq"
	live "scx-agg snapshots (--by cpu,llc,node -I 250ms)" \
		"$gen -c 512 -N 8 -l 8 -s 25 -r 20 -O -R -f binary | $B/scx-agg -I 250ms --by cpu,llc,node"
	live "scx-agg snapshots (--by llc -I 250ms, the README pipeline)" \
		"$gen -c 512 -N 8 -l 8 -s 25 -r 20 -O -R -f binary | $B/scx-agg -I 250ms --by llc"
	live "raw events, binary, time order" "$gen -c 512 -N 8 -l 8 -s 25 -r 5 -O -R -f binary"
	live "raw events, binary, time order" "$gen -c 512 -N 8 -l 8 -s 25 -r 20 -O -R -f binary"
	live "raw events, binary, time order, process view" \
		"$gen -c 512 -N 8 -l 8 -s 25 -r 5 -O -R -f binary" "--view proc"
	live "raw events, binary, time order, process view" \
		"$gen -c 512 -N 8 -l 8 -s 25 -r 20 -O -R -f binary" "--view proc"
	live "raw events, NDJSON, time order" "$gen -c 512 -N 8 -l 8 -s 25 -r 5 -O -R -f ndjson"
	live "raw events, NDJSON, time order" "$gen -c 512 -N 8 -l 8 -s 25 -r 20 -O -R -f ndjson"
	live "raw events, binary, per-cpu order (reordered)" "$gen -c 512 -N 8 -l 8 -s 25 -r 20 -R -f binary"
else
	echo "| (tmux missing: skipped) | | | | |"
fi
echo

echo "### Aggregation throughput, batch mode (same file, same run)"
echo
"$gen" -c 512 -N 8 -l 8 -s 4 -r 200 -f binary >"$T/thr.bin"
n=$("$B/bench/top-gen" -c 512 -N 8 -l 8 -s 4 -r 200 -f ndjson | grep -c '"ts"')
t_top=$( { /usr/bin/time -f "%U %S" "$B/scx-top" -b --no-config -d 250ms <"$T/thr.bin" >/dev/null; } 2>&1 | tail -1)
t_agg=$( { /usr/bin/time -f "%U %S" "$B/scx-agg" -I 250ms --by cpu,llc,node,tgid,pid,dsq <"$T/thr.bin" >/dev/null; } 2>&1 | tail -1)
echo "| tool | events | CPU s | Mevents/s | ratio |"
echo "|---|---:|---:|---:|---:|"
awk -v n="$n" -v a="$t_top" -v b="$t_agg" 'BEGIN {
	split(a, x, " "); split(b, y, " "); ta = x[1] + x[2]; tb = y[1] + y[2];
	printf "| scx-top -b -d 250ms | %d | %.2f | %.2f | %.2f |\n", n, ta, n / ta / 1e6, ta / tb;
	printf "| scx-agg -I 250ms --by cpu,llc,node,tgid,pid,dsq | %d | %.2f | %.2f | 1.00 |\n", n, tb, n / tb / 1e6 }'
