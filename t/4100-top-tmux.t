#!/bin/sh
# scx-top in a real terminal (tmux): every view and action by its key,
# resize, scrolling a 512-CPU machine, and the terminal restored on q,
# SIGINT and SIGTERM.
. "$(dirname "$0")/lib.sh"

gen=$SCX_BUILD/bench/top-gen
S=scx-top-test-$$
LANG=C.UTF-8
export LANG
# a tmux server of our own (-L), started with this environment (ASAN_OPTIONS...)
tmux() { command tmux -L "$S" "$@"; }
trap 'tmux kill-server 2>/dev/null; cd /; rm -rf "$TRASH"' EXIT
# A session that outlives the tests': killing the last session makes the
# server exit while the next test's new-session may already be connecting to
# it ("server exited unexpectedly", about one run in three here).
command -v tmux >/dev/null && tmux new-session -d -s keep "sleep 3600"

# start ARGS...: run scx-top in a fresh 120x32 tmux pane on in.ndjson, with
# the tty settings recorded before and after, and its exit code in rc.
start() {
	tmux kill-session -t "$S" 2>/dev/null
	rm -f rc stty.before stty.after pid
	cat >run.sh <<-EOF
	cd "$TRASH"
	stty -g >stty.before
	echo \$\$ >pid
	exec sh -c 'scx-top $* <${INPUT:-in.ndjson}; echo \$? >rc; stty -g >stty.after; sleep 60'
	EOF
	tmux new-session -d -s "$S" -x 120 -y 32 "env PATH='$PATH' HOME='$HOME' \
		XDG_CONFIG_HOME='$XDG_CONFIG_HOME' LANG=C.UTF-8 ${NO_COLOR:+NO_COLOR=1} sh run.sh"
	wait_for "scx-top  " || return 1
}

screen() { tmux capture-pane -p -t "$S" "$@"; }

# wait_for TEXT: the screen shows TEXT within 5 s
wait_for() {
	for i in $(seq 50); do
		screen >screen.txt
		grep -q -F -e "$1" screen.txt && return 0
		sleep 0.1
	done
	echo "screen never showed '$1':"; cat screen.txt
	return 1
}

# gone TEXT: the screen stops showing TEXT within 5 s
gone() {
	for i in $(seq 50); do
		screen >screen.txt
		grep -q -F -e "$1" screen.txt || return 0
		sleep 0.1
	done
	echo "screen still shows '$1':"; cat screen.txt
	return 1
}

# wait_line N TEXT: line N of the screen shows TEXT within 5 s
wait_line() {
	for i in $(seq 50); do
		screen >screen.txt
		sed -n "$1p" screen.txt | grep -q -F -e "$2" && return 0
		sleep 0.1
	done
	echo "line $1 never showed '$2':"; cat screen.txt
	return 1
}

keys() { tmux send-keys -t "$S" "$@"; }

# the shell under scx-top has finished and restored the tty
wait_exit() {
	for i in $(seq 50); do
		test -s stty.after && return 0
		sleep 0.1
	done
	echo "scx-top did not exit"; screen
	return 1
}

test_expect_success TMUX 'setup: a recorded 8-cpu 2-node stream and a 512-cpu one' '
	"$gen" -c 8 -N 2 -l 2 -s 3 -r 500 -L 7 >in.ndjson &&
	"$gen" -c 512 -N 8 -l 8 -s 2 -r 50 -f binary >big.bin
'

test_expect_success TMUX 'cpu view: nodes, cpus, last frame kept at end of input' '
	start &&
	wait_for "END OF INPUT" &&
	grep -q "node 0: 4 cpus" screen.txt &&
	grep -q "node 1: 4 cpus" screen.txt &&
	grep -q "^ *7  *3 " screen.txt &&
	grep -q "LOST 7 events" screen.txt &&
	grep -q "h help  q quit" screen.txt
'

test_expect_success TMUX 'views by key: llc, node, proc, dsq, help and back' '
	keys l && wait_for "LLC▲ NODE" &&
	keys n && wait_for "NODE▲" && ! grep -q "LLC▲" screen.txt &&
	keys p && wait_for "PID COMM" &&
	keys s && wait_for "QLAT.p50" && grep -q "^ *local  *[0-9]" screen.txt &&
	keys h && wait_for "what it does" && grep -q "view-cpu" screen.txt &&
	keys q && wait_for "QLAT.p50" &&
	keys c && wait_for "CPU▲ LLC"
