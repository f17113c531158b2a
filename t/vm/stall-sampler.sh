#!/bin/bash
# t/vm/stall-sampler.sh SECONDS: every SECONDS, on the console, the
# guest's uptime, sched_ext's state and every task that is runnable (R) or
# in uninterruptible sleep (D): pid, comm, state, CPU, policy (7 is
# SCHED_EXT), wchan and kernel stack.  Started at a real-time priority
# (chrt) before a watchdog stall, it shows what a hung guest is doing: a
# real-time task is not on sched_ext and still runs when SCHED_NORMAL and
# SCHED_EXT tasks do not.  After its start it uses only bash builtins: a
# fork can be what hangs (sched_ext's disable holds the fork lock).
every=${1:-20}
fifo=/tmp/stall-sampler.$$
mkfifo "$fifo" || exit 1
exec 3<>"$fifo"
n=0
while :; do
	read -r -t "$every" -u 3 _
	n=$((n + every))
	read -r up _ </proc/uptime
	read -r state </sys/kernel/sched_ext/state
	echo "[$up] stall-sampler: at $n s, sched_ext $state"
	for d in /proc/[0-9]*; do
		read -r st 2>/dev/null <"$d/stat" || continue
		# shellcheck disable=SC2086 # fields: pid (comm) state ...
		set -- $st
		case $3 in R | D) ;; *) continue ;; esac
		[ "$1" = $$ ] && continue
		read -r w 2>/dev/null <"$d/wchan"
		echo "  pid $1 $2 $3 cpu ${39} policy ${41} wchan ${w:-?}"
		[ "$3" = R ] && [ -z "$w" ] && continue
		while read -r l; do echo "      $l"; done 2>/dev/null <"$d/stack"
	done
done
