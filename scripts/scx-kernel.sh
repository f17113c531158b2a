#!/bin/sh
# Build (once per machine) the sched_ext kernel the VM tests boot, and the
# example schedulers of its tools/sched_ext; print the cache directory.
#
#   scripts/scx-kernel.sh            kernel + schedulers, print the directory
#   scripts/scx-kernel.sh --kernel   the kernel only
#
# SCX_KERNEL_JOBS (default 2) and SCX_KERNEL_NICE (default 10) set make's -j
# and niceness.
#
# The source is Debian's linux-source-6.12; the configuration is tinyconfig
# plus t/vm/kernel.config.  Everything goes under
# $SCX_KERNEL_CACHE (default /var/cache/scx-tools/kernel)/<key>/, where the key
# hashes the fragment, the source package's version and $recipe (bump it when
# the build steps below change), so a second run is instant and a changed
# fragment builds a new kernel.  Nothing is written into the checkout.  Any
# failure says what failed and exits non-zero.
set -eu

src_pkg=linux-source-6.12
recipe=1
here=$(cd "$(dirname "$0")/.." && pwd)
fragment=$here/t/vm/kernel.config
cache=${SCX_KERNEL_CACHE:-/var/cache/scx-tools/kernel}
jobs=${SCX_KERNEL_JOBS:-2}
niceness=${SCX_KERNEL_NICE:-10}	# a background build; 0 when waiting for it
want_scheds=1
[ "${1:-}" = --kernel ] && want_scheds=

die() { echo "scx-kernel: $*" >&2; exit 1; }
log() { echo "scx-kernel: $*" >&2; }

# ---- packages: what the build and the VM need, installed when missing -------
pkgs="$src_pkg qemu-system-x86 dwarves flex bison bc libssl-dev libelf-dev cpio
make gcc clang llvm xz-utils"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || die "missing packages:$missing (run as root to install them)"
	log "installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || die "apt-get update failed"
	apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
		die "apt-get install$missing failed"
fi

tarball=$(ls /usr/src/$src_pkg.tar.xz 2>/dev/null) || die "no /usr/src/$src_pkg.tar.xz after installing $src_pkg"
src_ver=$(dpkg-query -W -f='${Version}' $src_pkg)
key=$( (echo "$src_pkg $src_ver recipe $recipe"; cat "$fragment") | sha256sum | cut -c1-16)
dir=$cache/$key
tree=$dir/linux

mkdir -p "$cache" || die "cannot create $cache"
# one builder at a time per cache entry; a second caller waits, then finds it built
exec 9>"$cache/$key.lock"
flock 9

# ---- the kernel ---------------------------------------------------------------
# Steps leave stamps, so an interrupted build resumes where it stopped.
if [ ! -f "$dir/bzImage" ]; then
	t0=$(date +%s)
	log "building kernel $src_pkg $src_ver into $dir (20 to 60 minutes on 2 shared cores)"
	if [ ! -f "$dir/unpacked" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		tar -xJf "$tarball" -C "$dir" || die "cannot unpack $tarball"
		mv "$dir/$src_pkg" "$tree"
		touch "$dir/unpacked"
	fi
	if [ ! -f "$dir/configured" ]; then
		make -s -C "$tree" tinyconfig >"$dir/config.log" 2>&1 ||
			die "make tinyconfig failed (see $dir/config.log)"
		grep -v '^#' "$fragment" | grep . >>"$tree/.config"
		make -s -C "$tree" olddefconfig >>"$dir/config.log" 2>&1 ||
			die "make olddefconfig failed (see $dir/config.log)"
		# every option of the fragment must have survived olddefconfig
		lost=
		for opt in $(grep -v '^#' "$fragment" | grep .); do
			grep -qx "$opt" "$tree/.config" || lost="$lost $opt"
		done
		[ -z "$lost" ] || die "options lost by olddefconfig (unmet dependencies?):$lost"
		touch "$dir/configured"
	fi
	nice -n "$niceness" make -C "$tree" -j"$jobs" bzImage >>"$dir/build.log" 2>&1 ||
		die "kernel build failed; last lines of $dir/build.log:
$(tail -n 30 "$dir/build.log")"
	cp "$tree/arch/x86/boot/bzImage" "$dir/bzImage.tmp"
	mv "$dir/bzImage.tmp" "$dir/bzImage"
	log "kernel built in $(($(date +%s) - t0)) s"
fi

# ---- the example schedulers, against that kernel's BTF -------------------------
if [ -n "$want_scheds" ] && [ ! -x "$dir/sched/scx_qmap" ]; then
	log "building tools/sched_ext (scx_simple scx_qmap scx_central scx_flatcg)"
	start=$(date +%s)
	nice -n "$niceness" make -C "$tree/tools/sched_ext" -j"$jobs" \
		VMLINUX_BTF="$tree/vmlinux" >"$dir/sched.log" 2>&1 ||
		die "tools/sched_ext build failed; last lines of $dir/sched.log:
$(tail -n 30 "$dir/sched.log")"
	mkdir -p "$dir/sched.tmp"
	for s in scx_simple scx_qmap scx_central scx_flatcg; do
		cp "$tree/tools/sched_ext/build/bin/$s" "$dir/sched.tmp/" ||
			die "tools/sched_ext built no $s"
	done
	rm -rf "$dir/sched"
	mv "$dir/sched.tmp" "$dir/sched"
	log "schedulers built in $(($(date +%s) - start)) s"
fi
echo "$dir"
