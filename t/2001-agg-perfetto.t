#!/bin/sh
# scx-agg reproduces trace_processor's answers (shared/testdata/perfetto/
# upstream/EXPECTED.md) on the upstream test traces, read with scx-perfetto.
#
# synth_1, TP's sched table (ts, cpu, dur, end_state, tid):
#   cpu0: (1,99,R,3) (100,15,R,2) (115,-1,-,3)
#   cpu1: (50,70,R,1) (120,50,R,2) (170,80,R,0=idle) (250,140,R,2) (390,-1,-,4)
#   trace bounds 1..400; runnable thread count (state R) steps
#   1:1 50:1 100:2 115:2 120:2 170:3 250:2 390:2, active cpus
#   1:1 50:2 100:2 115:2 120:2 170:1 250:2 390:2.
# scx-agg counts the switch-out of each cpu's first switch too (TP has no row for
# the slice before it): cpu0 3 switches, cpu1 4, all involuntary.
# So: the ended task slices are cpu0 {99,15} and cpu1 {70,50,140}; cpu1 idled
# 80; the integral of active cpus over [1,400] is 49+240+80+300 = 669 = busy
# time (scx-agg also counts the open tails to the end, as the active count
# does).  TP's runnable count integral, 49+50+30+10+100+240+280+20 = 779, has
# no scx-agg figure to match: synth_1 has no wakeup events, so a woken task is
# first seen when it runs and the run-queue depth is unknown (null), not the
# preemptions' part of it (t/2040 has the same for the placement reports).
#
# cpu_idle_freq, TP's cpu_idle_stats: cpu 0, state 2 (TP prints index+1),
# count 2, dur 2000000, avg_dur 1000000, idle_percent 40.
. "$(dirname "$0")/lib.sh"

U=$SHARED/testdata/perfetto/upstream

if ! command -v scx-perfetto >/dev/null 2>&1; then
	test_skip 'trace_processor results through scx-perfetto' 'scx-perfetto not built'
	test_done
	exit 0
fi

test_expect_success SHARED 'synth_1: slices per cpu as in the sched table' '
	scx-perfetto -i "$U/synth_1.pb" >synth_1.ndjson &&
	scx-agg synth_1.ndjson >s1 &&
	grep -q "\"start_ns\":1,\"end_ns\":400," s1 &&
	grep -q "{\"cpu\":0,.*\"slice\":{\"count\":2,\"min\":15,\"avg\":57,\"p50\":15,\"p90\":99,\"p99\":99,\"p999\":99,\"max\":99}" s1 &&
	grep -q "{\"cpu\":1,[^{]*\"idle_ns\":80,.*\"slice\":{\"count\":3,\"min\":50,\"avg\":86.7,\"p50\":70,\"p90\":140,\"p99\":140,\"p999\":140,\"max\":140}" s1
'

test_expect_success SHARED 'synth_1: busy time is the integral of the active cpu count' '
	grep -q "\"total\":{\"util\":[0-9.]*,\"busy_ns\":669," s1
'

test_expect_success SHARED 'synth_1: every switch-out is involuntary (end_state R)' '
	grep -q "{\"cpu\":0,[^{]*\"switches\":3,\"voluntary\":0,\"involuntary\":3," s1 &&
	grep -q "{\"cpu\":1,[^{]*\"switches\":4,\"voluntary\":0,\"involuntary\":4," s1
'

test_expect_success SHARED 'synth_1: without wakeup events the run-queue depth is unknown, not 0' '
	scx-agg -r runqueue-depth synth_1.ndjson >rq &&
	test $(grep -o "{\"cpu\":[01],\"avg\":null,\"p50\":null,\"p99\":null,\"max\":null,\"enqueues\":null,\"high\":null}" rq | wc -l) = 2
'

test_expect_success SHARED 'cpu_idle_freq: cpu_idle_stats' '
	scx-perfetto -i "$U/cpu_idle_freq.pb" | scx-agg -r cpu-idle >idle &&
	grep -q "\"rows\":\[{\"cpu\":0,\"state\":1,\"count\":2,\"dur\":2000000,\"avg_dur\":1000000,\"idle_percent\":40}\]" idle
'

test_done
