#!/bin/sh
# scx-mcp exits at once when its client goes away (stdin closes) during a
# live capture: nobody is left to read a clean trailer, so the producer's
# process group is killed, not asked to stop, scx-mcp does not wait for it
# to die, and the BPF links go with it.
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"

# a producer that would outlive a SIGINT: it notes the signal and goes on
cat >stubborn.sh <<\EOF
#!/bin/sh
echo $$ >producer.pid
trap 'echo int >>got-int' INT
echo '{"type":"header","version":1,"producer":"stubborn","clock":"boottime","hostname":"t","kernel":"t","nr_cpus":1,"topology":null,"scheduler":null,"options":{},"start_ns":0}'
while :; do sleep 0.1; done
EOF
chmod +x stubborn.sh
# no such process, or only a zombie whose parent has not reaped it yet
gone() { st=$(ps -o stat= -p "$1" || :); [ -z "$st" ] || [ "${st#Z}" != "$st" ]; }

test_expect_success 'stdin EOF during a capture: the producer group is killed, not asked to stop' '
	rm -f got-int producer.pid &&
	{ init_line
	  call 1 control_event_tracking "{\"action\":\"start\"}"
	  i=0; while [ ! -s producer.pid ] && [ $i -lt 450 ]; do sleep 0.1; i=$((i + 1)); done
	} | mcp --events-cmd "$PWD/stubborn.sh" >out &&
	test "$(iserr 1 <out)" = false &&
	test -s producer.pid && gone "$(cat producer.pid)" &&
	! test -e got-int
'

# the scx-events below PID (timeout, then scx-mcp), once it runs
events_child() {
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		[ "$(cat /proc/"$c"/comm 2>/dev/null)" = scx-events ] && echo "$c" && return
		events_child "$c"
	done
}

test_expect_success BPF 'stdin EOF during a real capture: scx-events and its BPF links are gone' '
	rm -f in && mkfifo in &&
	{ mcp <in >out 2>err & } && pid=$! &&
	exec 3>in &&
	init_line >&3 &&
	req 1 resources/subscribe "{\"uri\":\"events://stream\"}" >&3 &&
	call 2 control_event_tracking "{\"action\":\"start\",\"events\":\"sched\"}" >&3 &&
	wait_updated out events://stream 1 &&
	child=$(events_child $pid) && test -n "$child" &&
	say "scx-events $child" &&
	cat /proc/"$child"/fdinfo/* | sed -n "s/^link_id:[[:space:]]*//p" >links &&
	test -s links &&
	exec 3>&- &&
	wait $pid &&
	# scx-mcp does not wait for the killed producer; the kernel ends it
	i=0 && while ! gone "$child" && [ $i -lt 450 ]; do sleep 0.1; i=$((i + 1)); done &&
	gone "$child" &&
	while read -r id; do
		! bpftool link show id "$id" >/dev/null 2>&1 || exit 1
	done <links
'

test_done
