#!/bin/sh
# Install the Debian packages scx-tools builds and tests with, if any is missing.
# Run as root on a fresh machine (make deps); as a normal user it only reports.
# --bench adds the peers the benchmarks compare against.
set -e
# build: compilers, BPF tool chain, libraries; tests: the outside tools the
# tests check our output with (jq, python3, protoc, perf, tmux, man)
pkgs="make gcc clang llvm bpftool pkg-config libbpf-dev libelf-dev zlib1g-dev libzstd-dev
libprotobuf-c-dev protobuf-c-compiler protobuf-compiler libjsmn-dev zstd gzip perl tmux
linux-perf procps iproute2 libclang-rt-14-dev jq python3 python3-jsonschema man-db bsdextrautils util-linux tar"
[ "${1:-}" = --bench ] && pkgs="$pkgs bpftrace trace-cmd hyperfine time"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run 'make deps' as root)" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
