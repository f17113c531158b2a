/* SPDX-License-Identifier: GPL-2.0 */
/* scx-mcp internals shared by lib/mcp*.c; not an API for other tools. */
#ifndef SCX_MCP_INT_H
#define SCX_MCP_INT_H

#include <limits.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "json/json.h"
#include "mcp/mcp.h"
#include "core/util.h"

/* JSON-RPC and MCP error codes */
#define MCP_PARSE_ERROR -32700
#define MCP_INVALID_REQUEST -32600
#define MCP_METHOD_NOT_FOUND -32601
#define MCP_INVALID_PARAMS -32602
#define MCP_INTERNAL_ERROR -32603
#define MCP_RESOURCE_NOT_FOUND -32002
#define MCP_UNSUPPORTED_VERSION -32022 /* 2026-07-28 */
#define MCP_MISSING_CAPABILITY -32021  /* 2026-07-28: the client did not declare it */

/* The newest version of each era: the initialize handshake, and stateless. */
#define MCP_PROTO_LATEST "2025-11-25"
#define MCP_PROTO_MODERN "2026-07-28"
#define MCP_META_VERSION "io.modelcontextprotocol/protocolVersion"
#define MCP_META_CAPS "io.modelcontextprotocol/clientCapabilities"
#define MCP_META_LOG "io.modelcontextprotocol/logLevel"
#define MCP_META_SERVER "io.modelcontextprotocol/serverInfo"
#define MCP_META_SUB "io.modelcontextprotocol/subscriptionId"
/* the 2026-07-28 tasks extension (SEP-2663), declared per request */
#define MCP_EXT_TASKS "io.modelcontextprotocol/tasks"

enum mcp_level {
	MCP_DEBUG,
	MCP_INFO,
	MCP_NOTICE,
	MCP_WARNING,
	MCP_ERROR,
	MCP_CRITICAL,
	MCP_ALERT,
	MCP_EMERGENCY,
	MCP_LEVEL__COUNT
};
extern const char *const mcp_level_names[MCP_LEVEL__COUNT];

struct mcp_trace;
struct mcp_live;
struct scx_profile;

#define MCP_MAX_SUBS 32
#define MCP_MAX_ROOTS 16
#define MCP_MAX_LISTENS 8
#define MCP_MAX_TASKS 16
#define MCP_MAX_LINKED 8	/* results kept for resource_link (mcp_links.c) */
#define MCP_LINK_MAX (4u << 20) /* bytes of one of them */

/* A 2026-07-28 subscriptions/listen request, open until the client cancels it. */
struct mcp_listen {
	struct scx_buf id;	  /* raw JSON of the request id */
	bool resources_list;	  /* notifications/resources/list_changed */
	char *uris[MCP_MAX_SUBS]; /* notifications/resources/updated */
	unsigned nr_uris;
	bool tasks; /* it declared the tasks extension: notifications/tasks */
};

struct mcp_task;

struct mcp_root {
	char *path; /* realpath, no trailing slash (except "/") */
	int fd;	    /* O_PATH directory */
};

struct mcp_server {
	struct mcp_opts o;
	int in_fd, out_fd;
	struct scx_buf *sink;  /* mcp_server__handle(): replies go here */
	struct scx_buf *batch; /* inside a JSON-RPC batch: its responses */
	int out_err;	       /* first write error on out_fd */

	/* input: complete lines are taken from in.data[in_off..] */
	struct scx_buf in;
	size_t in_off, scan_off;
	bool discarding; /* inside a line longer than max_line */
	bool eof;

	struct scx_buf line;	  /* copy of the request being handled: stdin's
					   buffer may move while a long call reads on */
	struct scx_json_doc doc;  /* the request being handled (points into line) */
	struct scx_json_doc side; /* lines peeked at during a long call */
	struct scx_buf out;	  /* message being built */

	bool initialized; /* a legacy session: initialize was answered */
	char proto[16];
	int log_level; /* enum mcp_level: minimum sent (legacy session) */

	/* the request being handled is of the 2026-07-28 era (params._meta says
	   so): served statelessly, logs only at its own _meta level */
	bool modern;
	int req_log_level; /* MCP_LEVEL__COUNT: none */
	bool req_tasks;	   /* it declared the tasks extension in its _meta */
	bool result_task;  /* the result is a CreateTaskResult, not "complete" */

	/* the request being handled */
	struct scx_buf cur_id;	       /* raw JSON of its id */
	struct scx_buf progress_token; /* raw JSON, empty when none */
	double progress_last;
	bool cancelled;

