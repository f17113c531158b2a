#!/bin/sh
# Every tool's --help and --version succeed only when their text got out.
. "$(dirname "$0")/lib.sh"

for tool in scx-events scx-agg scx-perfetto scx-top scx-mcp scx-prof; do
	test_expect_success "$tool: --help and --version to a full disk fail" "
		if test -w /dev/full; then
			test_exit_code 1 $tool --help >/dev/full 2>err &&
			grep -q 'cannot write standard output' err &&
			test_exit_code 1 $tool --version >/dev/full 2>err &&
			grep -q 'cannot write standard output' err
		fi &&
		$tool --version >out && grep -q '^$tool ' out
	"
done

test_done
