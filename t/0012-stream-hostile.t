#!/bin/sh
# The stream reader on hostile input: a concatenated capture whose header
# has a version this reader does not know, zstd that starts with a skippable
# frame (pzstd, seekable zstd), a trailer whose lost array is too long.
. "$(dirname "$0")/lib.sh"

bin=$SCX_SRC/t/fuzz/corpus/stream/binary

test_expect_success 'a concatenated binary capture with an unknown version is refused' '
	size=$(wc -c <"$bin") &&
	{ cat "$bin"; head -c 8 "$bin"; printf "\143\000\000\000"; tail -c +13 "$bin"; } >cat99.bin &&
	test_exit_code 1 scx-agg cat99.bin >/dev/null 2>err &&
	grep -q "cat99.bin: byte $((size + 8)): unsupported version 99" err &&
	{ cat "$bin" "$bin"; } >cat1.bin &&
	scx-agg cat1.bin >/dev/null
'

test_expect_success ZSTD 'zstd starting with a skippable frame is read as zstd' '
	{ printf "P*M\030\004\000\000\000abcd"; zstd -q -c "$TDATA/agg-basic.ndjson"; } >skip.zst &&
	scx-agg skip.zst >got &&
	scx-agg "$TDATA/agg-basic.ndjson" >want &&
	test_cmp want got
'

test_expect_success 'a trailer listing more cpus than the limit is refused' '
	head -n -1 "$TDATA/agg-basic.ndjson" >long.ndjson &&
	printf "{\"type\":\"trailer\",\"counts\":{},\"lost\":[%s0],\"lost_total\":0,\"end_ns\":0}\n" \
		"$(yes 0, | head -n 16384 | tr -d "\n")" >>long.ndjson &&
	test_exit_code 1 scx-agg long.ndjson >/dev/null 2>err &&
	grep -q "trailer: \"lost\" lists more cpus than the limit" err
'

test_done
