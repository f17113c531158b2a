#!/bin/sh
# scx-top in batch mode: golden frames for a hand-made stream whose numbers
# are worked out below, the same numbers from scx-agg snapshots, config
# files (stale ones too), NO_COLOR, 512 cpus, and bad input.
. "$(dirname "$0")/lib.sh"

LANG=C
export LANG
in=$TDATA/top-small.ndjson

# t/data/top-small.ndjson, by hand (topology: cpu N is LLC N; cpus 0-1 node
# 0, cpus 2-3 node 1; windows [1s,2s) and [2s,3s) of event time):
#  cpu0: web/101 woken at 1.0000, runs 1.0001-1.5001 (500 ms: util 50.0%,
#        one switch-out, wake latency 100us); woken 2.9, in at 2.9002
#        (latency 200us) from DSQ 5 (queued 150us, depth 3; inserted at
#        vtime 400 with depth 1, dispatched at vtime 1000: vtime +600),
#        running to 3.0: 99.8 ms, util 10.0%.  5 events lost at 2.5.
#  cpu1: softirq 1.6-1.7 (10.0%); web/102 migrated in from cpu0 (other LLC,
#        same node); woken 1.9, in 1.90001 (10us), runs to 2.05: 100 ms in
#        window 1 (10.0%), 50 ms in window 2 (5.0%, its switch-out).
#  cpu2: db/201 woken 1.2, in 1.201 (1.00ms), out 1.401 (20.0%); web/102
#        migrated in from cpu0 (other LLC and node).
#  cpu3: only a frequency: 2400 MHz.
#  node 0 window 1: util (50+10)/2 = 30.0%, latencies {100us, 10us}: p50
#  10.0us, p90 100us (99.8us: a histogram bucket); softirq 10/2 = 5.0%.
#  process web: 101 + 102 = 60.0% cpu, 2 wakeups, 2 migrations, 2 across
#  LLCs, 1 across nodes; db 20.0%.

test_expect_success 'cpu view: hand-worked numbers' '
	scx-top -b --no-config --mode num <"$in" >out &&
	grep -q "^   0   0   50.0    1.0     1.0    100us    100us    100us      0       0        0     -    0.0$" out &&
	grep -q "^   1   1   10.0      0     1.0   10.0us   10.0us   10.0us    1.0     1.0        0     -   10.0$" out &&
	grep -q "^   2   2   20.0    1.0     1.0   1.00ms   1.00ms   1.00ms    1.0     1.0      1.0     -    0.0$" out &&
	grep -q "^   3   3    0.0      0       0        -        -        -      0       0        0  2400    0.0$" out &&
	grep -q "^node 0: 2 cpus, util 30.0%" out &&
	grep -q "^   0   0   10.0      0     1.0    200us    200us    200us" out &&
	grep -q "^   1   1    5.0    1.0       0 " out &&
	grep -q "^scx-top  LOST 5 events (5 in window)" out &&
	test $(grep -c "^scx-top " out) = 2
'

test_expect_success 'node, proc and dsq views: hand-worked numbers' '
	scx-top -b --no-config --mode num --view node <"$in" >node &&
	grep -q "^   0   30.0    1.0     2.0   10.0us   99.8us   99.8us    1.0     1.0        0     -    5.0$" node &&
	scx-top -b --no-config --mode num --view proc <"$in" >proc &&
	grep -q "^    100 web                 2  60.0    1.0     2.0 .*    2.0     2.0      1.0       -$" proc &&
	grep -q "^    200 db                  1  20.0 " proc &&
	scx-top -b --no-config --mode num --view dsq <"$in" >dsq &&
	grep -q "^                5     1.0     150us     150us     150us    2.0       3      600       -$" dsq
'

for v in cpu llc node proc dsq; do
	test_expect_success "golden: $v view" '
		scx-top -b --no-config --mode num --view '$v' <"$in" >out &&
		test_cmp "$TDATA/top-small.'$v'.txt" out
	'
