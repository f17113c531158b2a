// SPDX-License-Identifier: GPL-2.0
/*
 * The scx_stats record (sched_ext's sysfs counters as per-interval deltas):
 * written and read back, malformed ones refused with the key and byte named,
 * records folded into longer intervals, the counters past the cap counted,
 * the record made from a fake sysfs tree, and what scx-agg makes of it:
 * the snapshot's sched_ext object and the Prometheus _total counters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agg/agg.h"
#include "agg/prom.h"
#include "capture/scx_sysfs.h"
#include "core/util.h"
#include "stream/scx_stats.h"
#include "fake-sysfs.h"
#include "tap.h"

static int parse(const char *js, struct scx_stats *s, char *err, size_t errsz)
{
	struct scx_json_doc d = { 0 };
	int ret = scx_json_parse(&d, js, strlen(js));

	if (!ret)
		ret = scx_stats_from_json(&d, s, err, errsz);
	scx_json_free(&d);
	return ret;
}

static void sample(struct scx_stats *s, uint64_t ts, int64_t loads, uint64_t fallback)
{
	memset(s, 0, sizeof(*s));
	s->ts = ts;
	s->interval_ns = 1000000000;
	snprintf(s->state, sizeof(s->state), "enabled");
	snprintf(s->ops, sizeof(s->ops), "qmap");
	s->switch_all = 1;
	s->enable_seq = loads;
	s->nr_rejected = 0;
	s->hotplug_seq = -1; /* a kernel without it */
	s->has_events = true;
	s->nr_events = 2;
	snprintf(s->events[0].name, SCX_STATS_NAME_LEN, "SELECT_CPU_FALLBACK");
	s->events[0].value = fallback;
	snprintf(s->events[1].name, SCX_STATS_NAME_LEN, "DISPATCH_KEEP_LAST");
	s->events[1].value = 1;
}

static void round_trip(void)
{
	struct scx_stats a, b;
	struct scx_buf buf = { 0 };
	char err[256] = "";

	sample(&a, 123, 1, 12);
	scx_stats_to_json(&buf, &a);
	scx_buf_add(&buf, "", 1);
	ok(strstr(buf.data, "\"type\":\"scx_stats\"") &&
		   strstr(buf.data, "\"events\":{\"SELECT_CPU_FALLBACK\":12,") &&
		   !strstr(buf.data, "hotplug_seq"),
	   "written: %s", buf.data);
	is_int(parse(buf.data, &b, err, sizeof(err)), 0, "read back %s", err);
	ok(!memcmp(&a, &b, sizeof(a)), "the same record");
	is_int(b.hotplug_seq, -1, "a counter the kernel lacks stays absent");

	/* 6.12: no root/events, no "events" key */
	a.has_events = false;
	a.nr_events = 0;
	scx_buf_reset(&buf);
	scx_stats_to_json(&buf, &a);
	scx_buf_add(&buf, "", 1);
	ok(!strstr(buf.data, "\"events\""), "no events key without root/events");
	is_int(parse(buf.data, &b, err, sizeof(err)), 0, "read back");
	ok(!b.has_events, "and has none");

	scx_buf_reset(&buf);
	scx_stats_text(&buf, &a);
	scx_buf_add(&buf, "", 1);
	is_str(buf.data,
	       "sched_ext: enabled qmap switch_all 1 | loads 1 rejected 0 | no root/events",
	       "the text line");
	scx_buf_free(&buf);
}

