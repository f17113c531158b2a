#!/bin/sh
# make bench: run every bench/*.sh (or those named in BENCH="events agg").
# Each prints its own table; figures are written up in bench/RESULTS.md.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export SCX_BUILD=${SCX_BUILD:-$here/../.output}
rc=0
for f in "$here"/*.sh; do
	n=$(basename "$f" .sh)
	case $n in run | lib-*) continue ;; esac # this runner, sourced helpers
	if [ -n "${BENCH:-}" ]; then
		case " $BENCH " in *" $n "*) ;; *) continue ;; esac
	fi
	echo "== bench/$n.sh"
	sh "$f" || { echo "bench/$n.sh failed" >&2; rc=1; }
done
exit $rc
