#!/bin/sh
# bench/events.sh: what scx-events costs a scheduler-heavy workload, next to
# the peers users have (perf record, perf sched record, bpftrace), in the
# same run.  Method (shared/research/perf.md): every traced run is paired with
# an untraced run right next to it, the order swaps every pair, and
#   ratio = traced throughput / untraced throughput of the pair.
# The machine is shared, so a pair is "clean" when other processes used
# < 0.15 CPU during both runs (/proc/stat busy time minus the workload's and
# the tracer's own CPU time); the median is over clean pairs when there are
# 3 or more, else over all pairs (marked "*").  Because the throughput of a
# shared machine is noisy, the table also gives the wl-CPU ratio: untraced /
# traced CPU time (user+sys) of the workload itself, which is where tracepoint
# programs run; other load hardly moves it.
#
#   REPS=5 LOOPS=400000 sh bench/events.sh            (needs root)
#   TRACERS="scx-bin perf-record" sh bench/events.sh   (a subset)
#   KINDS=pipe sh bench/events.sh                       (one workload)
#   TRACERS="scx-bin scx-bin-nocg" sh bench/events.sh  (the cost of cgroup ids)
# Output: a markdown table on stdout; logs in $OUT (default a temp dir).
set -u
. "$(dirname "$0")/lib-tracer.sh"
B=${SCX_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/.output}
EV=$B/scx-events
REPS=${REPS:-5}
LOOPS=${LOOPS:-400000}
MSG_LOOPS=${MSG_LOOPS:-200}
OUT=${OUT:-$(mktemp -d /tmp/scx-bench-events.XXXXXX)}
mkdir -p "$OUT"
TRACERS=${TRACERS:-"scx-bin scx-ndjson scx-flight scx-all-ndjson scx-bin-nostage perf-record perf-sched bpftrace-count"}
SCHED5=sched:sched_switch,sched:sched_wakeup,sched:sched_waking,sched:sched_wakeup_new,sched:sched_migrate_task

if [ "$(id -u)" != 0 ]; then
	echo "bench/events.sh: needs root (BPF, perf -a); skipped" >&2
	exit 0
fi
[ -x "$EV" ] || { echo "bench/events.sh: $EV not built" >&2; exit 1; }
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
hz=$(getconf CLK_TCK)

busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
pcpu() { [ -r /proc/$1/stat ] && awk '{ sub(/.*\) /, ""); print $12 + $13 }' /proc/$1/stat || echo 0; }

# workload KIND -> "metric wall cpu" ; KIND pipe: ops/s, messaging: 1/seconds
workload() {
	case $1 in
	pipe) /usr/bin/time -f '%e %U %S' -o "$OUT/time" \
		taskset -c 0 perf bench sched pipe -l "$LOOPS" >"$OUT/wl" 2>&1
	      m=$(awk '/ops\/sec/ { print $1 }' "$OUT/wl") ;;
	messaging) /usr/bin/time -f '%e %U %S' -o "$OUT/time" \
		perf bench sched messaging -g 10 -l "$MSG_LOOPS" >"$OUT/wl" 2>&1
	      m=$(awk '/Total time/ { printf "%.6f", 1 / $3 }' "$OUT/wl") ;;
	esac
	echo "$m $(tail -n 1 "$OUT/time")"
}

