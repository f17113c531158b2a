#!/bin/sh
# The stream's header says whether its events are in time order ("order"
# in scx(7)), and scx-agg and scx-top sort, or not, as it says.
# t/data/top-small-ooo.ndjson holds the events of top-small.ndjson in time
# order per CPU only (cpu 2's flushed late, a waking after the switch-in it
# caused), from a producer that says nothing: it stands for all three cases.
. "$(dirname "$0")/lib.sh"
LANG=C
export LANG

ooo=$TDATA/top-small-ooo.ndjson
sorted=$TDATA/top-small.ndjson

# with_order ORDER PRODUCER <in >out: the stream with that header
with_order() {
	sed -e "1s/\"producer\":\"hand\"/\"producer\":\"$2\"/" \
		-e "1s/}\$/,\"order\":\"$1\"}/" -e '1s/,"order":"none"}$/}/'
}

out_of_order() {
	sed -n 's/.*"out_of_order":\([0-9]*\).*/\1/p' "$1" | head -n 1
}

test_expect_success 'scx-agg: a stream in order per cpu only ("cpu") is sorted from its start' '
	scx-agg -f ndjson -g all "$sorted" >want &&
	with_order cpu hand <"$ooo" >cpu.ndjson &&
	scx-agg -f ndjson -g all cpu.ndjson >got 2>err &&
	test_cmp want got &&
	test_cmp /dev/null err
'

test_expect_success 'scx-agg: an older stream without "order" is read as before' '
	# from another producer: as it comes, the late events counted
	scx-agg -f ndjson -g all "$ooo" >got &&
	test "$(out_of_order got)" -gt 0 &&
	# from scx-events: sorted from the first late event on
	with_order none scx-events <"$ooo" >old-events.ndjson &&
	scx-agg -f ndjson -g all old-events.ndjson >got2 &&
	test "$(out_of_order got2)" -lt "$(out_of_order got)" &&
	! grep "time order" got2
'

test_expect_success 'scx-agg: a stream that says "time" and is not is reported' '
	with_order time hand <"$ooo" >time.ndjson &&
	scx-agg -f ndjson -g all time.ndjson >got 2>err &&
	grep "time.ndjson: line 6: the header says the events are in time order, but this one is 300100000 ns older than one before it (5 events out of order); sorted within 100 ms from there" err &&
	# and sorted from there, as scx-events streams were
	scx-agg -f ndjson -g all old-events.ndjson >want &&
	test "$(out_of_order got)" = "$(out_of_order want)"
'

test_expect_success 'scx-agg: --reorder still decides, and "cpu" sorts from the start' '
	with_order cpu hand <"$ooo" >cpu.ndjson &&
	scx-agg -f ndjson -g all --reorder 0 cpu.ndjson >got &&
	test "$(out_of_order got)" -gt 0 &&
	scx-agg -f ndjson -g all --reorder 1s cpu.ndjson >got &&
	scx-agg -f ndjson -g all "$sorted" >want &&
	test_cmp want got
'

test_expect_success 'scx-agg: an in-order stream that says "time" is not reported' '
	with_order time hand <"$sorted" >ok.ndjson &&
	scx-agg -f ndjson -g all ok.ndjson >got 2>err &&
	test_cmp /dev/null err
'

test_expect_success 'scx-agg: an order this reader does not know promises nothing' '
	sed -e "1s/}\$/,\"order\":\"by-magic\"}/" "$ooo" >magic.ndjson &&
	scx-agg -f ndjson -g all magic.ndjson >got 2>err &&
	scx-agg -f ndjson -g all "$ooo" >want &&
	test_cmp want got &&
	test_cmp /dev/null err
'

test_expect_success 'scx-top: a "cpu" stream is sorted from its start, a broken "time" one reported' '
	with_order cpu hand <"$ooo" >cpu.ndjson &&
	scx-top -b --no-config --mode num <cpu.ndjson >out 2>err &&
	test_cmp "$TDATA/top-small.cpu.txt" out &&
	test_cmp /dev/null err &&
	with_order time hand <"$ooo" >time.ndjson &&
	scx-top -b --no-config --mode num <time.ndjson >out 2>err &&
	test_cmp "$TDATA/top-small.cpu.txt" out &&
	grep "line 6: the header says the events are in time order" err
'

test_expect_success 'scx-perfetto -i says its stream is in time order' '
	scx-perfetto -i "$TDATA/perfetto-handmade.pb" >ev.ndjson &&
	head -n 1 ev.ndjson | grep -q "\"order\":\"time\"}$"
'

test_done
