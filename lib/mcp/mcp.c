// SPDX-License-Identifier: GPL-2.0
/*
 * scx-mcp protocol core: stdio framing, JSON-RPC 2.0, the MCP lifecycle and
 * method dispatch, logging, progress, cancellation and completion.
 *
 * One thread serves requests in order.  A long call (loading a trace) keeps
 * peeking at stdin through mcp_poll_input() so pings are answered and
 * notifications/cancelled is seen while it runs.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/mcp_int.h"
#include "mcp/mcp_live.h"
#include "mcp/profile.h"

const char *const mcp_level_names[MCP_LEVEL__COUNT] = {
	"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency",
};

static const char *const versions[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05" };

/* ---- output ---------------------------------------------------------------- */

static void send_buf(struct mcp_server *s, struct scx_buf *b)
{
	int r;

	if (s->batch && b == &s->out) {
		/* a response inside a JSON-RPC batch: one element of the reply array */
		scx_buf_add(s->batch, s->batch->len ? "," : "[", 1);
		scx_buf_add(s->batch, b->data, b->len);
		return;
	}
	scx_buf_add(b, "\n", 1);
	if (s->sink) {
		scx_buf_add(s->sink, b->data, b->len);
		return;
	}
	if (s->out_err)
		return;
	r = scx_write_all(s->out_fd, b->data, b->len);
	if (r < 0)
		s->out_err = r;
}

/* {"jsonrpc":"2.0","id":ID, ... the caller adds the rest */
static void begin_msg(struct mcp_server *s, struct scx_jw *w, const char *id, size_t idlen)
{
	scx_buf_reset(&s->out);
	scx_jw_init(w, &s->out);
	scx_jw_obj_begin(w);
	scx_jw_kstr(w, "jsonrpc", "2.0");
	if (id) {
		scx_jw_key(w, "id");
		if (idlen)
			scx_jw_raw(w, id, idlen);
		else
			scx_jw_null(w);
	}
}

/* data: raw JSON of error.data, or NULL */
static void send_error(struct mcp_server *s, const char *id, size_t idlen, int code,
		       const char *msg, const struct scx_buf *data)
{
	struct scx_jw w;

	begin_msg(s, &w, id ? id : "", id ? idlen : 0);
	scx_jw_key(&w, "error");
	scx_jw_obj_begin(&w);
	scx_jw_kint(&w, "code", code);
	scx_jw_kstr(&w, "message", msg);
	if (data && data->len) {
		scx_jw_key(&w, "data");
		scx_jw_raw(&w, data->data, data->len);
	}
	scx_jw_obj_end(&w);
	scx_jw_obj_end(&w);
	send_buf(s, &s->out);
}

int mcp_error(struct mcp_server *s, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err_msg, sizeof(s->err_msg), fmt, ap);
	va_end(ap);
	s->err_code = code;
	return code;
}

int mcp_error_no_resource(struct mcp_server *s, const char *uri)
{
	struct scx_jw w;

	scx_buf_reset(&s->err_data);
	scx_jw_init(&w, &s->err_data);
	scx_jw_obj_begin(&w);
	scx_jw_kstr(&w, "uri", uri);
	scx_jw_obj_end(&w);
	/* 2026-07-28 folds resource-not-found into invalid params */
	return mcp_error(s, s->modern ? MCP_INVALID_PARAMS : MCP_RESOURCE_NOT_FOUND,
			 "resource not found: %s", uri);
}

void mcp_notify(struct mcp_server *s, const char *method, const char *params, size_t len)
{
	/* a notification may be sent while a response is being built: own buffer */
	struct scx_buf b = { 0 };
	struct scx_jw w;

	scx_jw_init(&w, &b);
	scx_jw_obj_begin(&w);
	scx_jw_kstr(&w, "jsonrpc", "2.0");
	scx_jw_kstr(&w, "method", method);
	if (params) {
		scx_jw_key(&w, "params");
		scx_jw_raw(&w, params, len);
	}
	scx_jw_obj_end(&w);
	send_buf(s, &b);
	scx_buf_free(&b);
}

void mcp_log(struct mcp_server *s, int level, const char *fmt, ...)
{
	struct scx_buf b = { 0 };
	struct scx_jw w;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	scx_debug(2, "%s: %s", mcp_level_names[level], msg);
	if (level < (s->modern	    ? s->req_log_level :
		     s->initialized ? s->log_level :
				      MCP_LEVEL__COUNT))
		return;
	scx_jw_init(&w, &b);
	scx_jw_obj_begin(&w);
	scx_jw_kstr(&w, "level", mcp_level_names[level]);
	scx_jw_kstr(&w, "logger", "scx-mcp");
	scx_jw_kstr(&w, "data", msg);
	scx_jw_obj_end(&w);
	mcp_notify(s, "notifications/message", b.data, b.len);
	scx_buf_free(&b);
}

void mcp_progress(struct mcp_server *s, double progress, double total, const char *msg)
{
	struct scx_buf b = { 0 };
	struct scx_jw w;

	/* progress MUST increase */
	if (!s->progress_token.len || progress <= s->progress_last)
		return;
	s->progress_last = progress;
	scx_jw_init(&w, &b);
	scx_jw_obj_begin(&w);
	scx_jw_key(&w, "progressToken");
	scx_jw_raw(&w, s->progress_token.data, s->progress_token.len);
	scx_jw_kdouble(&w, "progress", progress);
	if (total > 0)
		scx_jw_kdouble(&w, "total", total);
	if (msg)
		scx_jw_kstr(&w, "message", msg);
	scx_jw_obj_end(&w);
	mcp_notify(s, "notifications/progress", b.data, b.len);
	scx_buf_free(&b);
}

/* uri is sub or a sub-resource of it (reported to a parent subscription) */
static bool uri_under(const char *uri, const char *sub)
{
	size_t n = strlen(sub);

	return !strncmp(uri, sub, n) && (!uri[n] || uri[n] == '/');
}

