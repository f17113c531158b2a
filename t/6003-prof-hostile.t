#!/bin/sh
# scx-prof record with a perf that misbehaves (t/data/prof-fake-perf modes):
# deaf to SIGINT, a child holding its stderr, exiting at once without data.
. "$(dirname "$0")/lib.sh"

FAKE=$TDATA/prof-fake-perf
export FAKE_PERF_LOG=$TRASH/perf.log

test_expect_success 'a perf deaf to SIGINT is killed 30 s after the timeout' '
	: >"$FAKE_PERF_LOG" &&
	test_exit_code 1 env SCX_PROF_PERF=$FAKE FAKE_PERF_MODE=deaf \
		timeout 60 scx-prof record -t 200ms -o deaf >out 2>err &&
	grep -Fx "got INT" "$FAKE_PERF_LOG" &&
	grep -q "perf failed (killed by signal 9)" err &&
	test ! -e deaf && test ! -e deaf.tar.gz
'

test_expect_success 'a child of perf holding its stderr does not keep scx-prof waiting' '
	env SCX_PROF_PERF=$FAKE FAKE_PERF_MODE=held \
		timeout 20 scx-prof record -t 200ms -o held >out 2>err &&
	grep -Fx "Profile: held.tar.gz" out
'

test_expect_success 'a perf that exits 0 at once without data is a failure' '
	test_exit_code 1 env SCX_PROF_PERF=$FAKE FAKE_PERF_MODE=nodata \
		timeout 20 scx-prof record -t 5 -o nodata >out 2>err &&
	grep -q "perf exited (exit 0) without recording anything" err &&
	! grep -q "Profile:" out && test ! -e nodata.tar.gz
'

test_done
