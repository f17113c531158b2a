#!/bin/sh
# scx-prof process: golden output for the real fixture (made by the original
# tool's own code, pid/tid corrected), archives, perf variants, hints, errors.
. "$(dirname "$0")/lib.sh"

E=$TDATA/prof-expected
small() { rm -rf "$1" "$1.out" && cp -r "$TDATA/prof-small" "$1" && chmod -R u+w "$1"; }

test_expect_success 'process: stdout, perf.jsonl and perf.script match the fixture' '
	small small &&
	scx-prof process -i small >out 2>err &&
	test_cmp "$E/small.process.stdout" out &&
	test_cmp "$E/small.perf.jsonl" small.out/perf.jsonl &&
	cmp small/perf.script small.out/perf.script &&
	test ! -s err
'

test_expect_success 'process: pid is the first number, tid the second' '
	grep -F "\"comm\":\"batch-w2\",\"tid\":30304,\"pid\":30290," small.out/perf.jsonl >/dev/null
'

test_expect_success 'process -v: the reason for every skipped line' '
	small small && scx-prof process -v -i small >out 2>err &&
	test_cmp "$E/small.process.v.stderr" err
'

test_expect_success 'process: an existing output directory is an error' '
	test_exit_code 1 scx-prof process -i small 2>err &&
	grep -F "output directory '\''small.out'\'' already exists" err
'

test_expect_success 'process: a .tar.gz made by tar is unpacked next to it' '
	small prof && mkdir sub && tar czf sub/prof.tar.gz prof && rm -rf prof &&
	scx-prof process -i sub/prof.tar.gz >out 2>err &&
	test -f sub/prof/perf.script && test ! -e prof &&
	test_cmp "$E/small.perf.jsonl" sub/prof.out/perf.jsonl &&
	grep -F "Parsed 92 of 128 records (36 skipped, 0 unparseable)" out
'

test_expect_success 'process: the archive top directory follows the archive name' '
	small other && tar czf renamed.tar.gz other && rm -rf other &&
	scx-prof process -i renamed.tar.gz >out &&
	test -f renamed/perf.script && test ! -e other &&
	test_cmp "$E/small.perf.jsonl" renamed.out/perf.jsonl
'

test_expect_success 'process: hostile archives are refused and leave nothing' '
	mkdir -p a/b && echo x >a/b/f && (cd a/b && tar czPf ../../dotdot.tar.gz ../b/f) &&
	test_exit_code 1 scx-prof process -i dotdot.tar.gz 2>err &&
	grep -F "refusing entry" err && test ! -e dotdot &&
	mkdir link && ln -s /etc/passwd link/perf.script && tar czf link.tar.gz link && rm -rf link &&
	test_exit_code 1 scx-prof process -i link.tar.gz 2>err &&
	grep -F "only files and directories" err && test ! -e link
'

test_expect_success 'process: corrupt and non-archive inputs' '
	printf "not gzip" >junk.tar.gz &&
	test_exit_code 1 scx-prof process -i junk.tar.gz 2>err && grep -F "junk.tar.gz" err &&
	echo x >plain.txt &&
	test_exit_code 1 scx-prof process -i plain.txt 2>err &&
	grep -F "is not a directory or .tar.gz archive" err &&
	test_exit_code 1 scx-prof process -i missing 2>err && grep -F "No such file" err &&
	test_exit_code 2 scx-prof process 2>err && grep -F "no profile given" err
'

test_expect_success 'process: page-fault lines (data sym before the cgroup)' '
	mkdir pf && cp "$TDATA/prof-variants/perf.script.page-faults" pf/perf.script &&
	scx-prof process -i pf >out &&
	grep -F "Parsed 4 of 8 records (4 skipped, 0 unparseable)" out &&
	test_cmp "$TDATA/prof-variants/perf.script.page-faults.jsonl" pf.out/perf.jsonl
'

test_expect_success 'process: perf 6.1 output without cgroup is rejected, not misparsed' '
	mkdir p61 && cp "$TDATA/prof-variants/perf61.script.no-cgroup" p61/perf.script &&
	test_exit_code 1 scx-prof process -i p61 >out 2>err &&
	grep -F "line 1 has no cgroup field" err && grep -F "perf >= 6.3" err &&
	test ! -e p61.out
'

test_expect_success 'process: empty perf.script' '
	mkdir empty && : >empty/perf.script &&
	scx-prof process -i empty >out &&
	grep -Fx "Parsed 0 of 0 records (0 skipped, 0 unparseable)" out &&
	test ! -s empty.out/perf.jsonl
'

