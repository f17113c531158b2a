#!/bin/sh
# The agent skill shipped with scx-mcp (skills/scx-scheduler/SKILL.md) names
# only tools and tool arguments that exist, and has the frontmatter agents
# read.
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"

SKILL=$SCX_SRC/skills/scx-scheduler/SKILL.md

test_expect_success 'the skill has a name and a description' '
	sed -n 1p "$SKILL" | grep -x -- "---" &&
	sed -n 2p "$SKILL" | grep -x "name: scx-scheduler" &&
	sed -n 3p "$SKILL" | grep "^description: ..*"
'

test_expect_success 'every snake_case name it quotes is a tool or an argument of one' '
	{ init_line; req 1 tools/list; } | mcp >out &&
	resp 1 <out | jq -r ".result.tools[] | .name, (.inputSchema.properties // {} | keys[])" | sort -u >known &&
	grep -o "\`[a-z][a-z0-9]*_[a-z0-9_]*\`" "$SKILL" | tr -d "\`" | sort -u >named &&
	test -s named && comm -23 named known >unknown &&
	{ test ! -s unknown || { cat unknown; false; }; }
'

test_expect_success 'it names the tools an agent needs first' '
	for t in load_perfetto_trace get_trace_summary analyze_trace_scheduling correlate_wakeup_to_schedule \
		 control_event_tracking query_stats; do
		grep -q "\`$t\`" "$SKILL" || { echo "missing $t"; exit 1; }
	done
'

test_expect_success 'make install ships it' '
	make -s -C "$SCX_SRC" O="$SCX_BUILD" install DESTDIR="$TRASH/inst" prefix=/usr >/dev/null &&
	cmp "$SKILL" "$TRASH/inst/usr/share/scx-tools/skills/scx-scheduler/SKILL.md"
'

test_done
