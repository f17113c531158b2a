#!/bin/sh
# make demo: the main job.  Live scheduler events for a few seconds through
# the pipeline; without BPF (not root, no BTF) it says why and replays the
# recording shipped in t/data/ instead.
set -u
B=${SCX_BUILD:-.output}
SRC=$(cd "$(dirname "$0")/.." && pwd)
PATH=$B:$PATH
REC=$SRC/t/data/events-demo.ndjson.zst
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scx-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# summary: NDJSON events on stdin -> counts by type, busiest tasks, loss
summary() {
	awk '
	function val(k,   r) {
		if (!match($0, "\"" k "\":\"?[^,\"}]*")) return ""
		r = substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
		sub(/^"/, "", r)
		return r
	}
	/^\{"type":"header"/ { host = val("hostname"); kern = val("kernel"); ncpu = val("nr_cpus"); next }
	/^\{"type":"trailer"/ { lost = val("lost_total"); next }
	{
		t = val("type"); n[t]++; total++
		if (t == "sched_switch") { sw[val("next_comm")]++; if (first == "") first = val("ts") ; last = val("ts") }
	}
	END {
		printf "%d events from %s (kernel %s, %s cpus), %s lost\n", total, host, kern, ncpu, lost == "" ? "?" : lost
		for (t in n) printf "  %-20s %8d\n", t, n[t] | "sort -k2 -nr"
		close("sort -k2 -nr")
		print "busiest tasks (times switched in):"
		for (c in sw) printf "  %-20s %8d\n", c, sw[c] | "sort -k2 -nr | head -n 5"
		close("sort -k2 -nr | head -n 5")
	}'
}

if scx-events -d 5 -o "$tmp/live.ndjson" 2>"$tmp/err"; then
	echo "demo: 5 s of live scheduler events on this machine (scx-events -d 5):"
	grep -v "^scx-events: note:" "$tmp/err" >&2
	sed -n 2,4p "$tmp/live.ndjson" | cut -c 1-160
	echo "..."
	summary <"$tmp/live.ndjson"
else
	echo "demo: live capture is not possible here:"
	sed 's/^/  /' "$tmp/err"
	echo "demo: replaying the recording shipped in t/data/$(basename "$REC") instead:"
	zstd -dc "$REC" >"$tmp/rec.ndjson" || exit 1
	sed -n 2,4p "$tmp/rec.ndjson" | cut -c 1-160
	echo "..."
	summary <"$tmp/rec.ndjson"
fi
