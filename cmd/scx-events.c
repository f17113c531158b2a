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
#include "core/opts.h"
#include "stream/stream.h"
#include "core/topo.h"
#include "core/util.h"

#define EV_CPU_BYTES (SCX_MAX_CPUS / 8)
/* The reader sleeps this long between looks at the ring unless BPF wakes it
 * (backlog above --wakeup); every wakeup is a switch of our own in the trace. */
#define POLL_MS 50

enum { OPT_WAKEUP = 256, OPT_NO_STAGE, OPT_FLUSH };

static const struct scx_opt options[] = {
	{ 'd', "duration", "SECONDS", "stop after this long (30, 1.5s, 250ms); default: until SIGINT" },
	{ 'e', "events", "LIST", "events to capture, comma-separated (default all)",
	  SCX_CAP_EVENT_WORDS },
	{ 'p', "pid", "PID", "only events about this thread id" },
	{ 'T', "tgid", "TGID", "only events about this process id" },
	{ 'C', "cpus", "LIST", "only events on these CPUs (0-3,8)" },
	{ 'c', "comm", "COMM", "only events about tasks with this comm" },
	{ 's', "sample", "N", "keep 1 event in N (default: every event)" },
	{ 'f', "format", "FORMAT", "output format (default ndjson)", "ndjson binary" },
	{ 'z', "compress", "METHOD", "compress the output", "none gzip zstd" },
	{ 'o', "output", "FILE", "write to FILE (default: standard output)", "@file" },
	{ 'm', "ring-size", "SIZE", "BPF ring buffer size, a power of two (default 64M)" },
	{ OPT_WAKEUP, "wakeup", "SIZE", "backlog that wakes the reader early (default 256K)" },
	{ OPT_FLUSH, "flush", "DURATION", "max time a record stays staged per CPU (default 50ms)" },
	{ OPT_NO_STAGE, "no-stage", NULL, "one ring buffer record per event (slower; to compare)" },
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
	.footer = "Events: switch waking wakeup wakeup_new migrate fork exec exit free softirq ipi\n"
		  "frequency idle cpuhp scx; groups: sched process cpu all.\n"
		  "Example: scx-events -d 5 -e sched -o trace.ndjson.zst -z zstd\n",
};

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

struct run {
	struct scx_writer *w;
	uint64_t counts[SCX_EV__COUNT];
	uint64_t written;
	bool pipe_closed;
};

