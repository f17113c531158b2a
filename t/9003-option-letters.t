#!/bin/sh
# One vocabulary of option letters for the suite: scx(7), OPTION LETTERS, says
# what each short option means and which programs use it under which long
# name, which letters scx-top keeps from top(1), and which old spellings
# still work.  Every program's option table (its --completion-helper output,
# the table getopt is built from) must agree with it, and every old spelling
# must work with a one-line note on stderr.
. "$(dirname "$0")/lib.sh"

page=$SCX_SRC/man/scx.7

# empty FILE: FILE has nothing in it, else show it and fail
empty() { test ! -s "$1" || { cat "$1"; return 1; }; }

# commands: one line per option table, "scx-agg" or "scx-prof record"
commands() {
	for t in $(cd "$SCX_SRC/cmd" && ls scx-*.c | sed 's/\.c$//'); do
		echo "$t"
		"$SCX_BUILD/$t" --completion-helper | awk -F'\t' -v t="$t" '$1 == "sub" { print t " " $2 }'
	done
}

# The section of scx.7 as four lists (tab-separated):
#   rows.lst     one letter per item of "Letters"
#   letters.lst  LETTER PROGRAM --LONG, PROGRAM "*" for "in every program"
#   conv.lst     LETTER PROGRAM --LONG of "Conventions of other commands"
#   old.lst      PROGRAM OLD --LONG of "Old spellings"
parse_page() {
	awk -v OFS='\t' '
	function long(s) { sub(/^\\-/, "--", s); return s }
	/^\.Sh / { in_sec = ($0 == ".Sh OPTION LETTERS"); next }
	!in_sec { next }
	/^\.Ss / { ss = substr($0, 5); next }
	ss == "Letters" && /^\.It Fl / { letter = $3; print letter >"rows.lst"; next }
	ss == "Letters" && $1 == ".Cm" {
		prog = $2
		for (i = 3; i <= NF && $i != "Fl"; i++)
			prog = prog " " $i
		print letter, prog, long($(i + 1)) >"letters.lst"
		next
	}
	ss == "Letters" && $1 == ".Fl" && $2 ~ /^\\-/ { every = long($2); next }
	ss == "Letters" && /^in every program/ { print letter, "*", every >"letters.lst"; next }
	ss ~ /^Conventions/ && /^\.It Fl / {
		split($0, f, / Ta /)
		n = split(f[2], w, " ")
		prog = w[2]
		for (i = 3; i < n - 1; i++)
			prog = prog " " w[i]
		print $3, prog, long(w[n]) >"conv.lst"
		next
	}
	ss == "Old spellings" && /^\.It Cm / {
		split($0, f, / Ta /)
		prog = f[1]
		sub(/^\.It Cm /, "", prog)
		n = split(f[3], w, " ")
		now = ""
		for (i = 1; i <= n; i++)
			if (w[i] ~ /^\\-/)
				now = long(w[i])
		n = split(f[2], w, " ")
		for (i = 1; i <= n; i++) {
			if (w[i - 1] != "Fl")
				continue
			print prog, (w[i] ~ /^\\-/ ? long(w[i]) : "-" w[i]), now >"old.lst"
		}
	}' "$page"
	touch rows.lst letters.lst conv.lst old.lst
}

# The option tables: used.lst (LETTER PROGRAM --LONG) and code-old.lst
# (PROGRAM OLD --LONG)
parse_code() {
	: >used.lst
	: >code-old.lst
	commands | while read -r t sub; do
		"$SCX_BUILD/$t" ${sub:+"$sub"} --completion-helper |
			awk -F'\t' -v OFS='\t' -v p="$t${sub:+ $sub}" '
			$1 == "opt" && $3 != "-" { sub(/=$/, "", $2); print $3, p, $2 >>"used.lst" }
			$1 == "old" { print p, $2, $3 >>"code-old.lst" }'
	done
	sed -i 's/^-//' used.lst
}

test_expect_success 'scx(7) has the letters, conventions and old spellings' '
	parse_page &&
	test "$(wc -l <rows.lst)" -ge 20 &&
	test "$(wc -l <letters.lst)" -ge 20 &&
	test_line_count 3 conv.lst &&
	test -s old.lst &&
	parse_code &&
	test "$(wc -l <used.lst)" -ge 40
'

test_expect_success 'each letter has one meaning in the table' '
	sort rows.lst | uniq -d >dup &&
	empty dup
'

test_expect_success 'every short option means what scx(7) says it means' '
	: >bad &&
	while IFS="	" read -r l p o; do
		grep -qxF "$l	$p	$o" letters.lst && continue
		grep -qxF "$l	*	$o" letters.lst && continue
		grep -qxF "$l	$p	$o" conv.lst && continue
		echo "$p: -$l is $o, which scx(7) does not give -$l" >>bad
	done <used.lst &&
	empty bad
