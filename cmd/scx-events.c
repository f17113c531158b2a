// SPDX-License-Identifier: GPL-2.0
/* scx-events: live scheduler events from BPF, as an NDJSON or binary stream. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "capture/capture.h"
#include "capture/kagg.h"
#include "capture/cgroup.h"
#include "capture/flight.h"
#include "capture/flight_stats.h"
#include "capture/runqlat.h"
#include "capture/bpf_missed.h"
#include "capture/scx_sysfs.h"
#include "core/opts.h"
#include "stream/stream.h"
#include "core/topo.h"
#include "core/util.h"

#define EV_CPU_BYTES (SCX_MAX_CPUS / 8)
/* The reader sleeps this long between looks at the ring unless BPF wakes it
 * (backlog above --wakeup); every wakeup is a switch of our own in the trace. */
#define POLL_MS 50

enum {
	OPT_WAKEUP = 256,
	OPT_NO_STAGE,
	OPT_FLUSH,
	OPT_AGGREGATE,
	OPT_NO_CGROUPS,
	OPT_FLIGHT,
	OPT_FLIGHT_LAT,
	OPT_FLIGHT_STOP
};

#define DEFAULT_AGG_INTERVAL_NS 15000000000ull
/* scx_stats records: sysfs counters change on loads and rare events, a second is plenty */
#define SCX_STATS_INTERVAL_NS 1000000000ull
/* "missed" records: how finely they date the program runs the kernel skipped */
#define MISSED_CHECK_NS 100000000ull

static const struct scx_opt options[] = {
	{ 'd', "duration", "SECONDS",
	  "stop after this long (30, 1.5s, 250ms); default: until SIGINT" },
	{ 'e', "events", "LIST", "events to capture, comma-separated (default all)",
	  SCX_CAP_EVENT_WORDS },
	{ 'p', "pid", "PID", "only events about this thread id" },
	{ 'T', "tgid", "TGID", "only events about this process id" },
	{ 'C', "cpus", "LIST", "only events on these CPUs (0-3,8)" },
	{ 'c', "comm", "COMM", "only events about tasks with this comm" },
	{ 's', "sample", "N", "keep 1 event in N (default: every event)" },
	{ 'f', "format", "FORMAT", "output format (default ndjson)", "ndjson binary" },
	{ 'z', "compress", "METHOD", "compress the output", "none gzip zstd" },
	{ 'o', "output", "FILE",
	  "write to FILE (default: standard output); with --flight, "
	  "the directory for the windows (default .)",
	  "@file" },
	{ 'm', "ring-size", "SIZE", "BPF ring buffer size, a power of two (default 64M)" },
	{ OPT_WAKEUP, "wakeup", "SIZE", "backlog that wakes the reader early (default 256K)" },
	{ OPT_FLUSH, "flush", "DURATION", "max time a record stays staged per CPU (default 50ms)" },
	{ OPT_NO_STAGE, "no-stage", NULL, "one ring buffer record per event (slower; to compare)" },
	{ OPT_AGGREGATE, "aggregate", NULL,
	  "count in the kernel: one kernel_snapshot record per interval instead of events" },
	{ 'I', "interval", "DURATION", "--aggregate: snapshot interval (default 15s)" },
	{ OPT_NO_CGROUPS, "no-cgroups", NULL,
	  "leave out the tasks' cgroup ids and cgroup records" },
	{ OPT_FLIGHT, "flight", "DURATION,SIZE",
	  "flight recorder: keep the last DURATION of events in SIZE of memory, write them "
	  "out when triggered (10s,256M)" },
	{ OPT_FLIGHT_LAT, "flight-latency", "DURATION",
	  "with --flight: also trigger on a wakeup or run-queue latency of DURATION or more" },
	{ OPT_FLIGHT_STOP, "flight-stop", NULL, "with --flight: stop after the first window" },
	{ 'v', "verbose", NULL, "libbpf messages; twice: our debug messages too" },
	{ 0 }
};

/* the letters before the suite had one vocabulary (scx(7), OPTION LETTERS) */
static const struct scx_opt_old old_spellings[] = {
	{ 'T', 't' },
	{ 'm', 'b' },
	{ 0 },
};

static const struct scx_cmd cmd = {
	.name = "scx-events",
	.summary = "Capture live scheduler events with BPF as an NDJSON or binary stream.",
	.opts = options,
	.old = old_spellings,
	.footer =
		"Events: switch waking wakeup wakeup_new migrate fork exec exit free softirq ipi\n"
		"frequency idle cpuhp scx; groups: sched process cpu all.\n"
		"Example: scx-events -d 5 -e sched -o trace.ndjson.zst -z zstd\n"
		"Flight recorder: scx-events --flight 10s,256M --flight-latency 50ms -o /var/tmp/scx\n"
		"writes a window when the sched_ext scheduler exits, on a latency over 50 ms,\n"
		"and on SIGUSR1 (scx-mcp's flight_trigger sends it).\n",
};

static volatile sig_atomic_t stop_sig;
static volatile sig_atomic_t usr1_pid; /* sender of a pending SIGUSR1, -1 if unknown */
static volatile sig_atomic_t usr1_mcp; /* it came from scx-mcp (SCX_FLIGHT_SIGVAL_MCP) */

static void on_signal(int sig)
{
	stop_sig = sig;
}

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	usr1_mcp = si && si->si_code == SI_QUEUE && si->si_value.sival_int == SCX_FLIGHT_SIGVAL_MCP;
	usr1_pid = si && si->si_pid > 0 ? si->si_pid : -1;
}