static void bad_records(void)
{
	static const struct {
		const char *js, *want;
	} bad[] = {
		{ "{\"type\":\"scx_stats\",\"interval_ns\":1,\"state\":\"x\",\"ops\":\"\","
		  "\"events_dropped\":0}",
		  "\"ts\"" },
		{ "{\"type\":\"scx_stats\",\"ts\":1,\"interval_ns\":1,\"state\":\"x\",\"ops\":\"\","
		  "\"events_dropped\":0,\"enable_seq\":-2}",
		  "\"enable_seq\" is not a count" },
		{ "{\"type\":\"scx_stats\",\"ts\":1,\"interval_ns\":1,\"state\":7,\"ops\":\"\","
		  "\"events_dropped\":0}",
		  "\"state\"" },
		{ "{\"type\":\"scx_stats\",\"ts\":1,\"interval_ns\":1,\"state\":\"x\",\"ops\":\"\","
		  "\"events_dropped\":0,\"events\":[1]}",
		  "not an object" },
		{ "{\"type\":\"scx_stats\",\"ts\":1,\"interval_ns\":1,\"state\":\"x\",\"ops\":\"\","
		  "\"events_dropped\":0,\"events\":{\"A\":1,\"A\":2}}",
		  "twice" },
		{ "{\"type\":\"scx_stats\",\"ts\":1,\"interval_ns\":1,\"state\":\"x\",\"ops\":\"\","
		  "\"events_dropped\":0,\"events\":{\"A\":\"1\"}}",
		  "not a count" },
		{ "{\"type\":\"scx_stats\",\"ts\":1,\"interval_ns\":1,\"state\":\"x\",\"ops\":\"\","
		  "\"events_dropped\":0,\"events\":{\"\":1}}",
		  "empty, too long" },
	};
	struct scx_stats s;
	char err[256];

	for (size_t i = 0; i < SCX_ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		is_int(parse(bad[i].js, &s, err, sizeof(err)), -EINVAL, "bad record %zu refused",
		       i);
		ok(strstr(err, bad[i].want) && strstr(err, "byte "), "names what and where: %s",
		   err);
	}
}

static void cap_and_merge(void)
{
	struct scx_buf buf = { 0 };
	struct scx_stats a, b, m = { 0 };
	char err[256];

	/* more counters than the record keeps: counted, not kept */
	scx_buf_addstr(&buf, "{\"type\":\"scx_stats\",\"ts\":1,\"interval_ns\":1,\"state\":\"x\","
			     "\"ops\":\"\",\"events_dropped\":0,\"events\":{");
	for (int i = 0; i < SCX_STATS_MAX_EVENTS + 3; i++)
		scx_buf_printf(&buf, "%s\"C%d\":%d", i ? "," : "", i, i);
	scx_buf_addstr(&buf, "}}");
	scx_buf_add(&buf, "", 1);
	is_int(parse(buf.data, &a, err, sizeof(err)), 0, "many counters read");
	is_int(a.nr_events, SCX_STATS_MAX_EVENTS, "kept up to the cap");
	is_int(a.events_dropped, 3, "the rest counted");
	scx_buf_free(&buf);

	sample(&a, 100, 1, 12);
	sample(&b, 200, 1, 30);
	snprintf(b.state, sizeof(b.state), "disabled");
	b.events[1] = (struct scx_stats_counter){ "BYPASS_DURATION", 5 };
	scx_stats_merge(&m, &a);
	scx_stats_merge(&m, &b);
	is_int(m.ts, 200, "merged: the later ts");
	is_int(m.interval_ns, 2000000000, "intervals add up");
	is_str(m.state, "disabled", "the later state");
	is_int(m.enable_seq, 2, "loads add up");
	is_int(m.hotplug_seq, -1, "an absent counter stays absent");
	is_int(scx_stats_event(&m, "SELECT_CPU_FALLBACK")->value, 42, "event deltas add up");
	ok(scx_stats_event(&m, "DISPATCH_KEEP_LAST") && scx_stats_event(&m, "BYPASS_DURATION"),
	   "a counter in either record is kept");
}

