#!/bin/sh
# scx-prof extract: golden configs in both shapes and the -vv summary for the
# real fixture, then hand-made inputs whose answers follow from the rules.
. "$(dirname "$0")/lib.sh"

E=$TDATA/prof-expected
RE='workload-tw-[^/]+\\.allotment\\.slice'
A0=/workload.slice/workload-tw-1.0.allotment.slice
A1=/workload.slice/workload-tw-2.1.allotment.slice
WL=/workload.slice/agent.service

# rec COMM CGROUP [N]: N perf.jsonl records
rec() {
	_r=0
	while [ $_r -lt "${3:-1}" ]; do
		printf '{"comm":"%s","tid":1,"pid":1,"time":"1.0","addr":"1","cgroup":"%s","ip":"1","sym":"s","dso":"d","phys_addr":"1","data_page_size":4096}\n' "$1" "$2"
		_r=$((_r + 1))
	done
}
compact() { tr -d ' \n' <"$1"; echo; }

test_expect_success 'extract: default config is the merged mitosis fixture' '
	scx-prof extract -i "$E/small.perf.jsonl" >out 2>err &&
	test_cmp "$E/small.extract.mitosis-merged.json" out && test ! -s err
'

test_expect_success 'extract --format pr: the original pull request output' '
	scx-prof extract --format pr -i "$E/small.perf.jsonl" >out 2>err &&
	test_cmp "$E/small.extract.pr.json" out &&
	grep -F "does not accept the pr format" err
'

test_expect_success 'extract -vv and -v: per-group summary on stderr' '
	scx-prof extract -vv -i "$E/small.perf.jsonl" >out 2>err &&
	test_cmp "$E/small.extract.vv.stderr" err &&
	test_cmp "$E/small.extract.mitosis-merged.json" out &&
	scx-prof extract -v -i "$E/small.perf.jsonl" >out 2>err &&
	test_cmp "$E/small.extract.vv.stderr" err
'

test_expect_success 'extract: stdin' '
	scx-prof extract -i - <"$E/small.perf.jsonl" >out &&
	test_cmp "$E/small.extract.mitosis-merged.json" out
'

test_expect_success 'extract: exactly 5% is not significant, just above is' '
	{ rec a $A0 1; rec b $A0 19; } >five.jsonl &&
	scx-prof extract -i five.jsonl >out &&
	printf "%s\n" "[{\"name\":\"allotment\",\"matches\":{\"CgroupRegex\":\"$RE\"},\"subcells\":[{\"name\":\"b\",\"matches\":[[{\"CommPrefix\":\"b\"}]]},{\"name\":\"rest\",\"matches\":[[]]}]},{\"name\":\"rest\",\"matches\":{}}]" >expect &&
	compact out >got && test_cmp expect got &&
	{ rec a $A0 2; rec b $A1 37; } >above.jsonl &&
	scx-prof extract -i above.jsonl >out &&
	printf "%s\n" "[{\"name\":\"allotment\",\"matches\":{\"CgroupRegex\":\"$RE\"},\"subcells\":[{\"name\":\"a\",\"matches\":[[{\"CommPrefix\":\"a\"}]]},{\"name\":\"b\",\"matches\":[[{\"CommPrefix\":\"b\"}]]},{\"name\":\"rest\",\"matches\":[[]]}]},{\"name\":\"rest\",\"matches\":{}}]" >expect &&
	compact out >got && test_cmp expect got
'

test_expect_success 'extract: no allotment samples' '
	{ rec agent $WL 3; rec sshd /system.slice/ssh.service 2; } >noallot.jsonl &&
	scx-prof extract -i noallot.jsonl >out &&
	printf "%s\n" "[{\"name\":\"workload.slice\",\"matches\":{\"CgroupContains\":\"workload.slice\"}},{\"name\":\"rest\",\"matches\":{}}]" >expect &&
	compact out >got && test_cmp expect got &&
	scx-prof extract --format pr -i noallot.jsonl >out 2>/dev/null &&
	printf "%s\n" "[{\"name\":\"workload.slice\",\"matches\":[[{\"CgroupContains\":\"workload.slice\"}]]},{\"name\":\"rest\",\"matches\":[[]]}]" >expect &&
	compact out >got && test_cmp expect got
'