/* sched_ext's sysfs state and counters as scx_stats records (scx(7)) */
struct scx_stats_feed {
	bool on;
	struct scx_stats prev; /* the values at the last record */
	uint64_t next;	       /* monotonic ns of the next record */
	struct scx_buf b;
};

struct run {
	struct scx_writer *w;
	struct scx_stats_feed scx;
	struct scx_missed_feed missed;
	uint64_t missed_next;	/* monotonic ns of the next check */
	struct scx_cgroups *cg; /* names the cgroup ids; NULL without cgroup v2 */
	struct scx_buf rec;
	uint64_t counts[SCX_EV__COUNT];
	uint64_t written;
	bool pipe_closed;
	/* --flight */
	struct scx_flight *flight;
	struct scx_runqlat lat;
	uint64_t lat_ns;      /* --flight-latency; 0: off */
	uint64_t last_lat_ts; /* latency triggers: one per window length */
	bool flight_stop;
	const char *dir;
	struct scx_writer_opts wo;
	struct scx_header *h;
	struct scx_capture *c;
	unsigned windows;
	struct scx_flight_stats *fstats; /* sched_ext's counters; NULL without */
};

/* Name a cgroup id the first time the stream carries it (scx(7), Cgroup records). */
static int announce(struct run *r, uint64_t id)
{
	int err;

	scx_buf_reset(&r->rec);
	if (!scx_cgroups__announce(r->cg, id, &r->rec))
		return 0;
	err = scx_writer__raw(r->w, r->rec.data, r->rec.len);
	if (err == -EPIPE)
		r->pipe_closed = true;
	return err;
}

static const char *window_ext(const struct scx_writer_opts *wo)
{
	bool bin = wo->format == SCX_FMT_BINARY;

	switch (wo->compress) {
	case SCX_COMP_GZIP:
		return bin ? "bin.gz" : "ndjson.gz";
	case SCX_COMP_ZSTD:
		return bin ? "bin.zst" : "ndjson.zst";
	default:
		return bin ? "bin" : "ndjson";
	}
}

/* sched_ext's counters stopped being readable: no more scx_stats records */
static void flight_stats_stop(struct run *r, const char *msg)
{
	scx_warn("%s: no more scx_stats records", msg);
	free(r->fstats);
	r->fstats = NULL;
}

/* The window's scx_stats record into r->scx.b, empty without sched_ext. */
static void flight_stats_record(struct run *r, uint64_t window_start)
{
	struct scx_stats rec;
	char msg[512];

	scx_buf_reset(&r->scx.b);
	if (!r->fstats)
		return;
	if (scx_flight_stats__window(r->fstats, window_start, &rec, msg, sizeof(msg)))
		flight_stats_stop(r, msg);
	else
		scx_stats_to_json(&r->scx.b, &rec);
}

/*
 * Write the flight window as a stream of its own, DIR/flight-NNN-REASON.EXT:
 * the capture's header, the window's events, sched_ext's counters over the
 * window (an scx_stats record, with sched_ext), the trigger record, a trailer.
 * The next window starts empty.
 */
static int write_window(struct run *r, struct scx_event *t)
{
	struct scx_trailer tr = { 0 };
	struct scx_writer *w;
	char path[4096];
	int err, cerr;

	t->flight.seq = ++r->windows;
	snprintf(path, sizeof(path), "%s/flight-%03u-%s.%s", r->dir, r->windows, t->flight.reason,
		 window_ext(&r->wo));
	w = scx_writer__open(path, &r->wo);
	if (!w) {
		err = -errno;
		scx_warn("cannot write flight window '%s': %s", path, strerror(errno));
		return err;
	}
	r->h->start_ns = r->flight->n ? scx_flight__at(r->flight, 0)->ts : t->ts;
	flight_stats_record(r, r->h->start_ns);
	err = scx_writer__header(w, r->h);
	if (!err)
		err = scx_flight__write(r->flight, w, &r->scx.b, t, tr.counts);
	tr.nr_cpus = scx_capture__nr_cpus(r->c);
	tr.lost = (uint64_t *)scx_capture__lost(r->c);
	tr.lost_total = scx_capture__lost_total(r->c);
	tr.end_ns = t->ts;
	if (!err)
		err = scx_writer__trailer(w, &tr);
	cerr = scx_writer__close(w);
	if (!err)
		err = cerr;
	if (err) {
		scx_warn("cannot write flight window '%s': %s", path, strerror(-err));
		return err;
	}
	scx_warn("flight window %u (%s): %llu events over %.3f s, %llu dropped by the size "
		 "bound: %s",
		 r->windows, t->flight.reason, (unsigned long long)t->flight.events,
		 (t->ts - t->flight.window_start) / 1e9, (unsigned long long)t->flight.dropped,
		 path);
	scx_flight__clear(r->flight);
	if (r->flight_stop)
		stop_sig = SIGUSR1;
	return 0;
}

static void trigger_init(struct scx_event *t, uint64_t ts, const char *reason)
{
	scx_event_init(t, SCX_EV_FLIGHT);
	t->ts = ts;
	t->cpu = -1;
	snprintf(t->flight.reason, sizeof(t->flight.reason), "%s", reason);
}

/*
 * A SIGUSR1: from scx-mcp (its flight_trigger tool, which says so in the
 * signal's value) or anyone else.  The sender may be gone already: its comm
 * is then empty.
 */