/* The record as scx-events makes it, from a fake tree (the kernel's layout). */
static void from_sysfs(const char *base)
{
	struct scx_stats prev, rec;
	char dir[512], err[256] = "";

	snprintf(dir, sizeof(dir), "%s/sched_ext", base);
	fake_sysfs_tree(dir, &(struct fake_sysfs){ .state = "enabled\n",
						   .switch_all = "0\n",
						   .nr_rejected = "0\n",
						   .enable_seq = "4\n",
						   .ops = "simple\n",
						   .events = "SCX_EV_SELECT_CPU_FALLBACK 3\n" });
	is_int(scx_sysfs__read(dir, &prev, err, sizeof(err)), 0, "first read %s", err);
	ok(prev.ts > 0, "a read has its time");
	fake_sysfs_put(dir, "enable_seq", "5\n");
	fake_sysfs_put(dir, "nr_rejected", "1\n");
	fake_sysfs_put(dir, "root/events", "SCX_EV_SELECT_CPU_FALLBACK 10\n");
	is_int(scx_sysfs__next(dir, &prev, &rec, err, sizeof(err)), 0, "next record %s", err);
	is_int(rec.enable_seq, 1, "one load in the interval");
	is_int(rec.nr_rejected, 1, "one task rejected");
	is_int(rec.hotplug_seq, -1, "no hotplug_seq file: absent");
	is_int(scx_stats_event(&rec, "SELECT_CPU_FALLBACK")->value, 7, "event delta");
	is_int(prev.enable_seq, 5, "prev holds the values now");
	ok(rec.ts == prev.ts && rec.interval_ns > 0, "the record's time is the read's, its "
						     "interval the time since the last");
	fake_sysfs_put(dir, "enable_seq", "5\n");
	scx_sysfs__next(dir, &prev, &rec, err, sizeof(err));
	is_int(rec.enable_seq, 0, "no load: 0");
}

static struct scx_buf snap_json;

static int on_snap(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	struct scx_prom *p = ctx;

	(void)a;
	scx_agg_snap_json(&snap_json, s);
	return scx_prom__add(p, a, s);
}

static void in_agg(void)
{
	struct scx_prom *p = scx_prom__new(0);
	struct scx_agg_opts o = { .emit = on_snap, .ctx = p };
	struct scx_agg *a = scx_agg__new(NULL, &o);
	struct scx_stats s1, s2;
	struct scx_buf b = { 0 };
	struct scx_event e;

	sample(&s1, 1000, 1, 12);
	sample(&s2, 2000, 1, 30);
	scx_event_init(&e, SCX_EV_SWITCH);
	e.ts = 500;
	e.cpu = 0;
	scx_agg__add(a, &e);
	scx_agg__note_scx_stats(a, &s1);
	scx_agg__note_scx_stats(a, &s2);
	scx_agg__flush(a);
	ok(scx_agg__snapshot(a) && scx_agg__snapshot(a)->scx.enable_seq == 2,
	   "the snapshot holds the interval's records folded");
	scx_buf_add(&snap_json, "", 1);
	ok(strstr(snap_json.data, "\"sched_ext\":{\"ts\":2000,") &&
		   strstr(snap_json.data, "\"enable_seq\":2") &&
		   strstr(snap_json.data, "\"SELECT_CPU_FALLBACK\":42"),
	   "snapshot NDJSON has the sched_ext object");
	scx_prom__write(p, &b);
	scx_buf_add(&b, "", 1);
	ok(strstr(b.data, "# HELP scx_sched_ext_loads_total ") &&
		   strstr(b.data, "# TYPE scx_sched_ext_loads_total counter\n"
				  "scx_sched_ext_loads_total 2\n"),
	   "loads as a _total counter with HELP and TYPE");
	ok(strstr(b.data, "# TYPE scx_sched_ext_events_total counter\n") &&
		   strstr(b.data, "scx_sched_ext_events_total{event=\"SELECT_CPU_FALLBACK\"} 42\n"),
	   "root/events as _total counters by event");
	ok(strstr(b.data, "scx_sched_ext_enabled{state=\"enabled\",ops=\"qmap\"} 1\n"),
	   "the state as a gauge");
	ok(!strstr(b.data, "hotplugs"), "a counter the kernel lacks is not exported");
	scx_buf_free(&b);
	scx_buf_free(&snap_json);
	scx_agg__free(a);
	scx_prom__free(p);
}

int main(void)
{
	char base[] = "/tmp/scx-stats.XXXXXX";
	char cmd[600];

	if (!mkdtemp(base))
		return perror("mkdtemp"), 1;
	round_trip();
	bad_records();
	cap_and_merge();
	from_sysfs(base);
	in_agg();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	if (system(cmd))
		return 1;
	return done_testing();
}
