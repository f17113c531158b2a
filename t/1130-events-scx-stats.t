#!/bin/sh
# sched_ext's sysfs counters as scx_stats records (scx(7)): the parser's fuzz
# target replays its corpus; on a kernel without sched_ext scx-events writes
# no such record and says nothing more than its one note.  The records of a
# live scheduler are checked in the sched_ext VM (t/vm/0500-scx-stats.t).
. "$(dirname "$0")/lib.sh"

test_expect_success 'fuzz scx-stats: corpus replays' '
	n=$(ls "$SCX_SRC/t/fuzz/corpus/scx-stats" | wc -l) &&
	test $n -ge 3 &&
	"$SCX_BUILD/fuzz/scx-stats" "$SCX_SRC/t/fuzz/corpus/scx-stats" >out &&
	grep -qx "$n inputs replayed" out
'


test_expect_success BPF,!SCHED_EXT 'no sched_ext: no scx_stats records, one note' '
	scx-events -d 1500ms -e sched,scx >s.ndjson 2>err &&
	! grep -q "\"type\":\"scx_stats\"" s.ndjson &&
	test "$(grep -c sched_ext err)" = 1
'

test_expect_success BPF,!SCHED_EXT 'no sched_ext: none in --aggregate either' '
	scx-events --aggregate -I 500ms -d 1200ms >a.ndjson 2>err &&
	grep -q kernel_snapshot a.ndjson &&
	! grep -q scx_stats a.ndjson
'

test_done
