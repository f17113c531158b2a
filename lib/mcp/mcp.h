/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An MCP (Model Context Protocol) server over stdio: JSON-RPC 2.0, one
 * message per line, in both eras: sessions opened by initialize (2025-11-25,
 * also 2025-06-18, 2025-03-26 and 2024-11-05 when a client asks for them)
 * and stateless 2026-07-28 requests (server/discover, _meta envelope).  It serves scheduler data: live
 * capture through an scx-events child, Perfetto and scx-events traces loaded
 * in memory, system resources, CPU profiles, and prompts.
 *
 *	struct mcp_opts o = { .roots = dirs, .nr_roots = 1 };
 *	struct mcp_server *s = mcp_server__new(&o);
 *	rc = mcp_server__run(s, 0, 1);	// until stdin closes
 *	mcp_server__free(s);
 *
 * Only protocol messages go to out_fd; diagnostics go to stderr.
 */
#ifndef SCX_MCP_H
#define SCX_MCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mcp_opts {
	/* Directories files may be read from and written to (realpath'd by new()).
	 * The first one is where relative paths are resolved.  None: the cwd. */
	const char *const *roots;
	unsigned nr_roots;
	uint64_t trace_mem_max; /* bytes for loaded traces; 0 = 1 GiB */
	size_t max_line;	/* longest accepted message; 0 = 16 MiB */
	size_t max_result;	/* bytes of tool result text; 0 = 48 KiB */
	unsigned page_size;	/* items per list page; 0 = 100 */
	const char *events_cmd; /* scx-events binary for live capture; NULL: search */
	unsigned update_ms;	/* min gap between resource updates; 0 = 1000 */
	unsigned ring_events;	/* events kept for events://stream; 0 = 512 */
	bool capture;		/* start a live capture at once */
	bool no_live;		/* refuse live capture and profiling */
};

struct mcp_server;

/* NULL + errno (ENOENT/ENOTDIR for a bad root). */
struct mcp_server *mcp_server__new(const struct mcp_opts *o);
void mcp_server__free(struct mcp_server *s);
/* Serve until in_fd reaches EOF.  0, or -errno when out_fd failed. */
int mcp_server__run(struct mcp_server *s, int in_fd, int out_fd);
/*
 * Handle one message (no newline) and append whatever the server answers to
 * *out as NDJSON lines.  For tests and fuzzing; no I/O on file descriptors.
 */
struct scx_buf;
void mcp_server__handle(struct mcp_server *s, const char *line, size_t len, struct scx_buf *out);

#endif
