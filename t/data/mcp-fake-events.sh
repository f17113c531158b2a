#!/bin/sh
# Stands in for scx-events in scx-mcp's tests (--events-cmd): an NDJSON
# header, then on cpu 0 tasks 100 "fake-a" and 200 "fake-b" take turns,
# 10 ms each (a sched_waking before every switch), in event time that
# advances with wall time; a trailer on SIGINT/SIGTERM.  Arguments ignored.
ts=1000000000
stop=0
trap 'stop=1' INT TERM
echo '{"type":"header","version":1,"producer":"mcp-fake-events","clock":"boottime","hostname":"t","kernel":"t","nr_cpus":1,"topology":null,"scheduler":null,"options":{},"start_ns":1000000000}'
i=0
while [ $stop = 0 ]; do
	j=0
	while [ $j -lt 5 ]; do
		if [ $((i % 2)) = 0 ]; then
			p=200 pc=fake-b n=100 nc=fake-a
		else
			p=100 pc=fake-a n=200 nc=fake-b
		fi
		printf '{"ts":%d,"cpu":0,"type":"sched_waking","pid":%d,"tgid":%d,"comm":"%s","prio":120,"target_cpu":0,"waker_pid":%d,"waker_tgid":%d}\n' \
			$((ts - 1000)) $n $n $nc $p $p
		printf '{"ts":%d,"cpu":0,"type":"sched_switch","prev_pid":%d,"prev_tgid":%d,"prev_comm":"%s","prev_prio":120,"prev_state":1,"next_pid":%d,"next_tgid":%d,"next_comm":"%s","next_prio":120}\n' \
			$ts $p $p $pc $n $n $nc
		ts=$((ts + 10000000))
		i=$((i + 1))
		j=$((j + 1))
	done
	sleep 0.05
done
echo '{"type":"trailer","counts":{},"lost":[],"lost_total":0,"end_ns":'$ts'}'
