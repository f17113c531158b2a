#!/bin/sh
# Bad input: an error naming the file and the byte offset, exit 1, every event
# before the damage still written; never a crash.
. "$(dirname "$0")/lib.sh"

D=$TDATA
count() { grep -c "\"type\":\"$1\"" "$2" || true; }

test_expect_success 'setup: a trace of one event per packet' '
	scx-perfetto -i "$D/perfetto-handmade.pb" >ev.ndjson &&
	scx-perfetto --no-compact --bundle-events=1 -o one.pb <ev.ndjson &&
	scx-perfetto -i one.pb >all.ndjson &&
	test "$(count sched_switch all.ndjson)" = 6
'

test_expect_success 'truncated trace: events before the cut, then an error with the offset' '
	size=$(wc -c <one.pb) &&
	head -c $((size - 5)) one.pb >cut.pb &&
	test_exit_code 1 scx-perfetto -i cut.pb >cut.ndjson 2>err &&
	grep -q "^scx-perfetto: cut.pb: byte [0-9][0-9]*: truncated or malformed trace packet$" err &&
	off=$(sed -n "s/.*: byte \([0-9]*\):.*/\1/p" err) &&
	test "$off" -lt "$size" && test "$off" -gt $((size - 200)) &&
	n=$(grep -c "^{\"ts\"" cut.ndjson) &&
	test "$n" -ge 27 &&
	! grep -q "\"type\":\"trailer\"" cut.ndjson
'

test_expect_success 'the offset is where the last good packet ends' '
	off=$(sed -n "s/.*: byte \([0-9]*\):.*/\1/p" err) &&
	head -c $off one.pb >good.pb &&
	scx-perfetto -i good.pb >good.ndjson &&
	grep "^{\"ts\"" good.ndjson >a && grep "^{\"ts\"" cut.ndjson >b &&
	test_cmp a b
'

test_expect_success ZSTD 'truncated zstd file: what decompressed is read, then an error' '
	scx-perfetto --bundle-events=1 -o big.pb <ev.ndjson &&
	zstd -q -19 -c big.pb >big.pb.zst &&
	size=$(wc -c <big.pb.zst) &&
	head -c $((size - 3)) big.pb.zst >bad.zst &&
	test_exit_code 1 scx-perfetto -i bad.zst >z.ndjson 2>zerr &&
	grep -q "^scx-perfetto: bad.zst: byte [0-9]*: .*zstd stream" zerr
'

test_expect_success GZIP 'corrupt gzip file: an error, not a crash' '
	gzip -c one.pb >one.pb.gz &&
	size=$(wc -c <one.pb.gz) &&
	head -c $((size / 2)) one.pb.gz >half.gz &&
	test_exit_code 1 scx-perfetto -i half.gz >/dev/null 2>gerr &&
	grep -q "^scx-perfetto: half.gz: byte [0-9]*: .*gzip stream" gerr
'

test_expect_success 'corrupt compressed_packets: an error at the packet' '
	scx-perfetto --deflate -o d.pb <ev.ndjson &&
	size=$(wc -c <d.pb) &&
	# flip bytes inside the deflate stream of the last packet
	head -c $((size - 40)) d.pb >d2.pb &&
	printf "\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377" >>d2.pb &&
	tail -c 24 d.pb >>d2.pb &&
	test "$(wc -c <d2.pb)" = "$size" &&
	test_exit_code 1 scx-perfetto -i d2.pb >/dev/null 2>derr &&
	grep -q "^scx-perfetto: d2.pb: byte [0-9]*: .*compressed_packets" derr
'

test_expect_success 'garbage and event streams are not traces' '
	printf "\012\377\377\377\377\017junk" >junk.pb &&
	test_exit_code 1 scx-perfetto -i junk.pb >/dev/null 2>e1 &&
	grep -q "^scx-perfetto: junk.pb: byte 0: " e1 &&
	test_exit_code 1 scx-perfetto -i ev.ndjson >/dev/null 2>e2 &&
	grep -q "byte 0: not a Perfetto trace" e2
'

test_expect_success 'a missing file, an empty file' '
	test_exit_code 1 scx-perfetto -i nope.pb 2>e3 &&
	grep -q "^scx-perfetto: cannot read .nope.pb.: No such file or directory$" e3 &&
	: >empty.pb &&
	scx-perfetto -i empty.pb >e.ndjson &&
	test "$(grep -c "^{\"ts\"" e.ndjson)" = 0
'

test_expect_success 'unknown packets and fields are skipped' '
	# a packet with an unknown field 999 and a Trace field 2, then the real trace
	printf "\012\003\270\076\005\022\001\000" >u.pb &&
	cat "$D/perfetto-handmade.pb" >>u.pb &&
	scx-perfetto -i u.pb >u.ndjson &&
	grep "^{\"ts\"" u.ndjson >got &&
	test_cmp "$D/perfetto-handmade.events" got
'

test_expect_success 'a bad event stream names its line' '
	head -n 3 ev.ndjson >bad.ndjson &&
	echo "{\"ts\":" >>bad.ndjson &&
	test_exit_code 1 scx-perfetto -o w.pb bad.ndjson 2>we &&
	grep -q "line 4" we &&
	scx-perfetto -i w.pb >w.ndjson &&
	test "$(grep -c "^{\"ts\"" w.ndjson)" = 2
'

test_expect_success 'a closed pipe downstream is a normal stop' '
	scx-perfetto -i "$D/perfetto-handmade.pb" | head -n 1 >/dev/null
'

test_expect_success 'every byte-prefix of a trace: events or an error, never a crash' '
	size=$(wc -c <"$D/perfetto-handmade.deflate.pb") &&
	i=0 &&
	while [ $i -lt $size ]; do
		head -c $i "$D/perfetto-handmade.deflate.pb" >p.pb
		rc=0
		scx-perfetto -i p.pb >/dev/null 2>/dev/null || rc=$?
		[ $rc -le 1 ] || { echo "prefix $i: exit $rc"; exit 1; }
		i=$((i + 7))
	done
'

test_done
