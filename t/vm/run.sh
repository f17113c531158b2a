#!/bin/sh
# Boot the sched_ext test kernel under QEMU and run the guest tests against
# the tools in $SCX_BUILD; `make check-scx` calls this.
#
#   t/vm/run.sh              t/vm/*.t in one boot, then each t/vm/alone/*.t
#                            in a boot of its own
#   t/vm/run.sh TEST.t...    the tests given, in one boot
#
# The tests under t/vm/alone/ (the watchdog stalls) are the first thing to
# load a scheduler in their kernel: guests hung after a stall that followed
# other scheduler runs, see t/vm/extra/lib-stall-after-runs.sh.
#
# The guest is 4 CPUs in 2 sockets (one LLC each) and 2 NUMA nodes, TCG (no
# KVM needed, a host thread per vCPU), the host's root file system read-only
# over virtio-9p, init t/vm/init.sh.  Its TAP comes back on the serial
# console and in the output share.  This fails, saying why, when the kernel
# cannot be built or booted, when a test says `not ok` (but for a known
# breakage, `not ok ... # TODO`), when the kernel panics or oopses, and when
# a guest does not finish within its bound: $SCX_VM_TIMEOUT seconds (default
# 2400) for the boot of t/vm/*.t or of the tests given, $SCX_VM_ALONE_TIMEOUT
# (default 600) for each boot of a t/vm/alone test.  Every boot runs even
# when one before it failed.
#
# One failure is the emulator's, and that boot runs once more: an "Oops:
# int3" whose code bytes show no int3 (0xcc) where it trapped.  The kernel
# patches live code (text_poke_bp: an int3 first, then the new bytes, a sync
# of every CPU after each step), for instance a tracepoint's call site when
# a BPF program is its first or second probe; a vCPU of multi-threaded TCG
# (QEMU 7.2) ran such an int3 after the patching had ended and its handler
# was gone (twice, in __schedule at sched_switch's call).  Init keeps two
# standing probes on the hot scheduler tracepoints so that those sites are
# not patched at all; the retry is for the rest.  One host thread for all
# vCPUs avoids the fault too, but its 100 ms turns split the two capture
# programs at a hook across snapshot boundaries (t/vm/0700 test 4 failed in
# 1 of 5 runs so).
#
# Each boot's serial log, TAP and whatever its tests kept are in
# $SCX_BUILD/vm/NAME/ (NAME: main, or the alone test's name), or under
# $SCX_VM_DIR when set (so that two runs can go side by side).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
SCX_BUILD=${SCX_BUILD:-$here/.output}
main_timeout=${SCX_VM_TIMEOUT:-2400}
alone_timeout=${SCX_VM_ALONE_TIMEOUT:-600}
cpus=4 nodes=2 llcs=2
vm=${SCX_VM_DIR:-$SCX_BUILD/vm}

fail() {
	echo "check-scx: FAIL: $*" >&2
	exit 1
}

# stale_int3 LOG: true when the guest oopsed on an int3 that its memory no
# longer holds: the byte before the trapping address (the one in <>) is not
# 0xcc in the oops' code bytes
stale_int3() {
	grep -aq 'Oops: int3' "$1" || return 1
	_b=$(grep -a -m1 'Code: ' "$1" | sed -n 's/.* \([0-9a-f][0-9a-f]\) <[0-9a-f][0-9a-f]>.*/\1/p')
	[ -n "$_b" ] && [ "$_b" != cc ]
}

# boot NAME TIMEOUT TESTS: boot_once, and once more after an emulator fault
boot() {
	boot_once "$@"
	_rc=$?
	[ $_rc = 2 ] || return $_rc
	mv "$log" "$log.stale-int3" && mv "$out/share" "$out/share.stale-int3" || return 1
	echo "check-scx: $1: the emulator ran an int3 the kernel had already patched away" \
		"(kept in $log.stale-int3): booting again, once" >&2
	boot_once "$@"
	_rc=$?
	[ $_rc = 2 ] && echo "check-scx: $1: FAIL: a stale int3 again (log kept in $log)" >&2
	[ $_rc = 0 ]
}