/* Close a notification's params with the _meta that names listen stream ln. */
static void end_with_listen_id(struct scx_jw *w, const struct mcp_listen *ln)
{
	scx_jw_key(w, "_meta");
	scx_jw_obj_begin(w);
	scx_jw_key(w, MCP_META_SUB);
	scx_jw_raw(w, ln->id.data, ln->id.len);
	scx_jw_obj_end(w);
	scx_jw_obj_end(w);
}

/* A notification to a subscriptions/listen stream: tagged with its id. */
static void notify_listen(struct mcp_server *s, const struct mcp_listen *ln, const char *method,
			  const char *uri)
{
	struct scx_buf b = { 0 };
	struct scx_jw w;

	scx_jw_init(&w, &b);
	scx_jw_obj_begin(&w);
	if (uri)
		scx_jw_kstr(&w, "uri", uri);
	end_with_listen_id(&w, ln);
	mcp_notify(s, method, b.data, b.len);
	scx_buf_free(&b);
}

void mcp_notify_listens(struct mcp_server *s, const char *method, bool tasks_only,
			void (*fields)(struct scx_jw *w, const void *arg), const void *arg)
{
	struct scx_buf b = { 0 };
	struct scx_jw w;

	for (unsigned i = 0; i < s->nr_listens; i++) {
		const struct mcp_listen *ln = &s->listens[i];

		if (tasks_only && !ln->tasks)
			continue;
		scx_buf_reset(&b);
		scx_jw_init(&w, &b);
		scx_jw_obj_begin(&w);
		fields(&w, arg);
		end_with_listen_id(&w, ln);
		mcp_notify(s, method, b.data, b.len);
	}
	scx_buf_free(&b);
}

bool mcp_subscribed(struct mcp_server *s, const char *uri)
{
	for (unsigned i = 0; i < s->nr_subs; i++)
		if (uri_under(uri, s->subs[i]))
			return true;
	for (unsigned i = 0; i < s->nr_listens; i++)
		for (unsigned j = 0; j < s->listens[i].nr_uris; j++)
			if (uri_under(uri, s->listens[i].uris[j]))
				return true;
	return false;
}

void mcp_updated(struct mcp_server *s, const char *uri)
{
	struct scx_buf b = { 0 };
	struct scx_jw w;

	for (unsigned i = 0; i < s->nr_subs; i++) {
		if (!uri_under(uri, s->subs[i]))
			continue;
		scx_jw_init(&w, &b);
		scx_jw_obj_begin(&w);
		scx_jw_kstr(&w, "uri", uri);
		scx_jw_obj_end(&w);
		mcp_notify(s, "notifications/resources/updated", b.data, b.len);
		scx_buf_free(&b);
		break;
	}
	for (unsigned i = 0; i < s->nr_listens; i++) {
		const struct mcp_listen *ln = &s->listens[i];

		for (unsigned j = 0; j < ln->nr_uris; j++) {
			if (uri_under(uri, ln->uris[j])) {
				notify_listen(s, ln, "notifications/resources/updated", uri);
				break;
			}
		}
	}
}

/* notifications/resources/list_changed to the legacy session and every listen that asked. */
static void list_changed(struct mcp_server *s)
{
	s->list_changed = false;
	if (s->initialized)
		mcp_notify(s, "notifications/resources/list_changed", NULL, 0);
	for (unsigned i = 0; i < s->nr_listens; i++)
		if (s->listens[i].resources_list)
			notify_listen(s, &s->listens[i], "notifications/resources/list_changed",
				      NULL);
}

/* ---- ids -------------------------------------------------------------------- */

/*
 * The canonical JSON of an id token into b: strings are unescaped and
 * escaped again (so a raw control byte cannot reach stdout), integers are
 * copied digit for digit (so 2^53+1 survives).  false for a token that is
 * not a valid id (null, float, bool, object, array).
 */
