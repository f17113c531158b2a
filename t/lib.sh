# t/lib.sh: a small TAP helper for scx-tools' shell tests, in the spirit of
# git's t/test-lib.sh.  Source it, call test_expect_success, end with test_done.
#
#   test_expect_success [PREREQ,...] 'title' 'body'
#   test_expect_failure ...           a known bug: TODO, does not fail the run
#   test_skip 'title' 'reason'
#   test_cmp expected actual          diff -u, fails on difference
#   test_must_fail cmd...             exit 1..125 (not a crash or signal)
#   test_have_prereq NAME             ROOT BPF SCHED_EXT PERF NODE TMUX PROTOC ZSTD JQ
#                                     PROMTOOL PROMETHEUS (server, node_exporter, curl)
#
# Each test script runs in its own temporary directory ($TRASH), removed at
# the end; the build is in $SCX_BUILD, the source in $SCX_SRC, shared data in
# $SHARED (../shared from the source tree).

set -u
SCX_SRC=${SCX_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
SCX_BUILD=${SCX_BUILD:-$SCX_SRC/.output}
SHARED=${SHARED:-$(cd "$SCX_SRC/.." && pwd)/shared}
TDATA=$SCX_SRC/t/data
PATH=$SCX_BUILD:$PATH
export SCX_SRC SCX_BUILD SHARED TDATA PATH
unset NO_COLOR SCX_PROF_PERF SCXPROF_PERF

TRASH=$(mktemp -d "${TMPDIR:-/tmp}/scx-test.XXXXXX")
HOME=$TRASH/home
XDG_CONFIG_HOME=$HOME/.config
mkdir -p "$HOME"
export HOME XDG_CONFIG_HOME
trap 'cd /; rm -rf "$TRASH"' EXIT
cd "$TRASH" || exit 1

test_count=0
test_failed=0
_prereq_cache=" "

say() { printf '# %s\n' "$*"; }

_probe_prereq() {
	case "$1" in
	ROOT) [ "$(id -u)" = 0 ] ;;
	BPF)
		[ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] || return 1
		[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
		[ -d /sys/kernel/tracing/events/sched ] ;;
	SCHED_EXT) [ -d /sys/kernel/sched_ext ] ;;
	!SCHED_EXT) [ ! -d /sys/kernel/sched_ext ] ;;
	PERF) command -v perf >/dev/null && perf stat -e sched:sched_switch -a true >/dev/null 2>&1 ;;
	NODE) command -v node >/dev/null && command -v npm >/dev/null ;;
	TMUX) command -v tmux >/dev/null ;;
	PROTOC) command -v protoc >/dev/null ;;
	ZSTD) command -v zstd >/dev/null ;;
	JQ) command -v jq >/dev/null ;;
	TIME) [ -x /usr/bin/time ] ;;	# GNU time, for peak RSS (%M)
	GZIP) command -v gzip >/dev/null ;;
	SANITIZE) [ "${SCX_SANITIZE:-0}" = 1 ] ;;
	!SANITIZE) [ "${SCX_SANITIZE:-0}" != 1 ] ;;
	SHARED) [ -d "$SHARED/testdata" ] ;;
	PROMTOOL) command -v promtool >/dev/null ;;
	PROMETHEUS) command -v prometheus >/dev/null && command -v curl >/dev/null &&
		command -v prometheus-node-exporter >/dev/null ;;
	*) echo "lib.sh: unknown prereq $1" >&2; return 1 ;;
	esac
}

test_have_prereq() {
	_ok=0
	_old_ifs=$IFS; IFS=,
	for _p in $1; do
		case "$_prereq_cache" in
		*" +$_p "*) ;;
		*" -$_p "*) _ok=1 ;;
		*) if (_probe_prereq "$_p"); then _prereq_cache="$_prereq_cache+$_p "
		   else _prereq_cache="$_prereq_cache-$_p "; _ok=1; _missing=$_p; fi ;;
		esac
	done
	IFS=$_old_ifs
	case "$_prereq_cache" in *" -"*) ;; esac
	[ $_ok = 0 ]
}

_missing_prereq() {
	_old_ifs=$IFS; IFS=,
	for _p in $1; do
		case "$_prereq_cache" in *" -$_p "*) IFS=$_old_ifs; echo "$_p"; return ;; esac
	done
	IFS=$_old_ifs
}

_run_test() {
	# $1 = todo flag, then [prereq] title body
	_todo=$1; shift
	_prereq=
	if [ $# = 3 ]; then _prereq=$1; shift; fi
	test_count=$((test_count + 1))
	if [ -n "$_prereq" ] && ! test_have_prereq "$_prereq"; then
		echo "ok $test_count # SKIP $1 (missing $(_missing_prereq "$_prereq"))"
		return 0
	fi
	_out=$TRASH/.test-$test_count.log
	( cd "$TRASH" && eval "set -e; $2" ) >"$_out" 2>&1 </dev/null
	_rc=$?
	if [ $_rc = 0 ]; then
		echo "ok $test_count - $1${_todo:+ # TODO known breakage fixed}"
	else
		echo "not ok $test_count - $1${_todo:+ # TODO known breakage}"
		# on stderr too, so a plain (not verbose) prove run, as in make
		# check and CI, shows why it failed
		echo "# ${0##*/} test $test_count failed: $1" >&2
		sed -e 's/^/#  /' "$_out" | tail -n 40 | tee /dev/stderr
		[ -n "$_todo" ] || test_failed=$((test_failed + 1))
	fi
}

test_expect_success() { _run_test "" "$@"; }
test_expect_failure() { _run_test todo "$@"; }

test_skip() {
	test_count=$((test_count + 1))
	echo "ok $test_count # SKIP $1 ($2)"
}

test_cmp() { diff -u "$1" "$2"; }

test_must_fail() {
	"$@"
	_rc=$?
	if [ $_rc = 0 ]; then echo "test_must_fail: '$*' succeeded" >&2; return 1; fi
	if [ $_rc -gt 125 ]; then echo "test_must_fail: '$*' died (exit $_rc)" >&2; return 1; fi
	return 0
}

# test_exit_code N cmd...: cmd exits exactly N
test_exit_code() {
	_want=$1; shift
	"$@"
	_rc=$?
	[ $_rc = "$_want" ] || { echo "expected exit $_want from '$*', got $_rc" >&2; return 1; }
}

# test_line_count N FILE: FILE has exactly N lines (shown when it has not)
test_line_count() {
	[ "$(wc -l <"$2")" -eq "$1" ] || { echo "$2: $(wc -l <"$2") lines, want $1"; cat "$2"; return 1; }
}

test_grep() {
	grep "$@" || { echo "test_grep: no match for '$*'" >&2; return 1; }
}

test_done() {
	echo "1..$test_count"
	[ $test_failed = 0 ]
}
