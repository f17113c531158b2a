// SPDX-License-Identifier: GPL-2.0
/*
 * The 2026-07-28 tasks extension (io.modelcontextprotocol/tasks, SEP-2663)
 * for scx-mcp: a live capture or a profile given duration_secs outlasts a
 * client's request timeout, so when the request declares the extension its
 * tools/call answers at once with a CreateTaskResult (resultType "task",
 * taskId, status ...) and the client polls tasks/get, which inlines the
 * tool's result once the work has ended; tasks/cancel stops the work (the
 * BPF programs are detached) and tasks/update is acknowledged (no task of
 * ours ever waits for input).  tasks/list and tasks/result are not part of
 * the extension (-32601), and legacy sessions know none of these methods.
 *
 * The server decides: the same call without the extension, or in a legacy
 * session, starts the same work and answers "started" as before; the work
 * still stops itself after duration_secs.
 *
 * Memory is bounded: at most MCP_MAX_TASKS tasks, each keeping one tool
 * result (at most --max-result bytes of payload); a finished task is
 * dropped TASK_TTL_MS after it finished, never earlier.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/mcp_int.h"
#include "mcp/mcp_live.h"
#include "mcp/mcp_tools.h"
#include "mcp/profile.h"

#define TASK_TTL_MS 600000 /* kept this long after it finished */
#define TASK_POLL_MS 1000  /* the live statistics interval: nothing changes faster */

enum task_status { T_WORKING, T_COMPLETED, T_FAILED, T_CANCELLED };
static const char *const status_names[] = { "working", "completed", "failed", "cancelled" };

struct mcp_task {
	char id[48];
	enum mcp_task_kind kind;
	enum task_status status;
	const struct mcp_tool *tool;
	const void *work;		 /* the mcp_live or scx_profile it watches */
	unsigned secs;			 /* duration_secs */
	uint64_t created_ms, updated_ms; /* wall clock, for createdAt/lastUpdatedAt */
	uint64_t started_mono_ms, ended_mono_ms;
	struct scx_buf progress_token; /* the creating request's, raw JSON */
	double progress_last;
	char message[256];	/* statusMessage */
	struct scx_buf outcome; /* result (completed) or error (failed), raw JSON */
};

static uint64_t mono_ms(void)
{
	return scx_now_mono_ns() / 1000000;
}

static uint64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ISO 8601 in UTC with milliseconds, as createdAt and lastUpdatedAt are */
static void iso_time(uint64_t ms, char *buf, size_t size)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (unsigned)(ms % 1000));
}

static void task_free(struct mcp_task *t)
{
	if (!t)
		return;
	scx_buf_free(&t->progress_token);
	scx_buf_free(&t->outcome);
	free(t);
}

void mcp_tasks_free(struct mcp_server *s)
{
	for (unsigned i = 0; i < MCP_MAX_TASKS; i++) {
		task_free(s->tasks[i]);
		s->tasks[i] = NULL;
	}
}

static struct mcp_task *task_find(struct mcp_server *s, const char *id)
{
	for (unsigned i = 0; i < MCP_MAX_TASKS; i++)
		if (s->tasks[i] && !strcmp(s->tasks[i]->id, id))
			return s->tasks[i];
	return NULL;
}

/* The Task fields every task message carries, into the object w has open. */
static void task_fields(const struct mcp_task *t, struct scx_jw *w)
{
	char when[64];

	scx_jw_kstr(w, "taskId", t->id);
	scx_jw_kstr(w, "status", status_names[t->status]);
	if (t->message[0])
		scx_jw_kstr(w, "statusMessage", t->message);
	iso_time(t->created_ms, when, sizeof(when));
	scx_jw_kstr(w, "createdAt", when);
	iso_time(t->updated_ms, when, sizeof(when));
	scx_jw_kstr(w, "lastUpdatedAt", when);
	scx_jw_kint(w, "ttlMs", TASK_TTL_MS);
	if (t->status == T_WORKING)
		scx_jw_kint(w, "pollIntervalMs", TASK_POLL_MS);
}

static void notify_fields(struct scx_jw *w, const void *t)
{
	task_fields(t, w);
}

/* notifications/tasks to the listens that declared the extension */
static void task_notify(struct mcp_server *s, const struct mcp_task *t)
{
	mcp_notify_listens(s, "notifications/tasks", true, notify_fields, t);
}

/* notifications/progress on the creating request's token: seconds of duration_secs */
static void task_progress(struct mcp_server *s, struct mcp_task *t, double done)
{
	struct scx_buf b = { 0 };
	struct scx_jw w;
	char msg[96];

	if (!t->progress_token.len || !t->secs || done <= t->progress_last)
		return;
	t->progress_last = done;
	snprintf(msg, sizeof(msg), "%s: %.0f of %u s", t->tool->name, done, t->secs);
	scx_jw_init(&w, &b);
	scx_jw_obj_begin(&w);
	scx_jw_key(&w, "progressToken");
	scx_jw_raw(&w, t->progress_token.data, t->progress_token.len);
	scx_jw_kdouble(&w, "progress", done);
	scx_jw_kdouble(&w, "total", t->secs);
	scx_jw_kstr(&w, "message", msg);
	scx_jw_obj_end(&w);
	mcp_notify(s, "notifications/progress", b.data, b.len);
	scx_buf_free(&b);
}

