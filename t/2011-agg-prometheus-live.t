#!/bin/sh
# scx-agg --textfile against the real thing: Debian's prometheus and
# prometheus-node-exporter (installed through scripts/deps.sh --fleet when
# missing), started on 127.0.0.1 with free ports and temporary data
# directories, scraping two node_exporters every 250ms.  Collector A runs
# live (scx-events | tee | scx-agg) on a workload; collector B replays A's
# recording, so the fleet of two has exactly twice A's counts and A's
# quantiles.  Checked through Prometheus' HTTP API:
#  - sum(increase(scx_cpu_switches_total[W])) over the samples Prometheus
#    scraped equals the switches of the intervals the stream closed in that
#    window (from scx-agg -f ndjson on the recording; event-time intervals
#    are the same live and replayed), within increase()'s extrapolation of
#    1ms at the start of the window;
#  - histogram_quantile(0.99, sum by (le) (rate(..._bucket[W]))) lies in the
#    bucket that holds scx-agg's own p99;
#  - summed over both instances: twice A's counts, and the same p99 bucket.
# Everything started here is stopped on every exit path (trap); only
# loopback addresses are used.
. "$(dirname "$0")/lib.sh"

if ! test_have_prereq PROMETHEUS && test_have_prereq ROOT; then
	say "installing prometheus and prometheus-node-exporter (scripts/deps.sh --fleet)"
	sh "$SCX_SRC/scripts/deps.sh" --fleet >deps.log 2>&1 || sed 's/^/# deps: /' deps.log
	_prereq_cache=" "
fi
if ! test_have_prereq PROMETHEUS; then
	test_skip 'a Prometheus fleet of two collectors' \
		'prometheus, prometheus-node-exporter or curl missing and not installable here'
	test_done
	exit 0
fi
if ! test -x "$SCX_BUILD/scx-events"; then
	test_skip 'a Prometheus fleet of two collectors' 'scx-events not built'
	test_done
	exit 0
fi

# the daemons were started in a test's subshell: their pids are in a file
stop_all() {
	_pids=$(cat "$TRASH/pids" 2>/dev/null)
	for p in $_pids; do kill "$p" 2>/dev/null; done
	for p in $_pids; do
		_n=40
		while kill -0 "$p" 2>/dev/null && [ $_n -gt 0 ]; do sleep 0.25; _n=$((_n - 1)); done
		kill -9 "$p" 2>/dev/null
	done
	rm -f "$TRASH/pids"
}
trap 'stop_all; cd /; rm -rf "$TRASH"' EXIT
trap 'exit 1' INT TERM HUP

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# query EXPR [TIME]: the value of a one-element instant vector (or scalar)
query() {
	curl -sf --max-time 10 "http://127.0.0.1:$pp/api/v1/query" --data-urlencode "query=$1" \
		${2:+--data-urlencode "time=$2"} >q.json &&
	jq -r '.data.result | if type == "array" then (if length == 1 then .[0].value[1] else "n=\(length)" end) else .[1] end' q.json
}

wait_for() {
	# wait_for SECONDS CMD...: poll until CMD succeeds
	_n=$(($1 * 4)); shift
	while [ $_n -gt 0 ]; do "$@" && return 0; sleep 0.25; _n=$((_n - 1)); done
	return 1
}

test_expect_success BPF 'prometheus and two node_exporters start on loopback' '
	pa=$(free_port) && pb=$(free_port) && pp=$(free_port) &&
	echo "$pa $pb $pp" >ports &&
	mkdir da db tsdb &&
	cat >prom.yml <<-EOF
	global:
	  scrape_interval: 250ms
	  scrape_timeout: 200ms
	scrape_configs:
	  - job_name: scx
	    static_configs:
	      - targets: ["127.0.0.1:$pa", "127.0.0.1:$pb"]
	EOF
	prometheus-node-exporter --web.listen-address=127.0.0.1:$pa --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory=da >nea.log 2>&1 &
	echo $! >>pids
	prometheus-node-exporter --web.listen-address=127.0.0.1:$pb --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory=db >neb.log 2>&1 &
	echo $! >>pids
	prometheus --config.file=prom.yml --storage.tsdb.path=tsdb \
		--web.listen-address=127.0.0.1:$pp >prom.log 2>&1 &
	echo $! >>pids
	wait_for 60 sh -c "test \"\$(curl -sf http://127.0.0.1:$pp/api/v1/query \
		--data-urlencode query=sum\(up\) | jq -r .data.result[0].value[1])\" = 2" ||
		{ tail -n 5 prom.log nea.log neb.log; false; }
