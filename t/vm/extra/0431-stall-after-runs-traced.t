#!/bin/sh
# Not in make check-scx: 0430's boot sequence with scx-events --flight
# attached throughout (see lib-stall-after-runs.sh).  Run:
#   make check-scx SCX_VM_TESTS=t/vm/extra/0431-stall-after-runs-traced.t SCX_VM_TIMEOUT=600
. "$(dirname "$0")/../../lib.sh"
traced=1 stalls=3
. "$SCX_SRC/t/vm/extra/lib-stall-after-runs.sh"
