#!/bin/sh
# In the VM, a task already on the SCHED_EXT policy when a scheduler that
# disallows it loads (scx_qmap -d TGID) is sent back to SCHED_NORMAL, and
# sched_ext counts it in /sys/kernel/sched_ext/nr_rejected: the scx_stats
# records of a capture around the load must add up to that rejection, and
# scx-agg's Prometheus counter with them.
. "$(dirname "$0")/../lib.sh"
. "$SCX_SRC/t/lib-capture.sh"
. "$SCX_SRC/t/vm/lib-vm.sh"

# policy PID: the task's scheduling policy number (7 is SCHED_EXT)
policy() { awk '{ print $41 }' "/proc/$1/stat"; }

test_expect_success 'a SCHED_EXT task rejected by scx_qmap -d' '
	# sched_setscheduler(0, SCHED_EXT, {0}) (x86_64 syscall 144), then sleep
	perl -e "my \$p = pack(q(i), 0);
		syscall(144, 0, 7, \$p) == 0 or die qq(sched_setscheduler: \$!\n);
		exec @ARGV" sleep 120 &
	victim=$! &&
	for _ in $(seq 100); do [ "$(policy $victim)" = 7 ] && break; sleep 0.1; done &&
	test "$(policy $victim)" = 7 &&
	before=$(cat /sys/kernel/sched_ext/nr_rejected) &&
	start_capture ev.ndjson -e switch,scx &&
	sleep 1.5 &&
	start_sched scx_qmap -d $victim &&
	test "$(policy $victim)" = 0 &&
	sleep 1.5 &&
	stop_sched &&
	sleep 1.5 &&
	stop_capture &&
	kill $victim &&
	keep ev.ndjson &&
	test $(($(cat /sys/kernel/sched_ext/nr_rejected) - before)) = 1 &&
	grep "\"type\":\"scx_stats\"" ev.ndjson >st &&
	test $(wc -l <st) -ge 3 &&
	jq_true -s st "map(.nr_rejected) | add == 1" "map(select(.nr_rejected == 1)) | length == 1"
'

test_expect_success 'scx-agg: the rejection in Prometheus counters' '
	scx-agg -f prometheus <ev.ndjson >prom &&
	grep "^scx_sched_ext_rejected_tasks_total " prom &&
	grep -q "^scx_sched_ext_rejected_tasks_total 1$" prom
'

test_done
