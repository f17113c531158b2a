#!/bin/sh
# make install puts every tool, man page and completion under DESTDIR/prefix.
. "$(dirname "$0")/lib.sh"

test_expect_success 'make install DESTDIR= prefix=' '
	make -s -C "$SCX_SRC" O="$SCX_BUILD" install DESTDIR="$TRASH/inst" prefix=/usr >/dev/null &&
	for c in "$SCX_SRC"/cmd/scx-*.c; do
		t=$(basename "$c" .c) &&
		test -x "$TRASH/inst/usr/bin/$t" &&
		test -f "$TRASH/inst/usr/share/man/man1/$t.1" &&
		test -f "$TRASH/inst/usr/share/bash-completion/completions/$t" &&
		test -f "$TRASH/inst/usr/share/zsh/vendor-completions/_$t" &&
		test -f "$TRASH/inst/usr/share/fish/vendor_completions.d/$t.fish" ||
		{ echo "$t not installed completely"; exit 1; }
	done &&
	test -f "$TRASH/inst/usr/share/man/man7/scx.7" &&
	"$TRASH/inst/usr/bin/scx-agg" --version | grep -q "^scx-agg "
'

test_done
