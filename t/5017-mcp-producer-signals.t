#!/bin/sh
# The live producer starts with every signal at its default, whatever scx-mcp
# inherited or set for itself: scx-mcp ignores SIGPIPE, and node-based clients
# start it that way too.  A producer that kept SIGPIPE ignored outlived a
# SIGKILLed scx-mcp, writing into a pipe nobody reads (make check-mcp left
# them behind); one that kept SIGINT ignored was killed instead of stopped.
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"

export FAKE=$TDATA/mcp-fake-events.sh
# the producer, through a wrapper that execs: same process, its pid noted
cat >producer.sh <<\EOF
#!/bin/sh
echo $$ >producer.pid
exec "$FAKE" "$@"
EOF
# scx-mcp started with the signals named in $IGNORE ignored, as a client
# may start it; its pid noted (exec keeps it)
cat >client.sh <<\EOF
#!/bin/sh
echo $$ >mcp.pid
exec perl -e '$SIG{$_} = "IGNORE" for split / /, $ENV{IGNORE}; exec @ARGV or die "exec: $!"' \
	scx-mcp "$@"
EOF
chmod +x producer.sh client.sh
# no such process, or only a zombie whose parent has not reaped it yet
gone() { st=$(ps -o stat= -p "$1" || :); [ -z "$st" ] || [ "${st#Z}" != "$st" ]; }
# wait (at most 45 s) for a file to be written
wait_file() {
	_w=0
	while [ ! -s "$1" ] && [ $_w -lt 450 ]; do sleep 0.1; _w=$((_w + 1)); done
	test -s "$1"
}

test_expect_success 'scx-mcp SIGKILLed during a capture: the producer dies of its next write' '
	rm -f producer.pid mcp.pid out && st=0 &&
	{ init_line
	  call 1 control_event_tracking "{\"action\":\"start\"}"
	  wait_resp out 1 && wait_file producer.pid &&
	  kill -KILL "$(cat mcp.pid)"
	} | IGNORE="PIPE" timeout 300 ./client.sh --events-cmd "$PWD/producer.sh" >out 2>err ||
		st=$? &&
	say "scx-mcp exit status $st" && test $st = 137 &&
	test "$(iserr 1 <out)" = false && test -s producer.pid &&
	p=$(cat producer.pid) &&
	# it writes every 50 ms: a loaded machine may take seconds to run it
	i=0 && while ! gone "$p" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done &&
	{ gone "$p" || { say "producer $p still runs"; kill -KILL -"$p"; false; }; }
'

test_expect_success 'scx-mcp started with SIGINT and SIGTERM ignored: stop still ends the producer cleanly' '
	rm -f producer.pid mcp.pid out &&
	{ init_line
	  call 1 control_event_tracking "{\"action\":\"start\"}"
	  wait_resp out 1 && wait_file producer.pid &&
	  call 2 control_event_tracking "{\"action\":\"stop\"}"
	} | IGNORE="INT TERM PIPE" timeout 300 ./client.sh --events-cmd "$PWD/producer.sh" >out 2>err &&
	text 2 <out | jq -e ".action == \"stopped\" and .exit_status == 0" >/dev/null
'

test_done
