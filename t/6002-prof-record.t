#!/bin/sh
# scx-prof record with a fake perf (t/data/prof-fake-perf through
# SCX_PROF_PERF): the exact perf argv, timeout, archive layout (listed by the
# system tar), --no-archive, --perf-script, interrupt, perf failures.
. "$(dirname "$0")/lib.sh"

FAKE=$TDATA/prof-fake-perf
export FAKE_PERF_LOG=$TRASH/perf.log

test_expect_success 'record: runs the exact perf mem record command and stops it at the timeout' '
	: >"$FAKE_PERF_LOG" &&
	SCX_PROF_PERF=$FAKE scx-prof record -d 300ms -o prof >out 2>err &&
	cat >expect <<-\EOT &&
	version
	mem record --all-cgroups --phys-data --data-page-size --ldlat 10 -o prof/perf.data
	got INT
	EOT
	test_cmp expect "$FAKE_PERF_LOG" &&
	grep -Fx "Profile: prof.tar.gz" out &&
	grep -F "[ perf record: Captured and wrote" err
'

test_expect_success 'record: archive layout, read back by tar' '
	test ! -e prof &&
	tar tzf prof.tar.gz >list &&
	printf "prof/\nprof/perf.data\nprof/perf.version\n" >expect &&
	test_cmp expect list &&
	mkdir x && tar xzf prof.tar.gz -C x &&
	echo "perf version 6.12.95" >expect && test_cmp expect x/prof/perf.version &&
	echo PERFDATA >expect && test_cmp expect x/prof/perf.data
'

test_expect_success 'record: -l and an output path with directories' '
	: >"$FAKE_PERF_LOG" &&
	SCX_PROF_PERF=$FAKE scx-prof record -d 200ms -l 30 -o runs/a/p >out &&
	grep -Fx "mem record --all-cgroups --phys-data --data-page-size --ldlat 30 -o runs/a/p/perf.data" "$FAKE_PERF_LOG" &&
	tar tzf runs/a/p.tar.gz >list && grep -Fx "p/perf.data" list
'

test_expect_success 'record: SCXPROF_PERF is honoured, SCX_PROF_PERF wins' '
	: >"$FAKE_PERF_LOG" &&
	SCXPROF_PERF=$FAKE scx-prof record -d 100ms -o old --no-archive >out &&
	grep -Fx version "$FAKE_PERF_LOG" &&
	SCX_PROF_PERF=$FAKE SCXPROF_PERF=/nonexistent scx-prof record -d 100ms -o both --no-archive >out &&
	test -f both/perf.data
'

test_expect_success 'record --no-archive keeps the directory' '
	SCX_PROF_PERF=$FAKE scx-prof record -d 100ms -o keep --no-archive >out &&
	test -f keep/perf.data && test -f keep/perf.version && test ! -e keep.tar.gz &&
	grep -Fx "Profile: keep" out
'

test_expect_success 'record --perf-script adds perf.script to the archive' '
	: >"$FAKE_PERF_LOG" &&
	SCX_PROF_PERF=$FAKE FAKE_PERF_SCRIPT=$TDATA/prof-small/perf.script \
		scx-prof record -d 100ms -o ps --perf-script >out &&
	grep -Fx "Generating perf.script..." out &&
	grep -Fx "script -F comm,tid,pid,time,cgroup,ip,addr,phys_addr,data_page_size,dso,sym -i ps/perf.data" "$FAKE_PERF_LOG" &&
	tar tzf ps.tar.gz >list && grep -Fx ps/perf.script list &&
	mkdir y && tar xzf ps.tar.gz -C y && cmp y/ps/perf.script "$TDATA/prof-small/perf.script"
'

test_expect_success 'record -> process -> extract on the archive' '
	scx-prof process -i ps.tar.gz >out &&
	grep -F "Parsed 92 of 128 records (36 skipped, 0 unparseable)" out &&
	scx-prof extract -i ps.out/perf.jsonl >cells.json &&
	test_cmp "$TDATA/prof-expected/small.extract.mitosis-merged.json" cells.json
'

test_expect_success 'record: a failing perf script is a warning, not a failure' '
	SCX_PROF_PERF=$FAKE FAKE_PERF_MODE=script-fail \
		scx-prof record -d 100ms -o psf --perf-script --no-archive >out 2>err &&
	grep -F "warning: failed to generate perf.script: perf script failed (exit 129): Error: Invalid field requested." err &&
	test ! -e psf/perf.script && test -f psf/perf.data