'

test_expect_success TMUX 'display modes cycle: bar, sparkline, numbers' '
	grep -q "\[|" screen.txt &&
	keys m && wait_for "history" && wait_for "mode spark" &&
	keys m && wait_for "mode num" && ! grep -q "\[|" screen.txt &&
	keys m && wait_for "mode bar"
'

test_expect_success TMUX 'sort by another column and reverse it' '
	keys p && wait_for "CPU%▼" &&
	keys ">" && wait_for "SW/s▼" &&
	keys "<" "<" && wait_for "THR▼" &&
	keys "<" && wait_for "COMM▲" &&
	sed -n 5p screen.txt | grep -q cc1 &&
	keys r && wait_for "COMM▼" &&
	sed -n 5p screen.txt | grep -q rcu_sched
'

test_expect_success TMUX 'filter by comm, then by pid, then clear' '
	keys / && wait_for "filter (comm or pid" &&
	keys m a k e Enter && wait_for "filter '"'"'make'"'"'" &&
	grep -c "^ *10[0-9][0-9] " screen.txt >n && test "$(cat n)" = 1 &&
	grep -q " make " screen.txt &&
	keys / BSpace BSpace BSpace BSpace 1 0 0 0 Enter && wait_for "filter '"'"'1000'"'"'" &&
	grep -q postgres screen.txt && ! grep -q " make " screen.txt &&
	keys Escape && gone "filter '"'"'1000'"'"'" && grep -q " make " screen.txt
'

test_expect_success TMUX 'Enter shows the threads of the selected process' '
	sed -n 5p screen.txt | grep -q "^ *1016 rcu_sched  *4 " &&
	keys g Enter && wait_for "1017   rcu_sched" &&
	sed -n 6,9p screen.txt | awk "{ print \$1, \$2 }" | sort >threads &&
	printf "%s rcu_sched\n" 1016 1017 1018 1019 >expect &&
	test_cmp expect threads &&
	sed -n 10p screen.txt | grep -q "^ *10[0-9][0-9] [a-z]" &&
	keys Enter && gone "1017   rcu_sched"
'

test_expect_success TMUX 'pause, refresh rate, theme, save config' '
	keys Space && wait_for PAUSED &&
	keys Space && gone PAUSED &&
	keys h && wait_for "refresh 1000 ms" &&
	keys + + && wait_for "refresh 800 ms" &&
	keys - && wait_for "refresh 900 ms" &&
	keys t && wait_for "theme ocean" &&
	keys q S && wait_for "settings written to" &&
	grep -q "^theme = ocean" "$XDG_CONFIG_HOME/scx-top/config" &&
	grep -q "^refresh_ms = 900" "$XDG_CONFIG_HOME/scx-top/config" &&
	grep -q "^q = quit" "$XDG_CONFIG_HOME/scx-top/config"
'

test_expect_success TMUX 'the saved config is used at the next start' '
	keys q && wait_exit &&
	start && wait_for "END OF INPUT" &&
	keys h && wait_for "refresh 900 ms  mode bar  theme ocean" && keys q
'

test_expect_success TMUX 'resize redraws at once to the new size' '
	keys c && wait_for "CPU▲" &&
	tmux resize-window -t "$S" -x 90 -y 12 &&
	wait_line 12 "h help  q quit" &&
	test $(wc -l <screen.txt) = 12 &&
	grep -q "node 0: 4 cpus" screen.txt &&
	sed -n 11p screen.txt | grep -q "^ *4  *2 " &&
	tmux resize-window -t "$S" -x 120 -y 32 &&
	wait_line 32 "h help  q quit" && grep -q "^ *7  *3 " screen.txt
'

test_expect_success TMUX 'q restores the terminal: tty modes, cursor, main screen' '
	keys q && wait_exit &&
	test "$(cat rc)" = 0 &&
	test_cmp stty.before stty.after &&
	test "$(tmux display -p -t "$S" "#{cursor_flag} #{alternate_on}")" = "1 0"
'

for sig in INT TERM; do
	test_expect_success TMUX "SIG$sig restores the terminal" '
		start && wait_for "END OF INPUT" &&
		pkill -'$sig' -P "$(cat pid)" -x scx-top &&
		wait_exit &&
		test_cmp stty.before stty.after &&
		test "$(tmux display -p -t "$S" "#{cursor_flag} #{alternate_on}")" = "1 0"
	'
