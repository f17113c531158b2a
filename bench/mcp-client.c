// SPDX-License-Identifier: GPL-2.0
/*
 * bench/mcp.sh's client: starts scx-mcp on pipes and times requests the way
 * an MCP client sees them (write the line, read until the response with
 * that id).  Prints one "name value unit" line per figure.
 *
 *	mcp-client SCX_MCP TRACE ROUNDTRIPS
 *
 * MCP_BENCH_REPEAT=N calls each analysis and trace tool N times (after a
 * first call that builds the trace's aggregation) and prints the median.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int to_srv, from_srv;
static pid_t child;
static char buf[1 << 22];
static size_t blen;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Send one request and return the response line (static storage). */
static const char *rpc(int id, const char *method, const char *params)
{
	char line[8192], want[64];
	int n = snprintf(line, sizeof(line),
			 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\","
			 "\"params\":%s}\n",
			 id, method, params);

	if (write(to_srv, line, n) != n)
		exit(1);
	snprintf(want, sizeof(want), "{\"jsonrpc\":\"2.0\",\"id\":%d,", id);
	for (;;) {
		char *nl;

		while ((nl = memchr(buf, '\n', blen))) {
			size_t l = nl - buf + 1;
			static char out[1 << 22];

			memcpy(out, buf, l);
			out[l] = 0;
			memmove(buf, buf + l, blen - l);
			blen -= l;
			if (!strncmp(out, want, strlen(want)))
				return out;
		}
		ssize_t r = read(from_srv, buf + blen, sizeof(buf) - blen);

		if (r <= 0) {
			fprintf(stderr, "mcp-client: server closed\n");
			exit(1);
		}
		blen += r;
	}
}

static long vm_kb(const char *key)
{
	char path[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", child);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = atol(line + strlen(key) + 1);
	if (f)
		fclose(f);
	return v;
}

/* CPU time (user + system) the server has used, ms: robust to other load */
static double cpu_ms(void)
{
	char path[64], line[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", child);
	f = fopen(path, "r");
	if (!f || !fgets(line, sizeof(line), f)) {
		if (f)
			fclose(f);
		return 0;
	}
	fclose(f);
	p = strrchr(line, ')');
	if (p &&
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
		return (ut + st) * 1000.0 / sysconf(_SC_CLK_TCK);
	return 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median ms of reps calls; warm: one untimed call first (the first
 * analysis builds the trace's aggregation, which is not its cost). */
static double timed(int *id, const char *params, int reps, bool warm)
{
	double t[1000], t0;

	if (warm && reps > 1)
		rpc((*id)++, "tools/call", params);
	for (int i = 0; i < reps; i++) {
		t0 = now_ms();
		rpc((*id)++, "tools/call", params);
		t[i] = now_ms() - t0;
	}
	qsort(t, reps, sizeof(*t), cmp_d);
	return t[reps / 2];
}

int main(int argc, char **argv)
{
	static const char *const analyses[] = {
		"cpu-utilization", "process-runtime",
		"wakeup-latency",  "latency-breakdown",
		"migrations",	   "task-states",
		"preemptions",	   "wakeup-graph",
		"runqueue-depth",  "fairness",
		"softirq",	   "outliers",
		"bottlenecks",	   NULL,
	};
	int in[2], out[2], id = 1, n, reps = 1;
	char params[4096];
	double t0, *rt;

	if (argc != 4)
		return 2;
	n = atoi(argv[3]);
	if (getenv("MCP_BENCH_REPEAT"))
		reps = atoi(getenv("MCP_BENCH_REPEAT"));
	if (reps < 1 || reps > 1000)
		return 2;
	if (pipe(in) || pipe(out))
		return 1;
	child = fork();
	if (!child) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(argv[1], argv[1], "--root", "/", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	to_srv = in[1];
	from_srv = out[0];
	signal(SIGPIPE, SIG_IGN);

	rpc(id++, "initialize",
	    "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
	    "\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}");
	printf("rss_idle %ld KiB\n", vm_kb("VmRSS:"));

	/* small tool round trips */
	rt = calloc(n, sizeof(*rt));
	for (int i = 0; i < n; i++) {
		t0 = now_ms();
		rpc(id++, "tools/call", "{\"name\":\"list_traces\",\"arguments\":{}}");
		rt[i] = now_ms() - t0;
	}
	qsort(rt, n, sizeof(*rt), cmp_d);
	printf("roundtrip_p50 %.4f ms\nroundtrip_p99 %.4f ms\n", rt[n / 2], rt[n * 99 / 100]);
	t0 = now_ms();
	for (int i = 0; i < n; i++)
		rpc(id++, "ping", "{}");
	printf("ping_avg %.4f ms\n", (now_ms() - t0) / n);

	/* load */
	snprintf(params, sizeof(params),
		 "{\"name\":\"load_perfetto_trace\",\"arguments\":"
		 "{\"file_path\":\"%s\",\"trace_id\":\"t\"}}",
		 argv[2]);
	double c0 = cpu_ms();

	t0 = now_ms();
	const char *r = rpc(id++, "tools/call", params);
	printf("load %.1f ms\n", now_ms() - t0);
	printf("load_cpu %.0f ms\n", cpu_ms() - c0);
	if (strstr(r, "\"isError\":true")) {
		fprintf(stderr, "mcp-client: load failed: %.300s\n", r);
		return 1;
	}
	printf("rss_loaded %ld KiB\nrss_peak %ld KiB\n", vm_kb("VmRSS:"), vm_kb("VmHWM:"));

	/* each analysis: the first builds the trace's aggregation */
	for (int i = 0; analyses[i]; i++) {
		snprintf(params, sizeof(params),
			 "{\"name\":\"analyze_trace_scheduling\",\"arguments\":"
			 "{\"trace_id\":\"t\",\"analysis_type\":\"%s\"}}",
			 analyses[i]);
		printf("analysis_%s %.3f ms\n", analyses[i], timed(&id, params, reps, i == 0));
	}
	static const char *const tools[][2] = {
		{ "correlate_wakeup_to_schedule", "" },
		{ "find_scheduling_bottlenecks", "" },
		{ "detect_outliers", "" },
		{ "run_all_analyzers", "" },
		{ "get_trace_summary", "" },
		{ "get_cpu_timeline", ",\"cpu\":0" },
		{ "get_process_timeline", ",\"pid\":1" },
		{ "query_trace_events",
		  ",\"event_type\":\"sched_switch\",\"aggregation\":{\"function\":\"count_by\",\"field\":\"next_comm\"}" },
	};
	for (unsigned i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		snprintf(params, sizeof(params),
			 "{\"name\":\"%s\",\"arguments\":{\"trace_id\":\"t\"%s}}", tools[i][0],
			 tools[i][1]);
		printf("tool_%s %.3f ms\n", tools[i][0], timed(&id, params, reps, false));
	}
	printf("rss_end %ld KiB\nrss_peak_end %ld KiB\n", vm_kb("VmRSS:"), vm_kb("VmHWM:"));
	close(to_srv);
	waitpid(child, NULL, 0);
	return 0;
}