static bool id_json(const struct scx_json_doc *d, int idx, struct scx_buf *b)
{
	const jsmntok_t *t = &d->tok[idx];
	const char *p = d->js + t->start;
	size_t n = t->end - t->start, i = 0;

	scx_buf_reset(b);
	if (t->type == JSMN_STRING) {
		char *v;
		int len = scx_json_str(d, idx, NULL, 0);

		if (len < 0)
			return false;
		v = scx_xmalloc(len + 1);
		scx_json_str(d, idx, v, len + 1);
		scx_json_escape(b, v, len);
		free(v);
		return true;
	}
	if (t->type != JSMN_PRIMITIVE || !n)
		return false;
	if (p[0] == '-')
		i = 1;
	if (i == n)
		return false;
	for (; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	scx_buf_add(b, p, n);
	return true;
}

/* ---- pagination --------------------------------------------------------------- */

/* Cursors are "o<offset>" wrapped in a tag so a client cannot guess a meaning. */
int mcp_page_start(struct mcp_server *s, int params, unsigned total, unsigned *start)
{
	const struct scx_json_doc *d = &s->doc;
	int c = scx_json_get(d, params, "cursor");
	char buf[64], *end;
	unsigned long v;

	*start = 0;
	if (c < 0 || scx_json_is_null(d, c))
		return 0;
	if (!scx_json_is_str(d, c) || scx_json_str(d, c, buf, sizeof(buf)) >= (int)sizeof(buf) ||
	    strncmp(buf, "scx-page-", 9))
		return mcp_error(s, MCP_INVALID_PARAMS, "invalid cursor");
	errno = 0;
	v = strtoul(buf + 9, &end, 10);
	if (errno || *end || end == buf + 9 || v > total)
		return mcp_error(s, MCP_INVALID_PARAMS, "invalid cursor");
	*start = (unsigned)v;
	return 0;
}

void mcp_page_next(struct mcp_server *s, struct scx_jw *w, unsigned start, unsigned total)
{
	char buf[32];
	unsigned ps = s->o.page_size;

	if (start + ps < total) {
		snprintf(buf, sizeof(buf), "scx-page-%u", start + ps);
		scx_jw_kstr(w, "nextCursor", buf);
	}
}

/* ---- methods ------------------------------------------------------------------ */

#define CAPS_COMMON \
	"\"tools\":{\"listChanged\":false}," \
	"\"resources\":{\"subscribe\":true,\"listChanged\":true}," \
	"\"prompts\":{\"listChanged\":false},\"logging\":{},\"completions\":{}"
static const char caps[] = "{" CAPS_COMMON "}";
/* 2026-07-28 extensions are declared in capabilities.extensions */
static const char caps_modern[] = "{" CAPS_COMMON ",\"extensions\":{\"" MCP_EXT_TASKS "\":{}}}";

static const char instructions[] =
	"Linux CPU scheduler (sched_ext) data. Load a Perfetto or scx-events trace with "
	"load_perfetto_trace, then use get_trace_summary and analyze_trace_scheduling. "
	"For the live machine: control_event_tracking start, then query_stats or the "
	"stats:// and events://stream resources; start_perf_profiling for CPU profiles. "
	"Results are bounded; use limit/offset.";

/* icons in initialize and discover only: every modern result repeats the rest */
static void server_info(const struct mcp_server *s, struct scx_jw *w, bool icons)
{
	scx_jw_obj_begin(w);
	scx_jw_kstr(w, "name", "scx-mcp");
	scx_jw_kstr(w, "title", "scx-tools scheduler observability");
	scx_jw_kstr(w, "version", SCX_VERSION);
	if (icons)
		mcp_icons(s, w, MCP_ICON_SERVER);
	scx_jw_obj_end(w);
}

static int m_initialize(struct mcp_server *s, int params, struct scx_jw *w)
{
	const struct scx_json_doc *d = &s->doc;
	int pv = scx_json_get(d, params, "protocolVersion");
	const char *v = MCP_PROTO_LATEST;
	char req[32] = "";

	if (s->initialized)
		return mcp_error(s, MCP_INVALID_REQUEST, "already initialized");
	if (pv < 0 || !scx_json_is_str(d, pv))
		return mcp_error(s, MCP_INVALID_PARAMS, "params.protocolVersion must be a string");
	scx_json_str(d, pv, req, sizeof(req));
	/* echo a version we speak; otherwise propose our latest (a result, not an error) */
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(versions); i++)
		if (!strcmp(req, versions[i]))
			v = versions[i];
	snprintf(s->proto, sizeof(s->proto), "%s", v);

	scx_jw_obj_begin(w);
	scx_jw_kstr(w, "protocolVersion", v);
	scx_jw_key(w, "capabilities");
	scx_jw_raw(w, caps, sizeof(caps) - 1);
	scx_jw_key(w, "serverInfo");
	server_info(s, w, true);
	scx_jw_kstr(w, "instructions", instructions);
	scx_jw_obj_end(w);
	s->initialized = true;
	return 0;
}

/* 2026-07-28: what initialize told, asked for at any time and cacheable */
static int m_discover(struct mcp_server *s, int params, struct scx_jw *w)
{
	scx_jw_obj_begin(w);
	scx_jw_key(w, "supportedVersions");
	scx_jw_arr_begin(w);
	scx_jw_str(w, MCP_PROTO_MODERN);
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(versions); i++)
		scx_jw_str(w, versions[i]);
	scx_jw_arr_end(w);
	scx_jw_key(w, "capabilities");
	scx_jw_raw(w, caps_modern, sizeof(caps_modern) - 1);
	scx_jw_kstr(w, "instructions", instructions);
	scx_jw_obj_end(w);
	return 0;
}

/*
 * 2026-07-28 subscriptions/listen: acknowledged at once, then the request
 * stays open; its notifications carry its id until the client cancels it.
 * No response is sent (s->cancelled is borrowed to say so).
 */
static int m_listen(struct mcp_server *s, int params, struct scx_jw *w)
{
	const struct scx_json_doc *d = &s->doc;
	int f = scx_json_get(d, params, "notifications"), rl, subs, u;
	struct mcp_listen *ln;
	struct scx_buf ack = { 0 };
	struct scx_jw aw;
	bool on = false;

	if (f < 0 || d->tok[f].type != JSMN_OBJECT)
		return mcp_error(s, MCP_INVALID_PARAMS, "params.notifications must be an object");
	subs = scx_json_get(d, f, "resourceSubscriptions");
	if (subs >= 0 && d->tok[subs].type != JSMN_ARRAY)
		return mcp_error(s, MCP_INVALID_PARAMS, "resourceSubscriptions must be an array");
	if (s->nr_listens == MCP_MAX_LISTENS)
		return mcp_error(s, MCP_INVALID_PARAMS,
				 "too many open subscriptions/listen requests "
				 "(%d)",
				 MCP_MAX_LISTENS);
	ln = &s->listens[s->nr_listens];
	*ln = (struct mcp_listen){ 0 };
	rl = scx_json_get(d, f, "resourcesListChanged");
	ln->resources_list = rl >= 0 && !scx_json_bool(d, rl, &on) && on;
	ln->tasks = s->req_tasks; /* then notifications/tasks come this way */
	scx_jw_init(&aw, &ack);
	scx_jw_obj_begin(&aw);
	scx_jw_key(&aw, "notifications");
	scx_jw_obj_begin(&aw);
	/* tools and prompts never change: acknowledged, never sent */
	scx_jw_kbool(&aw, "resourcesListChanged", ln->resources_list);
	scx_jw_key(&aw, "resourceSubscriptions");
	scx_jw_arr_begin(&aw);
	for (int i = 0; subs >= 0 && (u = scx_json_at(d, subs, i)) >= 0; i++) {
		char uri[512];

		if (!scx_json_is_str(d, u) ||
		    scx_json_str(d, u, uri, sizeof(uri)) >= (int)sizeof(uri))
			continue;
		/* only what exists and fits is acknowledged: the client sees what it gets */
		if (!mcp_resource_exists(s, uri) || ln->nr_uris == MCP_MAX_SUBS)
			continue;
		ln->uris[ln->nr_uris++] = scx_xstrdup(uri);
		scx_jw_str(&aw, uri);
	}
	scx_jw_arr_end(&aw);
	scx_jw_obj_end(&aw);
	scx_jw_key(&aw, "_meta");
	scx_jw_obj_begin(&aw);
	scx_jw_key(&aw, MCP_META_SUB);
	scx_jw_raw(&aw, s->cur_id.data, s->cur_id.len);
	scx_jw_obj_end(&aw);
	scx_jw_obj_end(&aw);
	scx_buf_add(&ln->id, s->cur_id.data, s->cur_id.len);
	s->nr_listens++;
	mcp_notify(s, "notifications/subscriptions/acknowledged", ack.data, ack.len);
	scx_buf_free(&ack);
	(void)w;
	s->cancelled = true; /* open: answered only by its notifications */
	return 0;
}

