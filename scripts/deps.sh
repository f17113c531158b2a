#!/bin/sh
# Install the Debian packages scx-tools builds and tests with, if any is missing.
# Run as root on a fresh machine (make deps); as a normal user it only reports.
# --bench adds the peers the benchmarks compare against, --format the
# clang-format that .clang-format is written for.
set -e
# build: compilers, BPF tool chain, libraries; tests: the outside tools the
# tests check our output with (jq, python3, protoc, perf, tmux, man)
pkgs="make gcc clang llvm bpftool pkg-config libbpf-dev libelf-dev zlib1g-dev libzstd-dev
libprotobuf-c-dev protobuf-c-compiler protobuf-compiler libjsmn-dev zstd gzip perl tmux
linux-perf procps iproute2 libclang-rt-14-dev jq python3 python3-jsonschema man-db bsdextrautils util-linux tar time"
for a; do
	case $a in
	--bench) pkgs="$pkgs bpftrace trace-cmd hyperfine time" ;;
	--format) pkgs="$pkgs clang-format-19" ;;
	# the Prometheus server and node_exporter the fleet test scrapes with
	--fleet) pkgs="$pkgs prometheus prometheus-node-exporter curl" ;;
	esac
done
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
# Packaged daemons (prometheus, node_exporter) must not start listening on
# every interface at install time: the tests start their own on loopback.
# policy-rc.d tells invoke-rc.d and deb-systemd-invoke to start nothing.
policy=/usr/sbin/policy-rc.d
if [ ! -e $policy ]; then
	printf '#!/bin/sh\nexit 101\n' >$policy
	chmod 755 $policy
	trap 'rm -f $policy' EXIT
fi
apt-get install -y -qq --no-install-recommends $missing >/dev/null