done

test_expect_success TMUX '512 cpus in 8 nodes: header, scrolling to the end' '
	rm -f "$XDG_CONFIG_HOME/scx-top/config" &&
	INPUT=big.bin start && wait_for "END OF INPUT" &&
	grep -q "cpus 512  llcs 64  nodes 8" screen.txt &&
	keys G && wait_for " 511  63 " && ! grep -q "node 0:" screen.txt &&
	keys g && wait_for "node 0: 64 cpus" &&
	keys PageDown && gone "node 0: 64 cpus" &&
	keys n && wait_for "NODE▲" && test $(grep -c "^ *[0-7]  *[0-9.]* \[" screen.txt) = 8 &&
	keys q && wait_exit
'

# pane CMD: run the shell command CMD (no single quotes) in a fresh pane
pane() {
	tmux kill-session -t "$S" 2>/dev/null
	printf 'cd "%s"\n%s\n' "$TRASH" "$1" >pane.sh
	tmux new-session -d -s "$S" -x 120 -y 32 "env PATH='$PATH' HOME='$HOME' LANG=C.UTF-8 sh pane.sh"
}

# wait_file F: F exists and is not empty within 5 s
wait_file() {
	for i in $(seq 50); do test -s "$1" && return 0; sleep 0.1; done
	echo "no $1"; return 1
}

test_expect_success TMUX 'a live pipe: frames update and q quits while input flows' '
	pane "\"$gen\" -c 8 -N 2 -l 2 -s 30 -r 300 -R | scx-top -d 0.2; echo \$? >rc2; sleep 60" &&
	wait_for "window 0.20s" &&
	! grep -q "END OF INPUT" screen.txt &&
	keys q && wait_file rc2 &&
	test "$(cat rc2)" = 0
'

test_expect_success TMUX 'a live pipe: per-task tables are collected once the process view is shown' '
	pane "\"$gen\" -c 8 -N 2 -l 2 -s 30 -r 300 -R | scx-top -d 1; echo \$? >rc-tasks; sleep 60" &&
	wait_for "window 1.00s" &&
	keys p && wait_for "collecting per-task statistics" &&
	wait_for "postgres" && ! grep -q "collecting per-task" screen.txt &&
	keys q && wait_file rc-tasks &&
	test "$(cat rc-tasks)" = 0
'

test_expect_success TMUX 'NO_COLOR: no colour codes, only reverse and bold' '
	NO_COLOR=1 start && wait_for "END OF INPUT" &&
	screen -e >esc.txt &&
	esc=$(printf "\033") &&
	! grep -q "$esc\[[0-9;]*3[0-7][;m]" esc.txt &&
	grep -q "$esc\[7m" esc.txt &&
	keys q && wait_exit &&
	start && screen -e >esc.txt &&
	grep -q "$esc\[3[0-7]m" esc.txt &&
	keys q && wait_exit
'

test_expect_success TMUX 'bad input: the error in the footer, frame kept, exit 1 after q' '
	head -20000 in.ndjson >bad.ndjson &&
	echo "{\"ts\":9,\"cpu\":0,\"type\":\"sched_switch\",\"prev_pid\":\"x\"}" >>bad.ndjson &&
	INPUT=bad.ndjson start && wait_for "input error: stdin: line 20001: " &&
	grep -q "END OF INPUT" screen.txt &&
	keys q && wait_exit &&
	test "$(cat rc)" = 1 &&
	test_cmp stty.before stty.after
'

test_expect_success TMUX 'a config with warnings: a note in the footer' '
	mkdir -p "$XDG_CONFIG_HOME/scx-top" &&
	printf "colour = red\n" >"$XDG_CONFIG_HOME/scx-top/config" &&
	start && wait_for "config: 1 warning, see stderr after exit" &&
	keys q && wait_exit &&
	rm "$XDG_CONFIG_HOME/scx-top/config"
'

test_expect_success TMUX 'stdin a terminal: a usage error, not a hang' '
	pane "scx-top 2>err; echo \$? >rc3; sleep 60" &&
	wait_file rc3 &&
	test "$(cat rc3)" = 2 && grep -q "standard input is a terminal" err
'

test_done
