# t/mcp-lib.sh: helpers for scx-mcp's shell tests (sourced after t/lib.sh).
#
#   init_line [VERSION]       an initialize request (id 0)
#   mcp ARGS... <in >out      run scx-mcp, fail if it does not exit in 300 s
#   wait_updated FILE URI N   wait (at most 120 s) for N updates of URI in FILE;
#                             say so on stderr and fail if they do not come
#   wait_resp FILE ID         wait (at most 120 s) for the whole response with
#                             that id; say so on stderr and fail if it does not come
#   resp ID <out              the response with that id (compact JSON)
#   text ID <out              the text of a tools/call result with that id
#   call ID TOOL ARGS_JSON    a tools/call request line

init_line() {
	printf '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%s","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n' "${1:-2025-11-25}"
	echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
}
# (a bound for a hung server, not a time a test may take: a session fed
# through a FIFO lives as long as its test, minutes on a loaded machine)
mcp() { timeout 300 scx-mcp "$@"; }
# A condition, not a guess of how long a loaded machine takes: a live
# interval is closed when scx-mcp says its statistics were updated.
# In `{ ...; wait_updated out ...; } | mcp >out` the wait can read out
# before the shell on the right truncates it: remove the file first, or a
# previous session's lines satisfy the wait (t/5019 and t/5030 failed so in
# a loaded make check loop).  A file not there yet has no updates (grep
# prints no count for it, and `[ "" -lt N ]` ended the wait at once).
wait_updated() {
	_w=0
	while _n=$(grep -c "resources/updated.*\"$2\"" "$1" 2>/dev/null); [ "${_n:-0}" -lt "$3" ]; do
		if [ $_w -ge 1200 ]; then
			echo "wait_updated: not $3 updates of $2 in $1 after 120 s" >&2
			return 1
		fi
		sleep 0.1
		_w=$((_w + 1))
	done
}
# A large response reaches the file in pieces: it is whole once its line ends.
wait_resp() {
	_w=0
	until grep -q "\"id\":$2,\"result\"\|\"id\":$2,\"error\"" "$1" 2>/dev/null &&
	      [ "$(tail -c 1 "$1" | od -An -tx1 | tr -d ' ')" = 0a ]; do
		if [ $_w -ge 1200 ]; then
			echo "wait_resp: no whole response to request $2 in $1 after 120 s" >&2
			return 1
		fi
		sleep 0.1
		_w=$((_w + 1))
	done
}
resp() { jq -c --argjson id "$1" 'select(.id == $id and .method == null)'; }
text() { jq -r --argjson id "$1" 'select(.id == $id) | .result.content[0].text'; }
iserr() { jq -r --argjson id "$1" 'select(.id == $id) | .result.isError'; }
errcode() { jq -r --argjson id "$1" 'select(.id == $id) | .error.code'; }
call() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' "$1" "$2" "$3"; }
req() { printf '{"jsonrpc":"2.0","id":%s,"method":"%s","params":%s}\n' "$1" "$2" "${3:-{\}}"; }
# every line of stdout is one JSON-RPC 2.0 message
all_jsonrpc() { jq -e -s 'all(.[]; .jsonrpc == "2.0")' "$1" >/dev/null; }
