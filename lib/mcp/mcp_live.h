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
/*
 * A capture's state, each field named as its key in a result.  With no
 * capture only running (false) is set: the strings are NULL, the numbers -1.
 */
struct mcp_live_status {
	bool running;
	const char *capture;		   /* the scx-events command line */
	int64_t events_total, lost_events; /* -1: no capture */
	const char *producer, *error;	   /* NULL: not known yet, none */
	int64_t exit_status;		   /* -1: not exited, or by a signal */
	int64_t running_ms;		   /* -1: no capture */
	/* copies the strings point to, taken under the capture's lock */
	char capture_buf[512], producer_buf[48], error_buf[256];
};
/* The status entries of an outputSchema table whose record starts with a
   struct mcp_live_status (control_event_tracking's), in the order written */
/* clang-format off */
#define MCP_LIVE_STATUS_OUT \
	MCP_REC_BOOL(mcp_live_status, running), MCP_REC_STR(mcp_live_status, capture), \
	MCP_REC_INT_SET(mcp_live_status, events_total), \
	MCP_REC_INT_SET(mcp_live_status, lost_events), \
	MCP_REC_STR(mcp_live_status, producer), MCP_REC_STR(mcp_live_status, error), \
	MCP_REC_INT_SET(mcp_live_status, exit_status), \
	MCP_REC_INT_SET(mcp_live_status, running_ms)
/* clang-format on */
/* The capture's state into st. */
void mcp_live_status_get(struct mcp_server *s, struct mcp_live_status *st);
/* Its fields into the object open in w (events://stream, query_stats). */
void mcp_live_status(struct mcp_server *s, struct scx_jw *w);
/* A report of the live engine's last closed interval as JSON into out. */
int mcp_live_report(struct mcp_server *s, const char *name, unsigned limit, struct scx_buf *out);

#endif
