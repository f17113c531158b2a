#!/bin/sh
# In the VM, scx-top's DSQ view live in a terminal: scx-events piped into
# scx-top --view=dsq in a tmux pane while scx_simple runs under load.  Before
# the load the view says it has no DSQ data; with scx_simple running it shows
# scx_simple's DSQs (its shared DSQ 0 and SCX_DSQ_LOCAL, "local") with
# dispatches and its sched_ext line names it; after the unload that line says
# disabled; q ends scx-top with 0 and the terminal restored.  (0200 checks the batch view's numbers
# against the stream; this checks the live pipeline and the terminal.)
. "$(dirname "$0")/../lib.sh"
. "$SCX_SRC/t/lib-capture.sh"
. "$SCX_SRC/t/vm/lib-vm.sh"

S=scx-vm-top-$$
LANG=C.UTF-8
export LANG
tmux() { command tmux -L "$S" "$@"; }
trap 'tmux kill-server 2>/dev/null; cd /; rm -rf "$TRASH"' EXIT

screen() { tmux capture-pane -p -t "$S"; }

# wait_screen SECONDS AWK-CONDITION: the screen meets the condition (an awk
# program that exits 0 when it does) within SECONDS
wait_screen() {
	for _ in $(seq $(($1 * 5))); do
		screen >screen.txt
		awk "$2" screen.txt && return 0
		sleep 0.2
	done
	echo "the screen never met: $2"; cat screen.txt
	return 1
}

# a DSQ row: its name first, then DISP/s; true when NAME has dispatches
row_busy() { echo "\$1 == \"$1\" && \$2 + 0 > 0 { f = 1 } END { exit !f }"; }

test_expect_success 'scx-events | scx-top --view=dsq in a terminal' '
	cat >pane.sh <<-EOF &&
	cd "$TRASH"
	stty -g >stty.before
	scx-events -e switch,waking,scx 2>capture.err |
		scx-top --no-config --mode num --view=dsq
	echo \$? >rc
	stty -g >stty.after
	sleep 600
	EOF
	tmux new-session -d -s "$S" -x 120 -y 32 "env PATH=\"$PATH\" HOME=\"$HOME\" LANG=C.UTF-8 sh pane.sh" &&
	wait_screen 30 "/no DSQ data/ { f = 1 } END { exit !f }" &&
	# scx-events streams (its sched_ext record once a second) once it has
	# loaded its programs: up to a minute under TCG
	wait_screen 90 "/sched_ext: disabled/ { f = 1 } END { exit !f }"
'

test_expect_success 'with scx_simple running: its DSQs with dispatches, then its unload' '
	start_sched scx_simple &&
	# (|| : as load runs under set -e here, not in an && list)
	{ (load 15 || :) & } &&
	loader=$! &&
	wait_screen 60 "/sched_ext: enabled simple/ { f = 1 } END { exit !f }" &&
	wait_screen 60 "$(row_busy 0)" &&
	wait_screen 60 "$(row_busy local)" &&
	screen >busy.txt && keep busy.txt &&
	cat busy.txt &&
	! grep -q "no DSQ data" busy.txt &&
	wait $loader &&
	stop_sched &&
	wait_screen 60 "/sched_ext: disabled/ { f = 1 } END { exit !f }"
'

test_expect_success 'q ends scx-top with 0 and the terminal restored' '
	tmux send-keys -t "$S" q &&
	for _ in $(seq 300); do test -s rc && break; sleep 0.2; done &&
	test "$(cat rc)" = 0 &&
	test_cmp stty.before stty.after &&
	test "$(tmux display -p -t "$S" "#{alternate_on}")" = 0
'

test_done
