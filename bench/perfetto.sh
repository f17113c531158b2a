#!/bin/sh
# scx-perfetto: reading real wprof captures (wall and CPU time pinned to one
# core, peak memory), writing (events/s in-process), bytes per event against
# wprof's own bundles, and the same trace through protobuf-c's unpack (the
# allocating decoder we did not use) as a ratio.  scxtop's published load
# times are quoted as the peer; trace_processor is not installable here.
# Writes bench/results/perfetto.md.
#
#   REPS=3 sh bench/perfetto.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
SCX_BUILD=${SCX_BUILD:-$here/../.output}
SHARED=${SHARED:-$(cd "$here/../.." && pwd)/shared}
P=$SCX_BUILD/scx-perfetto
B=$SCX_BUILD/bench/perfetto_bench
REPS=${REPS:-3}
out=$here/results/perfetto.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scx-bench-perfetto.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
SV=$SHARED/testdata/perfetto/wprof-schedview.pb.zst
TE=$SHARED/testdata/perfetto/wprof-trackevent.pb.zst

[ -x "$P" ] && [ -x "$B" ] || { echo "perfetto: build first (make)" >&2; exit 1; }
[ -r "$SV" ] || { echo "perfetto: no $SV" >&2; exit 1; }
pin=
command -v taskset >/dev/null && pin="taskset -c 0"

# best WALL USER+SYS MAXRSS_KB of REPS runs of "$@" (stdout to /dev/null)
best() {
	i=0
	while [ $i -lt "$REPS" ]; do
		/usr/bin/time -f '%e %U %S %M' -o "$tmp/t" $pin "$@" >/dev/null
		cat "$tmp/t"
		i=$((i + 1))
	done | awk '{ c = $2 + $3; if (!n++ || $1 < w) w = $1; if (n == 1 || c < cpu) cpu = c;
		     if ($4 > m) m = $4 } END { printf "%.2f %.2f %d\n", w, cpu, m }'
}

zstd -dqc "$SV" >"$tmp/sv.pb"
zstd -dqc "$TE" >"$tmp/te.pb"
sv_mb=$(awk -v b="$(wc -c <"$tmp/sv.pb")" 'BEGIN { printf "%.1f", b / 1e6 }')
te_mb=$(awk -v b="$(wc -c <"$tmp/te.pb")" 'BEGIN { printf "%.1f", b / 1e6 }')

rows=
run() { # label, command...
	label=$1; shift
	set -- $(best "$@")
	rss_mb=$(awk -v k="$3" 'BEGIN { printf "%.0f", k / 1024 }')
	echo "$label: wall $1 s, cpu $2 s, peak $rss_mb MB"
	rows="$rows| $label | $1 | $2 | $rss_mb |
"
	eval "last_wall=$1 last_rss=$rss_mb"
}

run "wprof sched view .zst -> NDJSON" "$P" -i "$SV"
sv_wall=$last_wall sv_rss=$last_rss
run "wprof sched view .zst -> binary" "$P" -i "$SV" --format binary
run "wprof sched view .zst --stat" "$P" -i "$SV" --stat
run "wprof sched view .pb -> NDJSON" "$P" -i "$tmp/sv.pb"
run "wprof TrackEvent .zst -> NDJSON" "$P" -i "$TE"
te_wall=$last_wall

agg_row=
if [ -x "$SCX_BUILD/scx-agg" ]; then
	/usr/bin/time -f '%e' -o "$tmp/agg" sh -c "$pin $P -i '$SV' --format binary |
		$pin $SCX_BUILD/scx-agg --report all >/dev/null" || true
	agg=$(cat "$tmp/agg" | tail -n 1)
	echo "pipe into scx-agg --report all: $agg s"
	agg_row="| wprof sched view .zst, piped into scx-agg --report all (binary) | $agg | | |
"
fi

# in-process: our decoder vs protobuf-c unpack of every TracePacket
ours_cpu=$("$B" read "$tmp/sv.pb" | sed -n 's/^cpu_seconds //p')
pbc_cpu=$("$B" unpack "$tmp/sv.pb" | sed -n 's/^cpu_seconds //p')
ratio_pbc=$(awk -v a="$pbc_cpu" -v b="$ours_cpu" 'BEGIN { printf "%.1f", a / b }')
echo "in-process read $ours_cpu s; protobuf-c unpack only $pbc_cpu s (${ratio_pbc}x)"