static void listen_free(struct mcp_listen *ln)
{
	for (unsigned i = 0; i < ln->nr_uris; i++)
		free(ln->uris[i]);
	scx_buf_free(&ln->id);
}

/* notifications/cancelled of an open listen closes it; true when one was. */
static bool listen_cancel(struct mcp_server *s, const struct scx_buf *id)
{
	for (unsigned i = 0; i < s->nr_listens; i++) {
		struct mcp_listen *ln = &s->listens[i];

		if (ln->id.len == id->len && !memcmp(ln->id.data, id->data, id->len)) {
			listen_free(ln);
			*ln = s->listens[--s->nr_listens];
			return true;
		}
	}
	return false;
}

static int m_ping(struct mcp_server *s, int params, struct scx_jw *w)
{
	scx_jw_obj_begin(w);
	scx_jw_obj_end(w);
	return 0;
}

static int m_set_level(struct mcp_server *s, int params, struct scx_jw *w)
{
	const struct scx_json_doc *d = &s->doc;
	int l = scx_json_get(d, params, "level");

	for (int i = 0; l >= 0 && i < MCP_LEVEL__COUNT; i++) {
		if (scx_json_eq(d, l, mcp_level_names[i])) {
			s->log_level = i;
			return m_ping(s, params, w);
		}
	}
	return mcp_error(s, MCP_INVALID_PARAMS,
			 "params.level must be one of debug, info, notice, "
			 "warning, error, critical, alert, emergency");
}

static int get_uri(struct mcp_server *s, int params, char *uri, size_t size)
{
	int u = scx_json_get(&s->doc, params, "uri");

	if (u < 0 || !scx_json_is_str(&s->doc, u))
		return mcp_error(s, MCP_INVALID_PARAMS, "params.uri must be a string");
	if (scx_json_str(&s->doc, u, uri, size) >= (int)size)
		return mcp_error(s, MCP_INVALID_PARAMS, "params.uri is too long");
	return 0;
}

static int m_res_read(struct mcp_server *s, int params, struct scx_jw *w)
{
	struct scx_buf text = { 0 };
	struct scx_jw tw;
	const char *mime = "application/json";
	char uri[512];
	int r;

	if ((r = get_uri(s, params, uri, sizeof(uri))))
		return r;
	scx_jw_init(&tw, &text);
	r = mcp_resource_read(s, uri, &tw, &mime);
	if (!r) {
		scx_jw_obj_begin(w);
		scx_jw_key(w, "contents");
		scx_jw_arr_begin(w);
		scx_jw_obj_begin(w);
		scx_jw_kstr(w, "uri", uri);
		scx_jw_kstr(w, "mimeType", mime);
		scx_jw_key(w, "text");
		scx_jw_strn(w, text.data ? text.data : "", text.len);
		scx_jw_obj_end(w);
		scx_jw_arr_end(w);
		scx_jw_obj_end(w);
	}
	scx_buf_free(&text);
	return r;
}

static int m_subscribe(struct mcp_server *s, int params, struct scx_jw *w)
{
	char uri[512];
	int r;

	if ((r = get_uri(s, params, uri, sizeof(uri))))
		return r;
	if (!mcp_resource_exists(s, uri))
		return mcp_error_no_resource(s, uri);
	for (unsigned i = 0; i < s->nr_subs; i++)
		if (!strcmp(s->subs[i], uri))
			return m_ping(s, params, w);
	if (s->nr_subs == MCP_MAX_SUBS)
		return mcp_error(s, MCP_INVALID_PARAMS, "too many subscriptions (%d)",
				 MCP_MAX_SUBS);
	s->subs[s->nr_subs++] = scx_xstrdup(uri);
	return m_ping(s, params, w);
}

static int m_unsubscribe(struct mcp_server *s, int params, struct scx_jw *w)
{
	char uri[512];
	int r;

	if ((r = get_uri(s, params, uri, sizeof(uri))))
		return r;
	for (unsigned i = 0; i < s->nr_subs; i++) {
		if (!strcmp(s->subs[i], uri)) {
			free(s->subs[i]);
			s->subs[i] = s->subs[--s->nr_subs];
			break;
		}
	}
	return m_ping(s, params, w);
}

static int m_complete(struct mcp_server *s, int params, struct scx_jw *w)
{
	const struct scx_json_doc *d = &s->doc;
	int ref = scx_json_get(d, params, "ref"), arg = scx_json_get(d, params, "argument");
	int type = scx_json_get(d, ref, "type"), an = scx_json_get(d, arg, "name");
	int av = scx_json_get(d, arg, "value");
	char name[256] = "", aname[128] = "", value[256] = "";
	unsigned total = 0;
	bool prompt;

	if (type < 0 || an < 0 || !scx_json_is_str(d, an))
		return mcp_error(s, MCP_INVALID_PARAMS,
				 "params.ref.type and params.argument.name "
				 "are required");
	if (scx_json_eq(d, type, "ref/prompt"))
		prompt = true;
	else if (scx_json_eq(d, type, "ref/resource"))
		prompt = false;
	else
		return mcp_error(s, MCP_INVALID_PARAMS,
				 "params.ref.type must be ref/prompt or "
				 "ref/resource");
	scx_json_str(d, scx_json_get(d, ref, prompt ? "name" : "uri"), name, sizeof(name));
	scx_json_str(d, an, aname, sizeof(aname));
	if (av >= 0)
		scx_json_str(d, av, value, sizeof(value));
	if (prompt && !mcp_prompt_exists(name))
		return mcp_error(s, MCP_INVALID_PARAMS, "unknown prompt: %s", name);

	scx_jw_obj_begin(w);
	scx_jw_key(w, "completion");
	scx_jw_obj_begin(w);
	scx_jw_key(w, "values");
	scx_jw_arr_begin(w);
	if (prompt)
		mcp_complete_prompt(s, name, aname, value, w, 100, &total);
	else
		mcp_complete_template(s, name, aname, value, w, 100, &total);
	scx_jw_arr_end(w);
	scx_jw_kuint(w, "total", total);
	scx_jw_kbool(w, "hasMore", total > 100);
	scx_jw_obj_end(w);
	scx_jw_obj_end(w);
	return 0;
}

