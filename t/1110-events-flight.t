#!/bin/sh
# scx-events --flight on the live kernel: SIGUSR1 writes the last events as a
# stream of their own that the other tools read, a second signal a second
# window with only the newer events; a run-queue latency above a threshold
# writes a window whose trigger names the task, and --flight-stop ends the
# capture there.  (The sched_ext exit trigger and the dump: t/vm/0400-flight.t.)
. "$(dirname "$0")/lib.sh"
. "$SCX_SRC/t/lib-capture.sh"
. "$TDATA/mcp-lib.sh"

CC=${CC:-cc}

# a recorder left by a failed or killed test (maybe stopped, see test 6)
# would keep its BPF programs attached: end it with the file
trap 'p=$(cat "$TRASH/cap.pid" 2>/dev/null) && kill -CONT $p 2>/dev/null && kill -KILL $p 2>/dev/null
	cd /; rm -rf "$TRASH"' EXIT
trap 'exit 1' INT TERM HUP

# start_flight DIR ARGS...: scx-events --flight in the background ($cap_pid),
# returns once its programs are attached
start_flight() {
	_dir=$1; shift
	# the last test's flight.err says "flight recorder:" too: without the
	# rm a loaded machine could return before this scx-events has even
	# been exec'd (and the test would stop and signal a forked shell)
	rm -f flight.err
	scx-events "$@" -o "$_dir" 2>flight.err &
	cap_pid=$!
	echo $cap_pid >cap.pid
	for _ in $(seq 600); do
		grep -q "flight recorder:" flight.err 2>/dev/null && return 0
		kill -0 $cap_pid 2>/dev/null || break
		sleep 0.1
	done
	cat flight.err >&2
	return 1
}

# usr1: SIGUSR1 to the capture from a shell whose pid is written to 'sender'
usr1() { sh -c 'echo $$ >sender; kill -USR1 $1' sh "$(cat cap.pid)"; }

# wait_file FILE: until FILE exists and ends with a trailer (at most 120 s:
# on a loaded machine a window of tens of MB took longer than 30 s)
wait_file() {
	for _ in $(seq 1200); do
		tail -n 1 "$1" 2>/dev/null | grep -q "\"type\":\"trailer\"" && return 0
		sleep 0.1
	done
	echo "no complete $1" >&2
	ls -l "$(dirname "$1")" >&2
	return 1
}

test_expect_success 'usage errors' '
	test_exit_code 2 scx-events --flight 10s 2>err &&
	grep -q "DURATION,SIZE" err &&
	test_exit_code 2 scx-events --flight 10s,1 2>err &&
	grep -q "at least" err &&
	test_exit_code 2 scx-events --flight-latency 1ms 2>err &&
	grep -q "need --flight" err
'

test_expect_success BPF 'build the workload' '
	$CC -O2 -o "$TRASH/scxev-wl" "$SCX_SRC/t/data/events-workload.c"
'

test_expect_success BPF 'SIGUSR1 writes the window: the events before it' '
	start_flight win --flight 60s,64M -e sched,process &&
	"$TRASH/scxev-wl" 3 /bin/true pids &&
	read P C <pids && echo "P=$P C=$C" >ids &&
	sleep 0.3 &&
	usr1 &&
	wait_file win/flight-001-signal.ndjson &&
	w=win/flight-001-signal.ndjson &&
	tail -n 2 $w | head -n 1 >trig &&
	# (it failed once in a loaded make check without a word: say what came)
	{ { head -n 1 $w | grep -q "^{\"type\":\"header\"" &&
	    grep -q "\"type\":\"sched_process_fork\",\"parent_pid\":$P," $w &&
	    grep -q "\"type\":\"flight_trigger\",\"reason\":\"signal\",\"seq\":1,\"pid\":$(cat sender)," trig &&
	    test "$(field events <trig)" -eq $(($(wc -l <$w) - 3)) &&
	    test "$(field dropped <trig)" = 0; } ||
	  { echo "workload P=$P, sender $(cat sender), $(wc -l <$w) lines, forks of P:" \
		"$(grep -c "\"parent_pid\":$P," $w)"; head -c 300 $w; echo; cat trig; tail -n 1 $w; false; }; }
'

test_expect_success BPF 'the window is an ordinary stream for the other tools' '
	w=win/flight-001-signal.ndjson &&
	scx-agg <$w >agg.ndjson &&
	grep -q "\"type\":\"snapshot\"" agg.ndjson &&
	scx-perfetto -o w.pb <$w &&
	scx-perfetto -i w.pb --stat | grep -q "^events: [1-9]" &&
	scx-top -b -n 1 <$w >top.txt &&
	grep -q "^scx-top" top.txt
'

test_expect_success BPF 'a second signal: a second window, only newer events' '
	usr1 &&
	wait_file win/flight-002-signal.ndjson &&
	. ./ids &&
	! grep -q "\"parent_pid\":$P," win/flight-002-signal.ndjson &&
	grep -q "\"reason\":\"signal\",\"seq\":2," win/flight-002-signal.ndjson &&
	kill -INT $(cat cap.pid) &&
	while kill -0 $(cat cap.pid) 2>/dev/null; do sleep 0.1; done &&
	test $(ls win | wc -l) = 2
'

# The recorder is stopped until scx-mcp has exited, as a loaded machine may
# leave it: the window is still named mcp (the signal's value says who sent
# it, not the sender's /proc entry).
test_expect_success BPF 'scx-mcp flight_trigger: a window named mcp, in the recorder directory' '
	start_flight "$TRASH/mcpwin" --flight 60s,16M -e sched --comm scx-mcp &&
	kill -STOP $(cat cap.pid) &&
	{ init_line; call 1 flight_trigger "{\"pid\":$(cat cap.pid)}"; call 2 flight_trigger "{\"pid\":1}"; } |
		mcp >out
	rc=$? && kill -CONT $(cat cap.pid) && test $rc = 0 &&
	text 1 <out >r1 && cat r1 &&
	jq -e ".recorders == 1 and .signalled[0].pid == $(cat cap.pid) and
		.signalled[0].windows_dir == \"$TRASH/mcpwin\"" r1 &&
	test "$(iserr 2 <out)" = true &&
	wait_file mcpwin/flight-001-mcp.ndjson &&
	grep -q "\"reason\":\"mcp\",\"seq\":1,.*\"comm\":\"scx-mcp\"" mcpwin/flight-001-mcp.ndjson &&
	kill -INT $(cat cap.pid) &&
	while kill -0 $(cat cap.pid) 2>/dev/null; do sleep 0.1; done
'

test_expect_success BPF 'a run-queue latency over 2 ms: the window names the task' '
	start_flight lat --flight 10s,16M --flight-latency 2ms --flight-stop -e sched &&
	for i in 1 2 3; do
		timeout 2 taskset -c 0 sh -c "while :; do :; done" &
	done &&
	# (writing the window takes a while on a loaded machine: up to 60 s)
	for _ in $(seq 600); do kill -0 $cap_pid 2>/dev/null || break; sleep 0.1; done &&
	! kill -0 $cap_pid 2>/dev/null &&
	wait $cap_pid &&
	w=$(ls lat/flight-001-*_latency.ndjson) &&
	tail -n 2 $w | head -n 1 >trig &&
	cat trig &&
	test "$(field latency_ns <trig)" -ge 2000000 &&
	pid=$(field pid <trig) && ts=$(field ts <trig) &&
	test "$pid" -gt 0 &&
	grep "\"ts\":$ts,.*\"type\":\"sched_switch\".*\"next_pid\":$pid," $w >sw &&
	test_line_count 1 sw
'

test_done
