# t/vm/lib-vm.sh: helpers for the guest tests (t/vm/*.t), which run only
# inside the sched_ext VM (t/vm/run.sh); source after t/lib.sh and
# t/lib-capture.sh.

# scx_state: /sys/kernel/sched_ext/state (enabled, disabled, ...)
scx_state() { cat /sys/kernel/sched_ext/state; }

# wait_state STATE: until sched_ext is in STATE, at most 60 s (TCG is slow)
wait_state() {
	for _ in $(seq 600); do
		[ "$(scx_state)" = "$1" ] && return 0
		sleep 0.1
	done
	echo "sched_ext state is $(scx_state), not $1" >&2
	return 1
}

# start_sched NAME ARGS...: an example scheduler from $SCX_SCHED in the
# background ($sched_pid, output in NAME.out), returns once it is enabled
start_sched() {
	_s=$1; shift
	"$SCX_SCHED/$_s" "$@" >"$_s.out" 2>&1 &
	sched_pid=$!
	wait_state enabled || { cat "$_s.out" >&2; return 1; }
}

# stop_sched: SIGINT, wait for it and for sched_ext to be disabled
stop_sched() {
	kill -INT $sched_pid && wait $sched_pid
	wait_state disabled
}

# load SECONDS [SPINNERS]: SPINNERS busy threads (6: more runnable threads
# than CPUs, so tasks wait in DSQs) and one that sleeps and wakes, for SECONDS
load() {
	_pids=
	for _ in $(seq "${2:-6}"); do
		timeout "$1" sh -c 'while :; do :; done' &
		_pids="$_pids $!"
	done
	timeout "$1" sh -c 'while :; do sleep 0.01; done' &
	wait $_pids $!
	return 0
}

# keep FILE...: copy into the host's output directory, for a failure's post mortem
keep() { cp "$@" "$SCX_VM_OUT/" 2>/dev/null || :; }

# sw_scx FILE: the switches carrying sched_ext data, one per line
sw_scx() { grep '"type":"sched_switch".*"dsq_id":' "$1"; }

# u64 NAME < lines: a field's decimal digits exactly (jq and awk would round
# ids above 2^53 such as SCX_DSQ_LOCAL)
u64() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }

SCX_DSQ_GLOBAL=9223372036854775809	# 1 << 63 | 1
SCX_DSQ_LOCAL=9223372036854775810	# 1 << 63 | 2
SCX_DSQ_LOCAL_ON=13835058055282163712	# 1 << 63 | 1 << 62, | cpu

# check_dsq_bound FILE: every task that blocked, was woken and switched in
# with DSQ data spent at most its waking-to-switch time in the DSQ; at least
# 20 such switches
check_dsq_bound() {
	# grep first: jq then parses only the records it looks at (seconds under TCG)
	grep -E '"type":"sched_(waking|switch)"' "$1" |
	jq -r '(select(.type == "sched_waking") | "w \(.pid) \(.ts)"),
	       (select(.type == "sched_switch") |
	        "s \(.next_pid) \(.ts) \(.dsq_lat_ns // "-") \(.prev_pid) \(.prev_state)")' |
	# by time: an event can reach the stream after a later one of another
	# CPU (past scx-events' reorder window on a loaded TCG guest)
	sort -s -n -k3,3 |
	awk '
		$1 == "w" { if (blocked[$2]) w[$2] = $3; next }
		{
			if ($2 in w && $4 != "-") {
				n++
				if ($4 > $3 - w[$2]) { bad++; print "over:", $0, "waking", w[$2] }
			}
			delete w[$2]; delete blocked[$2]
			# 0 (R) and 256 (R+): still runnable, maybe still queued
			if ($6 != 0 && $6 != 256) blocked[$5] = 1
		}
		END { print n + 0, "switches checked,", bad + 0, "over the bound"; exit !(n >= 20 && !bad) }'
}

# jq_true [-s] FILE EXPR...: each jq EXPR over FILE (slurped with -s) is true
# as `jq -e` would judge it, all in one jq run: under TCG every start of jq
# costs seconds, and a capture is parsed once for all its checks.  The false
# ones are named on stderr.
jq_true() {
	_slurp=
	[ "$1" = -s ] && { _slurp=-s; shift; }
	_f=$1; shift
	_prog=
	for _e in "$@"; do _prog="$_prog${_prog:+, }([$_e] | last)"; done
	# shellcheck disable=SC2016 # $ARGS is jq's
	jq $_slurp -r "[$_prog] | [to_entries[] | select(.value == false or .value == null) |
		\"false: \" + \$ARGS.positional[.key]] |
		if length > 0 then join(\"\\n\") + \"\\n\" | halt_error(1) else empty end" \
		"$_f" --args "$@"
}