test_expect_success 'extract: allotment samples without a significant comm get no subcells' '
	{ i=0; while [ $i -lt 25 ]; do rec "c$i" $A0; rec "x$i" $A0; i=$((i+1)); done; } >flat.jsonl &&
	scx-prof extract --format pr -i flat.jsonl >out 2>/dev/null &&
	printf "%s\n" "[{\"name\":\"allotment\",\"match\":{\"CgroupRegex\":\"$RE\"}}]" >expect &&
	compact out >got && test_cmp expect got
'

test_expect_success 'extract: empty input' '
	: >empty.jsonl &&
	scx-prof extract -v -i empty.jsonl >out 2>err &&
	printf "%s\n" "[]" >expect && test_cmp expect out &&
	echo "Total samples: 0" >expect && test_cmp expect err &&
	scx-prof extract --format pr -i empty.jsonl >out &&
	printf "%s\n" "[]" >expect && test_cmp expect out
'

test_expect_success 'extract: comms with spaces stay whole, :PID comms are not subcells' '
	{ rec "io worker" $A0 10; rec ":4242" $A0 10; rec x $A0 10; } >sp.jsonl &&
	scx-prof extract -i sp.jsonl >out &&
	grep -F "\"CommPrefix\": \"io worker\"" out &&
	! grep -F ":4242" out &&
	scx-prof extract --format pr -i sp.jsonl >out 2>/dev/null &&
	grep -F "\"CommPrefix\": \":4242\"" out
'

test_expect_success 'extract: trailing digits merge; a single member keeps its comm' '
	{ rec w1 $A0 10; rec w2 $A1 10; rec net-7 $A0 10; rec w $A0 10; } >merge.jsonl &&
	scx-prof extract -i merge.jsonl >out &&
	printf "%s\n" "[{\"name\":\"allotment\",\"matches\":{\"CgroupRegex\":\"$RE\"},\"subcells\":[{\"name\":\"net-\",\"matches\":[[{\"CommPrefix\":\"net-7\"}]]},{\"name\":\"w\",\"matches\":[[{\"CommPrefix\":\"w\"}]]},{\"name\":\"rest\",\"matches\":[[]]}]},{\"name\":\"rest\",\"matches\":{}}]" >expect &&
	compact out >got && test_cmp expect got
'

test_expect_success 'extract: a CommPrefix keeps whole UTF-8 characters, at most 15 bytes' '
	# "caf\303\251" is valid UTF-8; \377 is not; 14 bytes then a 2-byte character
	{ rec "abcdefghijklmnopq" $A0 10; rec "$(printf "caf\303\251\377x")" $A0 10
	  rec "$(printf "\377bad")" $A0 10; rec "$(printf "12345678901234\303\251")" $A1 10; } >utf.jsonl &&
	scx-prof extract -i utf.jsonl >out 2>err &&
	grep -F "\"CommPrefix\": \"abcdefghijklmno\"" out &&
	grep -F "\"CommPrefix\": \"$(printf "caf\303\251")\"" out &&
	grep -F "\"CommPrefix\": \"12345678901234\"" out &&
	test $(grep -c "\"CommPrefix\"" out) = 3 &&
	grep -F "is not valid UTF-8 after byte 5: its subcell matches the first 5 bytes" err &&
	test $(grep -c "is not valid UTF-8 after" err) = 1 &&
	grep -F "does not start with valid UTF-8: no subcell for it" err
'

test_expect_success 'extract: more than 7 groups are capped to 8 subcells with a warning' '
	{ n=19; for c in a b c d e f g h i j; do rec $c $A0 $n; n=$((n-1)); done; } >many.jsonl &&
	scx-prof extract -i many.jsonl >out 2>err &&
	grep -F "10 comm groups are above 5% of the allotment samples but scx_mitosis allows 8 subcells: folding into rest: h i j" err &&
	test $(grep -c "\"CommPrefix\"" out) = 7 &&
	for c in a b c d e f g; do grep -F "\"CommPrefix\": \"$c\"" out >/dev/null || exit 1; done &&
	scx-prof extract --format pr -i many.jsonl >out 2>err &&
	test $(grep -c "\"CommPrefix\"" out) = 10 &&
	grep -F "too many subcells: 11 > 8" err
'