static int signal_window(struct run *r, int pid, bool from_mcp)
{
	struct scx_event t;
	char path[64], comm[SCX_COMM_LEN] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = pid > 0 ? fopen(path, "r") : NULL;
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	if (from_mcp && !comm[0])
		snprintf(comm, sizeof(comm), "scx-mcp");
	trigger_init(&t, scx_now_boot_ns(),
		     from_mcp || !strcmp(comm, "scx-mcp") ? "mcp" : "signal");
	t.flight.pid = pid > 0 ? pid : 0;
	memcpy(t.flight.comm, comm, SCX_COMM_LEN);
	return write_window(r, &t);
}

static int flight_event(struct run *r, const struct scx_event *e)
{
	struct scx_runqlat_hit hit;
	struct scx_event t;

	scx_flight__push(r->flight, e);
	r->written++;
	if (e->type == SCX_EV_SCX_DISABLE) {
		trigger_init(&t, e->ts, "scx_exit");
		return write_window(r, &t);
	}
	if (r->lat_ns && scx_runqlat__event(&r->lat, e, r->lat_ns, &hit) &&
	    (!r->last_lat_ts || e->ts - r->last_lat_ts >= r->flight->window_ns)) {
		r->last_lat_ts = e->ts;
		trigger_init(&t, e->ts, hit.woken ? "wakeup_latency" : "runq_latency");
		t.flight.pid = hit.pid;
		t.flight.tgid = hit.tgid;
		memcpy(t.flight.comm, hit.comm, SCX_COMM_LEN);
		t.flight.latency_ns = hit.latency_ns;
		return write_window(r, &t);
	}
	return 0;
}

static int on_event(void *ctx, const struct scx_event *e)
{
	struct run *r = ctx;
	int err;

	if (r->flight)
		return flight_event(r, e);
	if (r->pipe_closed)
		return -EPIPE;
	if (r->cg && scx_event_has_cgroup(e)) {
		/* a cgroup's record comes before the first event that carries its id */
		if (e->type == SCX_EV_SWITCH)
			err = announce(r, e->sw.prev_cgroup) ?: announce(r, e->sw.next_cgroup);
		else
			err = announce(r, e->wake.cgroup);
		if (err)
			return err;
	}
	err = scx_writer__event(r->w, e);
	if (err == -EPIPE)
		r->pipe_closed = true;
	if (err)
		return err;
	if (e->type < SCX_EV__COUNT)
		r->counts[e->type]++;
	r->written++;
	return 0;
}

/* Start the feed if sched_ext is here and its events were asked for. */
static void scx_stats_start(struct scx_stats_feed *f, bool wanted)
{
	char msg[512];
	int e;

	if (!wanted)
		return;
	e = scx_sysfs__read(SCX_SYSFS_DIR, &f->prev, msg, sizeof(msg));
	if (e && e != -ENOENT) /* -ENOENT: no sched_ext, which the capture notes */
		scx_warn("note: no scx_stats records: %s", msg);
	f->on = !e;
	f->next = scx_now_mono_ns() + SCX_STATS_INTERVAL_NS;
}

/*
 * --flight: sample sched_ext's counters if it is here and its events are
 * wanted; before the capture starts, so the first window has a sample from
 * before its first event.
 */
static void flight_stats_start(struct run *r, uint64_t window_ns, bool wanted)
{
	char msg[512];
	int e;

	if (!wanted)
		return;
	r->fstats = scx_xcalloc(1, sizeof(*r->fstats));
	e = scx_flight_stats__init(r->fstats, SCX_SYSFS_DIR, window_ns, msg, sizeof(msg));
	if (e && e != -ENOENT) /* -ENOENT: no sched_ext, which the capture notes */
		scx_warn("note: no scx_stats records: %s", msg);
	if (e) {
		free(r->fstats);
		r->fstats = NULL;
	}
}

/* One scx_stats record: what sched_ext's counters did since the last one. */
static int scx_stats_write(struct scx_stats_feed *f, struct scx_writer *w)
{
	struct scx_stats rec;
	char msg[512];

	if (!f->on)
		return 0;
	if (scx_sysfs__next(SCX_SYSFS_DIR, &f->prev, &rec, msg, sizeof(msg))) {
		scx_warn("%s: no more scx_stats records", msg);
		f->on = false;
		return 0;
	}
	f->next += SCX_STATS_INTERVAL_NS;
	scx_buf_reset(&f->b);
	scx_stats_to_json(&f->b, &rec);
	return scx_writer__raw(w, f->b.data, f->b.len);
}

/* The lost events the ring had no room for; the capture itself says those
 * that its programs wrote and that never arrived. */
static void ring_full_warn(const struct scx_capture *c)
{
	uint64_t n = scx_capture__lost_total(c) - scx_capture__unarrived(c);

	if (n)
		scx_warn("%llu events lost: the ring buffer was full (try a larger --ring-size)",
			 (unsigned long long)n);
}

/*
 * A "missed" record when the kernel skipped program runs since the last
 * check (scx(7)): at most every MISSED_CHECK_NS unless final.  1 when one
 * was written, 0 when not, or -errno.
 */
static int missed_write(struct run *r, struct scx_capture *c, bool final)
{
	uint64_t mono = scx_now_mono_ns();
	int err;

	if (!final && mono < r->missed_next)
		return 0;
	r->missed_next = mono + MISSED_CHECK_NS;
	if (!scx_missed_feed__next(&r->missed, scx_capture__missed(c), scx_now_boot_ns(), &r->rec))
		return 0;
	err = scx_writer__raw(r->w, r->rec.data, r->rec.len);
	return err ? err : 1;
}

