#!/bin/sh
# Not in make check-scx: the controlled test of the guest kernel's hang after
# a watchdog stall, with none of our programs loaded in the boot (see
# lib-stall-after-runs.sh; 0431 is the same with scx-events attached).  Run:
#   make check-scx SCX_VM_TESTS=t/vm/extra/0430-stall-after-runs.t SCX_VM_TIMEOUT=600
. "$(dirname "$0")/../../lib.sh"
traced=0 stalls=3
. "$SCX_SRC/t/vm/extra/lib-stall-after-runs.sh"