test_expect_success 'extract --threshold' '
	{ rec a $A0 51; rec b $A0 49; } >th.jsonl &&
	scx-prof extract --threshold 50 -i th.jsonl >out &&
	grep -F "\"CommPrefix\": \"a\"" out && ! grep -F "\"CommPrefix\": \"b\"" out &&
	scx-prof extract --threshold 51 -i th.jsonl >out &&
	! grep -F "CommPrefix" out &&
	test_exit_code 2 scx-prof extract --threshold x -i th.jsonl 2>err &&
	test_exit_code 2 scx-prof extract --threshold 100 -i th.jsonl 2>err &&
	grep -F "bad threshold" err
'

test_expect_success 'extract: --workload-cgroup is a substring, --allotment-cgroup-regex an ERE' '
	{ rec a /apps.slice/team-A.pool 6; rec b /apps.slice/team-B.pool 4; rec c /apps.slice/x.service 2; rec d / 1; } >cg.jsonl &&
	scx-prof extract -vv --workload-cgroup apps.slice --allotment-cgroup-regex "team-[A-Z]\.pool" -i cg.jsonl >out 2>err &&
	cat >expect <<-\EOT &&
	Total samples: 13

	team-A.pool: 6 samples (46.15%)
	  a: 6 (100.00%)

	team-B.pool: 4 samples (30.77%)
	  b: 4 (100.00%)

	apps.slice: 2 samples (15.38%)
	  c: 2 (100.00%)

	rest: 1 samples (7.69%)
	  d: 1 (100.00%)
	EOT
	test_cmp expect err &&
	printf "%s\n" "[{\"name\":\"allotment\",\"matches\":{\"CgroupRegex\":\"team-[A-Z]\\\\.pool\"},\"subcells\":[{\"name\":\"a\",\"matches\":[[{\"CommPrefix\":\"a\"}]]},{\"name\":\"b\",\"matches\":[[{\"CommPrefix\":\"b\"}]]},{\"name\":\"rest\",\"matches\":[[]]}]},{\"name\":\"apps.slice\",\"matches\":{\"CgroupContains\":\"apps.slice\"}},{\"name\":\"rest\",\"matches\":{}}]" >expect &&
	compact out >got && test_cmp expect got &&
	test_exit_code 2 scx-prof extract --allotment-cgroup-regex "(" -i cg.jsonl 2>err &&
	grep -F "bad allotment regex" err
'

test_expect_success 'extract -v: small comms are summarised, ties ordered by name' '
	{ rec big / 200; rec tiny / 1; rec zed $WL 2; rec abc $WL 2; } >v.jsonl &&
	scx-prof extract -v -i v.jsonl >out 2>err &&
	cat >expect <<-\EOT &&
	Total samples: 205

	workload.slice: 4 samples (1.95%)
	  abc: 2 (50.00%)
	  zed: 2 (50.00%)

	rest: 201 samples (98.05%)
	  big: 200 (99.50%)
	  ... 1 more below 1%
	EOT
	test_cmp expect err &&
	scx-prof extract -vv -i v.jsonl >out 2>err &&
	grep -Fx "  tiny: 1 (0.50%)" err
'

test_expect_success 'extract: a bad record is fatal and names line and byte' '
	{ rec a /; echo "{\"comm\":\"a\"}"; } >bad.jsonl &&
	test_exit_code 1 scx-prof extract -i bad.jsonl >out 2>err &&
	grep -F "bad.jsonl: line 2, byte 1: failed to parse record: missing key" err &&
	{ rec a /; echo "{\"comm\":\"a\",\"tid\":x}"; } >bad2.jsonl &&
	test_exit_code 1 scx-prof extract -i bad2.jsonl 2>err &&
	grep -F "line 2, byte 19: failed to parse record: expected a value" err &&
	{ rec a /; echo; rec a /; } >blank.jsonl &&
	test_exit_code 1 scx-prof extract -i blank.jsonl 2>err &&
	grep -F "line 2, byte 1: failed to parse record: empty line" err &&
	test_exit_code 1 scx-prof extract -i nosuch.jsonl 2>err && grep -F "No such file" err &&
	test_exit_code 2 scx-prof extract --format yaml -i bad.jsonl 2>err &&
	test_exit_code 2 scx-prof extract 2>err &&
	grep -F "no input given" err
'

test_expect_success 'record, process and extract chain through a pipe-free workflow' '
	cp -r "$TDATA/prof-small" chain && chmod -R u+w chain &&
	scx-prof process -i chain >/dev/null && scx-prof extract -i chain.out/perf.jsonl >cells.json &&
	test_cmp "$E/small.extract.mitosis-merged.json" cells.json
'

test_done
