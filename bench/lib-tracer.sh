# bench/lib-tracer.sh: what the tracer-overhead benchmarks (events.sh,
# aggregate.sh, kagg-cost.sh) share; sourced.
#
#   wait_attached PID   until process PID holds a BPF link (at most 60 s:
#                       loading takes seconds on a loaded machine, and a run
#                       before the attach would measure nothing)
#   median [DIGITS]     the median of the numbers on stdin; an even count
#                       averages the middle two, printed with DIGITS
#                       decimals (default 3); "-" for none

wait_attached() {
	for _ in $(seq 600); do
		cat /proc/"$1"/fdinfo/* 2>/dev/null | grep -q "^link_type:" && return 0
		sleep 0.1
	done
}

median() {
	sort -n | awk -v d="${1:-3}" '{ a[NR] = $1 }
		END { if (NR == 0) print "-"; else if (NR % 2) print a[(NR + 1) / 2];
		      else printf "%.*f\n", d, (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
