#!/bin/sh
# lib/ is layered: a subsystem includes only its own headers and those of the
# subsystems below it, and no other subsystem's private header (*-int.h,
# *_int.h).  The order (lib/README.md explains it):
#
#   core <- json <- stream <- {capture, agg, perfetto} <- {top, mcp}
#   prof <- core, json
. "$(dirname "$0")/lib.sh"

allowed() {
	case $1 in
	core) echo "core" ;;
	json) echo "core json" ;;
	stream) echo "core json stream" ;;
	capture | agg | perfetto) echo "core json stream $1" ;;
	top) echo "core json stream agg top" ;;
	mcp) echo "core json stream capture agg perfetto mcp" ;;
	prof) echo "core json prof" ;;
	esac
}

# bad_includes ROOT: each include in ROOT/lib that breaks the layer order
bad_includes() {
	(cd "$1" && for f in lib/*/*.[ch]; do
		s=$(echo "$f" | cut -d/ -f2)
		ok=" $(allowed "$s") "
		sed -n "s|^#[[:space:]]*include \"\\([a-z]*\\)/.*|\\1|p" "$f" | while read -r dep; do
			case "$ok" in *" $dep "*) ;; *) echo "$f includes $dep/" ;; esac
		done
	done)
}

test_expect_success 'every lib/ folder is a known subsystem' '
	for d in "$SCX_SRC"/lib/*/; do
		s=$(basename "$d")
		test -n "$(allowed "$s")" || { echo "lib/$s: not in the layer table"; exit 1; }
	done
'

test_expect_success 'no source file lies in lib/ outside a subsystem folder' '
	{ ls "$SCX_SRC"/lib/*.[ch] 2>/dev/null || true; } >stray &&
	test_cmp /dev/null stray
'

test_expect_success 'each subsystem includes only the layers below it' '
	bad_includes "$SCX_SRC" >bad &&
	test_cmp /dev/null bad
'

test_expect_success 'private headers stay inside their subsystem' '
	cd "$SCX_SRC" &&
	grep -Hn "^#[[:space:]]*include \"[a-z]*/[a-z_-]*[-_]int\\.h\"" lib/*/*.[ch] cmd/*.c |
	while IFS=: read -r f line inc; do
		s=$(echo "$f" | cut -d/ -f2)
		case "$inc" in *"\"$s/"*) ;; *) echo "$f:$line: $inc" ;; esac
	done >"$TRASH/bad" &&
	test_cmp /dev/null "$TRASH/bad"
'

test_expect_success 'the check finds an upward include' '
	mkdir -p fake/lib/core fake/lib/json &&
	printf "#include \"core/util.h\"\n" >fake/lib/json/json.c &&
	printf "#include \"agg/agg.h\"\n" >fake/lib/core/util.c &&
	bad_includes fake >bad &&
	echo "lib/core/util.c includes agg/" >expect &&
	test_cmp expect bad
'

test_done
