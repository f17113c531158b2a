#!/bin/sh
# Boot the sched_ext test kernel under QEMU and run the guest tests (t/vm/*.t)
# against the tools in $SCX_BUILD; `make check-scx` calls this.
#
#   t/vm/run.sh [TEST.t...]
#
# The guest is 4 CPUs in 2 sockets (one LLC each) and 2 NUMA nodes, TCG (no
# KVM needed), the host's root file system read-only over virtio-9p, init
# t/vm/init.sh.  Its TAP comes back on the serial console.  This fails, saying
# why, when the kernel cannot be built or booted, when a test says `not ok`,
# when the kernel panics or oopses, and when the guest does not finish within
# $SCX_VM_TIMEOUT seconds (default 1800).  The serial log and whatever the
# tests kept are in $SCX_BUILD/vm/.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
SCX_BUILD=${SCX_BUILD:-$here/.output}
timeout=${SCX_VM_TIMEOUT:-1800}
cpus=4 nodes=2 llcs=2
out=$SCX_BUILD/vm
log=$out/serial.log

fail() {
	echo "check-scx: FAIL: $*" >&2
	exit 1
}

[ -x "$SCX_BUILD/scx-events" ] || fail "no tools in $SCX_BUILD (run make first)"
# builds (or finds in its cache) the kernel and the schedulers, installs QEMU
kdir=$("$here/scripts/scx-kernel.sh") || fail "the sched_ext kernel or its schedulers could not be built"
command -v qemu-system-x86_64 >/dev/null || fail "no qemu-system-x86_64"

tests=
for t in "$@"; do tests="$tests${tests:+,}$t"; done

rm -rf "$out"
mkdir -p "$out/share" || fail "cannot create $out"
echo "check-scx: booting $kdir/bzImage ($cpus cpus, $nodes nodes, TCG, at most $timeout s)"
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

# The TAP, between the markers init writes.
sed -n '/^scx-vm: start/,/^scx-vm: exit/p' "$log" | tr -d '\r' >"$out/tap.log"
cat "$out/tap.log"
echo "check-scx: guest ran $secs s; serial log $log"

if grep -Eq 'Kernel panic|Oops|BUG:|general protection fault|Fatal exception' "$log"; then
	echo "--- kernel trouble in $log:" >&2
	grep -E -A40 'Kernel panic|Oops|BUG:|general protection fault|Fatal exception' "$log" | head -n 80 >&2
	fail "the guest kernel panicked or oopsed (log kept in $log)"
fi
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "--- last lines of $log:" >&2
	tail -n 40 "$log" >&2
	fail "the guest did not finish within $timeout s"
fi
[ $rc = 0 ] || { tail -n 20 "$out/qemu.log" "$log" >&2; fail "qemu exited with $rc"; }
grep -q '^scx-vm: start' "$out/tap.log" || { tail -n 40 "$log" >&2; fail "the guest did not boot to the test script"; }
grep -q '^not ok' "$out/tap.log" && fail "a guest test failed"
grep -q '# SKIP' "$out/tap.log" && fail "a guest test was skipped: every one must run in the VM"
grep -q '^Result: PASS' "$out/tap.log" || fail "the guest tests did not all pass"
grep -q '^scx-vm: exit 0' "$out/tap.log" || fail "prove did not exit 0 in the guest"
echo "check-scx: PASS"
