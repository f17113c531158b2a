// SPDX-License-Identifier: GPL-2.0
/*
 * scx-mcp: a Model Context Protocol server on stdin/stdout for live
 * scheduler data (through scx-events) and Perfetto/scx trace analysis.
 * Everything but protocol messages goes to stderr.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/mcp.h"
#include "core/opts.h"
#include "core/util.h"

enum {
	OPT_MAX_LINE = 256,
	OPT_MAX_RESULT,
	OPT_PAGE_SIZE,
	OPT_EVENTS_CMD,
	OPT_UPDATE,
	OPT_RING,
	OPT_CAPTURE,
	OPT_NO_LIVE,
};

static const struct scx_opt opts[] = {
	{ 'R', "root", "DIR",
	  "allow reading and writing files under DIR (repeatable; default: the working directory)",
	  "@dir" },
	{ 'm', "max-trace-memory", "SIZE", "memory for loaded traces, e.g. 512M (default 1G)",
	  "256M 512M 1G 2G 4G" },
	{ OPT_MAX_RESULT, "max-result", "SIZE", "bytes of text in one tool result (default 48K)",
	  "16K 32K 48K 64K" },
	{ OPT_MAX_LINE, "max-line", "SIZE", "longest message accepted (default 16M)",
	  "1M 16M 64M" },
	{ OPT_PAGE_SIZE, "page-size", "N",
	  "items per page of tools, resources, prompts (default 100)", "10 50 100" },
	{ OPT_EVENTS_CMD, "events-cmd", "PATH",
	  "scx-events binary for live capture (default: next to scx-mcp, then $PATH)", "@file" },
	{ OPT_UPDATE, "update-interval", "DURATION",
	  "minimum time between resource update notifications (default 1s)",
	  "250ms 500ms 1s 2s 5s" },
	{ OPT_RING, "stream-events", "N", "events kept for events://stream (default 512)",
	  "128 512 2048" },
	{ OPT_CAPTURE, "capture", NULL,
	  "start a live capture at once (as control_event_tracking start)" },
	{ OPT_NO_LIVE, "no-live", NULL, "trace analysis only: refuse live capture and profiling" },
	{ 'v', "verbose", NULL, "diagnostics on stderr (-vv: every log message)" },
	{ 0 },
};

/* the letters before the suite had one vocabulary (scx(7), OPTION LETTERS) */
static const struct scx_opt_old old_spellings[] = {
	{ 'R', 'r' },
	{ 0 },
};

static const struct scx_cmd cmd = {
	.name = "scx-mcp",
	.args = NULL,
	.summary = "Serve scheduler data and trace analysis to MCP clients over stdio.",
	.opts = opts,
	.old = old_spellings,
	.footer =
		"MCP client configuration (e.g. .mcp.json):\n"
		"  {\"mcpServers\":{\"scx\":{\"command\":\"scx-mcp\",\"args\":[\"--root\",\"/var/tmp/traces\"]}}}\n",
};

static uint64_t size_arg(const char *name, const char *v, uint64_t min)
{
	uint64_t n;

	if (scx_parse_size(v, &n) || n < min)
		scx_usage_error(&cmd, "invalid --%s '%s'", name, v);
	return n;
}

int main(int argc, char **argv)
{
	struct mcp_opts o = { 0 };
	const char **roots = scx_xcalloc(argc + 1, sizeof(*roots));
	struct mcp_server *s;
	const char *arg;
	uint64_t v;
	int c, rc;

	scx_set_prog(argv[0]);
	while ((c = scx_getopt(&cmd, argc, argv, &arg)) != -1) {
		switch (c) {
		case 'R':
			roots[o.nr_roots++] = arg;
			break;
		case 'm':
			o.trace_mem_max = size_arg("max-trace-memory", arg, 1 << 20);
			break;
		case OPT_MAX_RESULT:
			o.max_result = size_arg("max-result", arg, 4096);
			break;
		case OPT_MAX_LINE:
			o.max_line = size_arg("max-line", arg, 4096);
			break;
		case OPT_PAGE_SIZE:
			if (scx_parse_u64(arg, &v) || !v || v > 10000)
				scx_usage_error(&cmd, "invalid --page-size '%s'", arg);
			o.page_size = (unsigned)v;
			break;
		case OPT_EVENTS_CMD:
			o.events_cmd = arg;
			break;
		case OPT_UPDATE:
			if (scx_parse_duration(arg, &v) || v < 10000000 || v > 3600000000000ull)
				scx_usage_error(&cmd, "invalid --update-interval '%s' (10ms..1h)",
						arg);
			o.update_ms = (unsigned)(v / 1000000);
			break;
		case OPT_RING:
			if (scx_parse_u64(arg, &v) || !v || v > 1000000)
				scx_usage_error(&cmd, "invalid --stream-events '%s'", arg);
			o.ring_events = (unsigned)v;
			break;
		case OPT_CAPTURE:
			o.capture = true;
			break;
		case OPT_NO_LIVE:
			o.no_live = true;
			break;
		case 'v':
			scx_verbose++;
			break;
		}
	}
	if (optind < argc)
		scx_usage_error(&cmd, "unexpected argument '%s'", argv[optind]);
	if (isatty(STDIN_FILENO))
		scx_warn("speaks MCP (JSON-RPC) on stdin/stdout; start it from an MCP client "
			 "(see scx-mcp --help)");
	o.roots = roots;
	s = mcp_server__new(&o);
	if (!s)
		scx_die(SCX_EXIT_FAIL, "cannot use root directory '%s': %s",
			o.nr_roots ? roots[0] : ".", strerror(errno));
	rc = mcp_server__run(s, STDIN_FILENO, STDOUT_FILENO);
	mcp_server__free(s);
	free(roots);
	if (rc) {
		scx_warn("cannot write to stdout: %s", strerror(-rc));
		return SCX_EXIT_FAIL;
	}
	return SCX_EXIT_OK;
}
