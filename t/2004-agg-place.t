#!/bin/sh
# The placement reports of scx-agg on a hand-written stream whose answers are
# worked out below, and on trace_processor's synth_1.
#
# t/data/agg-place.ndjson: cpus 0-1 = LLC 0, cpu 2 = LLC 1 (all node 0),
# cpu 3 = LLC 2 on node 1.  Tasks A(10) B(20) C(30) D(40) E(50) G(60) X(99)
# Y(98).  Times in ns; "S" sleeps, "R+" preempted:
#    300 cpu0 D S -> B             500 cpu0 B S -> idle
#   1000 cpu0 idle -> A; cpu1 X S -> idle, C-state 2; cpu2 G S -> C;
#        cpu3 Y S -> idle, C-state 0
#   2000 A wakes B (waking, target 0); 2100 sched_wakeup B target 0: queued on cpu0
#   3000 cpu1 leaves idle, B migrates 0 -> 1 and runs there
#   4000 C wakes D: waking target 0, migrate 0 -> 3, sched_wakeup target 3
#   4500 cpu3 leaves idle, runs D
#   4800 A forks E: sched_wakeup_new target 0      5000 cpu0 A R+ -> E
#   6000 cpu1 B S -> idle, C-state 1               7000 cpu0 E S -> A
#   7500 C wakes X, target 1 (its last cpu)        7600 cpu1 idle -> X
#   7800 A wakes G, target 2 (its last cpu)        7900 G migrates 2 -> 0
#   8000 cpu0 A S -> G
# The interval is [300, 8000]: 7700 ns.
#
# Work conservation (an idle cpu while another cpu has a task waiting):
#   2000-3000 B waits on cpu0, cpus 1 and 3 idle; 6000-7000 A (R+) waits on
#   cpu0, cpu1 idle.  4000-4500 only cpu3 idles, with D queued on itself: no.
#   violation 2000 (25.97%); LLC 0 and node 0 2000, the others 0.
#   cpu1 idle 1000-3000 and 6000-7600 = 3600, of it 2000 while cpu0 had a
#   task waiting (same LLC), all in C-states >= 1; cpu3 idle 1000-4500 = 3500,
#   1000 of it while cpu0 had one (another LLC), in C-state 0.
#   waits: cpu0 B 1000 + E 200 + A 2000 + G 100 = 3300, cpu1 X 100, cpu2 G
#   100, cpu3 D 500: 4000 in all; while another cpu idled: B 1000 (cpus 1,3),
#   A 1000 (cpu1 6000-7000): 2000, both of it with cpu1 of their own LLC.
# Run-queue occupancy: cpu0 2000-3000 + 4800-7000 + 7900-8000 = 3300
#   (42.86%); cpu3 500, cpu1 100, cpu2 100; never two waiting at once.
# Wakeup placement (the cpu that ran it against its last cpu, and against the
# cpu sched_wakeup chose): B 0 -> ran 1: same LLC, target LLC, latency 1000;
#   D 0 -> 3: other node, ran on target 3, 500; E: new task, 200, target;
#   X 1 -> 1: prev cpu, 100, target; G 2 -> 0: same node, target node, 200.
# Pre-migration (placed, then moved before it ran): B placed at 2100 by
#   sched_wakeup, moved at 3000: 900 from cpu0; G placed 7800, moved 7900: 100
#   from cpu2, then waited 100 more.  D's move at 4000 comes between
#   sched_waking and sched_wakeup: the wakeup choosing, not a wait.  Runs
#   after waiting: B D E A X G = 6, 2 of them migrated.
# Parallelism: runnable (state R, not R+): B 2000-3000, D 4000-4500, E
#   4800-5000, X 7500-7600, G 7800-8000: 2000 ns at 1, 5700 at 0.  Busy cpus:
#   300-500 1, 500-1000 0, 1000-3000 2, 3000-4500 3, 4500-6000 4, 6000-7600
#   3, 7600-8000 4: time at 0..4 = 500 200 2000 3100 1900, mean 21100/7700.
. "$(dirname "$0")/lib.sh"

in=$TDATA/agg-place.ndjson
all=work-conservation,runqueue-occupancy,wakeup-placement,pre-migration,parallelism