static void task_settle(struct mcp_server *s, struct mcp_task *t, enum task_status st,
			const char *msg)
{
	t->status = st;
	t->updated_ms = wall_ms();
	t->ended_mono_ms = mono_ms();
	snprintf(t->message, sizeof(t->message), "%s", msg);
	if (st == T_COMPLETED)
		task_progress(s, t, t->secs);
	task_notify(s, t);
}

/* The tool's result, as tools/call would have answered it, kept in the task. */
static void task_complete(struct mcp_server *s, struct mcp_task *t, struct mcp_call *c,
			  const char *msg)
{
	struct scx_jw w;

	scx_buf_reset(&t->outcome);
	scx_jw_init(&w, &t->outcome);
	mcp_call_result(c, &w);
	task_settle(s, t, T_COMPLETED, msg);
}

/* A protocol-level end: the work is gone without an outcome. */
static void task_fail(struct mcp_server *s, struct mcp_task *t, const char *why)
{
	struct scx_jw w;

	scx_buf_reset(&t->outcome);
	scx_jw_init(&w, &t->outcome);
	scx_jw_obj_begin(&w);
	scx_jw_kint(&w, "code", MCP_INTERNAL_ERROR);
	scx_jw_kstr(&w, "message", why);
	scx_jw_obj_end(&w);
	task_settle(s, t, T_FAILED, why);
}

static void call_init(struct mcp_call *c, struct mcp_server *s, const struct mcp_tool *tool)
{
	*c = (struct mcp_call){ .s = s, .tool = tool, .d = &s->doc, .args = -1, .for_task = true };
	c->cap = mcp_inline_cap(s);
	scx_jw_init(&c->w, &c->out);
}

static void settle_capture(struct mcp_server *s, struct mcp_task *t)
{
	struct mcp_call c;
	bool early;
	char note[160];
	int r = mcp_live_outcome(s, t->work, &early);

	if (r == -EAGAIN)
		return;
	if (r) {
		task_fail(s, t, "the capture was replaced before its task settled");
		return;
	}
	call_init(&c, s, t->tool);
	if (early) {
		struct scx_buf st = { 0 };
		struct scx_jw w;

		/* a tool error, reported in the result (status completed, isError) */
		scx_jw_init(&w, &st);
		scx_jw_obj_begin(&w);
		mcp_live_status(s, &w);
		scx_jw_obj_end(&w);
		mcp_fail(&c, "the capture ended before duration_secs (%u s): %.*s", t->secs,
			 (int)st.len, st.data);
		scx_buf_free(&st);
	} else {
		snprintf(note, sizeof(note),
			 "captured for duration_secs (%u s), or until stopped; the capture's "
			 "statistics stay readable until the next one starts",
			 t->secs);
		mcp_tracking_result(s, &c.w, "stopped", note,
				    "query_stats, analyze_waker_wakee and analyze_softirq read "
				    "the last closed interval");
	}
	task_complete(s, t, &c, early ? "the capture ended early" : "the capture ended");
	scx_buf_free(&c.out);
}

static void settle_profile(struct mcp_server *s, struct mcp_task *t)
{
	const struct mcp_tool *results = mcp_tool_find("get_perf_results");
	struct mcp_call c;

	if (s->prof != t->work) {
		task_fail(s, t, "the profile was replaced before its task settled");
		return;
	}
	if (scx_profile__running(s->prof))
		return;
	/* what get_perf_results answers with its defaults */
	call_init(&c, s, results);
	mcp_call_run(&c);
	c.tool = t->tool;
	task_complete(s, t, &c, "the profile ended");
	scx_buf_free(&c.out);
}

void mcp_tasks_tick(struct mcp_server *s)
{
	uint64_t now = mono_ms();

	for (unsigned i = 0; i < MCP_MAX_TASKS; i++) {
		struct mcp_task *t = s->tasks[i];

		if (!t)
			continue;
		if (t->status != T_WORKING) {
			if (now - t->ended_mono_ms >= TASK_TTL_MS) {
				task_free(t);
				s->tasks[i] = NULL;
			}
			continue;
		}
		if (t->kind == MCP_TASK_CAPTURE)
			settle_capture(s, t);
		else
			settle_profile(s, t);
		if (t->status == T_WORKING && t->secs)
			task_progress(s, t,
				      SCX_MIN((double)((now - t->started_mono_ms) / 1000),
					      (double)t->secs));
	}
}

