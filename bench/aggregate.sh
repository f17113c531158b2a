#!/bin/sh
# bench/aggregate.sh: what `scx-events --aggregate` costs a scheduler-heavy
# workload, next to a runqlat-style bpftrace script (an in-kernel histogram of
# run-queue latency, as libbpf-tools runqlat keeps) and scx-events streaming
# the sched events, in one run.  Method of bench/events.sh: every traced run
# of `taskset -c 0 perf bench sched pipe` is paired with an untraced run
# right next to it, the order swapping every pair, and
#   ratio = traced ops/s / untraced ops/s of the pair;
# median and [min-max] over the pairs (the machine is shared: the spread is
# the noise).  Then the kernel's own BPF run-time statistics give the cost
# per tracepoint hit, which other load hardly moves; and bench/kagg the
# user-space cost of one aggregate interval at 2 and 512 synthetic CPUs.
#
#   REPS=5 LOOPS=100000 sh bench/aggregate.sh        (needs root)
# Output: markdown on stdout; logs in $OUT (default a temp dir).
set -u
. "$(dirname "$0")/lib-tracer.sh"
B=${SCX_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/.output}
EV=$B/scx-events
REPS=${REPS:-5}
LOOPS=${LOOPS:-100000}
OUT=${OUT:-$(mktemp -d /tmp/scx-bench-aggregate.XXXXXX)}
TRACERS=${TRACERS:-"scx-aggregate bpftrace-runqlat scx-stream"}
mkdir -p "$OUT"

if [ "$(id -u)" != 0 ]; then
	echo "bench/aggregate.sh: needs root (BPF); skipped" >&2
	exit 0
fi
[ -x "$EV" ] || { echo "bench/aggregate.sh: $EV not built" >&2; exit 1; }
command -v bpftrace >/dev/null || { echo "bench/aggregate.sh: no bpftrace (scripts/deps.sh --bench)" >&2; exit 1; }

# runqlat's logic in bpftrace: enqueue time per task at wakeup and at
# preemption, a log2 histogram of the wait at switch-in
RUNQLAT='
tracepoint:sched:sched_wakeup, tracepoint:sched:sched_wakeup_new { @q[args->pid] = nsecs; }
tracepoint:sched:sched_switch {
	if (args->prev_state == 0) { @q[args->prev_pid] = nsecs; }
	$t = @q[args->next_pid];
	if ($t) { @usecs = hist((nsecs - $t) / 1000); delete(@q[args->next_pid]); }
}'

pipe() {
	taskset -c 0 perf bench sched pipe -l "$LOOPS" 2>&1 | awk '/ops\/sec/ { print $1 }'
}

# start_tracer NAME: sets tpid; attached when it returns
start_tracer() {
	case $1 in
	scx-aggregate) "$EV" --aggregate -o /dev/null 2>"$OUT/err" & tpid=$! ;;
	scx-stream) "$EV" -e sched -f binary -o /dev/null 2>"$OUT/err" & tpid=$! ;;
	bpftrace-runqlat) bpftrace -e "$RUNQLAT" >"$OUT/err" 2>&1 & tpid=$!
		for _ in $(seq 100); do grep -q Attaching "$OUT/err" && break; sleep 0.1; done ;;
	esac
	wait_attached $tpid
	sleep 0.5
}

stop_tracer() {
	kill -INT "$tpid" 2>/dev/null
	wait "$tpid" 2>/dev/null
}

echo "bench/aggregate.sh: $(nproc) cpus, kernel $(uname -r), load $(cut -d' ' -f1 /proc/loadavg), reps $REPS, pipe -l $LOOPS; logs in $OUT" >&2
echo
echo "| tracer | pipe throughput ratio median [min-max] | untraced ops/s median |"
echo "|---|---|---|"
for TR in $TRACERS; do
	: >"$OUT/pairs.$TR"
	i=0
	while [ $i -lt "$REPS" ]; do
		if [ $((i % 2)) = 0 ]; then
			b=$(pipe); start_tracer "$TR"; t=$(pipe); stop_tracer
		else
			start_tracer "$TR"; t=$(pipe); stop_tracer; b=$(pipe)
		fi
		echo "$b $t" | awk '{ printf "%.3f %s %s\n", $2 / $1, $1, $2 }' >>"$OUT/pairs.$TR"
		i=$((i + 1))
	done
	med=$(awk '{ print $1 }' "$OUT/pairs.$TR" | median)
	lo=$(awk '{ print $1 }' "$OUT/pairs.$TR" | sort -n | head -n 1)
	hi=$(awk '{ print $1 }' "$OUT/pairs.$TR" | sort -n | tail -n 1)
	base=$(awk '{ print $2 }' "$OUT/pairs.$TR" | median)
	printf '| %s | **%s** [%s-%s] | %s |\n' "$TR" "$med" "$lo" "$hi" "$base"
done

# BPF time per tracepoint hit during one pipe run (kernel.bpf_stats_enabled)
echo
echo "| tracer | BPF ns per tracepoint hit | hits |"
echo "|---|---|---|"
old=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
for TR in $TRACERS; do
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

# User-space cost of one --aggregate interval (bench/kagg.c): fold the
# kernel's slots, write the record, and scx-agg's read of it into the engine.
echo
echo "| CPUs | values per histogram | fold us | emit us | record bytes | scx-agg ingest us | share of a core at 15 s |"
echo "|---|---|---|---|---|---|---|"
for c in 2 512; do
	set -- $("$B/bench/kagg" $c 1000 9)
	echo "$c $1 $2 $3 $4" | awk '{ printf "| %d | 1000 | %.1f | %.1f | %d | %.1f | %.3f%% |\n", $1, $2, $3, $4, $5, ($2 + $3 + $5) / 15e6 * 100 }'
done
# ... and with 10,000 cgroups (4 values per histogram each), scx-agg
# grouping them --by cgroup and formatting Prometheus
echo
echo "| CPUs | cgroups | fold us (cgroups) | emit us | record bytes | ingest us (prom) | share of a core at 15 s |"
echo "|---|---|---|---|---|---|---|"
for c in 2 512; do
	set -- $("$B/bench/kagg" $c 1000 9 10000)
	echo "$c $1 $6 $2 $3 $4 $7" | awk '{ printf "| %d | 10000 | %.1f (%.1f) | %.1f | %d | %.1f (%.1f) | %.3f%% |\n", $1, $2, $3, $4, $5, $6, $7, ($2 + $4 + $6) / 15e6 * 100 }'
done
