// SPDX-License-Identifier: GPL-2.0
/* scx-mcp tools for the live machine: capture control, statistics, profiling. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "mcp_live.h"
#include "mcp_tools.h"
#include "profile.h"

/* No data yet is a state, not a failure: say so and how to get some. */
static int not_yet(struct mcp_call *c, const char *hint)
{
	scx_jw_obj_begin(&c->w);
	scx_jw_kbool(&c->w, "available", false);
	scx_jw_kstr(&c->w, "hint", hint);
	scx_jw_obj_end(&c->w);
	return 0;
}


int mcp_t_topology(struct mcp_call *c)
{
	static const char *const levels[] = { "summary", "full", NULL };
	bool offline = false;
	int lvl;

	if (mcp_arg_bool(c, "include_offline", &offline) < 0 ||
	    (lvl = mcp_arg_enum(c, "detail_level", levels, 0)) < 0)
		return -1;
	return mcp_sys_topology(&c->w, lvl == 1, offline);
}

int mcp_t_query_stats(struct mcp_call *c)
{
	static const char *const types[] = { "cpu", "llc", "node", "dsq", "process", "thread",
					     "scheduler", "system", NULL };
	int64_t limit = 20;
	int k;

	if (mcp_arg_required(c, "stat_type") || (k = mcp_arg_enum(c, "stat_type", types, 0)) < 0 ||
	    mcp_arg_i64(c, "limit", &limit, 1, 1000) < 0)
		return -1;
	if (k == 6)
		return mcp_sys_scheduler(&c->w);
	if (k == 7) {
		scx_jw_obj_begin(&c->w);
		scx_jw_key(&c->w, "cpu");
		mcp_sys_cpu(&c->w);
		scx_jw_key(&c->w, "memory");
		mcp_sys_memory(&c->w);
		scx_jw_obj_end(&c->w);
		return 0;
	}
	if (!c->s->live)
		return not_yet(c, "no live capture: start one with control_event_tracking "
			       "{\"action\":\"start\"}, wait a second, then query again");
	return mcp_live_stats(c->s, types[k], &c->w, (unsigned)limit);
}

/* Capture arguments go to argv (no shell), but stay plain anyway. */
static bool plain(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return false;
	return true;
}

int mcp_t_tracking(struct mcp_call *c)
{
	static const char *const actions[] = { "enable", "disable", "status", "start", "stop", NULL };
	char events[128] = "", cpus[128] = "", comm[SCX_COMM_LEN] = "", err[256] = "";
	char pidb[24], tgidb[24], desc[512];
	char *args[24];
	int64_t pid = -1, tgid = -1;
	int a, n = 0, r;

	if (mcp_arg_required(c, "action") || (a = mcp_arg_enum(c, "action", actions, 2)) < 0)
		return -1;
	if (a == 1 || a == 4) {
		if (mcp_live_stop(c->s))
			return mcp_fail(c, "no live capture is running");
		scx_jw_obj_begin(&c->w);
		scx_jw_kstr(&c->w, "action", "stopped");
		mcp_live_status(c->s, &c->w);
		scx_jw_obj_end(&c->w);
		return 0;
	}
	if (a == 2) {
		scx_jw_obj_begin(&c->w);
		mcp_live_status(c->s, &c->w);
		scx_jw_obj_end(&c->w);
		return 0;
	}
	if (mcp_arg_str(c, "events", events, sizeof(events)) < 0 ||
	    mcp_arg_str(c, "cpus", cpus, sizeof(cpus)) < 0 ||
	    mcp_arg_str(c, "comm", comm, sizeof(comm)) < 0 ||
	    mcp_arg_i64(c, "pid", &pid, 1, INT32_MAX) < 0 ||
	    mcp_arg_i64(c, "tgid", &tgid, 1, INT32_MAX) < 0)
		return -1;
	if (!plain(events, ",_") || !plain(cpus, ",-") || !plain(comm, "_-.:/ "))
		return mcp_fail(c, "events, cpus and comm may hold only letters, digits and , - _ . :");
	args[n++] = "--format";
	args[n++] = "binary";
	args[n++] = "-o";
	args[n++] = "-";
	if (events[0]) {
		args[n++] = "-e";
		args[n++] = events;
	}
	if (pid > 0) {
		snprintf(pidb, sizeof(pidb), "%lld", (long long)pid);
		args[n++] = "--pid";
		args[n++] = pidb;
	}
	if (tgid > 0) {
		snprintf(tgidb, sizeof(tgidb), "%lld", (long long)tgid);
		args[n++] = "--tgid";
		args[n++] = tgidb;
	}
	if (cpus[0]) {
		args[n++] = "--cpus";
		args[n++] = cpus;
	}
	if (comm[0]) {
		args[n++] = "--comm";
		args[n++] = comm;
	}
	args[n] = NULL;
	desc[0] = 0;
	for (int i = 0; i < n; i++)
		snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc), "%s%s", i ? " " : "scx-events ",
			 args[i]);
	r = mcp_live_start(c->s, args, desc, err, sizeof(err));
	if (r == -EBUSY)
		return mcp_fail(c, "a live capture is already running; stop it first");
	if (r)
		return mcp_fail(c, "cannot start the capture: %s", err[0] ? err : strerror(-r));
	mcp_log(c->s, MCP_INFO, "live capture started: %s", desc);
	scx_jw_obj_begin(&c->w);
	scx_jw_kstr(&c->w, "action", "started");
	mcp_live_status(c->s, &c->w);
	scx_jw_kstr(&c->w, "next", "query_stats after a second; subscribe to events://stream "
		    "or stats://aggregated/cpu for updates");
	scx_jw_obj_end(&c->w);
	return 0;
}