done

test_expect_success 'scx-agg snapshots give the same frames' '
	for v in cpu llc node proc dsq; do
		scx-agg -I 1s --by cpu,llc,node,tgid,pid,dsq <"$in" |
		scx-top -b --no-config --mode num --view $v --topology "$TDATA/top-small.topo.json" >out 2>err &&
		sed "1s/  scx-agg  /  events  /; /^scx-top/s/  scx-agg  /  events  /" out >out2 &&
		test_cmp "$TDATA/top-small.$v.txt" out2 && test_cmp /dev/null err || exit 1
	done
'

# slice used under sched_ext: scx-top keeps no slice_used histogram, so its
# mean comes from agg's counters; through scx-agg, from the snapshot
test_expect_success 'the slice used is the same from events and from scx-agg snapshots' '
	sw() { printf "{\"ts\":%s,\"cpu\":0,\"type\":\"sched_switch\",\"prev_pid\":%s,\"prev_tgid\":100,\"prev_comm\":\"web\",\"prev_prio\":120,\"prev_state\":%s,\"next_pid\":%s,\"next_tgid\":100,\"next_comm\":\"web\",\"next_prio\":120,\"dsq_id\":5,\"dsq_lat_ns\":1000,\"dsq_depth\":1,\"dsq_vtime\":%s,\"slice_ns\":20000000,\"prev_slice_used_ns\":%s}\n" "$@"; } &&
	{ head -n 1 "$in"
	  sw 1000000000 0 0 101 10 0
	  sw 1004000000 101 1 102 20 4000000
	  sw 1010000000 102 1 101 30 6000000
	  sw 1990000000 101 1 102 40 8000000
	  echo "{\"type\":\"trailer\",\"counts\":{},\"lost\":[],\"lost_total\":0,\"end_ns\":2000000000}"
	} >slice.ndjson &&
	for v in proc dsq; do
		scx-top -b --no-config --mode num --view $v --topology "$TDATA/top-small.topo.json" <slice.ndjson >ev.$v &&
		scx-agg -I 1s --by cpu,llc,node,tgid,pid,dsq <slice.ndjson |
		scx-top -b --no-config --mode num --view $v --topology "$TDATA/top-small.topo.json" >pipe.$v &&
		sed "1s/  scx-agg  /  events  /" pipe.$v >pipe2.$v &&
		test_cmp ev.$v pipe2.$v || exit 1
	done &&
	grep "^ *100 web" ev.proc | grep -q " 6.00ms\$" &&
	grep "^ *5 " ev.dsq | grep -q " 6.00ms\$"
'

test_expect_success 'batch output has no escape sequence; stdout not a tty means batch' '
	NO_COLOR= scx-top --no-config --mode bar --theme forest <"$in" >out &&
	! grep -q "$(printf "\033")" out &&
	grep -q "\[||||||      \]" out
'

test_expect_success 'bar and sparkline modes, ASCII without a UTF-8 locale' '
	scx-top -b --no-config --mode spark <"$in" >out &&
	grep -q "^CPU^ LLC  UTIL% history" out &&
	grep -q "^   0   0   10.0  *#. " out &&
	LANG=C.UTF-8 scx-top -b --no-config --mode spark <"$in" >out &&
	grep -q "^   0   0   10.0  *█▂ " out
'

test_expect_success '-n stops after N frames; sort and filter options' '
	scx-top -b --no-config -n 1 --view proc --sort comm <"$in" >out &&
	test $(grep -c "^scx-top " out) = 1 &&
	sed -n "5p" out | grep -q " db " && sed -n "6p" out | grep -q " web " &&
	scx-top -b --no-config -n 1 --view proc --filter we <"$in" >out &&
	! grep -q " db " out && grep -q " web " out &&
	scx-top -b --no-config -n 1 --view proc --filter 200 <"$in" >out &&
	grep -q " db " out && ! grep -q " web " out
'

