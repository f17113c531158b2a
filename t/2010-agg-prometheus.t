#!/bin/sh
# scx-agg -f prometheus and --textfile: counters cumulative across intervals,
# histograms whose buckets add up to the snapshots' counts and hold scx-agg's
# own p99, promtool's lint finds nothing, the textfile is replaced whole and
# a directory that cannot take it is named.  t/2011 checks the figures
# through a real Prometheus and node_exporter.
. "$(dirname "$0")/lib.sh"

in=$TDATA/events-demo.ndjson.zst

# value of a sample in the last exposition of file $1: name{labels} exactly
sample() {
	awk -v k="$2" '/^# EOF/ { fresh = 1; next } fresh { delete v; fresh = 0 } $1 == k { v[k] = $2 }
		END { print v[k] }' "$1"
}

test_expect_success ZSTD 'one exposition per interval, counters cumulative' '
	scx-agg -I 250ms -f prometheus "$in" >prom &&
	scx-agg -I 250ms -f ndjson "$in" >snaps &&
	n=$(wc -l <snaps) && test "$n" -gt 4 &&
	test $(grep -c "^# EOF$" prom) = "$n" &&
	test "$(sample prom scx_intervals_total)" = "$n" &&
	for cpu in 0 1; do
		want=$(jq -s "[.[].groups.cpu[] | select(.cpu == $cpu) | .switches] | add" snaps) &&
		got=$(sample prom "scx_cpu_switches_total{cpu=\"$cpu\",llc=\"0\",node=\"0\"}") &&
		echo "cpu $cpu switches: snapshots $want, counter $got" &&
		test "$got" = "$want" || return 1
	done &&
	want=$(jq -s "[.[].events] | add" snaps) &&
	test "$(sample prom scx_events_total)" = "$want"
'

test_expect_success ZSTD 'histogram buckets add up and hold scx-agg'"'"'s p99' '
	scx-agg -f prometheus -g cpu "$in" >once &&
	scx-agg -f ndjson -g cpu "$in" >snap &&
	for cpu in 0 1; do
		l="cpu=\"$cpu\",llc=\"0\",node=\"0\"" &&
		count=$(jq ".groups.cpu[] | select(.cpu == $cpu) | .rq_delay.count" snap) &&
		p99=$(jq ".groups.cpu[] | select(.cpu == $cpu) | .rq_delay.p99" snap) &&
		test "$(sample once "scx_cpu_rq_delay_seconds_count{$l}")" = "$count" &&
		test "$(sample once "scx_cpu_rq_delay_seconds_bucket{$l,le=\"+Inf\"}")" = "$count" &&
		grep "^scx_cpu_rq_delay_seconds_bucket{$l," once |
			sed "s/.*le=\"\([^\"]*\)\"} /\1 /" >b$cpu &&
		awk -v n="$count" -v p99="$p99" "
			\$2 < prev { print \"not monotonic at \" \$1; bad = 1 }
			{ prev = \$2 }
			!done && \$2 >= 0.99 * n {
				done = 1; hi = (\$1 == \"+Inf\") ? 1e30 : \$1 * 1e9
				print \"p99 \" p99 \" ns, bucket (\" lo \", \" hi \"]\"
				if (p99 <= lo || p99 > hi) bad = 1
			}
			{ lo = (\$1 == \"+Inf\") ? 1e30 : \$1 * 1e9 }
			END { exit bad }" b$cpu || return 1
	done
'

test_expect_success ZSTD,PROMTOOL 'promtool check metrics reports nothing' '
	scx-agg -f prometheus -g all "$in" >all.prom &&
	promtool check metrics <all.prom >lint 2>&1 &&
	test_line_count 0 lint &&
	scx-agg -f prometheus -g dsq,llc "$TDATA/top-small.ndjson" >gen.prom &&
	grep -q "^scx_dsq_queue_seconds_bucket{dsq=" gen.prom &&
	grep -q "^scx_cpu_switches_total{llc=\"0\",node=\"0\"}" gen.prom &&
	promtool check metrics <gen.prom >lint 2>&1 &&
	test_line_count 0 lint
'

test_expect_success ZSTD 'every family has HELP, TYPE and UNIT' '
	scx-agg -f prometheus -g all "$in" >all.prom &&
	awk "/^# (HELP|TYPE|UNIT) / { seen[\$3] = seen[\$3] \$2 }
	     END { for (f in seen) if (seen[f] != \"HELPTYPEUNIT\") { print f, seen[f]; bad = 1 }
		   exit bad }" all.prom
'

test_expect_success ZSTD 'the textfile is replaced whole at every interval' '
	mkdir tf &&
	scx-agg -I 500ms --textfile tf/scx.prom "$in" >out &&
	test_line_count 0 out &&
	ls -A tf >files && echo scx.prom >want && test_cmp want files &&
	test "$(stat -c %a tf/scx.prom)" = 644 &&
	scx-agg -f prometheus -I 500ms "$in" | awk "/^# EOF/ { n++; next } { if (n == last) print }" last=$(( $(scx-agg -I 500ms -f ndjson "$in" | wc -l) - 1 )) >want.prom &&
	test_cmp want.prom tf/scx.prom
'

test_expect_success 'every series is written at 0 before the first interval closes' '
	mkdir tf0 && mkfifo fifo
	scx-agg -I 1s --textfile tf0/scx.prom <fifo &
	exec 3>fifo &&
	head -n 2 "$TDATA/agg-basic.ndjson" >&3 &&
	n=0 && while ! test -e tf0/scx.prom && test $n -lt 100; do sleep 0.1; n=$((n + 1)); done &&
	cp tf0/scx.prom zero.prom &&
	tail -n +3 "$TDATA/agg-basic.ndjson" >&3 && exec 3>&- && wait &&
	grep "^scx_cpu_switches_total" zero.prom >got &&
	cat >want <<-\EOF &&
	scx_cpu_switches_total{cpu="0",llc="0",node="0"} 0
	scx_cpu_switches_total{cpu="1",llc="0",node="0"} 0
	scx_cpu_switches_total{cpu="2",llc="1",node="1"} 0
	scx_cpu_switches_total{cpu="3",llc="1",node="1"} 0
	EOF
	test_cmp want got &&
	grep -q "^scx_intervals_total 0$" zero.prom &&
	grep -q "^scx_cpu_rq_delay_seconds_bucket{cpu=\"3\",llc=\"1\",node=\"1\",le=\"+Inf\"} 0$" zero.prom &&
	grep -q "^scx_cpu_switches_total{cpu=\"0\",llc=\"0\",node=\"0\"} 3$" tf0/scx.prom
'

test_expect_success 'a textfile directory that is missing or not a directory is named' '
	test_exit_code 1 scx-agg --textfile nodir/scx.prom </dev/null 2>err &&
	test_grep "textfile directory '"'"'nodir'"'"': No such file or directory" err &&
	: >plain &&
	test_exit_code 1 scx-agg --textfile plain/scx.prom </dev/null 2>err &&
	test_grep "textfile directory '"'"'plain'"'"': Not a directory" err
'

test_expect_success ROOT 'a read-only textfile directory is named' '
	mkdir ro &&
	test_exit_code 1 unshare -m sh -c "mount --bind ro ro && mount -o remount,bind,ro ro &&
		exec scx-agg --textfile ro/scx.prom </dev/null" 2>err &&
	test_grep "cannot create files in textfile directory '"'"'ro'"'"': Read-only file system" err
'

test_expect_success 'reports cannot be cumulative' '
	test_exit_code 2 scx-agg -f prometheus -r dsq </dev/null 2>err &&
	test_grep "per-interval" err
'

test_done
