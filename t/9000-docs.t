#!/bin/sh
# Every tool's --help, man page and shell completions agree with its option
# table (the --completion-helper output that getopt itself is built from).
. "$(dirname "$0")/lib.sh"

tools=$(cd "$SCX_SRC/cmd" && ls scx-*.c 2>/dev/null | sed 's/\.c$//')

# options TOOL [SUB]: the long options the code accepts
options() {
	"$SCX_BUILD/$1" ${2:+"$2"} --completion-helper | awk -F'\t' '$1 == "opt" { sub(/=$/, "", $2); print $2 }'
}
subcommands() {
	"$SCX_BUILD/$1" --completion-helper | awk -F'\t' '$1 == "sub" { print $2 }'
}
render_man() {
	MANWIDTH=250 man -l -P cat "$1" 2>/dev/null | col -bx
}

for t in $tools; do
	test_expect_success "$t: built" "test -x '$SCX_BUILD/$t'"

	test_expect_success "$t: --help lists every option" '
		for s in "" $(subcommands '$t'); do
			'$t' $s --help >help.txt
			for o in $(options '$t' $s); do
				grep -q -e "$o\([=, ]\|$\)" help.txt || { echo "$t $s --help lacks $o"; exit 1; }
			done
		done
	'

	test_expect_success "$t: man page documents every option and no other" '
		page=$(ls "$SCX_SRC"/man/'$t'.[1-8] | head -n 1)
		test -n "$page"
		render_man "$page" >man.txt
		test -s man.txt
		: > code.lst
		for s in "" $(subcommands '$t'); do options '$t' $s >>code.lst; done
		sort -u code.lst -o code.lst
		for o in $(cat code.lst); do
			grep -q -e "$o\b" man.txt || { echo "man page lacks $o"; exit 1; }
		done
		# options described in OPTIONS sections (indented "-x, --long" items) must exist
		awk "/^[A-Z][A-Z ]*\$/ { sec = \$0 } sec ~ /OPTIONS/ && /^ +-/" man.txt |
			grep -o -e "--[a-z0-9][a-z0-9-]*" | sort -u >documented.lst
		comm -23 documented.lst code.lst >extra.lst
		test ! -s extra.lst || { echo "man page documents unknown options:"; cat extra.lst; exit 1; }
	'

	test_expect_success "$t: completions are generated from the option table" '
		"$SCX_SRC/scripts/gen-completions.sh" "$SCX_BUILD" '$t' gen &&
		test_cmp gen/bash/'$t' "$SCX_SRC/completions/bash/'$t'" &&
		test_cmp gen/zsh/_'$t' "$SCX_SRC/completions/zsh/_'$t'" &&
		test_cmp gen/fish/'$t'.fish "$SCX_SRC/completions/fish/'$t'.fish"
	'

	test_expect_success "$t: bash completion loads and completes options" '
		bash -c ". \"$SCX_SRC/completions/bash/'$t'\"; complete -p '$t'" | grep -q _scx
	'

	test_expect_success "$t: -V and a bad option" '
		'$t' -V | grep -q "^'$t' " &&
		test_exit_code 2 '$t' --no-such-option-here 2>err &&
		grep -q "unknown option" err
	'
done

# scx-agg's reports come from one table (lib/agg/agg_reports.c); -r's
# completion words are that table, so compare the man page and --help to them
reports() {
	"$SCX_BUILD/scx-agg" --completion-helper |
		awk -F'\t' '$1 == "opt" && $2 == "--report=" { print $4 }' | tr ' ' '\n' | grep -v '^all$'
}

test_expect_success 'scx-agg: the man page describes exactly the reports of the report table' '
	reports | sort >table.lst &&
	test $(wc -l <table.lst) -ge 20 &&
	awk "/^\.Sh / { in_sec = (\$2 == \"REPORTS\") } in_sec && /^\.It / { sub(/^\.It /, \"\"); print }" \
		"$SCX_SRC/man/scx-agg.1" | tr -d , | tr " " "\n" | grep . | sort >man.lst &&
	test_cmp table.lst man.lst
'

test_expect_success 'scx-agg: --help lists every report once, within 80 columns' '
	scx-agg --help >help.txt &&
	for r in $(reports) all; do
		test $(grep -c "^  $r  " help.txt) = 1 || { echo "--help lists $r $(grep -c "^  $r  " help.txt) times"; exit 1; }
	done &&
	! grep "^  [a-z][a-z-]*  " help.txt | grep ".\{81\}"
'

test_done
