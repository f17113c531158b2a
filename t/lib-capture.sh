# t/lib-capture.sh: helpers for tests that run scx-events live; source it
# after t/lib.sh.

# field NAME < lines: the value of "NAME": on each line (numbers or strings)
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"}]*\).*/\1/p"; }

# start_capture OUT ARGS...: scx-events in the background ($cap_pid), returns
# once it is attached (its header has been written); loading and verifying
# the programs can take long on a loaded machine, so it waits up to 60 s
start_capture() {
	_out=$1; shift
	rm -f "$_out"
	scx-events "$@" -o "$_out" 2>capture.err &
	cap_pid=$!
	for _ in $(seq 600); do
		[ -s "$_out" ] && return 0
		kill -0 $cap_pid 2>/dev/null || break
		sleep 0.1
	done
	cat capture.err >&2
	return 1
}

stop_capture() {
	kill -INT $cap_pid && wait $cap_pid
}