'
read pa pb pp <"$TRASH/ports" 2>/dev/null || { pa=0 pb=0 pp=0; }

test_expect_success BPF 'collector A live, collector B replaying its recording' '
	: the pipeline alone in the background
	scx-events -d 6 | tee live.ndjson | scx-agg -I 1s --textfile da/scx.prom &
	cap=$! &&
	sleep 1 &&
	perf bench sched messaging -g 2 -l 300 >/dev/null 2>&1 &&
	perf bench sched pipe -l 20000 >/dev/null 2>&1 &&
	wait $cap &&
	grep -q "\"type\":\"trailer\"" live.ndjson &&
	scx-agg -I 1s --textfile db/scx.prom live.ndjson &&
	scx-agg -I 1s -f ndjson live.ndjson >snaps &&
	scx-agg -f ndjson live.ndjson >once &&
	scx-agg -I 1s --summary live.ndjson >sums &&
	n=$(wc -l <snaps) &&
	wait_for 30 sh -c "test \"\$(curl -sf http://127.0.0.1:$pp/api/v1/query \
		--data-urlencode query=sum\(scx_intervals_total\) | jq -r .data.result[0].value[1])\" = $((2 * n))" &&
	sleep 1
'

test_expect_success BPF 'sum(increase(scx_cpu_switches_total)) is the stream'"'"'s count' '
	curl -sf "http://127.0.0.1:$pp/api/v1/query" --data-urlencode \
		"query=scx_intervals_total{instance=\"127.0.0.1:$pa\"}[5m]" >raw.json &&
	jq -r ".data.result[0].values[] | \"\(.[0]) \(.[1])\"" raw.json >samples &&
	head -n 3 samples && tail -n 1 samples &&
	read t0 i0 <samples && tail -n 1 samples >last && read t1 i1 <last &&
	echo "window: intervals $i0 .. $i1 scraped at $t0 .. $t1" &&
	w=$(awk "BEGIN { printf \"%d\", ($t1 - $t0) * 1000 + 1 }") &&
	want=$(jq -s "[.[$i0:$i1][].total.switches] | add" snaps) &&
	got=$(query "sum(increase(scx_cpu_switches_total{instance=\"127.0.0.1:$pa\"}[${w}ms]))" $t1) &&
	echo "switches in the window: stream $want, prometheus $got" &&
	awk "BEGIN { d = $got - $want; if (d < 0) d = -d; exit !($want > 0 && d <= 0.001 * $want + 1) }" &&
	echo "$w $t1 $i0 $i1" >window
'

# bucket_of NS: "lo hi" of the bucket (2^k - 1 bounds) holding NS
bucket_of() {
	awk -v v="$1" "BEGIN { hi = 1023; lo = 0; while (v > hi && hi < 2^35) { lo = hi; hi = hi * 2 + 1 }
		print lo, hi }"
}

# bucket_of NS: "lo hi" of the bucket (2^k - 1 bounds) holding NS
bucket_of() {
	awk -v v="$1" "BEGIN { hi = 1023; lo = 0; while (v > hi && hi < 2^35) { lo = hi; hi = hi * 2 + 1 }
		print lo, hi }"
}

# in_bucket SECONDS LO HI: LO <= SECONDS*1e9 <= HI
in_bucket() {
	awk -v s="$1" -v lo="$2" -v hi="$3" "BEGIN {
		ns = s * 1e9; exit !(ns >= lo * (1 - 1e-9) && ns <= hi * (1 + 1e-9)) }"
}

