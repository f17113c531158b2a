#!/bin/sh
# The BPF-record decoder's fuzz target (t/fuzz/events-decode.c) replays its
# seed corpus: records laid out as bpf/events.bpf.c writes them, one per
# file and a staged chunk of several.
. "$(dirname "$0")/lib.sh"

test_expect_success 'fuzz events-decode: corpus replays' '
	n=$(ls "$SCX_SRC/t/fuzz/corpus/events-decode" | wc -l) &&
	test $n -ge 3 &&
	"$SCX_BUILD/fuzz/events-decode" "$SCX_SRC/t/fuzz/corpus/events-decode" >out &&
	grep -qx "$n inputs replayed" out
'

test_done
