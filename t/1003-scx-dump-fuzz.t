#!/bin/sh
# The sched_ext debug dump parser's fuzz target (t/fuzz/scx-dump.c) replays
# its seed corpus: a dump from the test VM, a later kernel's, broken lines.
. "$(dirname "$0")/lib.sh"

test_expect_success 'fuzz scx-dump: corpus replays' '
	n=$(ls "$SCX_SRC/t/fuzz/corpus/scx-dump" | wc -l) &&
	test $n -ge 3 &&
	"$SCX_BUILD/fuzz/scx-dump" "$SCX_SRC/t/fuzz/corpus/scx-dump" >out &&
	grep -qx "$n inputs replayed" out
'

test_done
