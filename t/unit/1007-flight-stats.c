// SPDX-License-Identifier: GPL-2.0
/*
 * sched_ext's counters over a flight-recorder window, against a fake sysfs
 * tree: the window's record holds the deltas from the last sample at or
 * before its first event (else the oldest) to the trigger; samples come on
 * their interval only; the ring stays bounded; each window's read starts the
 * next, even when the next one's first event came before it; a window written with its record has it between the events and the
 * trigger.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/flight.h"
#include "capture/flight_stats.h"
#include "stream/stream.h"
#include "tap.h"

static char base[] = "/tmp/scx-fstats.XXXXXX";
static char dir[512];

static void put(const char *name, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void put_num(const char *name, long v)
{
	char text[32];

	snprintf(text, sizeof(text), "%ld\n", v);
	put(name, text);
}

/* a 6.12 tree with these counters */
static void tree(long enable_seq, long nr_rejected)
{
	char root[600];

	mkdir(dir, 0755);
	snprintf(root, sizeof(root), "%s/root", dir);
	mkdir(root, 0755);
	put("state", "enabled\n");
	put_num("switch_all", 1);
	put_num("hotplug_seq", 0);
	put("root/ops", "qmap\n");
	put_num("enable_seq", enable_seq);
	put_num("nr_rejected", nr_rejected);
}

static void windows(void)
{
	struct scx_flight_stats fs;
	struct scx_stats rec;
	char err[512] = "";
	uint64_t t0;

	snprintf(dir, sizeof(dir), "%s/none", base);
	is_int(scx_flight_stats__init(&fs, dir, 10000000000ull, err, sizeof(err)), -ENOENT,
	       "no sched_ext: -ENOENT");

	snprintf(dir, sizeof(dir), "%s/tree", base);
	tree(1, 0);
	is_int(scx_flight_stats__init(&fs, dir, 10000000000ull, err, sizeof(err)), 0, "init");
	is_int(fs.n, 1, "the first sample");
	is_int(fs.every_ns, 1000000000, "a 10 s window samples every second");
	t0 = fs.s[0].ts;

	tree(2, 3);
	is_int(scx_flight_stats__tick(&fs, t0 + 999999999, err, sizeof(err)), 0, "tick");
	is_int(fs.n, 1, "no sample before its second");
	scx_flight_stats__tick(&fs, t0 + 1000000000, err, sizeof(err));
	is_int(fs.n, 2, "a sample on its second");

	tree(4, 5);
	/* a window that began before the second sample counts from the first */
	is_int(scx_flight_stats__window(&fs, fs.s[1].ts - 1, &rec, err, sizeof(err)), 0, "window");
	is_int(rec.enable_seq, 3, "loads since the first sample");
	is_int(rec.nr_rejected, 5, "rejections since the first sample");
	is_str(rec.ops, "qmap", "ops as read");
	ok(rec.ts >= fs.s[1].ts && rec.interval_ns == rec.ts - t0,
	   "interval from the first sample");
	is_int(fs.n, 3, "the window's read is kept");

	tree(7, 5);
	/* the next window began after the last read: it counts from there */
	scx_flight_stats__window(&fs, fs.s[2].ts + 1, &rec, err, sizeof(err));
	is_int(rec.enable_seq, 3, "the next window counts from the previous one's read");
	is_int(rec.nr_rejected, 0, "no new rejections");

	tree(8, 5);
	/*
	 * Its first event came before the last read (it was on its way when the
	 * previous window was written): still from that read, not from the
	 * sample before it, which would count the previous window's loads again.
	 */
	scx_flight_stats__window(&fs, fs.s[3].ts - 1, &rec, err, sizeof(err));
	is_int(rec.enable_seq, 1, "a window that began before the last read counts from it");
	ok(rec.interval_ns == rec.ts - fs.s[3].ts, "interval from the last read");

	/* a window older than every sample: from the last read too */
	scx_flight_stats__window(&fs, 0, &rec, err, sizeof(err));
	is_int(rec.enable_seq, 0, "never from before the last read");

	tree(9, 5);
	scx_flight_stats__init(&fs, dir, 10000000000ull, err, sizeof(err));
	tree(11, 5);
	scx_flight_stats__tick(&fs, fs.next_ns, err, sizeof(err));
	/* with no window before it, a window older than every sample counts from the oldest */
	scx_flight_stats__window(&fs, 0, &rec, err, sizeof(err));
	is_int(rec.enable_seq, 2, "from the oldest sample");

	for (int i = 0; i < 200; i++) {
		tree(10 + i, 5);
		scx_flight_stats__tick(&fs, fs.next_ns, err, sizeof(err));
	}
	is_int(fs.n, SCX_FLIGHT_STATS_SAMPLES, "the ring stays bounded");
	scx_flight_stats__window(&fs, 0, &rec, err, sizeof(err));
	is_int(rec.enable_seq, 209 - (210 - SCX_FLIGHT_STATS_SAMPLES),
	       "a window older than the ring counts from the oldest kept");

	is_int(scx_flight_stats__init(&fs, dir, 600000000000ull, err, sizeof(err)), 0, "init");
	is_int(fs.every_ns, 600000000000ull / (SCX_FLIGHT_STATS_SAMPLES - 4),
	       "a 10 min window samples less often, to span it");

	put("enable_seq", "x\n");
	is_int(scx_flight_stats__window(&fs, 0, &rec, err, sizeof(err)), -EINVAL,
	       "a bad file is an error");
	ok(strstr(err, "enable_seq") != NULL, "naming it: %s", err);
}