# boot_once NAME TIMEOUT TESTS: one guest running TESTS (comma-separated;
# empty: t/vm/*.t); 0 when every test passed, else 1 after saying why on
# stderr, 2 for a stale int3 (above)
boot_once() {
	name=$1 timeout=$2 tests=$3
	out=$vm/$name
	log=$out/serial.log
	mkdir -p "$out/share" || { echo "check-scx: cannot create $out" >&2; return 1; }
	echo "check-scx: $name: booting $kdir/bzImage ($cpus cpus, $nodes nodes, TCG, at most $timeout s)"
	start=$(date +%s)
	# shellcheck disable=SC2086
	timeout -k 10 "$timeout" qemu-system-x86_64 \
		-machine pc -accel tcg,thread=multi -cpu max -m 1G \
		-smp $cpus,sockets=2,cores=2,threads=1 \
		-object memory-backend-ram,id=m0,size=512M \
		-object memory-backend-ram,id=m1,size=512M \
		-numa node,nodeid=0,cpus=0-1,memdev=m0 \
		-numa node,nodeid=1,cpus=2-3,memdev=m1 \
		-kernel "$kdir/bzImage" \
		-append "console=ttyS0 root=root rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=262144 ro init=$here/t/vm/init.sh no_timer_check panic=-1 oops=panic softlockup_panic=1 scx_src=$here scx_build=$SCX_BUILD scx_sched=$kdir/sched scx_tests=$tests scx_vm_cpus=$cpus scx_vm_nodes=$nodes scx_vm_llcs=$llcs" \
		-virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap \
		-virtfs local,path="$out/share",mount_tag=out,security_model=none,multidevs=remap \
		-display none -monitor none -no-reboot -serial file:"$log" \
		>"$out/qemu.log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	guest_secs=$((guest_secs + secs))

	# The TAP: init's copy in the share, whole, else the console's lines
	# between the markers init writes (kernel messages can cut into them).
	if grep -q '^scx-vm: exit' "$out/share/tap.log" 2>/dev/null; then
		cp "$out/share/tap.log" "$out/tap.log"
	else
		sed -n '/^scx-vm: start/,/^scx-vm: exit/p' "$log" | tr -d '\r' >"$out/tap.log"
	fi
	cat "$out/tap.log"
	echo "check-scx: $name: guest ran $secs s; serial log $log"

	if grep -Eq 'Kernel panic|Oops|BUG:|general protection fault|Fatal exception' "$log"; then
		echo "--- kernel trouble in $log:" >&2
		grep -E -A40 'Kernel panic|Oops|BUG:|general protection fault|Fatal exception' "$log" | head -n 80 >&2
		if stale_int3 "$log"; then
			return 2
		fi
		echo "check-scx: $name: FAIL: the guest kernel panicked or oopsed (log kept in $log)" >&2
		return 1
	fi
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "--- last lines of $log:" >&2
		tail -n 40 "$log" >&2
		echo "check-scx: $name: FAIL: the guest did not finish within $timeout s, killed;" \
			"it was in $(grep -ao '[^ ]*\.t \.\.' "$log" | tail -n 1 | sed 's/ \.\.//')," \
			"last progress line: $(grep -ao '\(\[[0-9.]*\] \)\{0,1\}[0-9][0-9a-z-]*\.t: .*' "$log" | tail -n 1)" >&2
		return 1
	fi
	msg=
	if [ $rc != 0 ]; then
		tail -n 20 "$out/qemu.log" "$log" >&2
		msg="qemu exited with $rc"
	elif ! grep -q '^scx-vm: start' "$out/tap.log"; then
		tail -n 40 "$log" >&2
		msg="the guest did not boot to the test script"
	elif grep '^not ok' "$out/tap.log" | grep -qv '# TODO'; then
		msg="a guest test failed"
	elif grep -q '# SKIP' "$out/tap.log"; then
		msg="a guest test was skipped: every one must run in the VM"
	elif ! grep -q '^Result: PASS' "$out/tap.log"; then
		msg="the guest tests did not all pass"
	elif ! grep -q '^scx-vm: exit 0' "$out/tap.log"; then
		msg="prove did not exit 0 in the guest"
	fi
	[ -z "$msg" ] && return 0
	echo "check-scx: $name: FAIL: $msg" >&2
	return 1
}

[ -x "$SCX_BUILD/scx-events" ] || fail "no tools in $SCX_BUILD (run make first)"
# builds (or finds in its cache) the kernel and the schedulers, installs QEMU
kdir=$("$here/scripts/scx-kernel.sh") || fail "the sched_ext kernel or its schedulers could not be built"
command -v qemu-system-x86_64 >/dev/null || fail "no qemu-system-x86_64"

rm -rf "$vm"
guest_secs=0
failed=
if [ $# -gt 0 ]; then
	tests=
	for t in "$@"; do tests="$tests${tests:+,}$t"; done
	boot main "$main_timeout" "$tests" || failed="$failed main"
else
	# the short boots first: a hang there costs its bound, not the long run's
	for t in "$here"/t/vm/alone/*.t; do
		[ -e "$t" ] || continue
		n=$(basename "$t" .t)
		boot "$n" "$alone_timeout" "t/vm/alone/$n.t" || failed="$failed $n"
	done
	boot main "$main_timeout" "" || failed="$failed main"
fi
echo "check-scx: guests ran $guest_secs s in all"
[ -z "$failed" ] || fail "in the boot(s):$failed (logs in $vm/)"
echo "check-scx: PASS"
