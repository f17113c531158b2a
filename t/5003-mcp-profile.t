#!/bin/sh
# scx-mcp CPU profiling (BPF perf_event sampling, cpu-clock without a PMU):
# a syscall-bound dd must show up with its own pid and comm, kernel frames
# from /proc/kallsyms and user frames from libc's ELF symbols.
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"

# cputicks PID: user + system time of a process, in clock ticks
cputicks() { awk "{ print \$14 + \$15 }" /proc/$1/stat 2>/dev/null || echo 0; }

test_expect_success BPF 'profile one process: its stacks, symbolized kernel and user frames' '
	dd if=/dev/zero of=/dev/null bs=1 count=200000000 2>/dev/null &
	dd=$!
	rm -f out &&
	{ init_line
	  call 1 start_perf_profiling "{\"freq\":499,\"pid\":$dd}"
	  # samples follow dd'"'"'s cpu time, not the clock: on a loaded machine
	  # wait for 0.5 s of it (250 samples at 499 Hz), at most 45 s
	  wait_resp out 1
	  t0=$(cputicks $dd) && w=0 &&
	  while [ $(($(cputicks $dd) - t0)) -lt 50 ] && [ $w -lt 450 ]; do
		sleep 0.1; w=$((w + 1))
	  done
	  sleep 0.2
	  call 2 stop_perf_profiling "{}"
	  call 3 get_perf_results "{\"limit\":50}"
	} | mcp >out
	kill $dd
	test "$(iserr 1 <out)" = false &&
	text 1 <out | jq -e ".running == true and (.event == \"hw:cycles\" or (.event == \"sw:cpu-clock\" and (.note | test(\"unavailable\"))))" >/dev/null &&
	text 2 <out | jq -e ".running == false and .samples > 100 and .dropped_samples == 0" >/dev/null &&
	text 3 <out >res.json &&
	jq -e "[.stacks[] | select(.tgid != $dd or .comm != \"dd\")] == []" res.json >/dev/null &&
	jq -e "[.stacks[].frames[] | select(test(\"^entry_SYSCALL_64\"))] | length > 0" res.json >/dev/null &&
	jq -e "[.stacks[].frames[] | select(test(\"^[A-Za-z_][A-Za-z0-9_.]*\\\\+0x[0-9a-f]+ \\\\(libc[.]so[.]6\\\\)$\"))] | length > 0" res.json >/dev/null &&
	jq -e "(.symbols | map(.count) | add) <= .samples and .symbols[0].percent > 0" res.json >/dev/null
'

# "already running" is asked of a profile that cannot have stopped by itself
# (a loaded machine may delay any request by more than the 25 ms that 50
# samples take), then max_samples is given alone.
test_expect_success BPF 'max_samples stops sampling by itself; errors for bad use' '
	rm -f out &&
	{ init_line
	  call 1 start_perf_profiling "{\"event\":\"sw:cpu-clock\",\"freq\":10,\"duration_secs\":3600}"
	  call 2 start_perf_profiling "{}"
	  call 3 stop_perf_profiling "{}"
	  call 4 start_perf_profiling "{\"event\":\"sw:cpu-clock\",\"freq\":1000,\"max_samples\":50}"
	  # attaching may take seconds on a loaded machine; 50 samples then take
	  # 25 ms of cpu time, which a loaded machine may not give soon: ask until
	  # they are there (at most 100 times)
	  wait_resp out 4
	  i=100
	  while [ $i -lt 200 ]; do
		call $i get_perf_results "{\"include_stacks\":false}"
		wait_resp out $i
		text $i <out | jq -e ".samples >= 50" >/dev/null 2>&1 && break
		sleep 0.2
		i=$((i + 1))
	  done
	  call 5 stop_perf_profiling "{}"
	  call 6 get_perf_results "{\"include_stacks\":false}"
	  call 7 start_perf_profiling "{\"event\":\"hw:telepathy\"}"
	} | mcp >out &&
	test "$(iserr 1 <out)" = false &&
	test "$(iserr 2 <out)" = true && text 2 <out | grep "already running" &&
	test "$(iserr 3 <out)" = false &&
	test "$(iserr 4 <out)" = false &&
	test "$(iserr 5 <out)" = true && text 5 <out | grep "not running" &&
	text 6 <out | jq -e ".samples == 50 and has(\"stacks\") == false" >/dev/null &&
	test "$(iserr 7 <out)" = true && text 7 <out | grep "unknown event"
'

test_expect_success '--no-live refuses profiling and capture' '
	{ init_line; call 1 start_perf_profiling "{}"; call 2 control_event_tracking "{\"action\":\"start\"}"; } | mcp --no-live >out &&
	test "$(iserr 1 <out)" = true && text 1 <out | grep "no-live" &&
	test "$(iserr 2 <out)" = true
'

test_done
