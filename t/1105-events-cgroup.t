#!/bin/sh
# Cgroup ids on the live kernel: a workload put into a fresh cgroup
# (CG2/scx-test-PID/work under the cgroup2 mount) sleeps and wakes; its
# switches and wakeups must carry that cgroup's id (the directory's inode,
# which is the kernfs id on 64-bit kernels), the stream must name the id
# once, before the first event that carries it, and scx-agg --by cgroup
# must show the path.  The cgroups are removed on every exit path.
# Needs root, BPF and a cgroup2 mount.
. "$(dirname "$0")/lib.sh"
. "$SCX_SRC/t/lib-capture.sh"

trap 'remove_cgroups "$CG/work" "$CG"; cd /; rm -rf "$TRASH"' EXIT
trap 'exit 1' INT TERM HUP

if [ -z "$CG2" ]; then
	test_skip 'cgroup ids on the live kernel' 'no cgroup2 mount'
	test_done
fi

test_expect_success BPF 'a workload in a fresh cgroup' '
	mkdir "$CG" "$CG/work" &&
	stat -c %i "$CG/work" >id &&
	start_capture ev.ndjson -e sched &&
	sh -c "echo \$\$ >\"$CG/work/cgroup.procs\" && echo \$\$ >pid &&
		i=0; while [ \$i -lt 20 ]; do sleep 0.01; i=\$((i + 1)); done" &&
	stop_capture &&
	tail -n 1 ev.ndjson | grep -q "^{\"type\":\"trailer\""
'

test_expect_success BPF 'its switches and wakeups carry the cgroup id' '
	read -r ID <id && read -r P <pid &&
	grep "\"type\":\"sched_switch\",.*\"next_pid\":$P," ev.ndjson >in &&
	test $(wc -l <in) -ge 10 &&
	test $(grep -c "\"next_cgroup\":$ID[,}]" in) -ge 10 &&
	grep "\"type\":\"sched_switch\",\"prev_pid\":$P," ev.ndjson >out &&
	test $(grep -c "\"prev_cgroup\":$ID[,}]" out) -ge 10 &&
	grep "\"type\":\"sched_wak[a-z_]*\",\"pid\":$P," ev.ndjson >wk &&
	test $(grep -c "\"cgroup\":$ID}" wk) -ge 10
'

test_expect_success BPF 'the id is named once, before its first use' '
	read -r ID <id &&
	grep -n "^{\"type\":\"cgroup\",\"id\":$ID," ev.ndjson >rec &&
	test_line_count 1 rec &&
	grep -q "\"path\":\"$REL/work\"}" rec &&
	first=$(grep -n "_cgroup\":$ID[,}]\|\"cgroup\":$ID}" ev.ndjson | grep -v "\"type\":\"cgroup\"" |
		head -n 1 | cut -d: -f1) &&
	test "$(cut -d: -f1 rec)" -lt "$first" &&
	grep -q "\"cgroups\":true" ev.ndjson
'

test_expect_success BPF,JQ 'scx-agg --by cgroup shows its path' '
	scx-agg -g cgroup ev.ndjson >snap &&
	jq -e ".groups.cgroup[] | select(.cgroup == \"$REL/work\") | .busy_ns > 0 and .switches >= 10" snap &&
	scx-agg -g cgroup --cgroup-depth 1 ev.ndjson >snap1 &&
	jq -e ".groups.cgroup[] | select(.cgroup == \"$REL\") | .threads >= 1" snap1
'

test_expect_success BPF '--no-cgroups leaves them out' '
	start_capture ev2.ndjson -e sched --no-cgroups &&
	sleep 0.2 &&
	stop_capture &&
	! grep -q "cgroup\":" ev2.ndjson &&
	! grep -q "\"type\":\"cgroup\"" ev2.ndjson
'

test_done