/* A reader that went away shows as POLLERR on our end of the pipe. */
static bool output_closed(int fd)
{
	struct pollfd p = { .fd = fd, .events = 0 };

	return fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

static void read_scheduler(char *buf, size_t size)
{
	FILE *f = fopen("/sys/kernel/sched_ext/root/ops", "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, size, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* c NULL: the aggregate mode, whose options are its interval */
static void fill_header(struct scx_header *h, struct scx_capture *c, unsigned nr_cpus,
			uint64_t interval_ns)
{
	struct scx_buf b = { 0 };
	struct utsname u;

	memset(h, 0, sizeof(*h));
	h->version = SCX_WIRE_VERSION;
	snprintf(h->producer, sizeof(h->producer), "scx-events");
	snprintf(h->clock, sizeof(h->clock), "boottime");
	/* the capture sorts across CPUs (lib/capture/capture.h); a late event is
	 * counted and warned about at the stop */
	h->order = SCX_ORDER_TIME;
	gethostname(h->hostname, sizeof(h->hostname) - 1);
	if (!uname(&u))
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
	h->nr_cpus = c ? scx_capture__nr_cpus(c) : nr_cpus;
	h->topo = scx_topo__from_sysfs("/sys");
	if (!h->topo)
		scx_warn("note: cannot read the CPU topology from sysfs: %s", strerror(errno));
	read_scheduler(h->scheduler, sizeof(h->scheduler));
	if (c)
		scx_capture__options_json(c, &b);
	else
		scx_buf_printf(&b, "{\"aggregate\":true,\"interval_ns\":%llu}",
			       (unsigned long long)interval_ns);
	scx_buf_add(&b, "", 1);
	h->options_json = b.data;
	h->start_ns = scx_now_boot_ns();
}

static uint64_t parse_size_opt(const char *name, const char *arg)
{
	uint64_t v;

	if (scx_parse_size(arg, &v) || v == 0)
		scx_usage_error(&cmd, "invalid %s '%s'", name, arg);
	return v;
}

/* Every cpu of a --cpus list must exist here: a filter on none would capture nothing. */
static void check_cpus(const uint8_t *mask, const char *arg)
{
	struct scx_topo *t = scx_topo__from_sysfs("/sys");

	if (!t)
		return; /* the kernel will say what it can */
	for (int cpu = 0; cpu < SCX_MAX_CPUS; cpu++) {
		if (!(mask[cpu / 8] & (1u << (cpu % 8))) || scx_topo__cpu(t, cpu))
			continue;
		scx_usage_error(&cmd,
				"invalid cpu list '%s': cpu %d is not a possible cpu here "
				"(0-%d)",
				arg, cpu, t->max_cpu);
	}
	scx_topo__free(t);
}

/*
 * The output is opened before anything is attached.  A FIFO without a
 * reader would block open() beyond the reach of -d and of signals, so it is
 * opened non-blocking (ENXIO until a reader comes) and retried until a reader
 * comes, the deadline passes or a signal asks to stop: -EINTR then.
 */
static int open_output(const char *path, uint64_t deadline)
{
	for (;;) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0644);

		if (fd >= 0) {
			int fl = fcntl(fd, F_GETFL);

			if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
				int e = errno;

				close(fd);
				return -e;
			}
			return fd;
		}
		if (errno != ENXIO)
			return -errno;
		if (stop_sig || (deadline && scx_now_mono_ns() >= deadline))
			return -EINTR;
		poll(NULL, 0, POLL_MS);
	}
}

static uint64_t stop_deadline; /* -d, monotonic ns; 0: none */

/* A stop asked for, by a signal or by -d. */
static bool stopping(void)
{
	return stop_sig || (stop_deadline && scx_now_mono_ns() >= stop_deadline);
}

static int32_t parse_id(const char *name, const char *arg)
{
	int64_t v;

	if (scx_parse_i64(arg, &v) || v <= 0 || v > INT32_MAX)
		scx_usage_error(&cmd, "invalid %s '%s'", name, arg);
	return v;
}

/*
 * --aggregate: the kernel counts, and every interval one kernel_snapshot
 * record goes out; the last one covers the partial interval up to the stop.
 */
/* The cgroup v2 tree for naming ids, or NULL (with a note) when there is none. */
static struct scx_cgroups *open_cgroups(void)
{
	struct scx_cgroups *cg = scx_cgroups__open(NULL, 0, 0);

	if (!cg && errno == ENOENT)
		scx_warn("note: no cgroup v2 file system is mounted: no cgroup figures");
	else if (!cg)
		scx_warn("note: cannot read the cgroup v2 tree: %s: no cgroup figures",
			 strerror(errno));
	return cg;
}

/* Name the snapshot's cgroups that the stream has not named yet (scx(7)). */
static int announce_snapshot(struct run *r, const struct scx_ksnap *snap)
{
	int err = 0;

	for (unsigned i = 0; i < snap->nr_cgroups && !err; i++)
		if (snap->cgroups[i].id)
			err = announce(r, snap->cgroups[i].id);
	return err;
}

