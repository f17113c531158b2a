#!/bin/sh
# make demo: the main job.  Five seconds of live scheduler events (with a
# short burst of perf bench sched messaging so there is something to see)
# through every tool of the pipeline:
#
#   scx-events -> scx-agg (per cpu/llc/node, and reports)
#              -> scx-perfetto (a trace for ui.perfetto.dev)
#              -> scx-top -b (one frame of the live view)
#
# Without BPF (not root, no BTF) it says why and replays the recording
# shipped in t/data/ instead.  Outputs stay in $SCX_BUILD/demo/.
set -u
B=${SCX_BUILD:-.output}
SRC=$(cd "$(dirname "$0")/.." && pwd)
PATH=$B:$PATH
REC=$SRC/t/data/events-demo.ndjson.zst
out=$B/demo
mkdir -p "$out"
ev=$out/events.ndjson

step() { printf '\n== %s\n' "$*"; }

step "scx-events -d 5 -o $ev"
if scx-events -d 5 -o "$ev" 2>"$out/events.err" &
then
	cap=$!
	sleep 1
	if command -v perf >/dev/null; then
		perf bench sched messaging -g 2 -l 100 >/dev/null 2>&1
	fi
	wait $cap
	rc=$?
else
	rc=1
fi
if [ $rc = 0 ]; then
	grep -v "^scx-events: note:" "$out/events.err" >&2
	echo "captured live on this machine:"
else
	echo "live capture is not possible here:"
	sed 's/^/  /' "$out/events.err"
	echo "replaying the recording shipped in t/data/$(basename "$REC") instead:"
	zstd -dc "$REC" >"$ev" || exit 1
fi
sed -n 2,4p "$ev" | cut -c 1-150
tail -n 1 "$ev" | cut -c 1-200

step "scx-agg -H (per cpu, llc and node over the whole capture)"
scx-agg -H "$ev" || exit 1

step "scx-agg -H --no-snapshot -r wakeup-latency,migrations,bottlenecks -n 5"
scx-agg -H --no-snapshot -r wakeup-latency,migrations,bottlenecks -n 5 "$ev" || exit 1

step "scx-perfetto -o $out/trace.pftrace  (open it in ui.perfetto.dev)"
scx-perfetto -o "$out/trace.pftrace" "$ev" || exit 1
scx-perfetto -i "$out/trace.pftrace" --stat || exit 1

step "scx-top -b -n 1 (one frame; run 'sudo scx-events | scx-top' for the live view)"
scx-top -b -n 1 -d 5 -i "$ev" || exit 1

echo
echo "demo: outputs in $out/"