# writing: events of the sched view, in memory, to /dev/null
"$P" -i "$SV" --format binary >"$tmp/ev.bin"
wrows=
for mode in "" --no-compact --deflate --readable "--readable --deflate"; do
	"$B" write "$tmp/ev.bin" $mode >"$tmp/w"
	eps=$(awk '/^events_per_s/ { printf "%.1f", $2 / 1e6 }' "$tmp/w")
	bpe=$(awk '/^bytes_per_event/ { print $2 }' "$tmp/w")
	echo "write ${mode:-compact}: ${eps}M events/s, $bpe bytes/event"
	wrows="$wrows| ${mode:-compact (default)} | $eps | $bpe |
"
	[ -n "$mode" ] || compact_bpe=$bpe
done
nev=$(awk '/^events / { print $2 }' "$tmp/w")
# end to end through the tool: the event codec's reader is part of the cost
"$P" -i "$SV" >"$tmp/ev.ndjson"
for f in ev.bin ev.ndjson; do
	set -- $(best "$P" -o /dev/null "$tmp/$f")
	eps=$(awk -v n="$nev" -v c="$2" 'BEGIN { printf "%.1f", n / c / 1e6 }')
	echo "scx-perfetto -o < $f: cpu $2 s, ${eps}M events/s"
	wrows="$wrows| scx-perfetto -o, from ${f#ev.} events (CPU time, reading included) | $eps | |
"
done
wprof_bundle=$("$B" sizes "$tmp/sv.pb" | awk '/^bundle_bytes/ { print $2 }')
wprof_bpe=$(awk -v b="$wprof_bundle" 'BEGIN { printf "%.1f", b / 289132 }')
ratio_bpe=$(awk -v a="$wprof_bpe" -v b="$compact_bpe" 'BEGIN { printf "%.1f", a / b }')
echo "wprof's bundles: $wprof_bpe bytes/event; ours compact $compact_bpe (${ratio_bpe}x smaller)"

mb_s=$(awk -v m="$sv_mb" -v w="$sv_wall" 'BEGIN { printf "%.0f", m / w }')
vs10=$(awk -v w="$sv_wall" -v m="$sv_mb" 'BEGIN { printf "%.0f", (10 * m / 40) / w }')
vs30=$(awk -v w="$sv_wall" -v m="$sv_mb" 'BEGIN { printf "%.0f", (30 * m / 40) / w }')
rss_ratio=$(awk -v r="$sv_rss" -v m="$sv_mb" 'BEGIN { printf "%.2f", r / m }')

mkdir -p "$here/results"
cat >"$out" <<EOF
# scx-perfetto (bench/perfetto.sh)

$(date -u +%Y-%m-%d), $(uname -r), $(nproc) CPUs (shared with other jobs; load average
$(cut -d' ' -f1-3 /proc/loadavg) at the end), pinned to one core with taskset; best of $REPS runs.
Inputs: the real wprof captures in shared/testdata/perfetto: sched view $sv_mb MB uncompressed
(580k packets, 289k ftrace events plus 580k TrackEvents), TrackEvent mode $te_mb MB (459k TrackEvents).
Output to /dev/null.

## Reading

| run | wall s | CPU s | peak RSS MB |
|---|---|---|---|
$rows$agg_row
- Target: < 1 s on one core for the $sv_mb MB sched view: **$sv_wall s** ($mb_s MB/s of uncompressed trace).
- Peak memory $sv_rss MB = **${rss_ratio}x** the uncompressed trace (target <= 2x); it holds the
  decompressed trace plus 48 bytes per event, because events can only be ordered once the whole
  trace is read (wprof puts wakings in the waker cpu's bundle).
- Peer, as published (not run here): scxtop needs 10-30 s to load a 40 MB trace, i.e.
  ${vs10}x-${vs30}x longer than this run scaled to the same size; its compatibility guide quotes
  ~10 s to load a 900k-event trace. trace_processor is not installable on this machine.
- The same $sv_mb MB through protobuf-c's allocating \`perfetto__protos__trace_packet__unpack\`
  (our trimmed proto/, unpack and free only, nothing converted or sorted): $pbc_cpu s CPU, against
  $ours_cpu s for our whole read (decode, convert, sort, no output): **${ratio_pbc}x**.

## Writing (events of the sched view, $nev events, in-process, to /dev/null)

| mode | M events/s | bytes/event |
|---|---|---|
$wrows
- Target: >= 5M events/s.
- Size: wprof's own FtraceEventBundles in the same capture take **$wprof_bpe bytes/event**
  (plain sched_switch/sched_waking); ours with compact_sched take **$compact_bpe**, ${ratio_bpe}x less.
EOF
echo "wrote $out"