static int run_aggregate(struct run *r, const struct scx_writer_opts *wo, int fd, const char *out,
			 uint64_t interval_ns, uint64_t dur_ns)
{
	struct scx_topo *topo = scx_topo__from_sysfs("/sys");
	struct scx_ksnap snap = { 0 };
	struct scx_trailer tr = { 0 };
	struct scx_buf b = { 0 };
	struct scx_header h;
	struct scx_writer *w;
	struct scx_kagg *k;
	struct scx_stats_feed feed = { 0 };
	uint64_t deadline = 0, next;
	bool warned_full = false, warned_dsq_full = false;
	int err;
	char msg[512];

	if (!topo)
		scx_warn("note: cannot read the CPU topology from sysfs: %s; no cross-LLC or "
			 "cross-node figures",
			 strerror(errno));
	k = scx_kagg__open(topo, r->cg != NULL, msg, sizeof(msg));
	if (!k)
		scx_die(SCX_EXIT_FAIL, "%s", msg);
	w = scx_writer__fdopen(fd, wo);
	if (!w)
		scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", out ? out : "-", strerror(errno));
	r->w = w;
	fill_header(&h, NULL, scx_kagg__nr_cpus(k), interval_ns);
	err = scx_writer__header(w, &h);
	if (!err)
		err = scx_writer__flush(w);
	scx_header_free(&h);
	if (dur_ns)
		deadline = scx_now_mono_ns() + dur_ns;
	next = scx_now_mono_ns() + interval_ns;
	scx_stats_start(&feed, true);
	while (!err) {
		uint64_t now = scx_now_mono_ns();
		bool last = stop_sig || (deadline && now >= deadline);

		if (!last && now < next) {
			uint64_t until = deadline && deadline < next ? deadline : next;
			uint64_t ms = (until - now + 999999) / 1000000;

			poll(NULL, 0, ms < POLL_MS ? (int)ms : POLL_MS);
			if (output_closed(fd == STDOUT_FILENO ? fd : -1))
				err = -EPIPE;
			continue;
		}
		if ((err = scx_kagg__read(k, &snap)))
			break;
		/*
		 * A collector that fell behind (writes blocked by a slow reader,
		 * or no CPU for it) cuts late, and the kernel never waits: the
		 * interval grows and nothing is lost.  The whole intervals it
		 * overran are counted in the record (late_intervals), and the
		 * next cut is one interval after this one, not a burst of short
		 * intervals to catch up.
		 */
		if (now >= next + interval_ns) {
			uint64_t late_ns = now - next;

			snap.late_intervals = late_ns / interval_ns;
			next = now;
			scx_warn(
				"interval %llu: cut %.3f s late (its reader or this collector fell "
				"behind): %llu intervals merged into it",
				(unsigned long long)snap.seq, (double)late_ns / 1e9,
				(unsigned long long)snap.late_intervals);
		}
		/* before the snapshot, which closes its interval in scx-agg */
		err = scx_stats_write(&feed, w);
		scx_buf_reset(&b);
		scx_ksnap_to_json(&b, &snap);
		if (!err)
			err = announce_snapshot(r, &snap) ?: scx_writer__raw(w, b.data, b.len);
		if (!err)
			err = scx_writer__flush(w);
		if (snap.dropped_tasks || snap.dropped_cpu)
			scx_warn("interval %llu: %llu tasks and %llu events on unknown cpus not "
				 "counted",
				 (unsigned long long)snap.seq,
				 (unsigned long long)snap.dropped_tasks,
				 (unsigned long long)snap.dropped_cpu);
		if (snap.dropped_cg_values)
			scx_warn("interval %llu: %llu cgroup latencies not counted (the bucket "
				 "table was full)",
				 (unsigned long long)snap.seq,
				 (unsigned long long)snap.dropped_cg_values);
		if (snap.nr_cgroups && !snap.cgroups[0].id && !warned_full) {
			scx_warn("note: the kernel's cgroup table is full: cgroups seen from now "
				 "on count as cgroup 0 (other)");
			warned_full = true;
		}
		if (snap.dropped_dsq_values)
			scx_warn("interval %llu: %llu DSQ queueing times not counted per DSQ (the "
				 "bucket table was full)",
				 (unsigned long long)snap.seq,
				 (unsigned long long)snap.dropped_dsq_values);
		if (snap.nr_dsqs && snap.dsqs[snap.nr_dsqs - 1].other && !warned_dsq_full) {
			scx_warn(
				"note: the kernel's DSQ table is full: DSQs seen from now on count "
				"as dsq other");
			warned_dsq_full = true;
		}
		if (last)
			break;
		next += interval_ns;
	}
	scx_kagg__free(k);
	scx_topo__free(topo);
	scx_ksnap_free(&snap);
	scx_buf_free(&b);
	scx_buf_free(&feed.b);
	if (!err) {
		tr.end_ns = scx_now_boot_ns();
		err = scx_writer__trailer(w, &tr);
	}
	{
		int cerr = scx_writer__close(w);

		if (!err)
			err = cerr;
	}
	if (err == -EPIPE)
		return SCX_EXIT_OK;
	if (err)
		scx_die(SCX_EXIT_FAIL, "cannot write '%s': %s", out ? out : "-", strerror(-err));
	return SCX_EXIT_OK;
}