# start_tracer NAME: sets tpid; the tracer is attached when it returns
start_tracer() {
	case $1 in
	scx-bin) "$EV" -v -e sched -f binary -o /dev/null 2>"$OUT/err" & tpid=$! ;;
	scx-bin-nostage) "$EV" -v -e sched -f binary --no-stage -o /dev/null 2>"$OUT/err" & tpid=$! ;;
	scx-bin-nocg) "$EV" -v -e sched -f binary --no-cgroups -o /dev/null 2>"$OUT/err" & tpid=$! ;;
	scx-ndjson) "$EV" -v -e sched -o /dev/null 2>"$OUT/err" & tpid=$! ;;
	scx-all-ndjson) "$EV" -v -o /dev/null 2>"$OUT/err" & tpid=$! ;;
	# the flight recorder: events kept in a ring, nothing written until a trigger
	scx-flight) "$EV" -v -e sched --flight 10s,256M -o "$OUT/flight" 2>"$OUT/err" & tpid=$! ;;
	perf-record) perf record -q -e "$SCHED5" -a -o "$OUT/perf.data" 2>"$OUT/err" & tpid=$! ;;
	perf-sched) perf sched record -q -o "$OUT/perf.data" 2>"$OUT/err" >/dev/null & tpid=$! ;;
	bpftrace-count)
		bpftrace -e 'tracepoint:sched:sched_switch, tracepoint:sched:sched_wakeup,
			tracepoint:sched:sched_waking, tracepoint:sched:sched_wakeup_new,
			tracepoint:sched:sched_migrate_task { @[probe] = count(); }' \
			>"$OUT/err" 2>&1 & tpid=$!
		for _ in $(seq 100); do grep -q Attaching "$OUT/err" && break; sleep 0.1; done ;;
	esac
	sleep 1
}

stop_tracer() {
	kill -INT "$tpid" 2>/dev/null
	wait "$tpid" 2>/dev/null
	lost=$(sed -n 's/.* written, \([0-9]*\) lost.*/\1/p' "$OUT/err")
	captured=$(sed -n 's/.*: \([0-9]*\) events written.*/\1/p' "$OUT/err")
	: "${lost:=-}" "${captured:=-}"
	rm -f "$OUT/perf.data" "$OUT/perf.data.old"
}

# one_run KIND TRACER|none -> "metric other_cores captured lost"
one_run() {
	tpid=
	lost=- captured=-
	[ "$2" = none ] || start_tracer "$2"
	b0=$(busy); t0=0; [ -n "$tpid" ] && t0=$(pcpu "$tpid")
	set -- $(workload "$1") "$2"
	b1=$(busy); t1=0; [ -n "$tpid" ] && t1=$(pcpu "$tpid")
	[ "$5" = none ] || stop_tracer
	other=$(echo "$b0 $b1 $t0 $t1 $2 $3 $4 $hz" |
		awk '{ o = (($2 - $1) - ($4 - $3)) / $8 - ($6 + $7); if (o < 0) o = 0; printf "%.2f", o / $5 }')
	echo "$1 $other $captured $lost $(echo "$3 $4" | awk '{ printf "%.3f", $1 + $2 }')"
}

# cell (KIND, TR globals): REPS interleaved pairs -> a table row
cell() {
	: >"$OUT/pairs"
	i=0
	while [ $i -lt "$REPS" ]; do
		if [ $((i % 2)) = 0 ]; then
			set -- $(one_run "$KIND" none); bm=$1 bo=$2 bc=$5
			set -- $(one_run "$KIND" "$TR"); tm=$1 to=$2 cap=$3 lo=$4 tc=$5
		else
			set -- $(one_run "$KIND" "$TR"); tm=$1 to=$2 cap=$3 lo=$4 tc=$5
			set -- $(one_run "$KIND" none); bm=$1 bo=$2 bc=$5
		fi
		echo "$bm $tm $bo $to $cap $lo $bc $tc" | awk '{ c = ($3 < 0.15 && $4 < 0.15); printf "%.3f %d %s %s %s %s %.3f\n", $2 / $1, c, $1, $2, $5, $6, $7 / $8 }' >>"$OUT/pairs"
		i=$((i + 1))
	done
	nclean=$(awk '$2 == 1' "$OUT/pairs" | wc -l)
	if [ "$nclean" -ge 3 ]; then
		med=$(awk '$2 == 1 { print $1 }' "$OUT/pairs" | median); mark=
	else
		med=$(awk '{ print $1 }' "$OUT/pairs" | median); mark='*'
	fi
	lo=$(awk '{ print $1 }' "$OUT/pairs" | sort -n | head -n 1)
	hi=$(awk '{ print $1 }' "$OUT/pairs" | sort -n | tail -n 1)
	base=$(awk '{ print $3 }' "$OUT/pairs" | median)
	lost=$(awk '{ s += ($6 == "-" ? 0 : $6) } END { print s }' "$OUT/pairs")
	capd=$(awk '{ print $5 }' "$OUT/pairs" | grep -v -- - | median)
	cpu=$(awk '{ print $7 }' "$OUT/pairs" | median)
	cp "$OUT/pairs" "$OUT/pairs.$KIND.$TR"
	printf '| %s | %s | **%s**%s [%s-%s] | %s/%s | %s | %s | %s |\n' "$KIND" "$TR" "$med" "$mark" \
		"$lo" "$hi" "$nclean" "$REPS" "$cpu" "$capd" "$lost"
}

