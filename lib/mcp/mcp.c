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

static void send_error(struct mcp_server *s, const char *id, size_t idlen, int code,
		       const char *msg, const char *uri)
{
	struct scx_jw w;

	begin_msg(s, &w, id ? id : "", id ? idlen : 0);
	scx_jw_key(&w, "error");
	scx_jw_obj_begin(&w);
	scx_jw_kint(&w, "code", code);
	scx_jw_kstr(&w, "message", msg);
	if (uri && *uri) {
		scx_jw_key(&w, "data");
		scx_jw_obj_begin(&w);
		scx_jw_kstr(&w, "uri", uri);
		scx_jw_obj_end(&w);
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
	if (!s->initialized || level < s->log_level)
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

bool mcp_subscribed(struct mcp_server *s, const char *uri)
{
	for (unsigned i = 0; i < s->nr_subs; i++) {
		size_t n = strlen(s->subs[i]);

		/* an update of a sub-resource is reported to a parent subscription */
		if (!strncmp(uri, s->subs[i], n) && (!uri[n] || uri[n] == '/'))
			return true;
	}
	return false;
}

void mcp_updated(struct mcp_server *s, const char *uri)
{
	struct scx_buf b = { 0 };
	struct scx_jw w;

	if (!mcp_subscribed(s, uri))
		return;
	scx_jw_init(&w, &b);
	scx_jw_obj_begin(&w);
	scx_jw_kstr(&w, "uri", uri);
	scx_jw_obj_end(&w);
	mcp_notify(s, "notifications/resources/updated", b.data, b.len);
	scx_buf_free(&b);
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

static const char caps[] = "{\"tools\":{\"listChanged\":false},"
	"\"resources\":{\"subscribe\":true,\"listChanged\":true},"
	"\"prompts\":{\"listChanged\":false},\"logging\":{},\"completions\":{}}";

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
	scx_jw_obj_begin(w);
	scx_jw_kstr(w, "name", "scx-mcp");
	scx_jw_kstr(w, "title", "scx-tools scheduler observability");
	scx_jw_kstr(w, "version", SCX_VERSION);
	scx_jw_obj_end(w);
	scx_jw_kstr(w, "instructions",
		    "Linux CPU scheduler (sched_ext) data. Load a Perfetto or scx-events trace with "
		    "load_perfetto_trace, then use get_trace_summary and analyze_trace_scheduling. "
		    "For the live machine: control_event_tracking start, then query_stats or the "
		    "stats:// and events://stream resources; start_perf_profiling for CPU profiles. "
		    "Results are bounded; use limit/offset.");
	scx_jw_obj_end(w);
	s->initialized = true;
	return 0;
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
	return mcp_error(s, MCP_INVALID_PARAMS, "params.level must be one of debug, info, notice, "
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
	} else if (r == MCP_RESOURCE_NOT_FOUND) {
		snprintf(s->err_uri, sizeof(s->err_uri), "%s", uri);
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
	if (!mcp_resource_exists(s, uri)) {
		snprintf(s->err_uri, sizeof(s->err_uri), "%s", uri);
		return mcp_error(s, MCP_RESOURCE_NOT_FOUND, "resource not found: %s", uri);
	}
	for (unsigned i = 0; i < s->nr_subs; i++)
		if (!strcmp(s->subs[i], uri))
			return m_ping(s, params, w);
	if (s->nr_subs == MCP_MAX_SUBS)
		return mcp_error(s, MCP_INVALID_PARAMS, "too many subscriptions (%d)", MCP_MAX_SUBS);
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
		return mcp_error(s, MCP_INVALID_PARAMS, "params.ref.type and params.argument.name "
				 "are required");
	if (scx_json_eq(d, type, "ref/prompt"))
		prompt = true;
	else if (scx_json_eq(d, type, "ref/resource"))
		prompt = false;
	else
		return mcp_error(s, MCP_INVALID_PARAMS, "params.ref.type must be ref/prompt or "
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

struct method {
	const char *name;
	int (*fn)(struct mcp_server *s, int params, struct scx_jw *w);
};

static const struct method methods[] = {
	{ "initialize", m_initialize },
	{ "ping", m_ping },
	{ "tools/list", mcp_tools_list },
	{ "tools/call", mcp_tools_call },
	{ "resources/list", mcp_resources_list },
	{ "resources/templates/list", mcp_templates_list },
	{ "resources/read", m_res_read },
	{ "resources/subscribe", m_subscribe },
	{ "resources/unsubscribe", m_unsubscribe },
	{ "prompts/list", mcp_prompts_list },
	{ "prompts/get", mcp_prompts_get },
	{ "logging/setLevel", m_set_level },
	{ "completion/complete", m_complete },
};

/* ---- dispatch ----------------------------------------------------------------- */

static void handle_notification(struct mcp_server *s, int method, int params)
{
	const struct scx_json_doc *d = &s->doc;

	/* initialized, roots/list_changed and anything unknown need nothing from us;
	 * a cancel can only name a finished request here (calls run to completion
	 * before the next line is read; mcp_poll_input() sees the others) */
	(void)d;
	(void)method;
	(void)params;
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
	s->err_uri[0] = 0;
	if (!m) {
		char name[128];

		scx_json_str(d, method, name, sizeof(name));
		mcp_error(s, MCP_METHOD_NOT_FOUND, "method not found: %s", name);
		goto error;
	}
	if (!s->initialized && m->fn != m_initialize && m->fn != m_ping) {
		mcp_error(s, MCP_INVALID_REQUEST, "%s before initialize", m->name);
		goto error;
	}
	if (params >= 0 && d->tok[params].type != JSMN_OBJECT) {
		mcp_error(s, MCP_INVALID_PARAMS, "params must be an object");
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
		return;	/* the client gave up on it: no response */
	if (r)
		goto error;
	scx_jw_obj_end(&w);
	send_buf(s, &s->out);
	if (s->list_changed) {
		s->list_changed = false;
		mcp_notify(s, "notifications/resources/list_changed", NULL, 0);
	}
	return;
error:
	send_error(s, s->cur_id.data, s->cur_id.len, s->err_code ? s->err_code : MCP_INTERNAL_ERROR,
		   s->err_msg, s->err_code == MCP_RESOURCE_NOT_FOUND ? s->err_uri : NULL);
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
	if (d->tok[0].type != JSMN_OBJECT) {
		send_error(s, NULL, 0, MCP_INVALID_REQUEST, d->tok[0].type == JSMN_ARRAY ?
			   "batches are not supported" : "a message must be a JSON object", NULL);
		return;
	}
	id = scx_json_get(d, 0, "id");
	method = scx_json_get(d, 0, "method");
	params = scx_json_get(d, 0, "params");
	ver = scx_json_get(d, 0, "jsonrpc");
	scx_buf_reset(&s->cur_id);
	if (id >= 0 && !id_json(d, id, &s->cur_id)) {
		send_error(s, NULL, 0, MCP_INVALID_REQUEST, "id must be a string or an integer", NULL);
		return;
	}
	if (method < 0) {
		/* a response: we send no requests, so there is nothing to match */
		if (id >= 0 && (scx_json_get(d, 0, "result") >= 0 || scx_json_get(d, 0, "error") >= 0))
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
	mcp_live_free(s);
	scx_profile__free(s->prof);
	mcp_traces_free(s);
	mcp_fs_free(s);
	for (unsigned i = 0; i < s->nr_subs; i++)
		free(s->subs[i]);
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
		struct pollfd pfd[2] = { { .fd = in_fd, .events = POLLIN },
					 { .fd = mcp_live_fd(s), .events = POLLIN } };
		uint64_t now;
		const char *line;
		size_t n;
		int timeout;

		while (!s->out_err && (line = next_line(s, &n)))
			handle_line(s, line, n);
		if (s->list_changed) {
			s->list_changed = false;
			mcp_notify(s, "notifications/resources/list_changed", NULL, 0);
		}
		if (s->eof)
			break;
		now = scx_now_mono_ns() / 1000000;
		if (now >= next_tick) {
			/* /proc figures change all the time: one update per interval */
			mcp_updated(s, "stats://system/cpu");
			mcp_updated(s, "stats://system/memory");
			mcp_live_tick(s, now);
			next_tick = now + s->o.update_ms;
		}
		timeout = (int)(next_tick - now);
		if (poll(pfd, pfd[1].fd >= 0 ? 2 : 1, timeout) < 0 && errno != EINTR)
			return -errno;
		if (pfd[0].revents)
			read_some(s);
		if (pfd[1].fd >= 0 && pfd[1].revents)
			mcp_live_tick(s, scx_now_mono_ns() / 1000000);
	}
	return s->out_err == -EPIPE ? 0 : s->out_err;
}