test_expect_success 'work conservation: idle cpus while others had tasks waiting' '
	scx-agg -n 0 -r work-conservation "$in" >wc &&
	grep -q "\"summary\":{\"rows\":\[{\"cpus\":4,\"violation\":2000,\"violation_pct\":25.974026,\"idle_while_waiting\":3000,\"waited\":4000,\"waited_while_idle\":2000,\"waited_while_idle_pct\":50}\]" wc &&
	grep -q "{\"cpu\":1,\"llc\":0,\"node\":0,\"idle\":3600,\"idle_while_waiting\":2000,\"iww_pct\":55.5555556,\"iww_same_llc_ns\":2000,\"iww_state0\":0,\"iww_deeper\":2000,\"iww_state_unknown\":0,\"offline\":0,\"offline_while_waiting\":0,\"waited\":100,\"waited_while_idle\":0}" wc &&
	grep -q "{\"cpu\":3,\"llc\":2,\"node\":1,\"idle\":3500,\"idle_while_waiting\":1000,\"iww_pct\":28.5714286,\"iww_same_llc_ns\":0,\"iww_state0\":1000,\"iww_deeper\":0,\"iww_state_unknown\":0,\"offline\":0,\"offline_while_waiting\":0,\"waited\":500," wc &&
	grep -q "{\"cpu\":0,\"llc\":0,\"node\":0,\"idle\":500,\"idle_while_waiting\":0,.*\"waited\":3300,\"waited_while_idle\":2000}" wc &&
	grep -q "\"llcs\":{\"rows\":\[{\"llc\":0,\"cpus\":2,\"violation\":2000,\"violation_pct\":25.974026},{\"llc\":1,\"cpus\":1,\"violation\":0," wc &&
	grep -q "\"nodes\":{\"rows\":\[{\"node\":0,\"cpus\":3,\"violation\":2000,.*{\"node\":1,\"cpus\":1,\"violation\":0," wc
'

test_expect_success 'work conservation: the tasks that waited through it' '
	grep -q "\"threads\":{\"rows\":\[{\"pid\":10,\"comm\":\"A\",\"waited\":2000,\"waited_while_idle\":1000,\"while_idle_pct\":50,\"while_llc_idle_ns\":1000},{\"pid\":20,\"comm\":\"B\",\"waited\":1000,\"waited_while_idle\":1000,\"while_idle_pct\":100,\"while_llc_idle_ns\":1000}," wc &&
	grep -q "{\"pid\":40,\"comm\":\"D\",\"waited\":500,\"waited_while_idle\":0," wc
'

# A third task queued behind two on a busy cpu changes none of the cpu's
# conditions (it had a task waiting, and two): the queue's idle clock must
# still be read as of that time.  cpus 0 and 1 share LLC 0; cpu1 idles from
# 100 on; A runs on cpu0 from 100, B C D are queued on it at 200 300 400,
# and D runs at 1000: D waited 600, all of it while cpu1 (of its LLC) idled.
cat >deep.ndjson <<\EOF
{"type":"header","version":1,"producer":"hand","clock":"boottime","hostname":"t","kernel":"6.18","nr_cpus":2,"topology":[{"cpu":0,"core":0,"llc":0,"node":0,"online":true},{"cpu":1,"core":1,"llc":0,"node":0,"online":true}],"scheduler":null,"options":{},"start_ns":0}
{"ts":100,"cpu":0,"type":"sched_switch","prev_pid":0,"prev_tgid":0,"prev_comm":"swapper","prev_prio":120,"prev_state":0,"next_pid":10,"next_tgid":10,"next_comm":"A","next_prio":120}
{"ts":100,"cpu":1,"type":"sched_switch","prev_pid":99,"prev_tgid":99,"prev_comm":"X","prev_prio":120,"prev_state":1,"next_pid":0,"next_tgid":0,"next_comm":"swapper","next_prio":120}
{"ts":200,"cpu":0,"type":"sched_waking","pid":20,"tgid":20,"comm":"B","prio":120,"target_cpu":0,"waker_pid":10,"waker_tgid":10}
{"ts":300,"cpu":0,"type":"sched_waking","pid":30,"tgid":30,"comm":"C","prio":120,"target_cpu":0,"waker_pid":10,"waker_tgid":10}
{"ts":400,"cpu":0,"type":"sched_waking","pid":40,"tgid":40,"comm":"D","prio":120,"target_cpu":0,"waker_pid":10,"waker_tgid":10}
{"ts":1000,"cpu":0,"type":"sched_switch","prev_pid":10,"prev_tgid":10,"prev_comm":"A","prev_prio":120,"prev_state":1,"next_pid":40,"next_tgid":40,"next_comm":"D","next_prio":120}
EOF

test_expect_success 'work conservation: a wait that began with no change of its cpu state' '
	scx-agg -n 0 -r work-conservation deep.ndjson >wcd &&
	grep -q "\"summary\":{\"rows\":\[{\"cpus\":2,\"violation\":800,.*\"waited\":600,\"waited_while_idle\":600," wcd &&
	grep -q "\"threads\":{\"rows\":\[{\"pid\":40,\"comm\":\"D\",\"waited\":600,\"waited_while_idle\":600,\"while_idle_pct\":100,\"while_llc_idle_ns\":600}\]" wcd