# rank_range I0 I1: "lo hi" of the values holding rank 0.99 of the run-queue
# delays of intervals [I0, I1) in the summaries (lib/hist buckets: exact below
# 128, then 64 per power of two), the rank moved by 0.2% each way for rate()'s
# extrapolation at the window's edges
rank_range() {
	jq -r -s "[.[$1:$2][].total.rq_delay.b // [] | .[]] | group_by(.[0]) |
		map(\"\\(.[0][0]) \\(map(.[1]) | add)\") | .[]" sums | sort -n |
	awk "function low(i) { return i < 128 ? i : (64 + i % 64) * 2 ^ (int(i / 64) - 1) }
		function high(i) { return i < 128 ? i : low(i) + 2 ^ (int(i / 64) - 1) - 1 }
		{ idx[NR] = \$1; cnt[NR] = \$2; total += \$2 }
		END { if (!total) exit 1
			a = 0.99 * total * 0.998; b = 0.99 * total * 1.002; if (b > total) b = total
			for (i = 1; i <= NR; i++) { cum += cnt[i]
				if (lo == \"\" && cum >= a) lo = low(idx[i])
				if (hi == \"\" && cum >= b) hi = high(idx[i]) }
			print lo, hi }"
}

# in_range SECONDS LO HI: SECONDS*1e9 lies in the Prometheus buckets (bounds
# 2^k - 1 ns) from the one holding LO to the one holding HI: histogram_quantile
# interpolates within a bucket
in_range() {
	awk -v s="$1" -v lo="$2" -v hi="$3" "BEGIN {
		l = 1023; while (lo > l && l < 2^35) l = l * 2 + 1; l = l == 1023 ? 0 : (l - 1) / 2
		h = 1023; while (hi > h && h < 2^35) h = h * 2 + 1
		ns = s * 1e9; exit !(ns >= l * (1 - 1e-9) && ns <= h * (1 + 1e-9)) }"
}

# The reference is the p99 of exactly the intervals Prometheus saw: a window
# that starts after the first intervals has another distribution than the
# whole capture, most of all on a loaded machine.
test_expect_success BPF 'histogram_quantile(0.99) falls in the bucket of scx-agg'"'"'s p99' '
	read w t1 i0 i1 <window &&
	r=$(rank_range $i0 $i1) &&
	got=$(query "histogram_quantile(0.99, sum by (le) (rate(scx_cpu_rq_delay_seconds_bucket{instance=\"127.0.0.1:$pa\"}[${w}ms])))" $t1) &&
	echo "p99 of intervals $i0..$i1 in [$r] ns, prometheus $got s" &&
	in_range $got $r
'

test_expect_success BPF 'two instances add up into one fleet figure' '
	read w t1 i0 <window &&
	test "$(query "count(count by (instance) (scx_cpu_switches_total))")" = 2 &&
	want=$(jq .total.switches once) &&
	got=$(query "sum(scx_cpu_switches_total)") &&
	echo "fleet switches $got, stream $want x 2" &&
	test "$got" = $((2 * want)) &&
	test "$(query "sum by (instance) (scx_cpu_switches_total)" | sed "s/n=2/two/")" = two &&
	p99=$(jq .total.rq_delay.p99 once) &&
	got=$(query "histogram_quantile(0.99, sum by (le) (scx_cpu_rq_delay_seconds_bucket))") &&
	b=$(bucket_of $p99) && echo "fleet p99 $got s, scx-agg p99 $p99 ns in ($b]" &&
	in_bucket $got $b
'

test_expect_success BPF 'node_exporter read every textfile without an error' '
	for p in $pa $pb; do
		curl -sf http://127.0.0.1:$p/metrics >m &&
		grep -q "^node_textfile_scrape_error 0" m &&
		grep -q "^scx_cpu_rq_delay_seconds_bucket{" m || return 1
	done
'

stop_all
test_done