'

test_expect_success 'scx(7) names no option a program does not have' '
	cat letters.lst conv.lst | grep -v "	\*	" | sort -u >listed &&
	sort -u used.lst >used.sorted &&
	comm -23 listed used.sorted >stale &&
	empty stale
'

test_expect_success 'a letter kept from another command is kept by one program only once' '
	cut -f1,2 conv.lst | sort | uniq -d >dup &&
	empty dup
'

test_expect_success 'the old spellings are the ones scx(7) lists' '
	sort old.lst >want &&
	sort code-old.lst >got &&
	test_cmp want got
'

test_expect_success 'no old spelling is a current letter of its program' '
	: >bad &&
	while IFS="	" read -r p old o; do
		case $old in --*) continue ;; esac
		l=${old#-}
		! grep -q "^$l	$p	" used.lst || echo "$p: old $old is a current option" >>bad
	done <code-old.lst &&
	empty bad
'

test_expect_success 'every old spelling works with a one-line note naming the new one' '
	: >bad &&
	while IFS="	" read -r p old o; do
		# any argument will do: the note comes before the argument is parsed
		timeout 20 $p "$old" x </dev/null >/dev/null 2>err
		prog=${p%% *}
		n=$(grep -c -e "^$prog: $old is now .*$o\b" err)
		test "$n" = 1 || { echo "$p $old x:"; cat err; } >>bad
	done <code-old.lst &&
	empty bad
'

test_expect_success 'scx-agg: -i and -b do what -I and -g do, noted once each' '
	scx-agg -f ndjson -I 1ms -g cpu -g all -r all "$TDATA/agg-basic.ndjson" >new 2>new.err &&
	scx-agg -f ndjson -i 1ms -b cpu -b all -r all "$TDATA/agg-basic.ndjson" >old 2>old.err &&
	test_cmp new old &&
	empty new.err &&
	cat >want <<-\EOF &&
	scx-agg: -i is now -I (--interval); the old spelling will go away
	scx-agg: -b is now -g (--by); the old spelling will go away
	EOF
	test_cmp want old.err
'

test_expect_success 'scx-events: -t and -b are --tgid and --ring-size' '
	test_exit_code 2 scx-events -t 0x 2>err &&
	grep -q "tgid" err &&
	test_exit_code 2 scx-events -b 3000 2>err &&
	grep -q "invalid ring size .3000.: a power of two" err &&
	grep -q "^scx-events: -b is now -m (--ring-size)" err
'

test_expect_success 'scx-top: -m and -c do what --mode and --config do' '
	printf "theme = forest\n" >my.conf &&
	scx-top -b -n 2 --mode num --config my.conf -i "$TDATA/top-small.ndjson" >new 2>new.err &&
	scx-top -b -n 2 -m num -c my.conf -i "$TDATA/top-small.ndjson" >old 2>old.err &&
	test_cmp new old &&
	empty new.err &&
	test_line_count 2 old.err
'

test_expect_success 'scx-mcp: -r is --root' '
	mkdir d &&
	init="{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}" &&
	load="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"load_perfetto_trace\",\"arguments\":{\"file_path\":\"/etc/hostname\"}}}" &&
	printf "%s\n%s\n" "$init" "$load" | timeout 20 scx-mcp --no-live -R "$PWD/d" >new 2>new.err &&
	printf "%s\n%s\n" "$init" "$load" | timeout 20 scx-mcp --no-live -r "$PWD/d" >old 2>old.err &&
	grep -q "outside the directories" new &&
	test_cmp new old &&
	grep -q "^scx-mcp: -r is now -R (--root)" old.err
'

test_expect_success 'scx-prof: -t and --timeout are --duration, -f and --file are --input' '
	test_exit_code 2 scx-prof record -t 0 2>err && grep -q "bad duration" err &&
	test_exit_code 2 scx-prof record --timeout 0 2>err && grep -q "bad duration" err &&
	E=$TDATA/prof-expected &&
	scx-prof extract -i "$E/small.perf.jsonl" >new 2>new.err &&
	scx-prof extract -f "$E/small.perf.jsonl" >old 2>old.err &&
	scx-prof extract --file "$E/small.perf.jsonl" >old2 2>old2.err &&
	test_cmp new old &&
	test_cmp new old2 &&
	grep -q "^scx-prof: -f is now -i (--input)" old.err &&
	grep -q "^scx-prof: --file is now -i (--input)" old2.err
'

test_done
