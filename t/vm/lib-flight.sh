# Helpers of the flight-recorder tests in the VM (t/vm/0400-flight.t and
# t/vm/alone/0410-flight-stall.t); sourced after lib-vm.sh.

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
