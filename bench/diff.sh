#!/bin/sh
# CPU time of scx-agg diff of two copies of the 45 MB wprof sched-view capture
# (issue #16's target: < 2 s), user and sys apart, this build against
# BASE=DIR (another build) in the same run: runs alternate, base first, REPS
# of each, so both see the same load.  Prints every run and the range of
# each, and the minor page faults.  Writes bench/results/diff.md.
#
#   REPS=5 BASE=/tmp/build-before sh bench/diff.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$here/..
SCX_BUILD=${SCX_BUILD:-$src/.output}
SHARED=${SHARED:-$src/../shared}
REPS=${REPS:-5}
BASE=${BASE:-}
out=$here/results/diff.md
trace=$SHARED/testdata/perfetto/wprof-schedview.pb.zst
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scx-bench-diff.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -x "$SCX_BUILD/scx-agg" ] || { echo "diff: build first (make)" >&2; exit 1; }
[ -r "$trace" ] || { echo "diff: not run: $trace missing" >&2; exit 0; }

zstd -q -dc "$trace" >"$tmp/a.pb"
cp "$tmp/a.pb" "$tmp/b.pb"
sz=$(du -m "$tmp/a.pb" | cut -f1)
builds="$SCX_BUILD"
[ -z "$BASE" ] || builds="$BASE $SCX_BUILD"
load0=$(cut -d" " -f1 /proc/loadavg)

# one run: "user sys faults" appended to $tmp/<name>.<input>
run() {
	/usr/bin/time -f "%U %S %R" -o "$tmp/t" "$1/scx-agg" diff -f ndjson "$2" "$3" >/dev/null
	cat "$tmp/t" >>"$tmp/$4"
}
for _ in $(seq "$REPS"); do
	i=0
	for b in $builds; do
		i=$((i + 1))
		run "$b" "$tmp/a.pb" "$tmp/b.pb" "$i.pb"
		run "$b" "$trace" "$trace" "$i.zst"
	done
done
load1=$(cut -d" " -f1 /proc/loadavg)

# range NAME: "user a-b, sys a-b, user+sys a-b, faults a-b"
range() {
	awk '{ u[NR] = $1; s[NR] = $2; t[NR] = $1 + $2; f[NR] = $3 }
	function mm(a, n,   i, lo, hi) {
		lo = hi = a[1]
		for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
		return sprintf("%.2f-%.2f", lo, hi)
	}
	END { printf "| %s s | %s s | **%s s** | %s |", mm(u, NR), mm(s, NR), mm(t, NR), mm(f, NR) }' \
		"$tmp/$1" | sed 's/\.00-\([0-9]*\)\.00 |$/-\1 |/'
}
rows=
i=0
for b in $builds; do
	i=$((i + 1))
	name=this
	[ -z "$BASE" ] || [ "$i" = 2 ] || name=base
	rows="$rows| $name | .pb $(range "$i.pb")
| $name | .pb.zst $(range "$i.zst")
"
done

cat >"$out" <<EOM
# scx-agg diff of two 45 MB wprof captures

Measured by bench/diff.sh on $(uname -r), $(nproc) CPUs shared with other jobs: scx-agg diff -f
ndjson of two copies of the ${sz} MB wprof sched view (.pb, and the same from the .pb.zst file),
$REPS runs of each build, alternating (load average $load0 at the start, $load1 at the end).
Ranges over the runs; target: < 2 s CPU.

| build | input | user | sys | user+sys | minor faults |
|---|---|---|---|---|---|
$rows
Every run (user sys faults):

$(for f in "$tmp"/*.pb "$tmp"/*.zst; do
	case $f in */a.pb | */b.pb) continue ;; esac
	printf '    %s: %s\n' "$(basename "$f")" "$(tr '\n' ';' <"$f")"
done)
EOM
cat "$out"
