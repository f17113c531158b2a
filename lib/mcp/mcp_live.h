/* SPDX-License-Identifier: GPL-2.0 */
/* scx-mcp live capture through an scx-events child (mcp_live.c). */
#ifndef SCX_MCP_LIVE_H
#define SCX_MCP_LIVE_H

#include "mcp/mcp_int.h"

/*
 * Run scx-events with args (NULL-terminated, after argv[0]); desc is shown
 * in status.  0, -EBUSY when a capture runs, or -errno with err set.
 */
int mcp_live_start(struct mcp_server *s, char *const *args, const char *desc, char *err,
		   size_t errsz);
/* SIGINT the child and wait for it (2 s, then SIGKILL).  0 or -ESRCH. */
int mcp_live_stop(struct mcp_server *s);
/*
 * Stop the capture after secs (0: never): SIGINT to its process group at the
 * first tick past the deadline, SIGKILL 2 s later if it is still there.
 */
void mcp_live_stop_after(struct mcp_server *s, unsigned secs);
/* SIGKILL the capture's process group now, without waiting (a cancelled
 * task); the kernel detaches the BPF links as it dies.  0 or -ESRCH. */
int mcp_live_kill(struct mcp_server *s);
/*
 * How capture l ended: -ESRCH when it is not s->live any more, -EAGAIN while
 * it runs, 0 once its stream ended (the child is reaped when it can be);
 * *early: it ended by itself, before anyone asked it to stop.
 */
int mcp_live_outcome(struct mcp_server *s, const struct mcp_live *l, bool *early);
/* "running", "events_total", ... fields into the object open in w. */
void mcp_live_status(struct mcp_server *s, struct scx_jw *w);
/* A report of the live engine's last closed interval as JSON into out. */
int mcp_live_report(struct mcp_server *s, const char *name, unsigned limit, struct scx_buf *out);

#endif
