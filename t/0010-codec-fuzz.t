#!/bin/sh
# The codec fuzz targets (t/fuzz/{stream,json,topo}.c) replay their seed
# corpora: every input decodes or fails cleanly, and every decoded event
# re-encodes to the same event (the targets abort otherwise).
. "$(dirname "$0")/lib.sh"

for t in stream json topo; do
	test_expect_success "fuzz $t: corpus replays" "
		n=\$(ls '$SCX_SRC/t/fuzz/corpus/$t' | wc -l) &&
		test \$n -ge 3 &&
		'$SCX_BUILD/fuzz/$t' '$SCX_SRC/t/fuzz/corpus/$t' >out &&
		grep -qx \"\$n inputs replayed\" out
	"
done

test_done
