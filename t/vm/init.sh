#!/bin/sh
# PID 1 of the sched_ext test VM (t/vm/run.sh boots it).  The root file system
# is the host's, read-only over virtio-9p; this mounts what the tests need,
# runs the guest tests with prove, writes their TAP to the console (the serial
# port the host reads) and to the output share, and powers off.  The host passes its settings on the
# kernel command line; the kernel hands such words to init as variables:
#   scx_src, scx_build   the checkout and the build to test
#   scx_sched            the directory of the example schedulers
#   scx_tests            the test scripts to run, comma-separated (t/vm/*.t)
#   scx_vm_cpus, scx_vm_nodes, scx_vm_llcs   the topology QEMU was given
# Init must never exit (the kernel would panic), so every path ends in
# power_off.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

power_off() {
	sync
	# reboot(2) with LINUX_REBOOT_CMD_POWER_OFF: no init system to ask
	perl -e 'syscall(169, 0xfee1dead, 672274793, 0x4321fedc)'
	echo "scx-vm: power off failed" >&2
	while :; do sleep 3600; done
}

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs -o mode=1777 tmp /tmp
mount -t tmpfs -o mode=755 run /run
mount -t tmpfs -o mode=1777 vartmp /var/tmp
mount -t tracefs nodev /sys/kernel/tracing
# Two standing probes on the scheduler's hot tracepoints for the whole boot
# (two ftrace instances, the events on and recording off): then attaching
# or detaching a BPF program there never makes the kernel patch the
# tracepoint's call site (a static call, patched at its first probe and
# its second), which multi-threaded TCG once ran stale (run.sh)
for i in 1 2; do
	d=/sys/kernel/tracing/instances/scx-vm-keep$i
	mkdir "$d" && echo 0 >"$d/tracing_on" || continue
	for e in sched_switch sched_waking sched_wakeup sched_wakeup_new sched_migrate_task; do
		echo 1 >"$d/events/sched/$e/enable" ||
			echo "scx-vm: no standing probe $i on $e" >&2
	done
done
mount -t cgroup2 nodev /sys/fs/cgroup
# terminals for tmux (the scx-top tests)
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
mkdir -p /tmp/out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /tmp/out ||
	echo "scx-vm: no output share; captures are not kept" >&2

export SCX_SRC="$scx_src" SCX_BUILD="$scx_build" SCX_SCHED="$scx_sched"
export SCX_VM_OUT=/tmp/out SCX_VM_CPUS="$scx_vm_cpus" SCX_VM_NODES="$scx_vm_nodes"
export SCX_VM_LLCS="$scx_vm_llcs" HOME=/tmp TMPDIR=/tmp
hostname scx-vm 2>/dev/null

cd "$SCX_SRC" || { echo "scx-vm: no source tree $SCX_SRC"; power_off; }
# The TAP goes to the console and, whole, to the output share as tap.log:
# kernel messages land inside the console's lines (a stall's dump, a
# scheduler's enable), so run.sh judges from the share's copy when it has one.
tap=/dev/null
mountpoint -q /tmp/out && tap=/tmp/out/tap.log
echo "scx-vm: start $(uname -r), $(nproc) cpus" | tee "$tap"
# shellcheck disable=SC2086 # a list of scripts
{ prove -v --timer $(echo "${scx_tests:-t/vm/*.t}" | tr , " ") 2>&1; echo "scx-vm: exit $?"; } |
	tee -a "$tap"
power_off