/*
 * Which era has the method: the initialize handshake, 2026-07-28, or both;
 * an extension's method is 2026-07-28's too, but unknown elsewhere (-32601,
 * where a core 2026-07-28 method without its envelope is -32602).
 */
#define ERA_LEGACY 1
#define ERA_MODERN 2
#define ERA_BOTH 3
#define ERA_EXT (ERA_MODERN | 4)

struct method {
	const char *name;
	int (*fn)(struct mcp_server *s, int params, struct scx_jw *w);
	unsigned eras;
	/* 2026-07-28 CacheableResult: how long a client may reuse the result, and
	   whether it is the same for everyone (public) or for this session */
	int ttl_ms; /* -1: not cacheable */
	bool public;
};

static const struct method methods[] = {
	{ "initialize", m_initialize, ERA_LEGACY, -1 },
	{ "ping", m_ping, ERA_LEGACY, -1 },
	{ "server/discover", m_discover, ERA_MODERN, 3600000, true },
	{ "tools/list", mcp_tools_list, ERA_BOTH, 3600000, true },
	{ "tools/call", mcp_tools_call, ERA_BOTH, -1 },
	/* loaded traces come and go, the data is live: never reused */
	{ "resources/list", mcp_resources_list, ERA_BOTH, 0 },
	{ "resources/templates/list", mcp_templates_list, ERA_BOTH, 3600000, true },
	{ "resources/read", m_res_read, ERA_BOTH, 0 },
	{ "resources/subscribe", m_subscribe, ERA_LEGACY, -1 },
	{ "resources/unsubscribe", m_unsubscribe, ERA_LEGACY, -1 },
	{ "subscriptions/listen", m_listen, ERA_MODERN, -1 },
	{ "prompts/list", mcp_prompts_list, ERA_BOTH, 3600000, true },
	{ "prompts/get", mcp_prompts_get, ERA_BOTH, -1 },
	{ "logging/setLevel", m_set_level, ERA_LEGACY, -1 },
	{ "completion/complete", m_complete, ERA_BOTH, -1 },
	/* the tasks extension (mcp_tasks.c); no tasks/list, no tasks/result */
	{ "tasks/get", mcp_tasks_get, ERA_EXT, -1 },
	{ "tasks/update", mcp_tasks_update, ERA_EXT, -1 },
	{ "tasks/cancel", mcp_tasks_cancel, ERA_EXT, -1 },
};

/* ---- dispatch ----------------------------------------------------------------- */

static void handle_notification(struct mcp_server *s, int method, int params)
{
	const struct scx_json_doc *d = &s->doc;
	struct scx_buf id = { 0 };
	int rq;

	/* initialized, roots/list_changed and anything unknown need nothing from us;
	 * a cancel names a finished request (calls run to completion before the
	 * next line is read; mcp_poll_input() sees the others) or an open listen */
	if (!scx_json_eq(d, method, "notifications/cancelled"))
		return;
	rq = scx_json_get(d, params, "requestId");
	if (rq >= 0 && id_json(d, rq, &id))
		listen_cancel(s, &id);
	scx_buf_free(&id);
}

/*
 * A 2026-07-28 request names its version in params._meta; it is served
 * statelessly whether or not a legacy session was initialized.  Sets
 * s->modern and s->req_log_level; an error code when the envelope is wrong.
 */
static int request_era(struct mcp_server *s, int params)
{
	const struct scx_json_doc *d = &s->doc;
	int meta = scx_json_get(d, params, "_meta"), v = scx_json_get(d, meta, MCP_META_VERSION);
	int lv, c;
	char ver[32] = "";

	s->modern = false;
	s->req_log_level = MCP_LEVEL__COUNT;
	if (v < 0)
		return 0;
	s->modern = true;
	if (!scx_json_is_str(d, v) || scx_json_str(d, v, ver, sizeof(ver)) >= (int)sizeof(ver) ||
	    strcmp(ver, MCP_PROTO_MODERN)) {
		struct scx_jw w;

		scx_buf_reset(&s->err_data);
		scx_jw_init(&w, &s->err_data);
		scx_jw_obj_begin(&w);
		scx_jw_key(&w, "supported");
		scx_jw_arr_begin(&w);
		scx_jw_str(&w, MCP_PROTO_MODERN);
		scx_jw_arr_end(&w);
		scx_jw_kstr(&w, "requested", ver);
		scx_jw_obj_end(&w);
		return mcp_error(s, MCP_UNSUPPORTED_VERSION,
				 "unsupported protocol version '%s' "
				 "(stateless requests: %s; or initialize with 2025-11-25)",
				 ver, MCP_PROTO_MODERN);
	}
	c = scx_json_get(d, meta, MCP_META_CAPS);
	if (c < 0 || d->tok[c].type != JSMN_OBJECT)
		return mcp_error(s, MCP_INVALID_PARAMS, "params._meta[\"%s\"] must be an object",
				 MCP_META_CAPS);
	/* extensions are declared request by request too */
	s->req_tasks = scx_json_get(d, scx_json_get(d, c, "extensions"), MCP_EXT_TASKS) >= 0;
	lv = scx_json_get(d, meta, MCP_META_LOG);
	if (lv >= 0) {
		for (int i = 0; i < MCP_LEVEL__COUNT; i++)
			if (scx_json_eq(d, lv, mcp_level_names[i]))
				s->req_log_level = i;
		if (s->req_log_level == MCP_LEVEL__COUNT)
			return mcp_error(s, MCP_INVALID_PARAMS,
					 "params._meta[\"%s\"] must be a "
					 "log level (debug ... emergency)",
					 MCP_META_LOG);
	}
	return 0;
}

