#!/bin/sh
# A plain trace file named on the command line is mapped, not read (the
# reader's CPU time on large traces: bench/diff.sh); stdin, pipes and
# compressed files are read as before.  Every way in gives the same events
# and the same errors, at the same byte.
. "$(dirname "$0")/lib.sh"

D=$TDATA

test_expect_success 'a file, stdin, a pipe and a FIFO give the same events' '
	for t in perfetto-handmade perfetto-compact perfetto-trackevent perfetto-synth_1; do
		scx-perfetto -i "$D/$t.pb" >file.out &&
		scx-perfetto -i - <"$D/$t.pb" >stdin.out &&
		cat "$D/$t.pb" | scx-perfetto -i - >pipe.out &&
		rm -f fifo && mkfifo fifo &&
		{ cat "$D/$t.pb" >fifo & } &&
		scx-perfetto -i fifo >fifo.out &&
		wait &&
		test_cmp file.out stdin.out &&
		test_cmp file.out pipe.out &&
		test_cmp file.out fifo.out || return 1
	done
'

test_expect_success 'the statistics are the same mapped and read' '
	scx-perfetto -i "$D/perfetto-handmade.pb" --stat >file.stat &&
	scx-perfetto -i - --stat <"$D/perfetto-handmade.pb" >stdin.stat &&
	sed "s|$D/perfetto-handmade.pb|<stdin>|" file.stat >file.norm &&
	test_cmp file.norm stdin.stat &&
	grep -q "compression.*none" file.stat
'

test_expect_success 'an empty file is an empty trace, mapped or not' '
	: >empty.pb &&
	scx-perfetto -i empty.pb >file.out &&
	scx-perfetto -i - <empty.pb >stdin.out &&
	test_cmp file.out stdin.out &&
	grep -q "\"type\":\"trailer\",\"counts\":{}" file.out
'

test_expect_success 'a cut trace: the same error at the same byte' '
	head -c 100 "$D/perfetto-compact.pb" >cut.pb &&
	test_exit_code 1 scx-perfetto -i cut.pb >/dev/null 2>file.err &&
	test_exit_code 1 scx-perfetto -i - <cut.pb >/dev/null 2>stdin.err &&
	test_grep "scx-perfetto: cut.pb: byte 41: truncated or malformed trace packet" file.err &&
	sed "s|cut.pb|<stdin>|" file.err >file.norm &&
	test_cmp file.norm stdin.err
'

test_expect_success 'a file larger than the limit is refused before it is mapped' '
	head -c 2097152 /dev/zero >big.pb &&
	test_exit_code 1 scx-perfetto -m 1M -i big.pb >/dev/null 2>err &&
	test_grep "big.pb: holds more than the reader.s memory limit of 1048576 bytes" err
'

test_done