int mcp_task_create(struct mcp_call *c, struct scx_jw *w)
{
	struct mcp_server *s = c->s;
	struct mcp_task *t;
	unsigned slot = 0;

	mcp_tasks_tick(s); /* frees expired ones */
	while (slot < MCP_MAX_TASKS && s->tasks[slot])
		slot++;
	if (slot == MCP_MAX_TASKS) {
		mcp_log(s, MCP_WARNING,
			"%d tasks are kept already (none expired): %s answers as a plain call",
			MCP_MAX_TASKS, c->tool->name);
		return -EBUSY;
	}
	t = scx_xcalloc(1, sizeof(*t));
	snprintf(t->id, sizeof(t->id), "scx-task-%u-%llx", ++s->task_seq,
		 (unsigned long long)(wall_ms() & 0xffffffff));
	t->kind = c->task_kind;
	t->tool = c->tool;
	t->work = c->task_kind == MCP_TASK_CAPTURE ? (const void *)s->live : (const void *)s->prof;
	t->secs = c->task_secs;
	t->created_ms = t->updated_ms = wall_ms();
	t->started_mono_ms = mono_ms();
	t->progress_last = -1;
	scx_buf_add(&t->progress_token, s->progress_token.data, s->progress_token.len);
	snprintf(t->message, sizeof(t->message), "%s for %u s", t->tool->name, t->secs);
	s->tasks[slot] = t;

	/* CreateTaskResult: Result & Task, flat (mcp.c adds resultType "task") */
	scx_jw_obj_begin(w);
	task_fields(t, w);
	scx_jw_obj_end(w);
	s->result_task = true;
	return 0;
}

/* ---- methods ------------------------------------------------------------------- */

/*
 * The extension's methods need the request to declare it; then params.taskId
 * must name a task we keep.  0 with *t set, or the error code.
 */
static int task_arg(struct mcp_server *s, int params, struct mcp_task **t)
{
	const struct scx_json_doc *d = &s->doc;
	int id = scx_json_get(d, params, "taskId");
	char buf[64];

	if (!s->req_tasks) {
		struct scx_jw w;

		scx_buf_reset(&s->err_data);
		scx_jw_init(&w, &s->err_data);
		scx_jw_obj_begin(&w);
		scx_jw_key(&w, "requiredCapabilities");
		scx_jw_obj_begin(&w);
		scx_jw_key(&w, "extensions");
		scx_jw_obj_begin(&w);
		scx_jw_key(&w, MCP_EXT_TASKS);
		scx_jw_raw(&w, "{}", 2);
		scx_jw_obj_end(&w);
		scx_jw_obj_end(&w);
		scx_jw_obj_end(&w);
		return mcp_error(s, MCP_MISSING_CAPABILITY,
				 "tasks need the %s extension declared in "
				 "params._meta[\"%s\"].extensions",
				 MCP_EXT_TASKS, MCP_META_CAPS);
	}
	if (id < 0 || !scx_json_is_str(d, id))
		return mcp_error(s, MCP_INVALID_PARAMS, "params.taskId must be a string");
	if (scx_json_str(d, id, buf, sizeof(buf)) >= (int)sizeof(buf) || !(*t = task_find(s, buf)))
		return mcp_error(s, MCP_INVALID_PARAMS, "unknown task: %.63s", buf);
	return 0;
}

/* DetailedTask: the Task, and once it ended its result or error */
int mcp_tasks_get(struct mcp_server *s, int params, struct scx_jw *w)
{
	struct mcp_task *t;
	int r = task_arg(s, params, &t);

	if (r)
		return r;
	mcp_tasks_tick(s);
	scx_jw_obj_begin(w);
	task_fields(t, w);
	if (t->status == T_COMPLETED || t->status == T_FAILED) {
		scx_jw_key(w, t->status == T_COMPLETED ? "result" : "error");
		scx_jw_raw(w, t->outcome.data, t->outcome.len);
	}
	scx_jw_obj_end(w);
	return 0;
}

/* No task of ours asks for input: whatever comes is acknowledged and unused. */
int mcp_tasks_update(struct mcp_server *s, int params, struct scx_jw *w)
{
	const struct scx_json_doc *d = &s->doc;
	struct mcp_task *t;
	int r = task_arg(s, params, &t), in;

	if (r)
		return r;
	in = scx_json_get(d, params, "inputResponses");
	if (in >= 0 && d->tok[in].type != JSMN_OBJECT)
		return mcp_error(s, MCP_INVALID_PARAMS, "params.inputResponses must be an object");
	scx_jw_obj_begin(w);
	scx_jw_obj_end(w);
	return 0;
}

/*
 * Stop the work now: the capture's process group is killed (the kernel
 * detaches its BPF links as it dies), the profile's links are destroyed.
 * A task that already ended is left as it is: the same empty ack.
 */
int mcp_tasks_cancel(struct mcp_server *s, int params, struct scx_jw *w)
{
	struct mcp_task *t;
	int r = task_arg(s, params, &t);

	if (r)
		return r;
	mcp_tasks_tick(s);
	if (t->status == T_WORKING) {
		if (t->kind == MCP_TASK_CAPTURE && s->live == t->work)
			mcp_live_kill(s);
		else if (t->kind == MCP_TASK_PROFILE && s->prof == t->work)
			scx_profile__stop(s->prof);
		task_settle(s, t, T_CANCELLED, "cancelled by the client");
	}
	scx_jw_obj_begin(w);
	scx_jw_obj_end(w);
	return 0;
}