/*
 * The handler wrote the result object; a 2026-07-28 result also says it is
 * complete, who answered, and (lists and reads) how long it may be cached.
 * The object is reopened in place: its closing brace taken back.
 */
static void stamp_modern(struct mcp_server *s, struct scx_jw *w, const struct method *m)
{
	struct scx_buf *b = &s->out;

	if (!b->len || b->data[b->len - 1] != '}')
		return;
	b->len--;
	w->depth++;
	w->first[w->depth] = b->data[b->len - 1] == '{';
	w->after_key = false;
	scx_jw_kstr(w, "resultType", s->result_task ? "task" : "complete");
	if (m->ttl_ms >= 0) {
		scx_jw_kint(w, "ttlMs", m->ttl_ms);
		scx_jw_kstr(w, "cacheScope", m->public ? "public" : "private");
	}
	scx_jw_key(w, "_meta");
	scx_jw_obj_begin(w);
	scx_jw_key(w, MCP_META_SERVER);
	server_info(s, w, m->fn == m_discover);
	scx_jw_obj_end(w);
	scx_jw_obj_end(w);
}

static void handle_request(struct mcp_server *s, int method, int params)
{
	const struct scx_json_doc *d = &s->doc;
	const struct method *m = NULL;
	struct scx_jw w;
	int r;

	for (unsigned i = 0; i < SCX_ARRAY_SIZE(methods); i++)
		if (scx_json_eq(d, method, methods[i].name))
			m = &methods[i];
	s->err_code = 0;
	scx_buf_reset(&s->err_data);
	s->modern = false;
	s->req_log_level = MCP_LEVEL__COUNT;
	s->req_tasks = false;
	s->result_task = false;
	if (params >= 0 && d->tok[params].type != JSMN_OBJECT) {
		mcp_error(s, MCP_INVALID_PARAMS, "params must be an object");
		goto error;
	}
	if (request_era(s, params))
		goto error;
	/* a 2026-07-28 method without its envelope: the envelope is what is wrong */
	if (m && m->eras == ERA_EXT && !s->modern)
		m = NULL; /* as unknown as in a server without the extension */
	if (m && m->eras == ERA_MODERN && !s->modern) {
		mcp_error(s, MCP_INVALID_PARAMS,
			  "%s is a %s request: params._meta[\"%s\"] and "
			  "[\"%s\"] are required",
			  m->name, MCP_PROTO_MODERN, MCP_META_VERSION, MCP_META_CAPS);
		goto error;
	}
	if (!m || !(m->eras & (s->modern ? ERA_MODERN : ERA_LEGACY))) {
		char name[128];

		scx_json_str(d, method, name, sizeof(name));
		mcp_error(s, MCP_METHOD_NOT_FOUND, "method not found: %s%s", name,
			  m ? " (not part of protocol " MCP_PROTO_MODERN ")" : "");
		goto error;
	}
	if (!s->modern && !s->initialized && m->fn != m_initialize && m->fn != m_ping) {
		mcp_error(s, MCP_INVALID_REQUEST, "%s before initialize", m->name);
		goto error;
	}

	/* _meta.progressToken: progress notifications for this request */
	scx_buf_reset(&s->progress_token);
	s->progress_last = -1;
	s->cancelled = false;
	if (params >= 0) {
		int pt = scx_json_get(d, scx_json_get(d, params, "_meta"), "progressToken");
		struct scx_buf tok = { 0 };

		if (pt >= 0 && id_json(d, pt, &tok))
			scx_buf_add(&s->progress_token, tok.data, tok.len);
		scx_buf_free(&tok);
	}

	begin_msg(s, &w, s->cur_id.data, s->cur_id.len);
	scx_jw_key(&w, "result");
	r = m->fn(s, params, &w);
	scx_buf_reset(&s->progress_token);
	if (s->cancelled)
		return; /* the client gave up on it: no response */
	if (r)
		goto error;
	if (s->modern)
		stamp_modern(s, &w, m);
	scx_jw_obj_end(&w);
	send_buf(s, &s->out);
	if (s->list_changed)
		list_changed(s);
	return;
error:
	send_error(s, s->cur_id.data, s->cur_id.len, s->err_code ? s->err_code : MCP_INTERNAL_ERROR,
		   s->err_msg, &s->err_data);
}

static void handle_line(struct mcp_server *s, const char *line, size_t n);

/* JSON-RPC batches: part of 2025-03-26 only (added there, removed in 2025-06-18). */
static bool batches_allowed(const struct mcp_server *s)
{
	return s->initialized && !strcmp(s->proto, "2025-03-26");
}

/*
 * Each element is handled as a message of its own; their responses go out
 * as one array on one line, nothing at all when every element was a
 * notification, and an empty batch is one invalid request (JSON-RPC 2.0 §6).
 * Notifications sent while an element runs (progress, logs) go out on their
 * own lines before the array.
 */
