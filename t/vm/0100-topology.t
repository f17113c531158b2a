#!/bin/sh
# In the VM: sched_ext is there, the guest has the CPUs, LLCs and nodes QEMU
# was given (t/vm/run.sh: 2 sockets of 2 cores, one node each), and
# scx-events reports that topology in its header.
. "$(dirname "$0")/../lib.sh"
. "$SCX_SRC/t/lib-capture.sh"
. "$SCX_SRC/t/vm/lib-vm.sh"

test_expect_success 'sched_ext is built in and no scheduler is loaded' '
	test -d /sys/kernel/sched_ext &&
	test "$(scx_state)" = disabled
'

test_expect_success 'the kernel sees the CPUs and nodes QEMU was given' '
	test "$(nproc)" = "$SCX_VM_CPUS" &&
	test "$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)" = "$SCX_VM_NODES" &&
	test "$(cat /sys/devices/system/node/node0/cpulist)" = 0-1 &&
	test "$(cat /sys/devices/system/node/node1/cpulist)" = 2-3
'

test_expect_success 'scx-events reports that topology' '
	start_capture ev.ndjson -e switch &&
	load 2 &&
	stop_capture &&
	head -n 1 ev.ndjson >hdr &&
	keep hdr &&
	jq_true hdr ".nr_cpus == $SCX_VM_CPUS" \
		"[.topology[].node] | unique | length == $SCX_VM_NODES" \
		"[.topology[].llc] | unique | length == $SCX_VM_LLCS" \
		"[.topology[] | select(.online)] | length == $SCX_VM_CPUS" &&
	jq -r ".topology[] | \"\(.cpu) \(.llc) \(.node)\"" hdr >topo &&
	cat >expect <<-\EOT &&
	0 0 0
	1 0 0
	2 1 1
	3 1 1
	EOT
	test_cmp expect topo
'

test_expect_success 'a capture runs on all four CPUs' '
	jq -r "select(.type == \"sched_switch\") | .cpu" ev.ndjson | sort -u >cpus &&
	test "$(wc -l <cpus)" = "$SCX_VM_CPUS"
'

test_done
