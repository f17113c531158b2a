# Helpers of the flight-recorder tests in the VM (t/vm/0400-flight.t,
# t/vm/alone/04*.t, t/vm/extra/); sourced after lib-vm.sh.

# start_flight: scx-events --flight 30s,64M writing windows into win/
# (errors in flight.err, pid in cap.pid), once it says it records
start_flight() {
	mkdir win &&
	{ scx-events --flight 30s,64M -o win 2>flight.err & } &&
	echo $! >cap.pid &&
	for _ in $(seq 600); do grep -q "flight recorder:" flight.err && break; sleep 0.1; done &&
	grep -q "flight recorder:" flight.err
}

# wait_disabled SECONDS: sched_ext back to disabled (a stall takes the
# watchdog's 30 s, more under TCG)
wait_disabled() {
	for _ in $(seq $(($1 * 10))); do
		[ "$(scx_state)" = disabled ] && return 0
		sleep 0.1
	done
	echo "sched_ext state is $(scx_state)" >&2
	return 1
}

# wait_window N: window N (flight-00N-*) written whole, at most 60 s
wait_window() {
	for _ in $(seq 600); do
		f=$(ls win/flight-00$1-* 2>/dev/null) &&
			tail -n 1 "$f" | grep -q "\"type\":\"trailer\"" && { echo "$f"; return 0; }
		sleep 0.1
	done
	ls -l win >&2; cat flight.err >&2
	return 1
}

# progress WORDS: "[UPTIME] TEST.t: WORDS" on the console at once, to find
# where a hung guest stopped (t/vm/run.sh quotes the last such line)
progress() {
	read -r _up _ </proc/uptime
	echo "[$_up] ${0##*/}: $*" >/dev/console 2>/dev/null || :
}

# trig FILE: the window's trigger record
trig() { grep "\"type\":\"flight_trigger\"" "$1"; }

# wait_loaded N: until enable_seq passes N, at most 60 s: a scheduler that
# stalls at once can be enabled and disabled between two looks at the state
wait_loaded() {
	for _ in $(seq 600); do
		[ "$(cat /sys/kernel/sched_ext/enable_seq)" -gt "$1" ] && return 0
		sleep 0.1
	done
	echo "no scheduler load after enable_seq $1" >&2
	return 1
}

# stall_who DIS: "PID MS COMM" of the task a stall's scx_disable record (in
# file DIS) names, "COMM[PID] failed to run for S.MMMs"; nothing when the
# watchdog itself did not run ("watchdog failed to check in for S.MMMs")
stall_who() {
	sed -n "s/.*\"msg\":\"\(.*\)\[\([0-9]*\)\] failed to run for \([0-9]*\)\.\([0-9]*\)s\".*/\2 \3\4 \1/p" "$1" |
		# expr, not $((...)): "0523" (0.523 s) is not octal to it
		while read -r _pid _ms _comm; do echo "$_pid $(expr "$_ms" + 0) $_comm"; done
}

# is_kthread PID: a kernel thread (PF_KTHREAD in /proc/PID/stat's flags)
is_kthread() {
	_flags=$(sed 's/.*) //' "/proc/$1/stat" | cut -d" " -f7) &&
		[ $((_flags & 0x200000)) != 0 ]
}

# never_ran WINDOW PID MS: PID's last event in the window that left it
# runnable (a wakeup, or a switch-out still running: prev_state 0, R, or
# 256, R+) has no switch-in after it and is at least MS before the disable
# (less 100 ms: the watchdog counts in jiffies).  grep first: jq on a whole
# window takes a minute under TCG.
never_ran() {
	grep -E "\"type\":\"scx_disable\"|\"(pid|prev_pid|next_pid)\":$2," "$1" |
	jq -r --argjson p "$2" '
		(select(.type == "scx_disable") | "d \(.ts)"),
		(select((.type == "sched_waking" or .type == "sched_wakeup" or
			 .type == "sched_wakeup_new") and .pid == $p) | "r \(.ts)"),
		(select(.type == "sched_switch" and .prev_pid == $p and
			(.prev_state == 0 or .prev_state == 256)) | "r \(.ts)"),
		(select(.type == "sched_switch" and .next_pid == $p) | "i \(.ts)")' |
	awk -v ms="$3" '
		$1 == "r" { r = $2; ran = 0 }
		$1 == "i" && r { ran = 1 }
		$1 == "d" { d = $2 }
		END {
			print "runnable at", r, "ran after", ran, "disable at", d
			exit !(r && !ran && d && d - r >= (ms - 100) * 1000000)
		}'
}

# dump_stalled WINDOW PID COMM MS: the window's dump has exactly one task
# record for PID, with COMM, runnable (R) for at least MS
dump_stalled() {
	grep "\"type\":\"scx_dump_task\"" "$1" |
	jq -e -s --argjson p "$2" --arg c "$3" --argjson ms "$4" '
		map(select(.pid == $p)) | length == 1 and
		(.[0].comm == $c and .[0].state == "R" and -.[0].runnable_ms >= $ms)'
}

# stall_window QMAP_ARGS...: scx_qmap with QMAP_ARGS (a stall option) under
# load until the watchdog disables it, with the flight recorder running:
# its window 1 in stall.ndjson, with its scx_exit trigger, the qmap load,
# then one scx_disable (in dis), a runnable task stall (1026), no error
# exit and no unload.  stall-sampler.sh, at a real-time priority, writes
# the runnable and blocked tasks to the console every 20 s meanwhile, should
# the guest stop making progress.
stall_window() {
	progress "stall $*: start" &&
	chrt -f 50 "$SCX_SRC/t/vm/stall-sampler.sh" 20 >/dev/console 2>&1 &
	_sampler=$! &&
	_seq0=$(cat /sys/kernel/sched_ext/enable_seq) &&
	{ timeout 200 "$SCX_SCHED/scx_qmap" "$@" >qstall.out 2>&1 & } &&
	wait_loaded $_seq0 && progress "stall: enabled" &&
	load 5 && progress "stall: load done" &&
	wait_disabled 180 && progress "stall: disabled" &&
	_w=$(wait_window 1) && progress "stall: window written" &&
	kill $_sampler &&
	cp "$_w" stall.ndjson && keep stall.ndjson qstall.out &&
	! grep -q "\"exit_kind\":64," stall.ndjson &&
	trig stall.ndjson | grep -q "\"reason\":\"scx_exit\",\"seq\":1," &&
	grep "\"type\":\"scx_disable\"" stall.ndjson >dis && test_line_count 1 dis && cat dis &&
	grep -q "\"exit_kind\":1026,.*\"reason\":\"runnable task stall\"" dis &&
	! grep -q "\"exit_kind\":1025" stall.ndjson &&
	grep -n "\"type\":\"scx_enable\",\"name\":\"qmap\"" stall.ndjson >en && test_line_count 1 en &&
	test "$(cut -d: -f1 en)" -lt "$(grep -n "\"type\":\"scx_disable\"" stall.ndjson | cut -d: -f1)"
}

# stop_flight: SIGINT to the flight recorder, which must still be running,
# and its clean exit
stop_flight() {
	kill -0 "$(cat cap.pid)" &&
	kill -INT "$(cat cap.pid)" &&
	while kill -0 $(cat cap.pid) 2>/dev/null; do sleep 0.1; done &&
	keep flight.err
}
