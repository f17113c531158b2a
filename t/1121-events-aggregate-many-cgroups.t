#!/bin/sh
# More cgroups than 2048 in scx-events --aggregate, on the live kernel:
# the programs bounded a cgroup slot by a mask of KAGG_MAX_CGROUPS - 1, and
# 10240 is no power of two, so slots 2048 and up folded onto lower ones (the
# one in slot 2048 went to "other", later ones took the ids of slots 1 and
# up); they compare now.  One process moves itself through NR fresh cgroups below
# CG2/scx-test-PID and sleeps a moment in each (a switch there); every one
# of them must be in the snapshots, under its own id, with switches, and
# none is "other".  The cgroups are removed on every exit path.  Needs
# root, BPF, a cgroup2 mount and perl.
. "$(dirname "$0")/lib.sh"
. "$SCX_SRC/t/lib-capture.sh"

NR=2200

cleanup_cgroups() {
	[ -s "$TRASH/capture.pids" ] && kill -INT $(cat "$TRASH/capture.pids") 2>/dev/null
	[ -d "$CG" ] || return 0
	# the mover has left them: rmdir is enough
	(cd "$CG" && rmdir $(seq -f c%g $NR) 2>/dev/null)
	remove_cgroups "$CG"
}
trap 'cleanup_cgroups; cd /; rm -rf "$TRASH"' EXIT
trap 'exit 1' INT TERM HUP

if [ -z "$CG2" ] || ! command -v perl >/dev/null; then
	test_skip 'more than 2048 cgroups in the aggregate mode' 'no cgroup2 mount or no perl'
	test_done
fi

test_expect_success BPF,JQ "live: $NR cgroups, each with a switch" '
	mkdir "$CG" &&
	(cd "$CG" && mkdir $(seq -f c%g $NR)) &&
	scx-events --aggregate -I 500ms -o k.ndjson 2>k.err &
	echo $! >"$TRASH/capture.pids"
	k=$!
	wait_header k.ndjson $k &&
	sleep 0.3 &&
	perl -e "
		my (\$cg, \$n) = @ARGV;
		for my \$i (1 .. \$n) {
			open(my \$f, \">\", \"\$cg/c\$i/cgroup.procs\") or die \"c\$i: \$!\";
			print \$f \"\$\$\\n\";
			close(\$f) or die \"c\$i: \$!\";
			select(undef, undef, undef, 0.0005);
		}
		open(my \$f, \">\", \"\$cg/cgroup.procs\") or die; print \$f \"\$\$\\n\"; close(\$f);
	" "$CG" $NR &&
	sleep 0.7 &&
	kill -INT $k && wait $k &&
	rm "$TRASH/capture.pids" &&
	grep -q "\"type\":\"trailer\"" k.ndjson
'

test_expect_success BPF,JQ 'live: every cgroup has its own id and its switches' '
	(cd "$CG" && stat -c %i $(seq -f c%g $NR)) | sort >want &&
	# the ids of the test'"'"'s cgroups with switches in any snapshot
	jq -r "select(.type == \"kernel_snapshot\") | .cgroups[]? |
		select(.switches > 0) | .cgroup" k.ndjson | sort -u >seen &&
	comm -12 want seen >both &&
	echo "$(wc -l <both) of $NR cgroups seen with switches" &&
	test_cmp want both &&
	# far from the 10239 slots: nothing is "other" (id 0)
	jq -r "select(.type == \"kernel_snapshot\") | .cgroups[]? | select(.cgroup == 0) |
		\"other: \(.switches) switches\"" k.ndjson >other &&
	test_line_count 0 other
'

test_done