test_expect_success 'process: unparseable and blank lines' '
	mkdir bad && {
		echo "garbage line"
		echo
		echo "   "
		echo "  app   1/2     3.0:     1000 /cg 4000 f (d) 2000 4K"
		printf "  app   1/3     3.1:     1000 /cg 4000 f (d) 2001 4K"
	} >bad/perf.script &&
	scx-prof process -v -i bad >out 2>err &&
	grep -Fx "Parsed 2 of 3 records (0 skipped, 1 unparseable)" out &&
	grep -Fx "unparseable (no PID/TID and time fields): garbage line" err &&
	test_line_count 2 bad.out/perf.jsonl &&
	grep -F "\"tid\":3," bad.out/perf.jsonl
'

test_expect_success 'process: the latest hint of the sample thread is attached' '
	mkdir h && cat >h/perf.script <<-\EOT &&
	      appworker1   30289/30295     788.451250:     7e0000000000 /w.slice     556b4d1da2c9 worker (/x)       161db4000 4K
	      appworker1   30289/30295     788.451000:     7e0000000000 /w.slice     556b4d1da2c9 worker (/x)       161db4000 4K
	      appworker2   30289/30296     788.451250:     7e0000000000 /w.slice     556b4d1da2c9 worker (/x)       161db4000 4K
	EOT
	cat >h/hints.jsonl <<-\EOT &&
	{"pid":30295,"tgid":30289,"hints":7,"timestamp":788451250001}
	{"pid":30295,"tgid":30289,"hints":5,"timestamp":788450000000}
	{"pid":30295,"tgid":30289,"hints":6,"timestamp":788451250000}
	EOT
	scx-prof process -i h >out &&
	sed -n 1p h.out/perf.jsonl | grep -F "\"data_page_size\":4096,\"hint\":6}" &&
	sed -n 2p h.out/perf.jsonl | grep -F "\"data_page_size\":4096,\"hint\":5}" &&
	sed -n 3p h.out/perf.jsonl | grep -F "\"data_page_size\":4096}"
'

test_expect_success 'process: a bad hints.jsonl names file and line' '
	mkdir hb && cp "$TDATA/prof-small/perf.script" hb/ &&
	printf "{\"pid\":1,\"tgid\":1,\"hints\":1,\"timestamp\":1}\n{\"pid\":1}\n" >hb/hints.jsonl &&
	test_exit_code 1 scx-prof process -i hb 2>err &&
	grep -F "hb/hints.jsonl:2:" err && test ! -e hb.out
'

test_expect_success 'process: perf.script is generated from perf.data when missing' '
	mkdir gen && echo PERFDATA >gen/perf.data &&
	SCX_PROF_PERF=$TDATA/prof-fake-perf FAKE_PERF_SCRIPT=$TDATA/prof-small/perf.script \
		FAKE_PERF_LOG=$PWD/log scx-prof process -i gen >out &&
	grep -Fx "Generating perf.script from perf.data..." out &&
	grep -Fx "script -F comm,tid,pid,time,cgroup,ip,addr,phys_addr,data_page_size,dso,sym -i gen/perf.data" log &&
	test_cmp "$E/small.perf.jsonl" gen.out/perf.jsonl
'

test_expect_success 'process: perf script failing is reported with its message' '
	mkdir gf && echo PERFDATA >gf/perf.data &&
	SCX_PROF_PERF=$TDATA/prof-fake-perf FAKE_PERF_MODE=script-fail \
		test_exit_code 1 scx-prof process -i gf >out 2>err &&
	grep -F "perf script failed (exit 129): Error: Invalid field requested." err &&
	test ! -e gf/perf.script && test ! -e gf.out &&
	mkdir nodata && test_exit_code 1 scx-prof process -i nodata 2>err &&
	grep -F "neither perf.script nor perf.data" err
'

test_expect_success 'process: an interrupt removes the partial output and says so' '
	mkdir ff && mkfifo ff/perf.script || exit 1
	scx-prof process -i ff >out 2>err &
	pid=$! &&
	exec 3>ff/perf.script &&
	n=0 && while ! grep -q "^Parsing" out && [ $n -lt 100 ]; do sleep 0.05; n=$((n+1)); done &&
	sleep 0.2 && kill -INT $pid &&
	rc=0 && { wait $pid || rc=$?; } && exec 3>&- && test $rc = 1 &&
	grep -F "interrupted: partial output '\''ff.out'\'' removed" err &&
	test ! -e ff.out
'

test_expect_success 'fuzz targets replay their corpora' '
	for f in "$SCX_BUILD"/fuzz/prof-*; do
		test -x "$f" || continue
		n=${f##*/}
		"$f" "$SCX_SRC/t/fuzz/corpus/$n" >/dev/null || { echo "$n failed"; exit 1; }
	done
'

test_done
