#!/bin/sh
# scx-prof throughput: process (perf.script lines/s) and extract (perf.jsonl
# records/s) on one core, as library calls (bench/prof.c, thread CPU time,
# median of REPS) and as the CLI end to end (user+sys time, max RSS at two
# input sizes to show process runs in constant memory).  Peer in the same
# run: jq grouping the same perf.jsonl by cgroup and comm.  Input: the real
# fixture t/data/prof-small/perf.script repeated COPIES times.
#
#   COPIES=8000 REPS=5 sh bench/prof.sh      (8000 copies = 1,024,000 lines)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
SCX_BUILD=${SCX_BUILD:-$here/../.output}
prof=$SCX_BUILD/scx-prof
lib=$SCX_BUILD/bench/prof
COPIES=${COPIES:-8000}
REPS=${REPS:-5}
JQ_LINES=${JQ_LINES:-200000}
CPU=${CPU:-1}
out=$here/results/prof.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scx-bench-prof.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

[ -x "$prof" ] && [ -x "$lib" ] || { echo "prof: build first (make)" >&2; exit 1; }

gen() { # gen DIR COPIES
	mkdir -p "$1"
	i=0
	while [ $i -lt "$2" ]; do cat "$here/../t/data/prof-small/perf.script"; i=$((i + 1)); done \
		> "$1/perf.script"
}
gen "$tmp/big" "$COPIES"
gen "$tmp/tenth" $((COPIES / 10))
lines=$(wc -l < "$tmp/big/perf.script")
tenth_lines=$(wc -l < "$tmp/tenth/perf.script")

# "... median S s, X.XXM lines/s ..." -> X.XX
rate() { sed -n 's/.*median [0-9.]* s, \([0-9.]*\)M lines\/s.*/\1/p'; }
# run CMD... under /usr/bin/time: prints "cpu_seconds max_rss_kb"
cost() {
	/usr/bin/time -f '%U %S %M' -o "$tmp/time" taskset -c "$CPU" "$@" > /dev/null 2> "$tmp/err" ||
		{ cat "$tmp/err" >&2; exit 1; }
	awk '{ printf "%.2f %d\n", $1 + $2, $3 }' "$tmp/time"
}

lib_p=$(taskset -c "$CPU" "$lib" process "$tmp/big/perf.script" "$REPS" | rate)
(cd "$tmp" && cost "$prof" process -i big) > "$tmp/c1"
(cd "$tmp" && cost "$prof" process -i tenth) > "$tmp/c2"
read -r p_cpu p_rss < "$tmp/c1"
read -r t_cpu t_rss < "$tmp/c2"
cli_p=$(awk -v n="$lines" -v s="$p_cpu" 'BEGIN { printf "%.2f", n / s / 1e6 }')
records=$(wc -l < "$tmp/big.out/perf.jsonl")
lib_x=$(taskset -c "$CPU" "$lib" extract "$tmp/big.out/perf.jsonl" "$REPS" | rate)
cost "$prof" extract -i "$tmp/big.out/perf.jsonl" > "$tmp/c3"
read -r x_cpu x_rss < "$tmp/c3"
cli_x=$(awk -v n="$records" -v s="$x_cpu" 'BEGIN { printf "%.2f", n / s / 1e6 }')

# peer: jq doing the grouping part of extract (count samples per cgroup and comm)
head -n "$JQ_LINES" "$tmp/big.out/perf.jsonl" > "$tmp/jq.jsonl"
cat > "$tmp/jq.sh" <<'EOT'
jq -r '[.cgroup, .comm] | @tsv' "$1" | sort | uniq -c > /dev/null
EOT
jq_cpu=$(/usr/bin/time -f '%U %S' -o "$tmp/time" taskset -c "$CPU" sh "$tmp/jq.sh" "$tmp/jq.jsonl" &&
	awk '{ print $1 + $2 }' "$tmp/time")
jq_rate=$(awk -v n="$JQ_LINES" -v s="$jq_cpu" 'BEGIN { printf "%.3f", n / s / 1e6 }')
x_ratio=$(awk -v a="$cli_x" -v b="$jq_rate" 'BEGIN { printf "%.0f", a / b }')

echo "process: library ${lib_p}M lines/s, CLI ${cli_p}M lines/s, RSS ${p_rss} KB ($lines lines) vs ${t_rss} KB ($tenth_lines lines)"
echo "extract: library ${lib_x}M records/s, CLI ${cli_x}M records/s, RSS ${x_rss} KB"
echo "jq grouping: ${jq_rate}M records/s; scx-prof extract ${x_ratio}x"

mkdir -p "$here/results"
cat > "$out" <<EOT
# scx-prof throughput (bench/prof.sh)

$(date -u +%Y-%m-%d), $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end
(the machine is shared: figures are CPU time, pinned to CPU $CPU, and still move with load).
Input: the real fixture \`t/data/prof-small/perf.script\` (perf 6.12, the PR's field list)
repeated $COPIES times: $lines perf.script lines, $records kept as perf.jsonl records.

| step | library (bench/prof.c, median of $REPS) | CLI end to end (user+sys) | max RSS |
|---|---|---|---|
| process, perf.script lines/s | ${lib_p}M | ${cli_p}M | ${p_rss} KB |
| extract, perf.jsonl records/s | ${lib_x}M | ${cli_x}M | ${x_rss} KB |

Targets (issue 7): process >= 1M lines/s, extract >= 2M records/s on one core.
The CLI process figure includes copying perf.script into PROFILE.out and writing perf.jsonl.

Constant memory for process: max RSS ${t_rss} KB for $tenth_lines lines, ${p_rss} KB for $lines lines
(perf.script is streamed in 1 MB reads; only a partial line is carried between reads).

Peer in the same run: \`jq -r '[.cgroup, .comm] | @tsv' | sort | uniq -c\` (the grouping half of
extract, no config) on the first $JQ_LINES records: **${jq_rate}M records/s**; \`scx-prof extract\`
(grouping, summary, config and validation) **${cli_x}M records/s**, **${x_ratio}x** jq.
The original scxprof (Rust, PR #3282) was not run: its crates cannot be fetched on this machine.
EOT
echo "wrote $out"
