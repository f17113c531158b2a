#!/bin/sh
# Stands in for scx-events in scx-mcp's tests (--events-cmd): an NDJSON
# header, then on cpu 0 tasks 100 "fake-a" and 200 "fake-b" take turns,
# 10 ms each (a sched_waking before every switch), in event time that
# advances with wall time; a trailer on SIGINT/SIGTERM.  Arguments ignored.
# With FAKE_ONEWAY=1, on cpu 1 "fake-c" (300) and "fake-d" (400) take turns
# too, 1 and 2 us after cpu 0's switch, but only c wakes d (c is woken from irq).
# With FAKE_SCX=1, an scx_stats record (scx(7)) every 50 ms of event time:
# scheduler "fake" enabled, one load in the first, SELECT_CPU_FALLBACK 2 in each.
# With FAKE_CGROUP=1, cpu 0's tasks are in cgroups /fake/a (100, id 10) and
# /fake/b (200, id 20), named by cgroup records first, and each switch
# preempts: prev is left runnable (state 0), to run again 10 ms later.
ts=1000000000
stop=0
trap 'stop=1' INT TERM
cpus=1
[ "${FAKE_ONEWAY:-}" = 1 ] && cpus=2
echo '{"type":"header","version":1,"producer":"mcp-fake-events","clock":"boottime","hostname":"t","kernel":"t","nr_cpus":'$cpus',"topology":null,"scheduler":null,"options":{},"start_ns":1000000000}'
cg=0
if [ "${FAKE_CGROUP:-}" = 1 ]; then
	cg=1
	echo '{"type":"cgroup","id":10,"path":"/fake/a"}'
	echo '{"type":"cgroup","id":20,"path":"/fake/b"}'
fi
i=0
while [ $stop = 0 ]; do
	j=0
	while [ $j -lt 5 ]; do
		if [ $((i % 2)) = 0 ]; then
			p=200 pc=fake-b n=100 nc=fake-a
		else
			p=100 pc=fake-a n=200 nc=fake-b
		fi
		if [ $cg = 1 ]; then
			# the cgroup ids: 10 for pid 100, 20 for 200
			printf '{"ts":%d,"cpu":0,"type":"sched_switch","prev_pid":%d,"prev_tgid":%d,"prev_comm":"%s","prev_prio":120,"prev_state":0,"next_pid":%d,"next_tgid":%d,"next_comm":"%s","next_prio":120,"prev_cgroup":%d,"next_cgroup":%d}\n' \
				$ts $p $p $pc $n $n $nc $((p / 10)) $((n / 10))
		else
			printf '{"ts":%d,"cpu":0,"type":"sched_waking","pid":%d,"tgid":%d,"comm":"%s","prio":120,"target_cpu":0,"waker_pid":%d,"waker_tgid":%d}\n' \
				$((ts - 1000)) $n $n $nc $p $p
			printf '{"ts":%d,"cpu":0,"type":"sched_switch","prev_pid":%d,"prev_tgid":%d,"prev_comm":"%s","prev_prio":120,"prev_state":1,"next_pid":%d,"next_tgid":%d,"next_comm":"%s","next_prio":120}\n' \
				$ts $p $p $pc $n $n $nc
		fi
		if [ $cpus = 2 ]; then
			if [ $((i % 2)) = 0 ]; then
				w=300 p=300 pc=fake-c n=400 nc=fake-d
			else
				w=0 p=400 pc=fake-d n=300 nc=fake-c
			fi
			printf '{"ts":%d,"cpu":1,"type":"sched_waking","pid":%d,"tgid":%d,"comm":"%s","prio":120,"target_cpu":1,"waker_pid":%d,"waker_tgid":%d}\n' \
				$((ts + 1000)) $n $n $nc $w $w
			printf '{"ts":%d,"cpu":1,"type":"sched_switch","prev_pid":%d,"prev_tgid":%d,"prev_comm":"%s","prev_prio":120,"prev_state":1,"next_pid":%d,"next_tgid":%d,"next_comm":"%s","next_prio":120}\n' \
				$((ts + 2000)) $p $p $pc $n $n $nc
		fi
		ts=$((ts + 10000000))
		i=$((i + 1))
		j=$((j + 1))
	done
	if [ "${FAKE_SCX:-}" = 1 ]; then
		printf '{"type":"scx_stats","ts":%d,"interval_ns":50000000,"state":"enabled","ops":"fake","switch_all":1,"enable_seq":%d,"nr_rejected":0,"events":{"SELECT_CPU_FALLBACK":2},"events_dropped":0}\n' \
			$ts $((i == 5))
	fi
	sleep 0.05
done
echo '{"type":"trailer","counts":{},"lost":[],"lost_total":0,"end_ns":'$ts'}'
