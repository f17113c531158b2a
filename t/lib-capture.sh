# t/lib-capture.sh: helpers for tests that run scx-events live, make
# cgroups for it, or write to a reader that stalls; source it after t/lib.sh.

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
	wait_header "$_out" $cap_pid && return 0
	cat capture.err >&2
	return 1
}

# wait_header FILE PID: a capture (PID) is attached once its header is in
# FILE; 1 if it exits first or takes longer than 60 s
wait_header() {
	for _ in $(seq 600); do
		[ -s "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

stop_capture() {
	kill -INT $cap_pid && wait $cap_pid
}

# wait_switched_out FILE PID...: wait (up to 10 s) until the last switch-out
# of each (prev_state Z, 32) is in the capture FILE.  A task can be reaped
# before that switch (preempted on its way out, on a loaded CPU), so a
# capture stopped as soon as the workload's parent has been waited for can
# miss it.  0 either way: the tests say what they miss.
wait_switched_out() {
	_f=$1; shift
	for _ in $(seq 100); do
		_n=0
		for _p in "$@"; do
			grep -q "\"prev_pid\":$_p,.*\"prev_state\":32," "$_f" && _n=$((_n + 1))
		done
		[ $_n = $# ] && return 0
		sleep 0.1
	done
	return 0
}

# A test's own cgroup: $CG, below the cgroup2 mount $CG2 (empty without
# one), $REL as the events name it.  The test makes it and what it needs
# below it, and removes them on exit with remove_cgroups.
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
REL=/scx-test-$$
CG=$CG2$REL

# remove_cgroups DIR...: each, children first, after moving what is left in
# it (the workload has exited by then, normally) back to the root
remove_cgroups() {
	[ -n "$CG2" ] || return 0
	for _d in "$@"; do
		[ -d "$_d" ] || continue
		while read -r _p; do echo "$_p" >"$CG2/cgroup.procs"; done <"$_d/cgroup.procs" 2>/dev/null
		rmdir "$_d" 2>/dev/null || { sleep 0.2; rmdir "$_d"; }
	done
}

# stall FIFO: a reader that opens the FIFO, shrinks it to one page (full
# after a few writes, whatever the load) and never reads; $staller is its
# pid.  For the tests of writers that must stop anyway.
stall() {
	rm -f "$1" ready && mkfifo "$1" &&
	{ python3 -c "import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
fcntl.fcntl(fd, 1031, 4096)	# F_SETPIPE_SZ
open(\"ready\", \"w\").close()
time.sleep(60)" "$1" >/dev/null 2>&1 & } && staller=$! &&
	while ! test -e ready; do sleep 0.1; done
}