'

test_expect_success 'record: an existing output directory or archive is an error' '
	mkdir exists && echo keep >exists/f &&
	SCX_PROF_PERF=$FAKE test_exit_code 1 scx-prof record -d 100ms -o exists 2>err &&
	grep -F "output directory '\''exists'\'' already exists" err &&
	test -f exists/f &&
	SCX_PROF_PERF=$FAKE test_exit_code 1 scx-prof record -d 100ms -o prof 2>err &&
	grep -F "archive '\''prof.tar.gz'\'' already exists" err
'

test_expect_success 'record: perf failing (no PEBS/IBS) is reported with its own message' '
	SCX_PROF_PERF=$FAKE FAKE_PERF_MODE=nopebs test_exit_code 1 scx-prof record -d 5 -o nope 2>err &&
	grep -F "perf failed (exit 255): failed: memory events not supported" err &&
	test ! -e nope && test ! -e nope.tar.gz
'

test_expect_success 'record: perf version failing, perf missing' '
	SCX_PROF_PERF=$FAKE FAKE_PERF_MODE=version-fail test_exit_code 1 scx-prof record -o v 2>err &&
	grep -F "version'\'' failed (exit 3): perf: broken" err && test ! -e v &&
	SCX_PROF_PERF=/nonexistent/perf test_exit_code 1 scx-prof record -o m 2>err &&
	grep -F "cannot run '\''/nonexistent/perf'\'': No such file or directory" err && test ! -e m
'

test_expect_success 'record: an interrupt stops perf, removes the partial output and says so' '
	: >"$FAKE_PERF_LOG" &&
	SCX_PROF_PERF=$FAKE scx-prof record -d 60 -o intr >out 2>err &
	pid=$! &&
	n=0 && while [ ! -f intr/perf.data ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n+1)); done &&
	test -f intr/perf.data &&
	kill -INT $pid &&
	rc=0 && { wait $pid || rc=$?; } && test $rc = 1 &&
	grep -F "interrupted: perf stopped, partial output '\''intr'\'' removed" err &&
	grep -Fx "got INT" "$FAKE_PERF_LOG" &&
	test ! -e intr && test ! -e intr.tar.gz
'

test_expect_success 'record: SIGTERM is an interrupt too' '
	SCX_PROF_PERF=$FAKE scx-prof record -d 60 -o term --no-archive >out 2>err &
	pid=$! &&
	n=0 && while [ ! -f term/perf.data ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n+1)); done &&
	kill -TERM $pid &&
	rc=0 && { wait $pid || rc=$?; } && test $rc = 1 &&
	grep -F "interrupted" err && test ! -e term
'

test_expect_success 'record: bad options' '
	test_exit_code 2 scx-prof record --hints-ring-mb 3 2>err &&
	grep -F "power of two" err &&
	test_exit_code 2 scx-prof record -d 0 2>err && grep -F "bad duration" err &&
	test_exit_code 2 scx-prof record -l x 2>err && grep -F "bad ldlat" err &&
	SCX_PROF_PERF=$FAKE test_exit_code 1 scx-prof record -d 100ms -o hm --hints-map /nonexistent/map 2>err &&
	grep -F "cannot open pinned map '\''/nonexistent/map'\''" err && test ! -e hm
'

if command -v perf >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	test_expect_success 'record with the real perf: a recording, or perf'\''s own refusal' '
		rc=0 && perf mem record --all-cgroups --phys-data --data-page-size --ldlat 10 \
			-o probe.data -- true >/dev/null 2>probe.err || rc=$?
		if [ $rc = 0 ]; then
			scx-prof record -d 1 -o real >out 2>err &&
			tar tzf real.tar.gz >list && grep -Fx real/perf.data list
		else
			# no PEBS/IBS here: scx-prof must pass on perf'\''s words
			msg=$(grep -v "^$" probe.err | tail -n 1) &&
			test_exit_code 1 scx-prof record -d 1 -o real >out 2>err &&
			grep -F "perf failed (exit $rc): $msg" err &&
			test ! -e real && test ! -e real.tar.gz
		fi
	'
else
	test_skip 'record with the real perf' 'no perf, or not root'
fi

test_done