static int live_report(struct mcp_call *c, const char *name, int64_t limit)
{
	struct scx_buf b = { 0 };
	int r;

	if (!c->s->live)
		return not_yet(c, "no live capture: start one with control_event_tracking "
			       "{\"action\":\"start\"}, wait a second, then call this again");
	for (;;) {
		scx_buf_reset(&b);
		r = mcp_live_report(c->s, name, (unsigned)limit, &b);
		if (r || b.len <= c->cap - 512 || limit <= 1)
			break;
		limit /= 2;
	}
	if (r == -EAGAIN) {
		scx_buf_free(&b);
		return not_yet(c, "the first 1 s interval of the capture has not closed yet; call "
			       "again in a second");
	}
	if (r) {
		scx_buf_free(&b);
		return mcp_fail(c, "%s report failed: %s", name,
				r == -EOPNOTSUPP ? "not available in this build (no aggregation "
				"engine, lib/agg.c)" : strerror(-r));
	}
	scx_jw_obj_begin(&c->w);
	scx_jw_key(&c->w, "report");
	scx_jw_raw(&c->w, b.data, b.len);
	scx_jw_obj_end(&c->w);
	scx_buf_free(&b);
	return 0;
}

int mcp_t_waker_wakee(struct mcp_call *c)
{
	static const char *const modes[] = { "critical", "frequency", "latency", "bidirectional",
					     "for_pid", "summary", NULL };
	int64_t limit = 20, pid = -1;

	if (mcp_arg_enum(c, "mode", modes, 0) < 0 || mcp_arg_i64(c, "pid", &pid, 1, INT32_MAX) < 0 ||
	    mcp_arg_i64(c, "limit", &limit, 1, 1000) < 0)
		return -1;
	return live_report(c, "wakeup-graph", limit);
}

int mcp_t_softirq(struct mcp_call *c)
{
	static const char *const modes[] = { "summary", "by_type", "by_cpu", NULL };
	int64_t limit = 20, nr = -1;

	if (mcp_arg_enum(c, "mode", modes, 0) < 0 || mcp_arg_i64(c, "softirq_nr", &nr, 0, 9) < 0 ||
	    mcp_arg_i64(c, "limit", &limit, 1, 100) < 0)
		return -1;
	return live_report(c, "softirq", limit);
}

/* ---- profiling --------------------------------------------------------------------- */

int mcp_t_prof_start(struct mcp_call *c)
{
	struct scx_profile_opts o = { .event = "hw:cycles", .freq = 99, .cpu = -1, .pid = -1,
				      .max_samples = 10000 };
	char event[64] = "", err[256] = "";
	int64_t freq = 99, cpu = -1, pid = -1, max = 10000, dur = 0;

	if (mcp_arg_str(c, "event", event, sizeof(event)) < 0 ||
	    mcp_arg_i64(c, "freq", &freq, 1, 10000) < 0 || mcp_arg_i64(c, "cpu", &cpu, -1, 4096) < 0 ||
	    mcp_arg_i64(c, "pid", &pid, -1, INT32_MAX) < 0 ||
	    mcp_arg_i64(c, "max_samples", &max, 1, 1000000) < 0 ||
	    mcp_arg_i64(c, "duration_secs", &dur, 0, 3600) < 0)
		return -1;
	if (c->s->prof && scx_profile__running(c->s->prof))
		return mcp_fail(c, "profiling is already running; stop_perf_profiling first");
	if (event[0])
		o.event = event;
	o.freq = (unsigned)freq;
	o.cpu = (int)cpu;
	o.pid = (int)pid;
	o.max_samples = (uint64_t)max;
	o.duration_s = (unsigned)dur;
	scx_profile__free(c->s->prof);
	c->s->prof = scx_profile__start(&o, err, sizeof(err));
	if (!c->s->prof)
		return mcp_fail(c, "cannot start profiling: %s", err);
	scx_jw_obj_begin(&c->w);
	scx_jw_kstr(&c->w, "action", "started");
	scx_profile__status(c->s->prof, &c->w);
	scx_jw_obj_end(&c->w);
	return 0;
}

int mcp_t_prof_stop(struct mcp_call *c)
{
	if (!c->s->prof || !scx_profile__running(c->s->prof))
		return mcp_fail(c, "profiling is not running");
	scx_profile__stop(c->s->prof);
	scx_jw_obj_begin(&c->w);
	scx_jw_kstr(&c->w, "action", "stopped");
	scx_profile__status(c->s->prof, &c->w);
	scx_jw_obj_end(&c->w);
	return 0;
}

int mcp_t_prof_results(struct mcp_call *c)
{
	int64_t limit = 20;
	bool stacks = true;

	if (mcp_arg_i64(c, "limit", &limit, 1, 500) < 0 ||
	    mcp_arg_bool(c, "include_stacks", &stacks) < 0)
		return -1;
	if (!c->s->prof)
		return not_yet(c, "no profile: start one with start_perf_profiling");
	scx_profile__results(c->s->prof, (unsigned)limit, stacks, c->cap, &c->w);
	return 0;
}