/* "10s,256M": the window's length and its memory bound */
static void parse_flight(const char *arg, uint64_t *ns, uint64_t *bytes)
{
	const char *comma = strchr(arg, ',');
	char dur[64];

	if (!comma || (size_t)(comma - arg) >= sizeof(dur))
		scx_usage_error(&cmd, "invalid --flight '%s': DURATION,SIZE as in 10s,256M", arg);
	snprintf(dur, sizeof(dur), "%.*s", (int)(comma - arg), arg);
	if (scx_parse_duration(dur, ns) || !*ns)
		scx_usage_error(&cmd, "invalid --flight duration '%s'", dur);
	if (scx_parse_size(comma + 1, bytes) || *bytes < sizeof(struct scx_event))
		scx_usage_error(&cmd, "invalid --flight size '%s': at least %zu bytes", comma + 1,
				sizeof(struct scx_event));
}

/* --flight: the capture goes to the ring; windows go to files in r->dir. */
static int flight_loop(struct run *r, struct scx_capture *c, uint64_t deadline)
{
	char msg[512];
	int err = 0;

	while (!err && !stop_sig && (!deadline || scx_now_mono_ns() < deadline)) {
		int n = scx_capture__poll(c, POLL_MS);

		if (n < 0)
			err = n;
		if (!err && usr1_pid) {
			int pid = usr1_pid;
			bool from_mcp = usr1_mcp;

			usr1_pid = 0;
			usr1_mcp = 0;
			err = signal_window(r, pid, from_mcp);
		}
		if (r->fstats &&
		    scx_flight_stats__tick(r->fstats, scx_now_boot_ns(), msg, sizeof(msg)))
			flight_stats_stop(r, msg);
	}
	if (!err)
		err = scx_capture__stop(c);
	if (r->flight->dropped_total)
		scx_warn("%llu events left the flight ring before their time: it was full "
			 "(a larger --flight SIZE keeps them)",
			 (unsigned long long)r->flight->dropped_total);
	if (r->lat.untracked)
		scx_warn(
			"%llu ready tasks were not followed for --flight-latency: too many at once",
			(unsigned long long)r->lat.untracked);
	ring_full_warn(c);
	/* the words of the streaming mode's summary, which bench/events.sh reads */
	scx_debug(1, "flight: %llu events written, %llu lost; %u windows written",
		  (unsigned long long)r->written, (unsigned long long)scx_capture__lost_total(c),
		  r->windows);
	return err;
}

/* The command line: what to capture, where to, and in which mode. */
struct args {
	struct scx_capture_opts co;
	struct scx_writer_opts wo;
	const char *out;
	uint64_t dur_ns, interval_ns, flight_ns, flight_bytes;
	bool aggregate, no_cgroups;
};

/* The options into *A (and --flight-latency, --flight-stop into *r), then
 * the combinations that do not go together. */
static void parse_args(int argc, char **argv, struct args *A, struct run *r)
{
	static uint8_t cpus[EV_CPU_BYTES];
	struct scx_capture_opts *co = &A->co;
	bool capture_opts = false;
	const char *arg;
	uint64_t v;
	int opt;

	while ((opt = scx_getopt(&cmd, argc, argv, &arg)) != -1) {
		switch (opt) {
		case 'd':
			if (scx_parse_duration(arg, &A->dur_ns) || !A->dur_ns)
				scx_usage_error(&cmd, "invalid duration '%s'", arg);
			break;
		case 'e':
			if (scx_capture_parse_events(arg, &co->events))
				scx_usage_error(&cmd, "invalid event list '%s' (known: %s)", arg,
						SCX_CAP_EVENT_WORDS);
			break;
		case 'p':
			co->pid = parse_id("pid", arg);
			break;
		case 'T':
			co->tgid = parse_id("tgid", arg);
			break;
		case 'C':
			memset(cpus, 0, sizeof(cpus));
			if (scx_parse_cpulist(arg, cpus, EV_CPU_BYTES * 8))
				scx_usage_error(&cmd, "invalid cpu list '%s'", arg);
			check_cpus(cpus, arg);
			co->cpus = cpus;
			co->nr_cpu_bits = EV_CPU_BYTES * 8;
			break;
		case 'c':
			if (!*arg || strlen(arg) > 15)
				scx_usage_error(&cmd, "invalid comm '%s' (1 to 15 bytes)", arg);
			co->comm = arg;
			break;
		case 's':
			if (scx_parse_u64(arg, &v) || v == 0 || v > UINT32_MAX)
				scx_usage_error(&cmd, "invalid sample rate '%s'", arg);
			co->sample = v;
			break;
		case 'f':
			if (scx_format_parse(arg, &A->wo.format))
				scx_usage_error(&cmd, "unknown format '%s'", arg);
			break;
		case 'z':
			if (scx_compress_parse(arg, &A->wo.compress))
				scx_usage_error(&cmd, "unknown compression '%s'", arg);
			break;
		case 'o':
			A->out = arg;
			break;
		case 'm':
			co->ring_size = parse_size_opt("ring size", arg);
			/* the map's size is 32 bits, and the kernel wants a power of two */
			if (co->ring_size & (co->ring_size - 1) || co->ring_size < 4096 ||
			    co->ring_size > (2ull << 30))
				scx_usage_error(&cmd,
						"invalid ring size '%s': a power of two from "
						"4K to 2G",
						arg);
			break;
		case OPT_WAKEUP:
			co->wakeup_bytes = parse_size_opt("wakeup size", arg);
			break;
		case OPT_FLUSH:
			if (scx_parse_duration(arg, &co->flush_ns) || !co->flush_ns)
				scx_usage_error(&cmd, "invalid flush interval '%s'", arg);
			break;
		case OPT_NO_STAGE:
			co->no_stage = true;
			break;
		case OPT_AGGREGATE:
			A->aggregate = true;
			break;
		case 'I':
			if (scx_parse_duration(arg, &A->interval_ns) || A->interval_ns < 10000000)
				scx_usage_error(&cmd, "invalid interval '%s' (10ms or more)", arg);
			break;
		case OPT_NO_CGROUPS:
			A->no_cgroups = true;
			break;
		case OPT_FLIGHT:
			parse_flight(arg, &A->flight_ns, &A->flight_bytes);
			break;
		case OPT_FLIGHT_LAT:
			if (scx_parse_duration(arg, &r->lat_ns) || !r->lat_ns)
				scx_usage_error(&cmd, "invalid --flight-latency '%s'", arg);
			break;
		case OPT_FLIGHT_STOP:
			r->flight_stop = true;
			break;
		case 'v':
			scx_verbose++;
			break;
		}
		/* what selects or carries events: nothing to do with --aggregate */
		if ((opt < 256 && strchr("epTCcsm", opt)) || opt == OPT_WAKEUP ||
		    opt == OPT_FLUSH || opt == OPT_NO_STAGE)
			capture_opts = true;
	}
	if (optind < argc)
		scx_usage_error(&cmd, "unexpected argument '%s'", argv[optind]);
	if (A->interval_ns && !A->aggregate)
		scx_usage_error(&cmd, "--interval goes with --aggregate");
	if (A->aggregate && capture_opts)
		scx_usage_error(&cmd,
				"--aggregate counts every task on every CPU: event selection, "
				"filters, sampling and ring options do not apply");
	if (!A->flight_ns && (r->lat_ns || r->flight_stop))
		scx_usage_error(&cmd, "--flight-latency and --flight-stop need --flight");
	if (A->flight_ns && A->aggregate)
		scx_usage_error(&cmd, "--flight keeps events: it does not go with --aggregate");
}