	/* an error set by a method handler */
	int err_code;
	char err_msg[512];
	struct scx_buf err_data; /* raw JSON of error.data, empty for none */

	char *subs[MCP_MAX_SUBS]; /* legacy resources/subscribe */
	unsigned nr_subs;
	struct mcp_listen listens[MCP_MAX_LISTENS];
	unsigned nr_listens;

	struct mcp_root roots[MCP_MAX_ROOTS];
	unsigned nr_roots;

	/* loaded traces */
	struct mcp_trace **traces;
	unsigned nr_traces;
	uint64_t trace_mem;
	bool list_changed; /* send notifications/resources/list_changed */

	struct mcp_live *live;
	struct scx_profile *prof;
	/* bench/mcp-structured.sh only (SCX_MCP_BENCH_NO_STRUCTURED set): tool
	   results without structuredContent and its check, to measure their cost */
	bool bench_no_structured;

	/* tasks of the 2026-07-28 extension: working ones and, for their TTL,
	   finished ones with their result (mcp_tasks.c) */
	struct mcp_task *tasks[MCP_MAX_TASKS];
	unsigned task_seq;

	/* whole results too large for a tool result, read in pages (mcp_links.c) */
	struct mcp_linked *linked[MCP_MAX_LINKED];
	unsigned linked_seq;
};

struct mcp_linked;

/* ---- protocol helpers (mcp.c) --------------------------------------------- */

/* Set the error of the current request; returns code. */
int mcp_error(struct mcp_server *s, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The resource-not-found error of the request's era (-32002, or -32602 with
 * 2026-07-28), with data.uri; returns the code. */
