#!/bin/sh
# Work conservation with a CPU taken offline and brought back (cpuhp
# events): an offline CPU cannot take a waiting task, so it is not idle
# for work conservation.  cpus 0 and 1 share LLC 0.  A runs on cpu0 from
# 100; cpu1 idles from 100.  1000: the first teardown step of cpu1
# (cpuhp_enter, target 0 = CPUHP_OFFLINE, below the step): offline.
# 2000: B is woken onto busy cpu0 and waits.  2900: bring-up begins
# (target 231 = CPUHP_ONLINE here); 3000: its last step (230, just below
# the target): cpu1 online and idle again.  4000: B runs on cpu0.
#   cpu1: idle 100-1000 + 3000-4000 = 1900, offline 1000-3000 = 2000, of
#   it 1000 while B waited; idle while B waited 3000-4000 = 1000 (the
#   build before counted 2000: 2000-4000).  violation 1000 of 3900 ns.
. "$(dirname "$0")/lib.sh"

cat >off.ndjson <<\EOS
{"type":"header","version":1,"producer":"hand","clock":"boottime","hostname":"t","kernel":"6.18","nr_cpus":2,"topology":[{"cpu":0,"core":0,"llc":0,"node":0,"online":true},{"cpu":1,"core":1,"llc":0,"node":0,"online":true}],"scheduler":null,"options":{},"start_ns":0}
{"ts":100,"cpu":0,"type":"sched_switch","prev_pid":0,"prev_tgid":0,"prev_comm":"swapper","prev_prio":120,"prev_state":0,"next_pid":10,"next_tgid":10,"next_comm":"A","next_prio":120}
{"ts":100,"cpu":1,"type":"sched_switch","prev_pid":99,"prev_tgid":99,"prev_comm":"X","prev_prio":120,"prev_state":1,"next_pid":0,"next_tgid":0,"next_comm":"swapper","next_prio":120}
{"ts":1000,"cpu":0,"type":"cpuhp_enter","cpu_id":1,"target":0,"idx":230}
{"ts":1010,"cpu":0,"type":"cpuhp_exit","cpu_id":1,"target":229,"idx":230,"ret":0}
{"ts":1100,"cpu":0,"type":"cpuhp_enter","cpu_id":1,"target":0,"idx":100}
{"ts":2000,"cpu":0,"type":"sched_waking","pid":20,"tgid":20,"comm":"B","prio":120,"target_cpu":0,"waker_pid":10,"waker_tgid":10}
{"ts":2900,"cpu":0,"type":"cpuhp_enter","cpu_id":1,"target":231,"idx":1}
{"ts":2950,"cpu":0,"type":"cpuhp_exit","cpu_id":1,"target":1,"idx":1,"ret":0}
{"ts":3000,"cpu":1,"type":"cpuhp_enter","cpu_id":1,"target":231,"idx":230}
{"ts":3010,"cpu":1,"type":"cpuhp_exit","cpu_id":1,"target":230,"idx":230,"ret":0}
{"ts":4000,"cpu":0,"type":"sched_switch","prev_pid":10,"prev_tgid":10,"prev_comm":"A","prev_prio":120,"prev_state":1,"next_pid":20,"next_tgid":20,"next_comm":"B","next_prio":120}
EOS

test_expect_success 'an offline cpu is not idle while others wait' '
	scx-agg -n 0 -r work-conservation off.ndjson >wc 2>/dev/null &&
	grep -q "\"summary\":{\"rows\":\[{\"cpus\":2,\"violation\":1000,\"violation_pct\":25.6410256,\"idle_while_waiting\":1000,\"waited\":2000,\"waited_while_idle\":1000," wc &&
	grep -q "{\"cpu\":1,\"llc\":0,\"node\":0,\"idle\":1900,\"idle_while_waiting\":1000,.*\"offline\":2000,\"offline_while_waiting\":1000," wc &&
	grep -q "{\"pid\":20,\"comm\":\"B\",\"waited\":2000,\"waited_while_idle\":1000," wc
'

test_expect_success 'the engine wc_loss_ns agrees' '
	scx-agg -n 0 -f ndjson -g cpu off.ndjson >snap 2>/dev/null &&
	grep -q "{\"cpu\":1,\"util\":.*\"wc_loss_ns\":1000" snap
'

test_expect_success 'the limits table: affinity always, offline only without cpuhp events' '
	grep -q "\"limits\":{\"rows\":\[{\"cause\":\"affinity\",\"assumed\":\"the stream records no allowed CPUs: every task may run on every CPU\"}\]" wc &&
	grep -v cpuhp off.ndjson >nohp.ndjson &&
	scx-agg -n 0 -r work-conservation nohp.ndjson >wcn 2>/dev/null &&
	grep -q "{\"cause\":\"offline\",\"assumed\":\"no cpuhp events: a CPU taken offline counts as idle\"}" wcn &&
	grep -q "\"violation\":2000," wcn
'

test_expect_success 'a bring-up that has not reached its last step leaves the cpu offline' '
	sed "/\"ts\":3000,/d" off.ndjson >mid.ndjson &&
	scx-agg -n 0 -r work-conservation mid.ndjson >wcm 2>/dev/null &&
	grep -q "\"summary\":{\"rows\":\[{\"cpus\":2,\"violation\":0," wcm &&
	grep -q "{\"cpu\":1,\"llc\":0,\"node\":0,\"idle\":900,.*\"offline\":3000,\"offline_while_waiting\":2000," wcm
'

test_done