'

# t/data/agg-basic.ndjson: cpu2 idle from 1000 to 4500; b waits on busy cpu0
# 2500-3000 and a (R+) 3000-5000.  From 4000 c is queued on cpu2 itself,
# about to run there: not idle for work conservation.  1500 ns, the same as
# the engine's wc_loss_ns (it was 2000 here, counting 4000-4500).
test_expect_success 'work conservation: the definition of wc_loss_ns, computed once' '
	scx-agg -n 0 -r work-conservation "$TDATA/agg-basic.ndjson" >wcb &&
	scx-agg -n 0 -f ndjson -g cpu "$TDATA/agg-basic.ndjson" >wcl &&
	grep -q "{\"cpu\":2,\"util\":.*\"wc_loss_ns\":1500" wcl &&
	grep -q "\"summary\":{\"rows\":\[{\"cpus\":4,\"violation\":1500,\"violation_pct\":16.6666667,\"idle_while_waiting\":1500," wcb &&
	grep -q "{\"cpu\":2,\"llc\":1,\"node\":1,\"idle\":7500,\"idle_while_waiting\":1500,\"iww_pct\":20,\"iww_same_llc_ns\":0,\"iww_state0\":0,\"iww_deeper\":0,\"iww_state_unknown\":1500," wcb &&
	grep -q "{\"pid\":100,\"comm\":\"a\",\"waited\":2000,\"waited_while_idle\":1000," wcb
'

test_expect_success 'run-queue occupancy per cpu and llc' '
	scx-agg -n 0 -r runqueue-occupancy "$in" >occ &&
	grep -q "\"summary\":{\"rows\":\[{\"cpus\":4,\"occupancy\":12.987013,\"max_occupancy\":42.8571429,\"occupancy2\":0}" occ &&
	grep -q "{\"cpu\":0,\"llc\":0,\"node\":0,\"occupied\":3300,\"occupancy\":42.8571429,\"occupied2\":0," occ &&
	grep -q "{\"cpu\":3,\"llc\":2,\"node\":1,\"occupied\":500," occ &&
	grep -q "{\"llc\":0,\"cpus\":2,\"occupancy\":22.0779221," occ
'

test_expect_success 'wakeup placement: classes, target and latency' '
	scx-agg -n 0 -r wakeup-placement "$in" >wp &&
	grep -q "{\"class\":\"prev-cpu\",\"wakeups\":1,\"share\":20,\"wake_lat\":{\"count\":1,\"min\":100," wp &&
	grep -q "{\"class\":\"same-llc\",\"wakeups\":1,\"share\":20,\"wake_lat\":{\"count\":1,\"min\":1000," wp &&
	grep -q "{\"class\":\"same-node\",\"wakeups\":1,\"share\":20,\"wake_lat\":{\"count\":1,\"min\":200," wp &&
	grep -q "{\"class\":\"other-node\",\"wakeups\":1,\"share\":20,\"wake_lat\":{\"count\":1,\"min\":500," wp &&
	grep -q "{\"class\":\"new-task\",\"wakeups\":1,\"share\":20,\"wake_lat\":{\"count\":1,\"min\":200," wp &&
	grep -q "{\"class\":\"unknown\",\"wakeups\":0,\"share\":0,\"wake_lat\":{\"count\":0}}" wp &&
	grep -q "\"target\":{\"rows\":\[{\"ran_on\":\"target-cpu\",\"wakeups\":3,\"share\":60},{\"ran_on\":\"target-llc\",\"wakeups\":1,\"share\":20},{\"ran_on\":\"target-node\",\"wakeups\":1,\"share\":20},{\"ran_on\":\"other-node\",\"wakeups\":0,\"share\":0},{\"ran_on\":\"target-unknown\",\"wakeups\":0," wp &&
	grep -q "{\"cpu\":1,\"wakeups\":2,\"prev\":1,\"same_llc\":1,\"same_node\":0,\"other_node\":0,\"new\":0,\"unknown\":0}" wp
'

test_expect_success 'pre-migration wait: placed, then moved before running' '
	scx-agg -n 0 -r pre-migration "$in" >pm &&
	grep -q "\"summary\":{\"rows\":\[{\"runs\":6,\"migrated\":2,\"migrated_pct\":33.3333333,\"pre_migration\":1000,\"pre_mig\":{\"count\":2,\"min\":100,\"avg\":500,.*\"max\":900},\"post_mig\":{\"count\":2,\"min\":0,\"avg\":50," pm &&
	grep -q "\"cpus\":{\"rows\":\[{\"cpu\":0,\"left\":1,\"pre_migration\":900},{\"cpu\":2,\"left\":1,\"pre_migration\":100}\]" pm &&
	grep -q "{\"pid\":20,\"comm\":\"B\",\"migrated\":1,\"pre_migration\":900,\"pre_mig_max\":900}" pm