/* --flight: the ring, SIGUSR1 for windows, and the capture into them. */
static int run_flight(struct run *r, struct args *A)
{
	struct sigaction sa = {
		.sa_sigaction = on_usr1,
		.sa_flags = SA_SIGINFO | SA_RESTART,
	};
	struct scx_capture *c;
	struct scx_header h;
	char msg[512];
	int err;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	r->dir = A->out && strcmp(A->out, "-") ? A->out : ".";
	if (mkdir(r->dir, 0755) && errno != EEXIST)
		scx_die(SCX_EXIT_FAIL, "cannot create '%s': %s", r->dir, strerror(errno));
	r->flight = scx_flight__new(A->flight_ns, A->flight_bytes);
	if (!r->flight)
		scx_die(SCX_EXIT_FAIL, "cannot set up the flight ring: %s", strerror(errno));
	scx_runqlat__init(&r->lat);
	r->wo = A->wo;
	flight_stats_start(r, A->flight_ns,
			   ((A->co.events ? A->co.events : SCX_CAP_ALL) & SCX_CAP_SCX) != 0);
	c = scx_capture__open(&A->co, on_event, r, msg, sizeof(msg));
	if (!c)
		scx_die(SCX_EXIT_FAIL, "%s", msg);
	r->c = c;
	fill_header(&h, c, 0, 0);
	r->h = &h;
	if (!(scx_capture__events(c) & SCX_CAP_SCX)) {
		free(r->fstats); /* sched_ext's programs could not be loaded */
		r->fstats = NULL;
	}
	scx_warn("flight recorder: the last %.3g s of events in at most %llu MiB; windows "
		 "go to %s/",
		 A->flight_ns / 1e9, (unsigned long long)(A->flight_bytes >> 20), r->dir);
	err = flight_loop(r, c, A->dur_ns ? scx_now_mono_ns() + A->dur_ns : 0);
	scx_header_free(&h);
	scx_capture__free(c);
	scx_runqlat__free(&r->lat);
	scx_flight__free(r->flight);
	free(r->fstats);
	scx_buf_free(&r->scx.b);
	if (err)
		scx_die(SCX_EXIT_FAIL, "flight recorder: %s", strerror(-err));
	return SCX_EXIT_OK;
}

/* Until the stop: each round's events out and flushed, so readers
 * downstream see them live, with scx_stats records between. */
static int stream_loop(struct run *r, struct scx_capture *c, int out_fd, uint64_t deadline)
{
	int err = 0;

	while (!err && !stop_sig && (!deadline || scx_now_mono_ns() < deadline)) {
		int n = scx_capture__poll(c, POLL_MS);

		if (n < 0) {
			err = n;
			break;
		}
		if (r->scx.on && scx_now_mono_ns() >= r->scx.next) {
			err = scx_stats_write(&r->scx, r->w);
			n = 1;
		}
		if (!err && (err = missed_write(r, c, false)) > 0) {
			n = 1;
			err = 0;
		}
		/* flush what this round produced, so readers downstream see it live */
		if (!err && n > 0)
			err = scx_writer__flush(r->w);
		else if (output_closed(out_fd))
			err = -EPIPE;
	}
	return err;
}

/* The trailer (counts, losses per CPU, the end), written unless ERR; the
 * losses are reported either way.  Returns ERR or the write's error. */
