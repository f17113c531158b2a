#!/bin/sh
# bench/kagg-cost.sh: what the `scx-events --aggregate` programs cost per
# run, from the kernel's own BPF statistics (kernel.bpf_stats_enabled:
# run_time_ns and run_cnt of every program), during
# `taskset -c 0 perf bench sched pipe`.  Two builds of scx-events (or one
# with different options) take turns, ROUNDS times, in one run, so the
# ratio of their medians compares them under the same load.  The time per
# program run moves less with other load than throughput does, but on a
# saturated machine rounds still differ by 30 %: the median of the rounds'
# own ratios (variants of a round run seconds apart) is printed too.
#
#   sh bench/kagg-cost.sh                         (needs root)
#   BASE=/path/to/old/scx-events sh bench/kagg-cost.sh
#
# Variants (VARIANTS, default "base new new-nocg", "base" only with BASE):
#   base        $BASE --aggregate
#   new         $B/scx-events --aggregate       (this tree)
#   new-nocg    $B/scx-events --aggregate --no-cgroups
#   alt         $ALT --aggregate                 (a third build)
# Output: markdown on stdout (ns per program run per variant and round,
# medians, ratios to the first variant; then each program's median ns per
# run and runs per round); logs in $OUT.
set -u
. "$(dirname "$0")/lib-tracer.sh"
B=${SCX_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/.output}
BASE=${BASE:-}
ALT=${ALT:-}
ROUNDS=${ROUNDS:-5}
LOOPS=${LOOPS:-100000}
OUT=${OUT:-$(mktemp -d /tmp/scx-bench-kagg-cost.XXXXXX)}
if [ -n "$BASE" ]; then
	VARIANTS=${VARIANTS:-"base new new-nocg"}
else
	VARIANTS=${VARIANTS:-"new new-nocg"}
fi
mkdir -p "$OUT"

if [ "$(id -u)" != 0 ]; then
	echo "bench/kagg-cost.sh: needs root (BPF); skipped" >&2
	exit 0
fi
[ -x "$B/scx-events" ] || { echo "bench/kagg-cost.sh: $B/scx-events not built" >&2; exit 1; }
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "bench/kagg-cost.sh: BASE=$BASE is not executable" >&2; exit 1; }
[ -z "$ALT" ] || [ -x "$ALT" ] || { echo "bench/kagg-cost.sh: ALT=$ALT is not executable" >&2; exit 1; }
command -v bpftool >/dev/null || { echo "bench/kagg-cost.sh: no bpftool" >&2; exit 1; }
command -v perf >/dev/null || { echo "bench/kagg-cost.sh: no perf" >&2; exit 1; }

start() {
	case $1 in
	base) "$BASE" --aggregate -o /dev/null 2>"$OUT/err.$1" & ;;
	new) "$B/scx-events" --aggregate -o /dev/null 2>"$OUT/err.$1" & ;;
	new-nocg) "$B/scx-events" --aggregate --no-cgroups -o /dev/null 2>"$OUT/err.$1" & ;;
	alt) "$ALT" --aggregate -o /dev/null 2>"$OUT/err.$1" & ;;
	*) echo "bench/kagg-cost.sh: unknown variant $1" >&2; exit 1 ;;
	esac
	tpid=$!
	wait_attached $tpid
	sleep 0.3
}

stop() {
	kill -INT "$tpid" 2>/dev/null
	wait "$tpid" 2>/dev/null
}

# run_time_ns and run_cnt of each of the tracer's programs: "name ns runs"
stats() {
	for i in $ids; do bpftool prog show id "$i"; done |
		sed -n 's/.* name \([^ ]*\) .*run_time_ns \([0-9]*\) run_cnt \([0-9]*\).*/\1 \2 \3/p'
}

old=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled="$old"; [ -n "${tpid:-}" ] && kill -INT "$tpid" 2>/dev/null' EXIT
sysctl -qw kernel.bpf_stats_enabled=1
echo "bench/kagg-cost.sh: $(nproc) cpus, kernel $(uname -r), load $(cut -d' ' -f1 /proc/loadavg), rounds $ROUNDS, pipe -l $LOOPS, variants: $VARIANTS; logs in $OUT" >&2
for v in $VARIANTS; do : >"$OUT/ns.$v" && : >"$OUT/prog.$v"; done
r=0
while [ $r -lt "$ROUNDS" ]; do
	for v in $VARIANTS; do
		start "$v"
		ids=$(cat /proc/$tpid/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:[[:space:]]*//p' | sort -u)
		stats >"$OUT/a"
		taskset -c 0 perf bench sched pipe -l "$LOOPS" >/dev/null 2>&1
		stats >"$OUT/z"
		stop
		# all programs together, then each program that ran
		awk 'NR == FNR { t[$1] = $2; n[$1] = $3; next }
		     { dt += $2 - t[$1]; dn += $3 - n[$1] }
		     END { printf "%.1f %d\n", dn ? dt / dn : 0, dn }' "$OUT/a" "$OUT/z" >>"$OUT/ns.$v"
		awk 'NR == FNR { t[$1] = $2; n[$1] = $3; next }
		     $3 > n[$1] { printf "%s %.1f %d\n", $1, ($2 - t[$1]) / ($3 - n[$1]), $3 - n[$1] }' \
			"$OUT/a" "$OUT/z" >>"$OUT/prog.$v"
	done
	r=$((r + 1))
done

echo
# the ratio of the medians, and the median of the rounds' own ratios
# (variants of one round ran seconds apart, so slow swings of load cancel)
v1=$(echo $VARIANTS | cut -d' ' -f1)
echo "| variant | BPF ns per program run, median | rounds | ratio to $v1 | median of per-round ratios |"
echo "|---|---|---|---|---|"
first=
for v in $VARIANTS; do
	m=$(awk '{ print $1 }' "$OUT/ns.$v" | median 1)
	[ -n "$first" ] || first=$m
	all=$(awk '{ printf "%s%s", sep, $1; sep = " " }' "$OUT/ns.$v")
	pr=$(paste "$OUT/ns.$v" "$OUT/ns.$v1" | awk '$3 > 0 { print $1 / $3 }' | median 3 | awk '{ printf "%.3f", $1 }')
	echo "$v $m $first" | awk -v all="$all" -v pr="$pr" '{ printf "| %s | **%s** | %s | %.3f | %s |\n", $1, $2, all, ($3 > 0 ? $2 / $3 : 0), pr }'
done

echo
echo "Per program (bpftool's names are cut to 15 characters): median ns per run, and runs per round"
echo
printf '| program |'
for v in $VARIANTS; do printf ' %s ns | %s runs |' "$v" "$v"; done
echo
printf '|---|'
for v in $VARIANTS; do printf -- '---|---|'; done
echo
for p in $(cat "$OUT"/prog.* | awk '{ print $1 }' | sort -u); do
	printf '| %s |' "$p"
	for v in $VARIANTS; do
		m=$(awk -v p="$p" '$1 == p { print $2 }' "$OUT/prog.$v" | median 1)
		r=$(awk -v p="$p" '$1 == p { print $3 }' "$OUT/prog.$v" | median 0)
		printf ' %s | %s |' "$m" "$r"
	done
	echo
done