echo "bench/events.sh: $(nproc) cpus, kernel $(uname -r), reps $REPS, pipe -l $LOOPS; logs in $OUT" >&2
echo
echo "| workload | tracer | thr ratio median [min-max] | clean pairs | wl-CPU ratio median | events captured/run | lost |"
echo "|---|---|---|---|---|---|---|"
for KIND in ${KINDS:-pipe messaging}; do
	for TR in $TRACERS; do
		case "$KIND $TR" in "messaging scx-bin-nostage" | "messaging scx-all-ndjson") continue ;; esac
		cell
	done
done

# Bytes per event and sustained rate: one capture of the pipe workload to files.
echo
echo "| output | events | bytes | bytes/event | events/s during the run | lost |"
echo "|---|---|---|---|---|---|"
for fmt in binary ndjson; do
	"$EV" -v -e sched -f "$fmt" -o "$OUT/cap.$fmt" 2>"$OUT/err" & p=$!
	sleep 1
	t0=$(date +%s.%N)
	taskset -c 0 perf bench sched pipe -l "$LOOPS" >/dev/null 2>&1
	t1=$(date +%s.%N)
	kill -INT $p; wait $p
	n=$(sed -n 's/.*: \([0-9]*\) events written.*/\1/p' "$OUT/err")
	l=$(sed -n 's/.* written, \([0-9]*\) lost.*/\1/p' "$OUT/err")
	sz=$(stat -c %s "$OUT/cap.$fmt")
	echo "$fmt $n $sz $t0 $t1 $l" | awk '{ printf "| %s | %d | %d | %.1f | %.0f | %s |\n", $1, $2, $3, $3 / $2, $2 / ($5 - $4), $6 }'
	rm -f "$OUT/cap.$fmt"
done

# In-kernel cost per tracepoint hit, from the kernel's own BPF run-time
# statistics (kernel.bpf_stats_enabled): sum of run_time_ns / run_cnt over the
# tracer's programs during one pipe run.  Throughput on a shared machine is
# noisy; this is not (it includes ~2 clock reads of the statistics itself).
# perf record and perf sched use no BPF, so only the BPF tracers appear.
echo
echo "| tracer | BPF ns per tracepoint hit | hits |"
echo "|---|---|---|"
old=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
for TR in scx-bin scx-bin-nostage bpftrace-count; do
	start_tracer "$TR"
	ids=$(cat /proc/$tpid/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:[[:space:]]*//p' | sort -u)
	for i in $ids; do bpftool prog show id "$i"; done >"$OUT/before"
	taskset -c 0 perf bench sched pipe -l "$LOOPS" >/dev/null 2>&1
	for i in $ids; do bpftool prog show id "$i"; done >"$OUT/after"
	stop_tracer
	for f in before after; do
		sed -n 's/.*run_time_ns \([0-9]*\) run_cnt \([0-9]*\).*/\1 \2/p' "$OUT/$f" |
			awk '{ t += $1; n += $2 } END { print t + 0, n + 0 }'
	done | paste -s -d ' ' |
		awk -v tr="$TR" '{ n = $4 - $2; printf "| %s | %.1f | %d |\n", tr, n ? ($3 - $1) / n : 0, n }'
done
sysctl -qw kernel.bpf_stats_enabled="$old"
