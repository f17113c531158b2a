#!/bin/sh
# make demo: the main job.  Live scheduler events for a few seconds through
# the pipeline; without BPF (not root, no BTF) it says why and replays the
# recording shipped in t/data/ instead.
set -u
B=${SCX_BUILD:-.output}
PATH=$B:$PATH
echo "demo: not wired yet" >&2
exit 1