test_expect_success 'config file: settings apply, the command line wins' '
	mkdir -p "$XDG_CONFIG_HOME/scx-top" &&
	printf "view = node\nmode = num\nsort.node = -util\n" >"$XDG_CONFIG_HOME/scx-top/config" &&
	scx-top -b -n 1 <"$in" >out 2>err &&
	test_cmp /dev/null err &&
	grep -q "^NODE UTIL%v" out && sed -n 5p out | grep -q "^   0   30.0" &&
	scx-top -b -n 1 --view llc <"$in" >out &&
	grep -q "^LLC^ NODE" out
'

test_expect_success 'a stale config (scxtop names, unknown keys) warns and is ignored' '
	cat >"$XDG_CONFIG_HOME/scx-top/config" <<-\EOF &&
	theme = IAmBlue
	tick_rate_ms = 250
	view = node
	mode = sparkline
	sort.proc = bogus
	[keymap]
	a = RecordTrace
	[keys]
	f = ToggleCpuFreq
	Ctrl-Q = quit
	x = pause
	this line has no equals sign
	EOF
	scx-top -b -n 1 <"$in" >out 2>err &&
	grep -q "^NODE^ UTIL%" out &&
	cat >expect <<-EOF &&
	scx-top: $XDG_CONFIG_HOME/scx-top/config: line 1: unknown theme '"'"'IAmBlue'"'"', ignored
	scx-top: $XDG_CONFIG_HOME/scx-top/config: line 2: unknown setting '"'"'tick_rate_ms'"'"', ignored
	scx-top: $XDG_CONFIG_HOME/scx-top/config: line 4: unknown mode '"'"'sparkline'"'"', ignored
	scx-top: $XDG_CONFIG_HOME/scx-top/config: line 5: unknown column '"'"'bogus'"'"' for the proc view, ignored
	scx-top: $XDG_CONFIG_HOME/scx-top/config: line 6: unknown section '"'"'[keymap]'"'"', its lines are ignored
	scx-top: $XDG_CONFIG_HOME/scx-top/config: line 9: unknown action '"'"'ToggleCpuFreq'"'"' for key '"'"'f'"'"', ignored
	scx-top: $XDG_CONFIG_HOME/scx-top/config: line 10: unknown key '"'"'Ctrl-Q'"'"', ignored
	scx-top: $XDG_CONFIG_HOME/scx-top/config: line 12: expected '"'"'name = value'"'"', ignored
	EOF
	test_cmp expect err
'

test_expect_success '--save-config writes a file that reads back without warnings' '
	scx-top --config my.conf --view proc --mode spark --theme grey --sort -sw --save-config &&
	grep -q "^view = proc$" my.conf && grep -q "^mode = spark$" my.conf &&
	grep -q "^theme = grey$" my.conf && grep -q "^sort.proc = -sw$" my.conf &&
	grep -q "^Space = pause$" my.conf &&
	scx-top --config my.conf -b -n 1 <"$in" >out 2>err &&
	test_cmp /dev/null err && grep -q "SW/sv" out
'

test_expect_success '512 cpus in 8 nodes' '
	"$SCX_BUILD/bench/top-gen" -c 512 -N 8 -l 8 -s 1 -r 20 -f binary >big.bin &&
	scx-top -b --no-config --mode num <big.bin >out &&
	grep -q "cpus 512  llcs 64  nodes 8" out &&
	test $(grep -c "^node [0-7]: 64 cpus" out) = 8 &&
	test $(grep -c "^ *[0-9][0-9]*  *[0-9][0-9]*  *[0-9.]*  " out) = 512 &&
	grep -q "^ 511  63 " out &&
	scx-top -b --no-config --mode num --view llc <big.bin >out &&
	test $(grep -c "^ *[0-9][0-9]*  *[0-7]  *[0-9.]*  " out) = 64
'

