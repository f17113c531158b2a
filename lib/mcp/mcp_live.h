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
 * running -1 leaves the whole status out (query_stats' answers that have
 * none).
 */
struct mcp_live_status {
	int8_t running;
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
	MCP_REC_BOOL_SET(mcp_live_status, running), MCP_REC_STR(mcp_live_status, capture), \
	MCP_REC_INT_SET(mcp_live_status, events_total), \
	MCP_REC_INT_SET(mcp_live_status, lost_events), \
	MCP_REC_STR(mcp_live_status, producer), MCP_REC_STR(mcp_live_status, error), \
	MCP_REC_INT_SET(mcp_live_status, exit_status), \
	MCP_REC_INT_SET(mcp_live_status, running_ms)
/* clang-format on */
/*
 * query_stats' result (and stats://aggregated's, the same writer's), one
 * record for every stat_type: a field a stat_type does not write is absent
 * (NULL, -1).  mcp_stats_none() sets them all so.
 */
struct mcp_stats_rec {
	struct mcp_live_status st; /* first: MCP_LIVE_STATUS_OUT's offsets hold */
	const char *group;
	int8_t available;
	const char *hint;
	int64_t interval_seq, start_ns, end_ns, events, lost, tasks_dropped;
	const void *rows; /* the group's rows, mcp_live_rows() */
	int64_t total_rows;
	/* the rows that did not fit: known once they are written, so
	   mcp_live_rows() sets it, for the table to write after them */
	uint64_t omitted_rows;
	const struct scx_stats *sched_ext_interval; /* the live interval's */
	const void *cpu, *memory;		    /* non-NULL: /proc's figures */
};
void mcp_stats_none(struct mcp_stats_rec *r);
/* The rows of a live group as a JSON array (the rows entry of query_stats' table). */
void mcp_live_rows(struct scx_jw *w, const void *rows);
/* The capture's state into st. */
void mcp_live_status_get(struct mcp_server *s, struct mcp_live_status *st);
/* Its fields into the object open in w (events://stream). */
void mcp_live_status(struct mcp_server *s, struct scx_jw *w);
/* A report of the live engine's last closed interval as JSON into out. */
int mcp_live_report(struct mcp_server *s, const char *name, unsigned limit, struct scx_buf *out);

#endif
