#!/bin/sh
# format-check.sh [--fix] [FILE]...: the C files that clang-format, with the
# tree's .clang-format, would change, one line each with how many of its lines
# would change, then a total; exit 1 if there is any (make format-check).
# --fix formats them in place instead (make format).  Without FILEs: every
# *.c and *.h that git tracks.  $CLANG_FORMAT picks the binary
# (default clang-format-19, the version .clang-format is written for).
set -eu
cd "$(dirname "$0")/.."
cf=${CLANG_FORMAT:-clang-format-19}
if ! command -v "$cf" >/dev/null; then
	echo "format-check: no $cf (scripts/deps.sh --format installs it)" >&2
	exit 2
fi
fix=0
if [ "${1:-}" = --fix ]; then
	fix=1
	shift
fi
[ $# -gt 0 ] || set -- $(git ls-files '*.c' '*.h')

out=$(mktemp)
trap 'rm -f "$out"' EXIT
nfiles=0 nlines=0
for f; do
	"$cf" --style=file:"$PWD/.clang-format" "$f" >"$out"
	cmp -s "$f" "$out" && continue
	# lines of the file that the formatted version does not keep as they are
	n=$(diff -U0 "$f" "$out" | grep -c '^-[^-]' || true)
	nfiles=$((nfiles + 1))
	nlines=$((nlines + n))
	if [ $fix = 1 ]; then
		cat "$out" >"$f"
	else
		echo "$f: $n lines"
	fi
done
if [ $fix = 1 ]; then
	echo "format: formatted $nfiles files ($nlines lines changed)"
	exit 0
fi
echo "format-check: $nfiles of $# files not formatted ($nlines lines would change)"
[ $nfiles = 0 ]