int mcp_error_no_resource(struct mcp_server *s, const char *uri);
/* Send a notification; params_json is a JSON object text or NULL. */
void mcp_notify(struct mcp_server *s, const char *method, const char *params_json, size_t len);
/* notifications/message at level, when at or above the client's level. */
void mcp_log(struct mcp_server *s, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* notifications/progress for the current request when it asked for it. */
void mcp_progress(struct mcp_server *s, double progress, double total, const char *msg);
/*
 * During a long call: read what stdin has without blocking, answer pings and
 * take note of notifications/cancelled for the current request.  Returns
 * true when the current request was cancelled.
 */
bool mcp_poll_input(struct mcp_server *s);
bool mcp_subscribed(struct mcp_server *s, const char *uri);
/* notifications/resources/updated when the client subscribed to uri. */
void mcp_updated(struct mcp_server *s, const char *uri);

/* Pagination: parse params.cursor into *start; -32602 on a bad cursor. */
int mcp_page_start(struct mcp_server *s, int params, unsigned total, unsigned *start);
/* Write "nextCursor" when more items follow. */
void mcp_page_next(struct mcp_server *s, struct scx_jw *w, unsigned start, unsigned total);

/* ---- tools (mcp_tools.c) --------------------------------------------------- */

struct mcp_tool;

struct mcp_call {
	struct mcp_server *s;
	const struct mcp_tool *tool;
	const struct scx_json_doc *d;
	int args;	    /* the arguments object, or -1 */
	struct scx_buf out; /* the result payload (JSON text) */
	struct scx_jw w;
	bool failed;
	char msg[1024]; /* the isError text */
	size_t cap;	/* payload budget in bytes */
	/* a resource the call made, sent as a resource_link (mcp_call_link) */
	char link_uri[96];
	char link_name[80];
	char link_desc[256];
	/* the tool started work that ends by itself (a capture or a profile
	   with duration_secs): it may run as a task (mcp_call_task) */
	int task_kind; /* enum mcp_task_kind, MCP_TASK_NONE: a plain call */
	unsigned task_secs;
	bool for_task; /* the result is a task's outcome (mcp_tasks.c) */
};

/*
 * One top-level key of a tool's result: its JSON Schema type ("string",
 * "number", "boolean", "object", "array").  A tool's table is its
 * outputSchema in tools/list and the check every result passes before it
 * is sent (mcp_tools_call), so the two cannot disagree unnoticed.
 */
#define MCP_OUT_KEY 32 /* a key's bytes, its NUL included (t/unit/5005 checks) */
struct mcp_out {
	/* an array, not a pointer: the check compares 16 bytes of it at once
	   (mcp_outcheck.c); "" ends a table */
	char key[MCP_OUT_KEY];
	const char *type;
	/* where mcp_out_write() takes the value from a tool's record: entries
	   written this way get their key and type from the record's field
	   (MCP_REC_*), so the schema says what is written; MCP_V_HAND: the tool
	   writes the key itself, or this tool never does */
	unsigned char val;
	unsigned short off; /* the field's offset in the record */
	/* MCP_V_FN: writes the value the field points to */
	void (*fn)(struct scx_jw *w, const void *val);
};
enum mcp_val {
	MCP_V_HAND,
	MCP_V_STR,	/* const char *, absent when NULL */
	MCP_V_UINT,	/* uint64_t */
	MCP_V_UINT_NZ,	/* uint64_t, absent when 0 */
	MCP_V_INT,	/* int64_t */
	MCP_V_INT_SET,	/* int64_t, absent when negative (a pid or cpu not given) */
	MCP_V_INT_AT,	/* const int64_t *, absent when NULL (any value, negative too) */
	MCP_V_NUM,	/* double, a measured figure (scx_jw_num) */
	MCP_V_NUM_SET,	/* double, absent when NaN */
	MCP_V_BOOL,	/* bool */
	MCP_V_BOOL_SET, /* int8_t, absent when negative, else false (0) or true */
	MCP_V_OBJ,	/* const struct scx_buf *: an object's JSON text, absent when NULL */
	MCP_V_FN,	/* const void *, absent when NULL: fn(w, it) writes the value */
};
/* table entries whose key is the record's field name */
#define MCP_REC(rec, f, v, t) { #f, t, v, (unsigned short)offsetof(struct rec, f) }
#define MCP_REC_STR(rec, f) MCP_REC(rec, f, MCP_V_STR, "string")
#define MCP_REC_UINT(rec, f) MCP_REC(rec, f, MCP_V_UINT, "number")
#define MCP_REC_UINT_NZ(rec, f) MCP_REC(rec, f, MCP_V_UINT_NZ, "number")
#define MCP_REC_INT(rec, f) MCP_REC(rec, f, MCP_V_INT, "number")
#define MCP_REC_INT_SET(rec, f) MCP_REC(rec, f, MCP_V_INT_SET, "number")
#define MCP_REC_INT_AT(rec, f) MCP_REC(rec, f, MCP_V_INT_AT, "number")
#define MCP_REC_NUM(rec, f) MCP_REC(rec, f, MCP_V_NUM, "number")
#define MCP_REC_NUM_SET(rec, f) MCP_REC(rec, f, MCP_V_NUM_SET, "number")
#define MCP_REC_BOOL(rec, f) MCP_REC(rec, f, MCP_V_BOOL, "boolean")
#define MCP_REC_BOOL_SET(rec, f) MCP_REC(rec, f, MCP_V_BOOL_SET, "boolean")
#define MCP_REC_OBJ(rec, f) MCP_REC(rec, f, MCP_V_OBJ, "object")
/* a value of schema type t written by fn; t is the one thing fn must keep */
#define MCP_REC_FN(rec, f, t, f_fn) \
	{ #f, t, MCP_V_FN, (unsigned short)offsetof(struct rec, f), f_fn }
/* The object of a record's entries in the table, in the table's order
   (mcp_record.c). */
void mcp_out_write(struct scx_jw *w, const struct mcp_out *table, const void *rec);
/* The same members without the braces: a tool that writes keys of its own
   after them ("table fields, then by hand") opens and closes the object. */
void mcp_out_fields(struct scx_jw *w, const struct mcp_out *table, const void *rec);

struct mcp_tool {
	const char *name;
	const char *title;
	const char *desc;
	const char *schema; /* inputSchema, JSON text */
	unsigned flags;
	int (*fn)(struct mcp_call *c);
	const char *report;		    /* scxtop's analyze_* aliases: the report they run */
	const struct mcp_out *out;	    /* the keys its result may have; { "" } ends */
	void (*desc_fn)(struct scx_buf *b); /* writes the description instead of desc */
};
#define MCP_T_RO 1	    /* readOnlyHint */
#define MCP_T_WRITES 2	    /* writes a file */
#define MCP_T_LIVE 4	    /* needs the live machine (openWorld) */
#define MCP_T_DESTRUCTIVE 8 /* may replace a file (destructiveHint) */

/* icons (mcp_icons.c): written only where the request's revision defines them */
enum mcp_icon {
	MCP_ICON_SERVER,
	MCP_ICON_TRACE,
	MCP_ICON_ANALYSIS,
	MCP_ICON_LIVE,
	MCP_ICON_PROFILE,
	MCP_ICON_PROMPT,
	MCP_ICON__COUNT
};
/* an "icons" key with the icon, when the revision has icons */
void mcp_icons(const struct mcp_server *s, struct scx_jw *w, enum mcp_icon which);
enum mcp_icon mcp_tool_icon(const struct mcp_tool *t);
enum mcp_icon mcp_resource_icon(const char *uri);

int mcp_tools_list(struct mcp_server *s, int params, struct scx_jw *w);
int mcp_tools_call(struct mcp_server *s, int params, struct scx_jw *w);
extern const struct mcp_tool mcp_tools[];
extern const unsigned mcp_nr_tools;
const struct mcp_tool *mcp_tool_find(const char *name);

/* Payload bytes one tool result may carry: room left for the envelope and
 * the escaping of the text. */
size_t mcp_inline_cap(const struct mcp_server *s);
/*
 * A tool failure: the isError result's text, written once here, where the
 * failure is known (the first one a call makes is kept).  Returns -EINVAL,
 * the call not served as asked; a tool that knows a system call's errno
 * returns that after it instead.  Every mcp_t_* returns 0, or a negative
 * errno with c failed (lib/README.md, Errors).
 */
int mcp_fail(struct mcp_call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Arguments.  1 present, 0 absent (out untouched), -EINVAL bad (mcp_fail called). */
int mcp_arg_str(struct mcp_call *c, const char *key, char *buf, size_t size);
int mcp_arg_i64(struct mcp_call *c, const char *key, int64_t *v, int64_t min, int64_t max);
int mcp_arg_bool(struct mcp_call *c, const char *key, bool *v);
/* Index of the word in words (NULL-terminated), def when absent, -EINVAL bad. */
int mcp_arg_enum(struct mcp_call *c, const char *key, const char *const *words, int def);
int mcp_arg_required(struct mcp_call *c, const char *key);
/* Room left in the payload budget for another row. */
static inline bool mcp_room(const struct mcp_call *c)
{
	return c->out.len < c->cap;
}
/* "truncated":{...} note: rows left out and why. */
void mcp_note_cut(struct mcp_call *c, uint64_t shown, uint64_t omitted, const char *why);
/*
 * Point the client at a resource the call made (a loaded trace), so it can
 * read it later instead of receiving it inlined: a resource_link content
 * block after the text, in the eras that define it.
 */
void mcp_call_link(struct mcp_call *c, const char *uri, const char *name, const char *desc);
/* The request's revision has resource_link content (2025-06-18 on). */
bool mcp_resource_links(const struct mcp_server *s);
/*
 * The CallToolResult of a call whose payload is in c->out (or whose
 * failure is c->msg): text, resource_link, structuredContent, isError.
 * Checks the payload against the tool's outputSchema first.
 */
void mcp_call_result(struct mcp_call *c, struct scx_jw *w);
/*
 * Run c->tool into c->out; a read-only tool's whole result larger than a
 * tool result is kept as result://N and the tool run again within the
 * budget, with a link to the whole (mcp_links.c).
 */
void mcp_call_run(struct mcp_call *c);
/*
 * Every key of the result is in the tool's table with its type: what
 * tools/list promised.  0, or -EINVAL with c failed (an internal error: the
 * result would not validate against the outputSchema clients check).
 */
int mcp_check_output(struct mcp_call *c);

/* ---- linked results (mcp_links.c) ------------------------------------------ */

/* Keep a whole result as result://N (into uri); *pages: how many it reads in. */
void mcp_link_keep(struct mcp_server *s, const char *tool, const char *text, size_t len, char *uri,
		   size_t size, unsigned *pages);
bool mcp_link_exists(struct mcp_server *s, const char *uri);
/* A page of it (result://N, result://N/K) into w; 0 or an mcp_error code. */
int mcp_link_read(struct mcp_server *s, const char *uri, struct scx_jw *w);
void mcp_links_free(struct mcp_server *s);

/* ---- tasks (mcp_tasks.c) ---------------------------------------------------- */

enum mcp_task_kind {
	MCP_TASK_NONE,
	MCP_TASK_CAPTURE, /* s->live, stopping itself at its deadline */
	MCP_TASK_PROFILE, /* s->prof, stopping itself after duration_secs */
};
/* The work c started (c->task_kind) becomes a task: the CreateTaskResult
 * into w and 0, or -EBUSY when the table is full (then the call answers as
 * a plain one). */
int mcp_task_create(struct mcp_call *c, struct scx_jw *w);
/* Settle tasks whose work ended, send progress and status; drop expired
 * ones.  Called by the main loop and before every tool call. */
void mcp_tasks_tick(struct mcp_server *s);
void mcp_tasks_free(struct mcp_server *s);
int mcp_tasks_get(struct mcp_server *s, int params, struct scx_jw *w);
int mcp_tasks_update(struct mcp_server *s, int params, struct scx_jw *w);
int mcp_tasks_cancel(struct mcp_server *s, int params, struct scx_jw *w);
/* A notification to every open subscriptions/listen (those that declared
 * the tasks extension with tasks_only) (mcp.c): fields() writes the params'
 * keys, then the listen's id is added as its tag. */
void mcp_notify_listens(struct mcp_server *s, const char *method, bool tasks_only,
			void (*fields)(struct scx_jw *w, const void *arg), const void *arg);

/* ---- resources (mcp_res.c) ------------------------------------------------- */

/* Write the resource's JSON text into w; 0, or an mcp_error code. */
int mcp_resource_read(struct mcp_server *s, const char *uri, struct scx_jw *w, const char **mime);
int mcp_resources_list(struct mcp_server *s, int params, struct scx_jw *w);
int mcp_templates_list(struct mcp_server *s, int params, struct scx_jw *w);
bool mcp_resource_exists(struct mcp_server *s, const char *uri);
/* Values completing a template argument; returns count written. */
unsigned mcp_complete_template(struct mcp_server *s, const char *tmpl, const char *arg,
			       const char *prefix, struct scx_jw *w, unsigned max, unsigned *total);

unsigned mcp_complete_trace_ids(struct mcp_server *s, const char *prefix, struct scx_jw *w,
				unsigned max, unsigned *total);

/* ---- prompts (mcp_prompts.c) ----------------------------------------------- */

int mcp_prompts_list(struct mcp_server *s, int params, struct scx_jw *w);
int mcp_prompts_get(struct mcp_server *s, int params, struct scx_jw *w);
unsigned mcp_complete_prompt(struct mcp_server *s, const char *name, const char *arg,
			     const char *prefix, struct scx_jw *w, unsigned max, unsigned *total);
bool mcp_prompt_exists(const char *name);

/* ---- sandboxed files (mcp_fs.c) -------------------------------------------- */

int mcp_fs_init(struct mcp_server *s);
void mcp_fs_free(struct mcp_server *s);
/*
 * Open path under one of the roots: flags as for open(2); symlinks and ".."
 * may not leave the root; only regular files (never blocks on a FIFO).  fd
 * (O_NONBLOCK set, no effect on a regular file), or -errno: -EACCES outside
 * every root, -MCP_FS_NOT_REGULAR for anything but a regular file.
 * resolved (PATH_MAX) receives the path shown to the user.
 */
#define MCP_FS_NOT_REGULAR 4095 /* above every errno the kernel returns */
int mcp_fs_open(struct mcp_server *s, const char *path, int flags, char *resolved);
/* strerror() that also knows -MCP_FS_NOT_REGULAR. */
const char *mcp_fs_strerror(int err);

/* ---- system resources (mcp_sys.c) ------------------------------------------ */

int mcp_sys_scheduler(struct scx_jw *w);
/* Its fields, in the object w has open. */
void mcp_sys_scheduler_fields(struct scx_jw *w);
int mcp_sys_topology(struct scx_jw *w, bool full, bool offline);
extern const struct mcp_out mcp_out_topology[]; /* get_topology's, which it writes */
int mcp_sys_cpu(struct scx_jw *w);
int mcp_sys_memory(struct scx_jw *w);
int mcp_sys_bpf_programs(struct scx_jw *w, unsigned limit);

/* ---- traces (mcp_trace*.c) ------------------------------------------------- */

struct mcp_trace *mcp_trace_find(struct mcp_server *s, const char *id);
void mcp_traces_free(struct mcp_server *s);
/* Trace ids: [A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}; never a path. */
bool mcp_trace_id_ok(const char *id);
int mcp_trace_summary(struct mcp_server *s, struct mcp_trace *t, struct scx_jw *w);

/* ---- live capture (mcp_live.c) --------------------------------------------- */

void mcp_live_free(struct mcp_server *s);
/* fd the main loop polls (events arrived), or -1. */
int mcp_live_fd(struct mcp_server *s);
/* Called when mcp_live_fd() is readable and on every tick. */
void mcp_live_tick(struct mcp_server *s, uint64_t now_ms);
int mcp_live_stream(struct mcp_server *s, struct scx_jw *w);
int mcp_live_stats(struct mcp_server *s, const char *group, struct scx_jw *w, unsigned limit);
/*
 * With a live capture whose last closed interval had scx_stats records:
 * "sched_ext_interval", sched_ext's counters as deltas over that interval
 * (stream/scx_stats.h), as a key of the object w has open.
 */
void mcp_live_scx_stats(struct mcp_server *s, struct scx_jw *w);

#endif