'

# t/data/agg-mutual.ndjson has no sched_migrate_task: whether its 4 runs
# were migrated is unknown, not 0 or 0%
test_expect_success 'pre-migration: the migrated share is null in a stream without migrations' '
	scx-agg -n 0 -r pre-migration "$TDATA/agg-mutual.ndjson" >pmn 2>/dev/null &&
	grep -q "\"summary\":{\"rows\":\[{\"runs\":4,\"migrated\":null,\"migrated_pct\":null," pmn &&
	scx-agg -n 0 -r pre-migration "$in" >pmm &&
	grep -q "\"migrated\":2,\"migrated_pct\":33.3333333," pmm
'

test_expect_success 'parallelism: runnable threads and busy cpus over time' '
	scx-agg -n 0 -r parallelism "$in" >par &&
	grep -q "\"summary\":{\"rows\":\[{\"runnable_avg\":0.25974026,\"runnable_max\":1,\"runnable_p50\":0,\"runnable_p90\":1,\"runnable_p99\":1,\"active_avg\":2.74025974,\"active_max\":4,\"active_p50\":3,\"active_p90\":4,\"active_p99\":4,\"series_dropped\":0}" par &&
	grep -q "\"runnable\":{\"rows\":\[{\"runnable\":0,\"time\":5700,.*{\"runnable\":1,\"time\":2000," par &&
	grep -q "\"active\":{\"rows\":\[{\"active\":3,\"time\":3100,.*{\"active\":2,\"time\":2000,.*{\"active\":4,\"time\":1900,.*{\"active\":0,\"time\":500,.*{\"active\":1,\"time\":200," par &&
	grep -q "{\"ts\":4800,\"runnable\":1,\"active\":4},{\"ts\":5000,\"runnable\":0,\"active\":4},{\"ts\":6000,\"runnable\":0,\"active\":3}" par
'

test_expect_success 'text and openmetrics renderings of the placement reports' '
	scx-agg -H -r $all "$in" >txt &&
	grep -q "^work-conservation: summary" txt &&
	grep -q "^parallelism: series" txt &&
	scx-agg -f openmetrics -r work-conservation "$in" >om &&
	grep -q "violation" om
'

test_expect_success 'without LLCs or nodes the same-LLC figures are null, the classes unknown' '
	grep -v "\"type\":\"header\"" "$in" >notopo.ndjson &&
	for c in 0 1 2 3; do
		printf "{\"cpu\":%d,\"core\":%d,\"llc\":-1,\"node\":-1,\"online\":true}\n" $c $c
	done | paste -sd, | sed "s/^/[/; s/\$/]/" >flat.json &&
	scx-agg -n 0 --topology flat.json -r work-conservation,wakeup-placement notopo.ndjson >nt &&
	grep -q "{\"cpu\":1,\"llc\":-1,\"node\":-1,\"idle\":3600,\"idle_while_waiting\":2000,\"iww_pct\":55.5555556,\"iww_same_llc_ns\":null," nt &&
	grep -q "{\"pid\":10,\"comm\":\"A\",\"waited\":2000,\"waited_while_idle\":1000,\"while_idle_pct\":50,\"while_llc_idle_ns\":null}" nt &&
	grep -q "{\"class\":\"prev-cpu\",\"wakeups\":1," nt &&
	grep -q "{\"class\":\"unknown\",\"wakeups\":3," nt &&
	grep -q "{\"class\":\"new-task\",\"wakeups\":1," nt
'

# synth_1 (see t/2001-agg-perfetto.t): trace_processor's rows at every
# switch, collapsed to the points where a count changes, are
# active 1:1 50:2 170:1 250:2.  Its runnable rows (1:1 100:2 170:3 250:2)
# count only the threads switched out in state R: synth_1 has no wakeup
# events, so the threads woken while it ran are not in them, and scx-agg
# prints that count as unknown (t/2040).
test_expect_success SHARED 'parallelism matches trace_processor on synth_1' '
	scx-perfetto -i "$SHARED/testdata/perfetto/upstream/synth_1.pb" >s1.ndjson &&
	scx-agg -n 0 -r parallelism s1.ndjson >s1 &&
	grep -q "\"series\":{\"rows\":\[{\"ts\":1,\"runnable\":null,\"active\":1},{\"ts\":50,\"runnable\":null,\"active\":2},{\"ts\":100,\"runnable\":null,\"active\":2},{\"ts\":170,\"runnable\":null,\"active\":1},{\"ts\":250,\"runnable\":null,\"active\":2}\]" s1 &&
	grep -q "\"runnable_max\":null," s1
'

test_done
