#!/bin/sh
# The JSON reader (lib/json/json.c, one pass) against the jsmn reader it replaced
# (lib/json/json_ref.c), in the same run on the same lines: scx-agg snapshots of
# a synthetic 512-CPU machine with every group (what scx-top reads from
# `scx-agg | scx-top`), and the NDJSON event lines of the same stream.
# Writes bench/results/json.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
B=${SCX_BUILD:-$here/../.output}
REPS=${REPS:-10}
out=$here/results/json.md
T=$(mktemp -d "${TMPDIR:-/tmp}/scx-bench-json.XXXXXX")
trap 'rm -rf "$T"' EXIT

"$B/bench/top-gen" -c 512 -N 8 -l 8 -s 2 -r 20 -O -f binary >"$T/ev.bin"
"$B/scx-agg" -I 250ms --by cpu,llc,node,tgid,pid,dsq <"$T/ev.bin" >"$T/snap.ndjson"
"$B/bench/top-gen" -c 512 -N 8 -l 8 -s 2 -r 20 -O -f ndjson >"$T/ev.ndjson"

row() {	# row NAME FILE
	"$B/bench/json" "$2" "$REPS" | awk -v name="$1" '
		/^lines/ { lines = $2; bytes = $4 }
		/^one-pass/ { one = $2 }
		/^reference/ { ref = $2 }
		/^numbers/ { nums = $2; fast = $4; slow = $7 }
		END { printf "| %s | %d | %.1f | %.1f | %.1f | %.2f | %d | %.1f | %.1f | %.2f |\n",
		      name, lines, bytes / 1e6, one, ref, one / ref, nums, fast, slow, fast / slow }'
}

{
	echo "## JSON reader ($(nproc) cpus, $(uname -r))"
	echo
	echo "MB/s of JSON text per CPU second, best of $REPS runs taken in turns; numbers:"
	echo "every number token read with scx_json_double() against strtod(), M/s."
	echo "Both readers keep their token array from line to line, as scx-top does."
	echo
	echo "| lines | n | MB | one-pass MB/s | jsmn reader MB/s | ratio | numbers | scx_json_double M/s | strtod M/s | ratio |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	row "scx-agg snapshots, every group, 512 CPUs" "$T/snap.ndjson"
	row "NDJSON events, 512 CPUs" "$T/ev.ndjson"
} | tee "$out"