/* The record goes between the window's events and its trigger. */
static void in_window(void)
{
	struct scx_writer_opts wo = { .format = SCX_FMT_NDJSON };
	struct scx_header h = { .version = SCX_WIRE_VERSION, .nr_cpus = 1 };
	uint64_t counts[SCX_EV__COUNT] = { 0 };
	struct scx_flight *f = scx_flight__new(1000, 1 << 20);
	struct scx_buf side = { 0 };
	struct scx_trailer tr = { 0 };
	char path[] = "/tmp/scx-fstats-w.XXXXXX";
	struct scx_stats rec = { .ts = 150, .interval_ns = 60, .enable_seq = 1 };
	struct scx_writer *w;
	struct scx_reader *r;
	struct scx_event e, t;
	char order[16] = "";
	int fd = mkstemp(path), rc;

	close(fd);
	for (int i = 0; i < 3; i++) {
		scx_event_init(&e, SCX_EV_WAKING);
		e.ts = 100 + i;
		e.cpu = 0;
		scx_flight__push(f, &e);
	}
	snprintf(rec.state, sizeof(rec.state), "enabled");
	rec.nr_rejected = rec.switch_all = rec.hotplug_seq = 0;
	scx_stats_to_json(&side, &rec);
	scx_event_init(&t, SCX_EV_FLIGHT);
	t.ts = 160;
	snprintf(t.flight.reason, sizeof(t.flight.reason), "signal");
	w = scx_writer__open(path, &wo);
	scx_writer__header(w, &h);
	is_int(scx_flight__write(f, w, &side, &t, counts), 0, "window written");
	scx_writer__trailer(w, &tr);
	scx_writer__close(w);

	r = scx_reader__open(path);
	while ((rc = scx_reader__next(r, &e)) == SCX_READ_EVENT || rc == SCX_READ_OTHER)
		if (strlen(order) < sizeof(order) - 1)
			order[strlen(order)] = rc == SCX_READ_OTHER    ? 's' :
					       e.type == SCX_EV_FLIGHT ? 't' :
									 'e';
	is_str(order, "eeest", "events, the scx_stats record, the trigger");
	scx_reader__free(r);
	unlink(path);
	scx_buf_free(&side);
	scx_flight__free(f);
}

int main(void)
{
	if (!mkdtemp(base))
		return perror("mkdtemp"), 1;
	windows();
	in_window();
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
		if (system(cmd))
			fprintf(stderr, "# could not remove %s\n", base);
	}
	return done_testing();
}