test_expect_success '512 cpus: raw events and scx-agg snapshots give the same frames' '
	"$SCX_BUILD/bench/top-gen" -c 512 -N 8 -l 8 -s 2 -r 20 >big.ndjson &&
	head -1 big.ndjson >big.topo &&
	# sorted by id: snapshot JSON rounds util to 6 digits, so near ties
	# in a sort by util may order differently
	for v in cpu llc node "proc --sort pid" "dsq --sort dsq"; do
		# (snapshots carry no scheduler name)
		scx-top -b --no-config --mode num --view $v <big.ndjson |
		sed "s/  sched scx_synth$//" >direct &&
		scx-agg -I 1s --by cpu,llc,node,tgid,pid,dsq <big.ndjson |
		scx-top -b --no-config --mode num --view $v --topology big.topo |
		sed "/^scx-top/s/  scx-agg  /  events  /" >snap &&
		# the JSON average slice is rounded: leave that column out
		# (and the average depth, for the same reason)
		case "$v" in proc*) cut -c1-102 direct >d2; cut -c1-102 snap >s2 ;;
		dsq*) cut -c1-56,64-80 direct >d2; cut -c1-56,64-80 snap >s2 ;;
		*) cp direct d2; cp snap s2 ;; esac &&
		test $(wc -l <d2) -gt 10 && test_cmp d2 s2 || exit 1
	done
'

test_expect_success 'events out of order across cpus are put back in order' '
	# top-small-ooo.ndjson: cpu 2 events flushed late, and the waking of
	# 102 (on cpu 3) after its switch-in on cpu 1, as scx-events staging does
	scx-top -b --no-config --mode num <"$TDATA/top-small-ooo.ndjson" >out &&
	test_cmp "$TDATA/top-small.cpu.txt" out &&
	scx-top -b --no-config --mode num --reorder 0 <"$TDATA/top-small-ooo.ndjson" >out &&
	grep -q "^   1   1   10.0      0       0        -        -        -    1.0" out
'

test_expect_success SHARED 'a Perfetto trace replayed through scx-perfetto' '
	trace=$SHARED/testdata/perfetto/upstream/cpu_idle_freq.pb &&
	test -x "$SCX_BUILD/scx-perfetto" || { echo "no scx-perfetto in this build"; exit 0; }
	scx-perfetto -i "$trace" | scx-top -b --no-config --mode num -n 1 >out &&
	grep -q "^   0   0    0.0 .*  1704      -$" out &&
	scx-perfetto -i "$trace" | scx-top -b --no-config --mode num -n 1 --view node >out &&
	grep -q "the input has no CPU topology" out
'

test_expect_success 'compressed input' '
	gzip -c "$in" >in.gz &&
	scx-top -b --no-config --mode num <in.gz >out &&
	test_cmp "$TDATA/top-small.cpu.txt" out
'

test_expect_success 'bad input: the file, line and problem, exit 1' '
	head -3 "$in" >bad && echo "{\"ts\":5,\"cpu\":0,\"type\":\"sched_switch\",\"prev_pid\":\"x\"}" >>bad &&
	test_exit_code 1 scx-top -b -i bad >out 2>err &&
	grep -q "^scx-top: bad: line 4: " err
'

test_expect_success 'usage errors exit 2' '
	test_exit_code 2 scx-top -b --view nope <"$in" 2>err && grep -q "unknown view" err &&
	test_exit_code 2 scx-top -b --sort nope <"$in" 2>err && grep -q "no column" err &&
	test_exit_code 2 scx-top -b -d 1ms <"$in" 2>err &&
	test_exit_code 2 scx-top -b extra <"$in" 2>err && grep -q "unexpected argument" err
'

test_expect_success 'a closed pipe downstream is a normal stop' '
	"$SCX_BUILD/bench/top-gen" -c 64 -N 2 -l 8 -s 5 -r 50 >mid.ndjson &&
	{ scx-top -b --no-config <mid.ndjson; echo $? >rc; } | head -1 >/dev/null &&
	test "$(cat rc)" = 0
'

test_done
