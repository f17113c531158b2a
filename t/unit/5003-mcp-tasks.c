// SPDX-License-Identifier: GPL-2.0
/*
 * The 2026-07-28 tasks extension: server/discover declares it, each of
 * tasks/get, tasks/update and tasks/cancel answers every era the way that
 * era must (unknown in legacy sessions, -32021 without the extension,
 * -32602 for an unknown task), tasks/list and tasks/result do not exist,
 * plain tools stay plain; and a capture given duration_secs, with a
 * stand-in producer, runs as a task that is polled to its inlined result,
 * or cancelled, which kills the producer.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcp/mcp.h"
#include "json/json.h"
#include "core/util.h"
#include "tap.h"
#include "mcp-unit.h"

#define ENVELOPE(caps) \
	"\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
	"\"io.modelcontextprotocol/clientCapabilities\":" caps "}"
#define WITH_TASKS ENVELOPE("{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}")
#define NO_TASKS ENVELOPE("{}")

static int64_t err_code(void)
{
	int64_t c = 0;

	scx_json_int(&doc, scx_json_get(&doc, scx_json_get(&doc, 0, "error"), "code"), &c);
	return c;
}

/* A string at a path of keys under result ("" when absent). */
static const char *res_str(const char *k1, const char *k2)
{
	static char buf[4096];
	int t = scx_json_get(&doc, 0, "result");

	t = scx_json_get(&doc, t, k1);
	if (k2)
		t = scx_json_get(&doc, t, k2);
	buf[0] = 0;
	if (t >= 0)
		scx_json_str(&doc, t, buf, sizeof(buf));
	return buf;
}

static bool res_has(const char *k)
{
	return scx_json_get(&doc, scx_json_get(&doc, 0, "result"), k) >= 0;
}

static struct mcp_server *server(const char *version, const char *events_cmd)
{
	struct mcp_opts o = { .no_live = !events_cmd, .events_cmd = events_cmd };

	return mcp_session(&o, version);
}

static const char *const methods[] = { "tasks/get", "tasks/update", "tasks/cancel" };

static void method_errors(void)
{
	static const char *const legacy[] = { "2025-11-25", "2025-06-18", "2025-03-26",
					      "2024-11-05" };
	char line[512];
	struct mcp_server *s;
	int caps;

	s = server(NULL, NULL);
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" NO_TASKS
	       "}}");
	caps = scx_json_get(&doc, scx_json_get(&doc, 0, "result"), "capabilities");
	ok(scx_json_get(&doc, scx_json_get(&doc, caps, "extensions"),
			"io.modelcontextprotocol/tasks") >= 0 &&
		   scx_json_get(&doc, caps, "tasks") < 0,
	   "discover declares the tasks extension under capabilities.extensions, no v1 tasks");
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(methods); i++) {
		snprintf(line, sizeof(line),
			 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":{\"taskId\":"
			 "\"x\",\"inputResponses\":{}}}",
			 methods[i]);
		ask(s, line);
		is_int(err_code(), -32601, "%s without any envelope, never initialized: -32601",
		       methods[i]);
		snprintf(line, sizeof(line),
			 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":{" NO_TASKS
			 ",\"taskId\":\"x\",\"inputResponses\":{}}}",
			 methods[i]);
		ask(s, line);
		is_int(err_code(), -32021, "%s without the extension declared: -32021", methods[i]);
		ok(scx_json_get(
			   &doc,
			   scx_json_get(
				   &doc,
				   scx_json_get(&doc,
						scx_json_get(&doc, scx_json_get(&doc, 0, "error"),
							     "data"),
						"requiredCapabilities"),
				   "extensions"),
			   "io.modelcontextprotocol/tasks") >= 0,
		   "%s: error.data names the extension required", methods[i]);
		snprintf(line, sizeof(line),
			 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":{" WITH_TASKS
			 ",\"taskId\":\"no-such-task\",\"inputResponses\":{}}}",
			 methods[i]);
		ask(s, line);
		is_int(err_code(), -32602, "%s of an unknown task: -32602", methods[i]);
		snprintf(line, sizeof(line),
			 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":{" WITH_TASKS
			 ",\"taskId\":7}}",
			 methods[i]);
		ask(s, line);
		is_int(err_code(), -32602, "%s with a taskId that is not a string: -32602",
		       methods[i]);
	}
	ask(s,
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/list\",\"params\":{" WITH_TASKS "}}");
	is_int(err_code(), -32601, "tasks/list is not part of the extension: -32601");
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/result\",\"params\":{" WITH_TASKS
	       ",\"taskId\":\"x\"}}");
	is_int(err_code(), -32601, "tasks/result is not part of the extension: -32601");
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" WITH_TASKS
	       ",\"name\":\"list_traces\",\"arguments\":{},\"task\":{\"ttl\":60000}}}");
	ok(!strcmp(res_str("resultType", NULL), "complete") && !res_has("taskId") &&
		   res_has("content"),
	   "a tool that ends at once answers plainly, a v1 task param tolerated");
	mcp_server__free(s);

	for (unsigned v = 0; v < SCX_ARRAY_SIZE(legacy); v++) {
		s = server(legacy[v], NULL);
		for (unsigned i = 0; i < SCX_ARRAY_SIZE(methods); i++) {
			snprintf(line, sizeof(line),
				 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\",\"params\":"
				 "{\"taskId\":\"x\"}}",
				 methods[i]);
			ask(s, line);
			is_int(err_code(), -32601, "%s session: %s is an unknown method", legacy[v],
			       methods[i]);
		}
		ask(s,
		    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":{" WITH_TASKS
		    ",\"taskId\":\"no-such-task\"}}");
		is_int(err_code(), -32602,
		       "%s session: a 2026-07-28 tasks/get is served statelessly (-32602 unknown task)",
		       legacy[v]);
		mcp_server__free(s);
	}
	s = server("2025-11-25", NULL);
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}");
	ok(!strstr(out.data, "\"execution\"") && !strstr(out.data, "\"taskSupport\""),
	   "legacy tools/list is unchanged: no execution.taskSupport");
	mcp_server__free(s);
}