static int on_event(void *ctx, const struct scx_event *e)
{
	struct run *r = ctx;
	int err;

	if (r->pipe_closed)
		return -EPIPE;
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

static void fill_header(struct scx_header *h, struct scx_capture *c)
{
	struct scx_buf b = { 0 };
	struct utsname u;

	memset(h, 0, sizeof(*h));
	h->version = SCX_WIRE_VERSION;
	snprintf(h->producer, sizeof(h->producer), "scx-events");
	snprintf(h->clock, sizeof(h->clock), "boottime");
	gethostname(h->hostname, sizeof(h->hostname) - 1);
	if (!uname(&u))
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
	h->nr_cpus = scx_capture__nr_cpus(c);
	h->topo = scx_topo__from_sysfs("/sys");
	if (!h->topo)
		scx_warn("note: cannot read the CPU topology from sysfs: %s", strerror(errno));
	read_scheduler(h->scheduler, sizeof(h->scheduler));
	scx_capture__options_json(c, &b);
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
		return;		/* the kernel will say what it can */
	for (int cpu = 0; cpu < SCX_MAX_CPUS; cpu++) {
		if (!(mask[cpu / 8] & (1u << (cpu % 8))) || scx_topo__cpu(t, cpu))
			continue;
		scx_usage_error(&cmd, "invalid cpu list '%s': cpu %d is not a possible cpu here "
				"(0-%d)", arg, cpu, t->max_cpu);
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

static uint64_t stop_deadline;	/* -d, monotonic ns; 0: none */

/* A stop asked for, by a signal or by -d. */
static bool stopping(void)
{
	return stop_sig || (stop_deadline && scx_now_mono_ns() >= stop_deadline);
}

/*
 * A reader that opened the pipe or FIFO and then stopped reading would block
 * write() beyond the reach of -d and of signals (they restart it).  The
 * output is made non-blocking: scx_write_all() waits for room until a stop
 * is asked for, gives the reader a grace, then fails with -ETIMEDOUT.
 */
static void output_interruptible(int fd)
{
	struct stat st;
	int fl;

	if (fstat(fd, &st) || !S_ISFIFO(st.st_mode) || (fl = fcntl(fd, F_GETFL)) < 0)
		return;
	if (!fcntl(fd, F_SETFL, fl | O_NONBLOCK))
		scx_write_set_stop(stopping);
}

static int32_t parse_id(const char *name, const char *arg)
{
	int64_t v;

	if (scx_parse_i64(arg, &v) || v <= 0 || v > INT32_MAX)
		scx_usage_error(&cmd, "invalid %s '%s'", name, arg);
	return v;
}

int main(int argc, char **argv)
{
	static uint8_t cpus[EV_CPU_BYTES];
	struct scx_capture_opts co = { 0 };
	struct scx_writer_opts wo = { 0 };
	const char *out = NULL, *arg;
	uint64_t dur_ns = 0, deadline = 0, v;
	struct scx_trailer tr = { 0 };
	struct scx_header h;
	struct scx_capture *c;
	struct run r = { 0 };
	int opt, err = 0, out_fd, file_fd = -1;
	char msg[512];

	scx_set_prog(argv[0]);
	while ((opt = scx_getopt(&cmd, argc, argv, &arg)) != -1) {
		switch (opt) {
		case 'd':
			if (scx_parse_duration(arg, &dur_ns) || !dur_ns)
				scx_usage_error(&cmd, "invalid duration '%s'", arg);
			break;
		case 'e':
			if (scx_capture_parse_events(arg, &co.events))
				scx_usage_error(&cmd, "invalid event list '%s' (known: %s)", arg,
						SCX_CAP_EVENT_WORDS);
			break;
		case 'p':
			co.pid = parse_id("pid", arg);
			break;
		case 'T':
			co.tgid = parse_id("tgid", arg);
			break;
		case 'C':
			memset(cpus, 0, sizeof(cpus));
			if (scx_parse_cpulist(arg, cpus, EV_CPU_BYTES * 8))
				scx_usage_error(&cmd, "invalid cpu list '%s'", arg);
			check_cpus(cpus, arg);
			co.cpus = cpus;
			co.nr_cpu_bits = EV_CPU_BYTES * 8;
			break;
		case 'c':
			if (!*arg || strlen(arg) > 15)
				scx_usage_error(&cmd, "invalid comm '%s' (1 to 15 bytes)", arg);
			co.comm = arg;
			break;
		case 's':
			if (scx_parse_u64(arg, &v) || v == 0 || v > UINT32_MAX)
				scx_usage_error(&cmd, "invalid sample rate '%s'", arg);
			co.sample = v;
			break;
		case 'f':
			if (scx_format_parse(arg, &wo.format))
				scx_usage_error(&cmd, "unknown format '%s'", arg);
			break;
		case 'z':
			if (scx_compress_parse(arg, &wo.compress))
				scx_usage_error(&cmd, "unknown compression '%s'", arg);
			break;
		case 'o':
			out = arg;
			break;
		case 'm':
			co.ring_size = parse_size_opt("ring size", arg);
			/* the map's size is 32 bits, and the kernel wants a power of two */
			if (co.ring_size & (co.ring_size - 1) || co.ring_size < 4096 ||
			    co.ring_size > (2ull << 30))
				scx_usage_error(&cmd, "invalid ring size '%s': a power of two from "
						"4K to 2G", arg);
			break;
		case OPT_WAKEUP:
			co.wakeup_bytes = parse_size_opt("wakeup size", arg);
			break;
		case OPT_FLUSH:
			if (scx_parse_duration(arg, &co.flush_ns) || !co.flush_ns)
				scx_usage_error(&cmd, "invalid flush interval '%s'", arg);
			break;
		case OPT_NO_STAGE:
			co.no_stage = true;
			break;
		case 'v':
			scx_verbose++;
			break;
		}
	}
	if (optind < argc)
		scx_usage_error(&cmd, "unexpected argument '%s'", argv[optind]);

	/*
	 * Before loading, so a signal during the load is not lost (a background
	 * job of a non-interactive shell starts with SIGINT ignored); a closed
	 * pipe must come back as EPIPE from write(), not kill us.
	 */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);	/* a closed terminal: stop with a trailer too */
	if (out && strcmp(out, "-")) {
		file_fd = open_output(out, dur_ns ? scx_now_mono_ns() + dur_ns : 0);
		if (file_fd == -EINTR)
			scx_die(SCX_EXIT_FAIL, "stopped before a reader opened '%s'", out);
		if (file_fd < 0)
			scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", out, strerror(-file_fd));
	}
	c = scx_capture__open(&co, on_event, &r, msg, sizeof(msg));
	if (!c)
		scx_die(SCX_EXIT_FAIL, "%s", msg);

	r.w = scx_writer__fdopen(file_fd >= 0 ? file_fd : STDOUT_FILENO, &wo);
	if (!r.w) {
		err = errno;
		scx_capture__free(c);
		scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", out ? out : "-", strerror(err));
	}
	out_fd = file_fd >= 0 ? -1 : STDOUT_FILENO;
	output_interruptible(file_fd >= 0 ? file_fd : STDOUT_FILENO);
	fill_header(&h, c);
	err = scx_writer__header(r.w, &h);
	/* readers learn at once that the capture is running */
	if (!err)
		err = scx_writer__flush(r.w);
	scx_header_free(&h);
	if (dur_ns)
		stop_deadline = deadline = scx_now_mono_ns() + dur_ns;
	scx_debug(2, "capturing, events 0x%x", scx_capture__events(c));

	while (!err && !stop_sig && (!deadline || scx_now_mono_ns() < deadline)) {
		int n = scx_capture__poll(c, POLL_MS);

		if (n < 0) {
			err = n;
			break;
		}
		/* flush what this round produced, so readers downstream see it live */
		if (n > 0)
			err = scx_writer__flush(r.w);
		else if (output_closed(out_fd))
			err = -EPIPE;
	}
	if (err == -EPIPE || r.pipe_closed) {
		/* the reader went away: a normal stop for a producer */
		scx_capture__stop(c);
		scx_capture__free(c);
		scx_writer__close(r.w);
		return SCX_EXIT_OK;
	}
	if (!err)
		err = scx_capture__stop(c);
	if (err == -EPIPE || r.pipe_closed) {
		scx_capture__free(c);
		scx_writer__close(r.w);
		return SCX_EXIT_OK;
	}

	memcpy(tr.counts, r.counts, sizeof(tr.counts));
	tr.nr_cpus = scx_capture__nr_cpus(c);
	tr.lost = scx_xcalloc(tr.nr_cpus, sizeof(uint64_t));
	memcpy(tr.lost, scx_capture__lost(c), tr.nr_cpus * sizeof(uint64_t));
	tr.lost_total = scx_capture__lost_total(c);
	tr.end_ns = scx_now_boot_ns();
	if (tr.lost_total)
		scx_warn("%llu events lost: the ring buffer was full (try a larger --ring-size)",
			 (unsigned long long)tr.lost_total);
	scx_debug(1, "%llu events written, %llu lost", (unsigned long long)r.written,
		  (unsigned long long)tr.lost_total);
	if (!err)
		err = scx_writer__trailer(r.w, &tr);
	scx_trailer_free(&tr);
	scx_capture__free(c);
	{
		int cerr = scx_writer__close(r.w);

		if (!err)
			err = cerr;
	}
	if (err == -EPIPE)
		return SCX_EXIT_OK;
	if (err == -ETIMEDOUT)
		scx_die(SCX_EXIT_FAIL, "the reader of '%s' stopped reading: gave up %d ms after the stop "
			"(%llu events written)", out ? out : "-", SCX_WRITE_GRACE_MS,
			(unsigned long long)r.written);
	if (err)
		scx_die(SCX_EXIT_FAIL, "cannot write '%s': %s", out ? out : "-", strerror(-err));
	return SCX_EXIT_OK;
}