static void handle_batch(struct mcp_server *s, const char *line, size_t n)
{
	struct scx_buf copy = { 0 }, reply = { 0 };
	size_t *span;
	int nr = s->doc.tok[0].size, i, t;

	if (!nr) {
		send_error(s, NULL, 0, MCP_INVALID_REQUEST, "empty batch", NULL);
		return;
	}
	/* s->doc and s->line are reused by every element: keep the spans first */
	scx_buf_add(&copy, line, n);
	span = scx_xmalloc(2 * nr * sizeof(*span));
	for (i = 0, t = 1; i < nr; i++, t = scx_json_next(&s->doc, t)) {
		span[2 * i] = s->doc.tok[t].start;
		span[2 * i + 1] = s->doc.tok[t].end;
	}
	s->batch = &reply;
	for (i = 0; i < nr && !s->out_err; i++)
		handle_line(s, copy.data + span[2 * i], span[2 * i + 1] - span[2 * i]);
	s->batch = NULL;
	if (reply.len) {
		scx_buf_add(&reply, "]", 1);
		send_buf(s, &reply);
	}
	scx_buf_free(&reply);
	scx_buf_free(&copy);
	free(span);
}

static void handle_line(struct mcp_server *s, const char *line, size_t n)
{
	struct scx_json_doc *d = &s->doc;
	int id, method, params, ver;
	char msg[256];

	while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	while (n && (*line == ' ' || *line == '\t' || *line == '\r')) {
		line++;
		n--;
	}
	if (!n)
		return;
	scx_buf_reset(&s->line);
	scx_buf_add(&s->line, line, n);
	line = s->line.data;
	if (scx_json_parse(d, line, n)) {
		snprintf(msg, sizeof(msg), "parse error: byte %zu: %s", d->err_off, d->err);
		send_error(s, NULL, 0, MCP_PARSE_ERROR, msg, NULL);
		return;
	}
	if (d->tok[0].type == JSMN_ARRAY && !s->batch && batches_allowed(s)) {
		handle_batch(s, line, n);
		return;
	}
	if (d->tok[0].type != JSMN_OBJECT) {
		char why[96];

		if (d->tok[0].type != JSMN_ARRAY)
			snprintf(why, sizeof(why), "a message must be a JSON object");
		else if (s->batch)
			snprintf(why, sizeof(why), "a batch may not contain a batch");
		else
			snprintf(why, sizeof(why), "batches are not part of protocol %s",
				 s->initialized ? s->proto : "negotiation (initialize first)");
		send_error(s, NULL, 0, MCP_INVALID_REQUEST, why, NULL);
		return;
	}
	id = scx_json_get(d, 0, "id");
	method = scx_json_get(d, 0, "method");
	params = scx_json_get(d, 0, "params");
	ver = scx_json_get(d, 0, "jsonrpc");
	scx_buf_reset(&s->cur_id);
	if (id >= 0 && !id_json(d, id, &s->cur_id)) {
		send_error(s, NULL, 0, MCP_INVALID_REQUEST, "id must be a string or an integer",
			   NULL);
		return;
	}
	if (method < 0) {
		/* a response: we send no requests, so there is nothing to match */
		if (id >= 0 &&
		    (scx_json_get(d, 0, "result") >= 0 || scx_json_get(d, 0, "error") >= 0))
			return;
		send_error(s, id >= 0 ? s->cur_id.data : NULL, s->cur_id.len, MCP_INVALID_REQUEST,
			   "missing method", NULL);
		return;
	}
	if (ver < 0 || !scx_json_eq(d, ver, "2.0") || !scx_json_is_str(d, method)) {
		if (id >= 0)
			send_error(s, s->cur_id.data, s->cur_id.len, MCP_INVALID_REQUEST,
				   "not a JSON-RPC 2.0 request", NULL);
		return;
	}
	if (id < 0)
		handle_notification(s, method, params);
	else
		handle_request(s, method, params);
}

void mcp_server__handle(struct mcp_server *s, const char *line, size_t len, struct scx_buf *out)
{
	s->sink = out;
	handle_line(s, line, len);
	s->sink = NULL;
}

/* ---- input -------------------------------------------------------------------- */

static int read_some(struct mcp_server *s)
{
	ssize_t r;

	if (s->in_off && s->in_off == s->in.len) {
		s->in.len = s->in_off = s->scan_off = 0;
	} else if (s->in_off > (1 << 20) && s->in_off > s->in.len / 2) {
		memmove(s->in.data, s->in.data + s->in_off, s->in.len - s->in_off);
		s->in.len -= s->in_off;
		s->scan_off -= SCX_MIN(s->scan_off, s->in_off);
		s->in_off = 0;
	}
	scx_buf_reserve(&s->in, 65536);
	do
		r = read(s->in_fd, s->in.data + s->in.len, s->in.cap - s->in.len);
	while (r < 0 && errno == EINTR);
	if (r <= 0) {
		s->eof = true;
		return r < 0 ? -errno : 0;
	}
	s->in.len += r;
	/* a line longer than max_line is dropped as it streams in, never buffered whole */
	if (!memchr(s->in.data + s->in.len - r, '\n', r) && s->in.len - s->in_off > s->o.max_line) {
		s->discarding = true;
		s->in.len = s->in_off;
		s->scan_off = s->in_off;
	}
	return 1;
}

/* The next complete line, or NULL; at EOF the unterminated rest counts as one. */
static const char *next_line(struct mcp_server *s, size_t *n)
{
	char *p = s->in.data + s->in_off, *nl;
	size_t avail = s->in.len - s->in_off;

	while (avail) {
		nl = memchr(p, '\n', avail);
		if (!nl) {
			if (!s->eof || s->discarding)
				return NULL;
			s->in_off = s->in.len;
			*n = avail;
			return p;
		}
		s->in_off += nl - p + 1;
		if (s->scan_off < s->in_off)
			s->scan_off = s->in_off;
		if (s->discarding) {
			char msg[96];

			s->discarding = false;
			snprintf(msg, sizeof(msg), "message longer than %zu bytes", s->o.max_line);
			send_error(s, NULL, 0, MCP_INVALID_REQUEST, msg, NULL);
			p = nl + 1;
			avail = s->in.len - s->in_off;
			continue;
		}
		*n = nl - p;
		return p;
	}
	return NULL;
}

/*
 * Look at lines queued behind the running call: answer pings (blanking the
 * line so the main loop skips it) and catch a cancel of the current request.
 */