/*
 * A stand-in producer: its pid, a header, then it waits to be stopped.  The
 * pid is written by the shell itself: a loaded make check once stopped a
 * one-second capture (SIGINT to the group) while the mv that renamed the
 * file into place ran, and no pid file ever came.  producer_pid() reads
 * until the file holds a whole number.
 */
static void write_producer(void)
{
	FILE *f = fopen("producer.sh", "w");

	if (!f)
		exit(1);
	fputs("#!/bin/sh\necho $$ >producer.pid\n"
	      "echo '{\"type\":\"header\",\"version\":1,\"producer\":\"stand-in\",\"clock\":"
	      "\"boottime\",\"hostname\":\"t\",\"kernel\":\"t\",\"nr_cpus\":1,\"topology\":null,"
	      "\"scheduler\":null,\"options\":{},\"start_ns\":0}'\n"
	      "exec sleep 120\n",
	      f);
	fclose(f);
	chmod("producer.sh", 0755);
}

static pid_t producer_pid(void)
{
	int pid = 0;

	/* 45 s at most: it may not exist yet, or be empty (truncated, not yet written) */
	for (int i = 0; i < 450; i++) {
		FILE *f = fopen("producer.pid", "r");
		char nl = 0;

		if (f) {
			bool whole = fscanf(f, "%d%c", &pid, &nl) == 2 && nl == '\n' && pid > 0;

			fclose(f);
			if (whole)
				return pid;
		}
		pid = 0;
		usleep(100000);
	}
	tap_diag("#   no whole pid in producer.pid after 45 s\n");
	return 0;
}

/* gone, or a zombie not reaped yet */
static bool gone(pid_t pid)
{
	char path[64], st[512];
	FILE *f;
	char *p;
	bool z = true;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	if (fgets(st, sizeof(st), f) && (p = strrchr(st, ')')))
		z = p[2] == 'Z';
	fclose(f);
	return z;
}

/* tasks/get until the task leaves "working" (45 s at most) */
static const char *poll_task(struct mcp_server *s, const char *id)
{
	static char status[32];
	char line[512];

	snprintf(line, sizeof(line),
		 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":{" WITH_TASKS
		 ",\"taskId\":\"%s\"}}",
		 id);
	for (int i = 0; i < 450; i++) {
		ask(s, line);
		snprintf(status, sizeof(status), "%s", res_str("status", NULL));
		if (strcmp(status, "working"))
			break;
		usleep(100000);
	}
	return status;
}

