#!/bin/sh
# Not in make check-scx: 0430's boot sequence with scx-events --flight
# attached for the runs before the stall and stopped before it, as when
# t/vm/extra/0420 hung after 0600 (see lib-stall-after-runs.sh).  Run:
#   make check-scx SCX_VM_TESTS=t/vm/extra/0432-stall-after-runs-traced-before.t SCX_VM_TIMEOUT=600
. "$(dirname "$0")/../../lib.sh"
traced=2 stalls=3
. "$SCX_SRC/t/vm/extra/lib-stall-after-runs.sh"