static void scan_side(struct mcp_server *s)
{
	struct scx_json_doc *d = &s->side;
	struct scx_buf rid = { 0 };

	if (s->scan_off < s->in_off)
		s->scan_off = s->in_off;
	for (;;) {
		char *p = s->in.data + s->scan_off, *nl;
		int m, id, p2, rq;

		if (s->scan_off >= s->in.len || !(nl = memchr(p, '\n', s->in.len - s->scan_off)))
			break;
		s->scan_off += nl - p + 1;
		if (scx_json_parse(d, p, nl - p) || d->tok[0].type != JSMN_OBJECT)
			continue;
		m = scx_json_get(d, 0, "method");
		id = scx_json_get(d, 0, "id");
		if (m < 0)
			continue;
		if (id >= 0 && scx_json_eq(d, m, "ping") && id_json(d, id, &rid)) {
			struct scx_buf b = { 0 };
			struct scx_jw w;

			scx_jw_init(&w, &b);
			scx_jw_obj_begin(&w);
			scx_jw_kstr(&w, "jsonrpc", "2.0");
			scx_jw_key(&w, "id");
			scx_jw_raw(&w, rid.data, rid.len);
			scx_jw_key(&w, "result");
			scx_jw_raw(&w, "{}", 2);
			scx_jw_obj_end(&w);
			send_buf(s, &b);
			scx_buf_free(&b);
			memset(p, ' ', nl - p);
		} else if (id < 0 && scx_json_eq(d, m, "notifications/cancelled")) {
			p2 = scx_json_get(d, 0, "params");
			rq = scx_json_get(d, p2, "requestId");
			if (rq >= 0 && id_json(d, rq, &rid) && rid.len == s->cur_id.len &&
			    !memcmp(rid.data, s->cur_id.data, rid.len)) {
				s->cancelled = true;
				memset(p, ' ', nl - p);
			}
		}
	}
	scx_buf_free(&rid);
}

bool mcp_poll_input(struct mcp_server *s)
{
	struct pollfd pfd = { .fd = s->in_fd, .events = POLLIN };

	if (s->sink || s->in_fd < 0)
		return s->cancelled;
	while (!s->eof && poll(&pfd, 1, 0) > 0) {
		if (read_some(s) <= 0)
			break;
	}
	scan_side(s);
	return s->cancelled;
}

/* ---- life cycle ----------------------------------------------------------------- */

struct mcp_server *mcp_server__new(const struct mcp_opts *o)
{
	struct mcp_server *s = scx_xcalloc(1, sizeof(*s));
	int r;

	s->o = *o;
	if (!s->o.trace_mem_max)
		s->o.trace_mem_max = 1ull << 30;
	if (!s->o.max_line)
		s->o.max_line = 16u << 20;
	if (!s->o.max_result)
		s->o.max_result = 48u << 10;
	if (!s->o.page_size)
		s->o.page_size = 100;
	if (!s->o.update_ms)
		s->o.update_ms = 1000;
	if (!s->o.ring_events)
		s->o.ring_events = 512;
	s->in_fd = s->out_fd = -1;
	s->log_level = MCP_WARNING;
	s->bench_no_structured = getenv("SCX_MCP_BENCH_NO_STRUCTURED") != NULL;
	r = mcp_fs_init(s);
	if (r) {
		mcp_server__free(s);
		errno = -r;
		return NULL;
	}
	return s;
}

void mcp_server__free(struct mcp_server *s)
{
	if (!s)
		return;
	mcp_tasks_free(s);
	mcp_links_free(s);
	mcp_live_free(s);
	scx_profile__free(s->prof);
	mcp_traces_free(s);
	mcp_fs_free(s);
	for (unsigned i = 0; i < s->nr_subs; i++)
		free(s->subs[i]);
	for (unsigned i = 0; i < s->nr_listens; i++)
		listen_free(&s->listens[i]);
	scx_buf_free(&s->err_data);
	scx_json_free(&s->doc);
	scx_json_free(&s->side);
	scx_buf_free(&s->in);
	scx_buf_free(&s->line);
	scx_buf_free(&s->out);
	scx_buf_free(&s->cur_id);
	scx_buf_free(&s->progress_token);
	free(s);
}

int mcp_server__run(struct mcp_server *s, int in_fd, int out_fd)
{
	uint64_t next_tick = 0;

	s->in_fd = in_fd;
	s->out_fd = out_fd;
	signal(SIGPIPE, SIG_IGN);
	if (s->o.capture && !s->o.no_live) {
		static char *const args[] = { "--format", "binary", "-o", "-", NULL };
		char err[256] = "";
		int r = mcp_live_start(s, args, "scx-events --format binary -o - (--capture)", err,
				       sizeof(err));

		if (r)
			scx_warn("cannot start the capture: %s", err[0] ? err : strerror(-r));
	}
	while (!s->out_err) {
		struct pollfd pfd[2] = {
			{ .fd = in_fd, .events = POLLIN },
			{ .fd = mcp_live_fd(s), .events = POLLIN },
		};
		uint64_t now;
		const char *line;
		size_t n;
		int timeout;

		while (!s->out_err && (line = next_line(s, &n)))
			handle_line(s, line, n);
		if (s->list_changed)
			list_changed(s);
		if (s->eof)
			break;
		now = scx_now_mono_ns() / 1000000;
		if (now >= next_tick) {
			/* /proc figures change all the time: one update per interval */
			mcp_updated(s, "stats://system/cpu");
			mcp_updated(s, "stats://system/memory");
			mcp_live_tick(s, now);
			mcp_tasks_tick(s);
			next_tick = now + s->o.update_ms;
		}
		timeout = (int)(next_tick - now);
		if (poll(pfd, pfd[1].fd >= 0 ? 2 : 1, timeout) < 0 && errno != EINTR)
			return -errno;
		if (pfd[0].revents)
			read_some(s);
		if (pfd[1].fd >= 0 && pfd[1].revents) {
			mcp_live_tick(s, scx_now_mono_ns() / 1000000);
			mcp_tasks_tick(s);
		}
	}
	return s->out_err == -EPIPE ? 0 : s->out_err;
}