static void lifecycle(const char *cmd)
{
	struct mcp_server *s = server(NULL, cmd);
	char id[64], line[512];
	pid_t pid;

	unlink("producer.pid");
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" WITH_TASKS
	       ",\"name\":\"control_event_tracking\",\"arguments\":{\"action\":\"start\","
	       "\"duration_secs\":1}}}");
	snprintf(id, sizeof(id), "%s", res_str("taskId", NULL));
	ok(!strcmp(res_str("resultType", NULL), "task") && id[0] &&
		   !strcmp(res_str("status", NULL), "working") && res_has("ttlMs") &&
		   res_has("createdAt") && !res_has("task") && !res_has("content") &&
		   !res_has("ttl") && !res_has("pollInterval"),
	   "a capture with duration_secs is a flat CreateTaskResult");
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" WITH_TASKS
	       ",\"name\":\"control_event_tracking\",\"arguments\":{\"action\":\"status\"}}}");
	ok(res_has("content") && !res_has("taskId"), "status while the task works is a plain call");
	is_str(poll_task(s, id), "completed", "the task completes once duration_secs passed");
	ok(!strcmp(res_str("resultType", NULL), "complete") && res_has("result") &&
		   !res_has("error"),
	   "tasks/get inlines the result");
	{
		int r = scx_json_get(&doc, 0, "result"), res = scx_json_get(&doc, r, "result");
		int sc = scx_json_get(&doc, res, "structuredContent");
		char action[32] = "";
		bool running = true, iserr = true;

		scx_json_str(&doc, scx_json_get(&doc, sc, "action"), action, sizeof(action));
		scx_json_bool(&doc, scx_json_get(&doc, sc, "running"), &running);
		scx_json_bool(&doc, scx_json_get(&doc, res, "isError"), &iserr);
		ok(!strcmp(action, "stopped") && !running && !iserr,
		   "the result is the stopped capture's status, not an error");
	}
	pid = producer_pid();
	if (!ok(pid > 0 && gone(pid), "the producer is gone") && pid > 0)
		tap_diag("#   producer %d still runs after the task completed\n", (int)pid);

	/* cancel: the producer group is killed at once */
	unlink("producer.pid");
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" WITH_TASKS
	       ",\"name\":\"control_event_tracking\",\"arguments\":{\"action\":\"start\","
	       "\"duration_secs\":600}}}");
	snprintf(id, sizeof(id), "%s", res_str("taskId", NULL));
	pid = producer_pid();
	ok(id[0] && pid > 0 && !gone(pid), "a second capture task runs");
	snprintf(line, sizeof(line),
		 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/cancel\",\"params\":{" WITH_TASKS
		 ",\"taskId\":\"%s\"}}",
		 id);
	ask(s, line);
	ok(!strcmp(res_str("resultType", NULL), "complete") && !res_has("taskId") &&
		   !res_has("status"),
	   "tasks/cancel is an empty ack");
	is_str(poll_task(s, id), "cancelled", "the task is cancelled");
	ok(!res_has("result") && !res_has("error"), "a cancelled task has no result");
	ask(s, line);
	ok(res_has("resultType") && scx_json_get(&doc, 0, "error") < 0,
	   "cancelling a finished task is the same ack");
	snprintf(line, sizeof(line),
		 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/update\",\"params\":{" WITH_TASKS
		 ",\"taskId\":\"%s\",\"inputResponses\":{\"k\":{}}}}",
		 id);
	ask(s, line);
	ok(res_has("resultType"), "tasks/update is acknowledged");

	/* at once, before the killed producer's pipe is seen to close: a new
	   capture replaces it; without the extension it is the plain start it
	   always was */
	unlink("producer.pid");
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" NO_TASKS
	       ",\"name\":\"control_event_tracking\",\"arguments\":{\"action\":\"start\","
	       "\"duration_secs\":600}}}");
	{
		int r = scx_json_get(&doc, 0, "result");
		bool iserr = true;

		scx_json_bool(&doc, scx_json_get(&doc, r, "isError"), &iserr);
		ok(!iserr && !res_has("taskId") && res_has("content") &&
			   !strcmp(res_str("resultType", NULL), "complete"),
		   "right after a cancel, a new capture starts; without the extension: a plain "
		   "result");
	}
	for (int i = 0; i < 450 && !gone(pid); i++)
		usleep(100000);
	ok(gone(pid), "the cancelled capture's producer is gone");
	pid = producer_pid();
	mcp_server__free(s);
	for (int i = 0; i < 450 && pid > 0 && !gone(pid); i++)
		usleep(100000);
	ok(pid > 0 && gone(pid), "the server going away ends the capture");
}

int main(void)
{
	char dir[] = "/tmp/mcp-tasks.XXXXXX", cmd[64];

	signal(SIGPIPE, SIG_IGN);
	method_errors();
	if (!mkdtemp(dir) || chdir(dir))
		return 1;
	write_producer();
	snprintf(cmd, sizeof(cmd), "%s/producer.sh", dir);
	lifecycle(cmd);
	unlink("producer.sh");
	unlink("producer.pid");
	rmdir(dir);
	scx_json_free(&doc);
	scx_buf_free(&out);
	return done_testing();
}