static int write_trailer(struct run *r, struct scx_capture *c, int err)
{
	struct scx_trailer tr = { 0 };

	memcpy(tr.counts, r->counts, sizeof(tr.counts));
	tr.nr_cpus = scx_capture__nr_cpus(c);
	tr.lost = scx_xcalloc(tr.nr_cpus, sizeof(uint64_t));
	memcpy(tr.lost, scx_capture__lost(c), tr.nr_cpus * sizeof(uint64_t));
	tr.lost_total = scx_capture__lost_total(c);
	tr.missed = r->missed.total;
	tr.end_ns = scx_now_boot_ns();
	ring_full_warn(c);
	if (tr.missed)
		scx_warn("%llu BPF program runs skipped by the kernel (another BPF program was "
			 "running on the CPU): their events are missing",
			 (unsigned long long)tr.missed);
	scx_debug(1, "%llu events written, %llu lost", (unsigned long long)r->written,
		  (unsigned long long)tr.lost_total);
	if (!err)
		err = scx_writer__trailer(r->w, &tr);
	scx_trailer_free(&tr);
	return err;
}

/* The event stream: header, events until the stop, trailer. */
static int run_stream(struct run *r, struct args *A, int file_fd)
{
	const char *out = A->out;
	uint64_t deadline = 0;
	struct scx_capture *c;
	struct scx_header h;
	char msg[512];
	int err, out_fd;

	A->co.cgroups = r->cg != NULL;
	c = scx_capture__open(&A->co, on_event, r, msg, sizeof(msg));
	if (!c)
		scx_die(SCX_EXIT_FAIL, "%s", msg);

	r->w = scx_writer__fdopen(file_fd >= 0 ? file_fd : STDOUT_FILENO, &A->wo);
	if (!r->w) {
		err = errno;
		scx_capture__free(c);
		scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", out ? out : "-", strerror(err));
	}
	out_fd = file_fd >= 0 ? -1 : STDOUT_FILENO;
	scx_output_interruptible(file_fd >= 0 ? file_fd : STDOUT_FILENO, stopping);
	fill_header(&h, c, 0, 0);
	err = scx_writer__header(r->w, &h);
	/* readers learn at once that the capture is running */
	if (!err)
		err = scx_writer__flush(r->w);
	scx_header_free(&h);
	if (A->dur_ns)
		stop_deadline = deadline = scx_now_mono_ns() + A->dur_ns;
	scx_debug(2, "capturing, events 0x%x", scx_capture__events(c));
	scx_stats_start(&r->scx, scx_capture__events(c) & SCX_CAP_SCX);
	scx_missed_feed__init(&r->missed, scx_now_boot_ns());

	if (!err)
		err = stream_loop(r, c, out_fd, deadline);
	if (err == -EPIPE || r->pipe_closed) {
		/* the reader went away: a normal stop for a producer */
		scx_capture__stop(c);
		scx_capture__free(c);
		scx_writer__close(r->w);
		return SCX_EXIT_OK;
	}
	if (!err)
		err = scx_capture__stop(c);
	/* the last record covers the partial interval up to the stop */
	if (!err)
		err = scx_stats_write(&r->scx, r->w);
	if (!err && (err = missed_write(r, c, true)) > 0)
		err = 0;
	if (err == -EPIPE || r->pipe_closed) {
		scx_capture__free(c);
		scx_writer__close(r->w);
		return SCX_EXIT_OK;
	}
	err = write_trailer(r, c, err);
	scx_capture__free(c);
	if (r->cg && scx_cgroups__unnamed(r->cg))
		scx_warn("note: %zu cgroup ids have no path (gone before they were looked up)",
			 scx_cgroups__unnamed(r->cg));
	scx_cgroups__free(r->cg);
	scx_buf_free(&r->rec);
	scx_buf_free(&r->scx.b);
	{
		int cerr = scx_writer__close(r->w);

		if (!err)
			err = cerr;
	}
	if (err == -EPIPE)
		return SCX_EXIT_OK;
	if (err == -ETIMEDOUT)
		scx_die(SCX_EXIT_FAIL,
			"the reader of '%s' stopped reading: gave up %d ms after the stop "
			"(%llu events written)",
			out ? out : "-", SCX_WRITE_GRACE_MS, (unsigned long long)r->written);
	if (err)
		scx_die(SCX_EXIT_FAIL, "cannot write '%s': %s", out ? out : "-", strerror(-err));
	return SCX_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct args A = { 0 };
	struct run r = { 0 };
	int file_fd = -1;

	scx_set_prog(argv[0]);
	parse_args(argc, argv, &A, &r);
	/*
	 * Before loading, so a signal during the load is not lost (a background
	 * job of a non-interactive shell starts with SIGINT ignored); a closed
	 * pipe must come back as EPIPE from write(), not kill us.
	 */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal); /* a closed terminal: stop with a trailer too */
	if (A.flight_ns)
		return run_flight(&r, &A);
	if (A.out && strcmp(A.out, "-")) {
		file_fd = open_output(A.out, A.dur_ns ? scx_now_mono_ns() + A.dur_ns : 0);
		if (file_fd == -EINTR)
			scx_die(SCX_EXIT_FAIL, "stopped before a reader opened '%s'", A.out);
		if (file_fd < 0)
			scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", A.out, strerror(-file_fd));
	}
	if (!A.no_cgroups)
		r.cg = open_cgroups();
	if (A.aggregate)
		return run_aggregate(&r, &A.wo, file_fd >= 0 ? file_fd : STDOUT_FILENO, A.out,
				     A.interval_ns ? A.interval_ns : DEFAULT_AGG_INTERVAL_NS,
				     A.dur_ns);
	return run_stream(&r, &A, file_fd);
}
