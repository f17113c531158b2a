#!/bin/sh
# scx-top's fuzz targets (t/fuzz/top-conf.c: the config parser; top-input.c:
# scx-agg snapshot lines rendered in every view, and keystrokes; top-stream.c:
# a whole stream through the input layer) replay their seed corpora; the
# targets abort on a broken invariant.
. "$(dirname "$0")/lib.sh"

for t in top-conf top-input top-stream; do
	test_expect_success "fuzz $t: corpus replays" "
		n=\$(ls '$SCX_SRC/t/fuzz/corpus/$t' | wc -l) &&
		test \$n -ge 3 &&
		'$SCX_BUILD/fuzz/$t' '$SCX_SRC/t/fuzz/corpus/$t' >out &&
		grep -qx \"\$n inputs replayed\" out
	"
done

test_done
