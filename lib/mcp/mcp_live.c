// SPDX-License-Identifier: GPL-2.0
/*
 * Live capture for scx-mcp: an scx-events child writes its stream into a
 * pipe, a reader thread decodes it (lib/stream), keeps the newest events in
 * a ring for events://stream and feeds a 1-second aggregation for stats://
 * and the live tools.  The main loop is woken through a pipe and sends
 * notifications/resources/updated at most once per update interval.
 *
 * Memory is bounded: the ring has a fixed size and the engine drops
 * per-interval tables at every interval.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mcp/mcp_live.h"
#include "mcp/mcp_tools.h"
#include "stream/lost.h"
#include "stream/stream.h"
#include "agg/agg.h"
#include "agg/table.h"

extern char **environ;

#define NR_GROUPS 7
#define NR_REPORTS 4
#define GROUP_ROWS 200
#define LIVE_INTERVAL_NS 1000000000ull /* the live statistics interval */
static const char *const group_names[NR_GROUPS] = { "cpu",     "llc",	 "node",  "dsq",
						    "process", "thread", "cgroup" };
static const char *const report_names[NR_REPORTS] = {
	"wakeup-graph",
	"softirq",
	"cgroup-latency",
	"cgroup-preemptions",
};

struct live_group {
	struct scx_buf rows; /* rendered rows, back to back */
	uint32_t off[GROUP_ROWS + 1];
	unsigned n, total;
};

struct mcp_live {
	pid_t child;
	int fd;	     /* read end of the child's stdout */
	int wake[2]; /* reader thread -> main loop */
	pthread_t thr;
	bool thr_started;
	struct scx_reader *rd; /* the reader thread's; freed by it, even when cancelled */
	pthread_mutex_t mu;

	/* under mu */
	struct scx_event *ring;
	unsigned cap, head;		/* head: next slot */
	uint64_t total, lost, seq;	/* lost: LOST records and the kernel's skipped runs */
	uint64_t missed;		/* "missed" records' counts, in lost */
	uint64_t last_ts, last_arrival; /* newest event time, and when (boottime) it came */
	bool ended;
	char err[256];
	char producer[48];
	struct scx_agg *agg;
	/* the last closed interval, rendered inside emit(): the engine's own
	 * snapshot is gone at the next event */
	bool have_snap;
	uint64_t snap_seq, snap_start, snap_end, snap_events, snap_lost, snap_tasks_dropped;
	struct scx_stats snap_scx; /* sched_ext's counters in that interval; ts 0: none */
	struct live_group grp[NR_GROUPS];
	struct scx_table *rep[NR_REPORTS];
	atomic_bool signalled;

	/* main thread only */
	uint64_t notified_total, notified_seq, last_notify_ms, started_ms;
	char argdesc[512];
	int exit_status;
	bool reaped;
	uint64_t stop_at_ms, kill_at_ms; /* mcp_live_stop_after(); 0: none */
	bool stop_asked;		 /* stopped, killed or past its deadline */
	bool killed;			 /* mcp_live_kill(): it is going, replace it */
};

static void write_group(struct scx_jw *w, const struct scx_agg_snap *snap,
			const struct scx_agg_group *g);
static int cmp_busy(const void *a, const void *b);

static const int group_by[NR_GROUPS] = {
	SCX_AGG_CPU,  SCX_AGG_LLC, SCX_AGG_NODE,   SCX_AGG_DSQ,
	SCX_AGG_TGID, SCX_AGG_PID, SCX_AGG_CGROUP,
};

static int on_snap(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	struct mcp_live *l = ctx;

	/* runs in the reader thread with l->mu held */
	l->seq = s->seq + 1;
	l->have_snap = true;
	l->snap_seq = s->seq;
	l->snap_start = s->start_ns;
	l->snap_end = s->end_ns;
	l->snap_events = s->events;
	l->snap_lost = s->lost;
	l->snap_tasks_dropped = s->tasks_dropped; /* past the engine's task limit */
	l->snap_scx = s->scx;
	for (unsigned k = 0; k < NR_GROUPS; k++) {
		struct live_group *g = &l->grp[k];
		int by = group_by[k];
		unsigned n = s->nr[by];
		const struct scx_agg_group **sorted = scx_xcalloc(n + 1, sizeof(*sorted));
		struct scx_jw w;

		for (unsigned i = 0; i < n; i++)
			sorted[i] = &s->groups[by][i];
		if (by == SCX_AGG_PID || by == SCX_AGG_TGID)
			qsort(sorted, n, sizeof(*sorted), cmp_busy);
		scx_buf_reset(&g->rows);
		g->n = 0;
		g->total = n;
		for (unsigned i = 0; i < n && i < GROUP_ROWS; i++) {
			g->off[g->n++] = (uint32_t)g->rows.len;
			scx_jw_init(&w, &g->rows);
			write_group(&w, s, sorted[i]);
		}
		g->off[g->n] = (uint32_t)g->rows.len;
		free(sorted);
	}
	for (unsigned i = 0; i < NR_REPORTS; i++) {
		struct scx_table *list = NULL;

		if (scx_agg__report(a, report_names[i], &list))
			continue;
		scx_table_free(l->rep[i]);
		l->rep[i] = list;
	}
	return 0;
}

static void poke(struct mcp_live *l)
{
	if (!atomic_exchange(&l->signalled, true)) {
		ssize_t r = write(l->wake[1], "x", 1);

		(void)r;
	}
}

static void reader_cancelled(void *arg)
{
	struct mcp_live *l = arg;

	pthread_mutex_lock(&l->mu);
	snprintf(l->err, sizeof(l->err), "the producer's pipe stayed open after it was stopped");
	l->ended = true;
	pthread_mutex_unlock(&l->mu);
	scx_reader__free(l->rd);
	l->rd = NULL;
}

/* Events into the ring and the aggregation until the stream ends. */
static int read_events(struct mcp_live *l, struct scx_reader *r)
{
	struct scx_event e;
	uint64_t n = 0;
	int rc, old;

	for (;;) {
		/* cancelled (join_reader) only while waiting for the producer */
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
		rc = r ? scx_reader__next(r, &e) : SCX_READ_ERROR;
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
		if (rc == SCX_READ_END || rc == SCX_READ_ERROR)
			return rc;
		if (rc == SCX_READ_OTHER && scx_reader__doc(r) &&
		    scx_stats_is(scx_reader__doc(r))) {
			struct scx_stats st;
			char err[256];

			/* sched_ext's counters: into the interval open */
			if (scx_stats_from_json(scx_reader__doc(r), &st, err, sizeof(err)))
				continue; /* scx-events wrote it: cannot happen */
			pthread_mutex_lock(&l->mu);
			if (l->agg)
				scx_agg__note_scx_stats(l->agg, &st);
			pthread_mutex_unlock(&l->mu);
			continue;
		}
		if (rc == SCX_READ_OTHER && scx_reader__doc(r)) {
			char path[SCX_CGROUP_PATH_MAX], err[256];
			uint64_t id, missed;

			/* program runs the kernel skipped: lost on no known CPU */
			if (scx_missed_record(scx_reader__doc(r), &missed, err, sizeof(err)) == 1) {
				pthread_mutex_lock(&l->mu);
				l->lost += missed;
				l->missed += missed;
				if (l->agg)
					scx_agg__note_lost(l->agg, -1, missed);
				pthread_mutex_unlock(&l->mu);
				continue;
			}

			/* scx-events names each cgroup id once, before its first use */
			if (scx_cgroup_rec_parse(scx_reader__doc(r), &id, path, sizeof(path), err,
						 sizeof(err)) == 1) {
				pthread_mutex_lock(&l->mu);
				if (l->agg)
					scx_agg__cgroup_name(l->agg, id, path);
				pthread_mutex_unlock(&l->mu);
			}
			continue;
		}
		if (rc != SCX_READ_EVENT)
			continue;
		pthread_mutex_lock(&l->mu);
		if (!l->producer[0] && scx_reader__header(r))
			snprintf(l->producer, sizeof(l->producer), "%s",
				 scx_reader__header(r)->producer);
		l->ring[l->head] = e;
		l->head = (l->head + 1) % l->cap;
		l->total++;
		if (e.ts > l->last_ts) {
			l->last_ts = e.ts;
			l->last_arrival = scx_now_boot_ns();
		}
		if (e.type == SCX_EV_LOST)
			l->lost += e.lost.count;
		if (l->agg)
			scx_agg__add(l->agg, &e);
		pthread_mutex_unlock(&l->mu);
		if (!(++n & 255))
			poke(l);
	}
}

static void *reader_main(void *arg)
{
	struct mcp_live *l = arg;
	struct scx_reader *r;
	int rc, old;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	r = l->rd = scx_reader__fdopen(l->fd, "scx-events");
	pthread_cleanup_push(reader_cancelled, l);
	rc = read_events(l, r);
	pthread_cleanup_pop(0);
	pthread_mutex_lock(&l->mu);
	if (rc == SCX_READ_ERROR)
		snprintf(l->err, sizeof(l->err), "%s", r ? scx_reader__error(r) : strerror(errno));
	if (r && scx_reader__trailer(r)) {
		/* what only the trailer counts is lost too (stream/lost.h) */
		const struct scx_trailer *tr = scx_reader__trailer(r);

		l->lost = SCX_MAX(l->lost - l->missed, tr->lost_total) +
			  SCX_MAX(l->missed, tr->missed);
	}
	l->ended = true;
	pthread_mutex_unlock(&l->mu);
	scx_reader__free(r);
	l->rd = NULL;
	poke(l);
	return NULL;
}

/* The scx-events binary: --events-cmd, else next to our own binary, else $PATH. */
static void events_path(struct mcp_server *s, char *out, size_t size)
{
	char self[PATH_MAX - 16];
	ssize_t n;

	if (s->o.events_cmd) {
		snprintf(out, size, "%s", s->o.events_cmd);
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		char *slash;

		self[n] = 0;
		slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			snprintf(out, size, "%s/scx-events", self);
			if (!access(out, X_OK))
				return;
		}
	}
	snprintf(out, size, "scx-events");
}

static void reap(struct mcp_live *l, int wait_ms)
{
	int st;

	if (l->reaped || l->child <= 0)
		return;
	for (int i = 0; i <= wait_ms / 10; i++) {
		pid_t r = waitpid(l->child, &st, WNOHANG);

		if (r == l->child) {
			l->exit_status = st;
			l->reaped = true;
			return;
		}
		if (r < 0)
			break;
		if (i < wait_ms / 10)
			usleep(10000);
	}
	if (wait_ms) {
		kill(-l->child, SIGKILL);
		kill(l->child, SIGKILL);
		if (waitpid(l->child, &st, 0) == l->child)
			l->exit_status = st;
		l->reaped = true;
	}
}

/*
 * Stop the child and everything it started: --events-cmd may be a wrapper
 * that does not exec, and its scx-events holds the pipe the reader thread
 * waits on.  The child leads its own process group, so the group gets
 * SIGINT (scx-events ends cleanly on it: detaches, writes its trailer), then
 * SIGKILL after a bounded wait; so does whatever the group left behind.
 */
static void stop_child(struct mcp_live *l)
{
	if (l->child <= 0 || l->reaped)
		return;
	if (kill(-l->child, SIGINT))
		kill(l->child, SIGINT);
	reap(l, 2000);
	kill(-l->child, SIGKILL);
}

/*
 * The reader sees EOF once every writer of the pipe is gone.  A process
 * that left the group (setsid) may keep it open: after a bounded wait the
 * reader is cancelled (it allows that only while blocked in a read).
 */
static void join_reader(struct mcp_live *l)
{
	struct timespec ts;

	if (!l->thr_started)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 2;
	if (pthread_timedjoin_np(l->thr, NULL, &ts)) {
		pthread_cancel(l->thr);
		pthread_join(l->thr, NULL);
	}
	l->thr_started = false;
}

/*
 * No one will read the trailer of a capture being thrown away, so it gets
 * no SIGINT and no grace period: SIGKILL to the group, and the kernel
 * detaches the BPF links as the producer's file descriptors close.  When
 * the server is leaving (its client closed stdin) it does not even wait for
 * that: under load, a producer still loading its BPF programs takes seconds
 * of CPU to die, which held the exit well past what a client waits; init
 * reaps it, and the reader thread (blocked on the pipe that child holds
 * open) goes with the process, which is exiting: it is not cancelled, as
 * a cancelled thread's unwind trips the sanitizers, and what it uses is
 * left to it.  A capture stopped while the server stays is joined.
 */
static void live_destroy(struct mcp_live *l, bool reap_child)
{
	int st;

	if (!l)
		return;
	if (l->child > 0 && !l->reaped) {
		kill(-l->child, SIGKILL);
		kill(l->child, SIGKILL);
		if (reap_child && waitpid(l->child, &st, 0) == l->child)
			l->exit_status = st;
		l->reaped = true;
	}
	if (l->thr_started && !reap_child) {
		pthread_detach(l->thr);
		return;
	}
	join_reader(l);
	if (l->fd >= 0)
		close(l->fd);
	close(l->wake[0]);
	close(l->wake[1]);
	scx_agg__free(l->agg);
	for (unsigned i = 0; i < NR_GROUPS; i++)
		scx_buf_free(&l->grp[i].rows);
	for (unsigned i = 0; i < NR_REPORTS; i++)
		scx_table_free(l->rep[i]);
	pthread_mutex_destroy(&l->mu);
	free(l->ring);
	free(l);
}

/* The server is going away: see live_destroy(). */
void mcp_live_free(struct mcp_server *s)
{
	live_destroy(s->live, false);
	s->live = NULL;
}

/*
 * The producer starts with every signal at its default and none blocked, as
 * a process started from a login shell would: an ignored disposition
 * survives exec, and scx-mcp ignores SIGPIPE (its client may be gone; so do
 * node-based clients, which pass that on to scx-mcp).  A producer left with
 * SIGPIPE ignored outlives a SIGKILLed scx-mcp, writing into a pipe no one
 * reads, for ever; one left with SIGINT or SIGTERM ignored (a shell cannot
 * trap a signal ignored on entry) does not stop when asked; one with SIGCHLD
 * ignored cannot wait for its own children.
 */
static void producer_signals(posix_spawnattr_t *sa)
{
	sigset_t all, none;

	sigfillset(&all);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(sa, &all);
	posix_spawnattr_setsigmask(sa, &none);
}

int mcp_live_start(struct mcp_server *s, char *const *args, const char *desc, char *err,
		   size_t errsz)
{
	struct mcp_live *l;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t sa;
	char path[PATH_MAX];
	char *argv[40];
	int p[2], r, n = 0;

	/* a killed capture (a cancelled task) may not have reached EOF yet:
	   it is replaced, not "still running" */
	if (s->live && !s->live->ended && !s->live->killed)
		return -EBUSY;
	live_destroy(s->live, true);
	s->live = NULL;
	events_path(s, path, sizeof(path));
	argv[n++] = path;
	for (; args[n - 1] && n < 38; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	l = scx_xcalloc(1, sizeof(*l));
	l->fd = p[0];
	l->cap = s->o.ring_events;
	l->ring = scx_xcalloc(l->cap, sizeof(*l->ring));
	pthread_mutex_init(&l->mu, NULL);
	if (pipe2(l->wake, O_CLOEXEC | O_NONBLOCK)) {
		r = -errno;
		close(p[1]);
		l->wake[0] = l->wake[1] = -1;
		live_destroy(l, true);
		return r;
	}
	posix_spawn_file_actions_init(&fa);
	/* stdout of the child is our pipe, never our own stdout (the protocol) */
	posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	/* its own process group, so stop_child() reaches what a wrapper starts */
	posix_spawnattr_init(&sa);
	posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
					      POSIX_SPAWN_SETSIGMASK);
	posix_spawnattr_setpgroup(&sa, 0);
	producer_signals(&sa);
	r = strchr(path, '/') ? posix_spawn(&l->child, path, &fa, &sa, argv, environ) :
				posix_spawnp(&l->child, path, &fa, &sa, argv, environ);
	posix_spawnattr_destroy(&sa);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (r) {
		snprintf(err, errsz, "cannot run %s: %s", path, strerror(r));
		l->child = 0;
		live_destroy(l, true);
		return -r;
	}
	{
		struct scx_agg_opts o = {
			.interval_ns = LIVE_INTERVAL_NS,
			.by = (1u << SCX_AGG_BY__COUNT) - 1,
			.limit = 200,
			.emit = on_snap,
			.ctx = l,
		};
		struct scx_topo *t = scx_topo__from_sysfs("/sys");

		l->agg = scx_agg__new(t, &o);
		scx_topo__free(t);
	}
	snprintf(l->argdesc, sizeof(l->argdesc), "%s", desc);
	l->started_ms = scx_now_mono_ns() / 1000000;
	if (pthread_create(&l->thr, NULL, reader_main, l)) {
		r = -errno;
		live_destroy(l, true);
		return r;
	}
	l->thr_started = true;
	s->live = l;
	return 0;
}

int mcp_live_stop(struct mcp_server *s)
{
	struct mcp_live *l = s->live;

	if (!l || l->reaped)
		return -ESRCH;
	l->stop_asked = true;
	stop_child(l);
	join_reader(l);
	return 0;
}

int mcp_live_fd(struct mcp_server *s)
{
	return s->live && !s->live->reaped ? s->live->wake[0] : -1;
}

/* The stream ended: reap the child if it is gone (never waits), say so once. */
static void settle(struct mcp_server *s, struct mcp_live *l)
{
	if (l->reaped)
		return;
	reap(l, 0);
	if (l->reaped)
		mcp_log(s, MCP_NOTICE, "live capture ended (%s)",
			l->err[0] ? l->err : "scx-events exited");
}

/* A deadline set by mcp_live_stop_after(): SIGINT, then SIGKILL. */
static void deadline(struct mcp_live *l, uint64_t now_ms)
{
	if (l->reaped || l->child <= 0)
		return;
	if (l->stop_at_ms && now_ms >= l->stop_at_ms) {
		l->stop_at_ms = 0;
		l->stop_asked = true;
		if (kill(-l->child, SIGINT))
			kill(l->child, SIGINT);
		l->kill_at_ms = now_ms + 2000;
	}
	if (l->kill_at_ms && now_ms >= l->kill_at_ms) {
		l->kill_at_ms = 0;
		kill(-l->child, SIGKILL);
		kill(l->child, SIGKILL);
	}
}

void mcp_live_stop_after(struct mcp_server *s, unsigned secs)
{
	if (s->live && secs)
		s->live->stop_at_ms = s->live->started_ms + secs * 1000ull;
}

int mcp_live_kill(struct mcp_server *s)
{
	struct mcp_live *l = s->live;

	if (!l || l->reaped || l->child <= 0)
		return -ESRCH;
	l->stop_asked = l->killed = true;
	l->stop_at_ms = l->kill_at_ms = 0;
	kill(-l->child, SIGKILL);
	kill(l->child, SIGKILL);
	return 0;
}

int mcp_live_outcome(struct mcp_server *s, const struct mcp_live *l, bool *early)
{
	bool ended;

	if (!l || s->live != l)
		return -ESRCH;
	/* also here: a server driven by mcp_server__handle() has no ticks */
	deadline(s->live, scx_now_mono_ns() / 1000000);
	pthread_mutex_lock(&s->live->mu);
	ended = s->live->ended;
	pthread_mutex_unlock(&s->live->mu);
	if (!ended)
		return -EAGAIN;
	settle(s, s->live);
	*early = !s->live->stop_asked;
	return 0;
}

void mcp_live_tick(struct mcp_server *s, uint64_t now_ms)
{
	struct mcp_live *l = s->live;
	char buf[64];
	uint64_t total, seq, quiet;
	bool ended;

	if (!l)
		return;
	while (read(l->wake[0], buf, sizeof(buf)) > 0)
		;
	atomic_store(&l->signalled, false);
	pthread_mutex_lock(&l->mu);
	/*
	 * Close intervals in which nothing arrived, so stats keep moving; event
	 * time is extrapolated from the newest event, whatever clock the producer
	 * uses.  Only once the producer has been quiet for a whole interval: while
	 * events still come, a loaded machine delivers them late, and closing by
	 * wall time would cut an interval before its last events are in.
	 */
	quiet = scx_now_boot_ns() - l->last_arrival;
	if (l->agg && !l->ended && l->last_ts && quiet >= LIVE_INTERVAL_NS)
		scx_agg__advance(l->agg, l->last_ts + quiet);
	total = l->total;
	seq = l->seq;
	ended = l->ended;
	pthread_mutex_unlock(&l->mu);
	deadline(l, now_ms);
	if (ended)
		settle(s, l);
	if (now_ms - l->last_notify_ms < s->o.update_ms)
		return;
	if (total != l->notified_total) {
		l->notified_total = total;
		l->last_notify_ms = now_ms;
		mcp_updated(s, "events://stream");
	}
	if (seq != l->notified_seq) {
		static const char *const g[] = { "cpu", "llc", "node", "dsq", "process", "thread" };
		char uri[64];

		l->notified_seq = seq;
		l->last_notify_ms = now_ms;
		for (unsigned i = 0; i < SCX_ARRAY_SIZE(g); i++) {
			snprintf(uri, sizeof(uri), "stats://aggregated/%s", g[i]);
			mcp_updated(s, uri);
		}
	}
}

static const struct mcp_out status_out[] = { MCP_LIVE_STATUS_OUT, { "" } };

/* the status' copies are as large as the strings they copy */
#define SAME_SIZE(a, b) \
	_Static_assert(sizeof(((struct mcp_live_status *)0)->a) == \
			       sizeof(((struct mcp_live *)0)->b), \
		       #a " sized as " #b)
SAME_SIZE(capture_buf, argdesc);
SAME_SIZE(producer_buf, producer);
SAME_SIZE(error_buf, err);
#undef SAME_SIZE

static const char *copy_str(char *dst, const char *src, size_t size)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
	return dst;
}

/* st from s->live, whose lock the caller holds */
static void status_locked(struct mcp_server *s, struct mcp_live_status *st)
{
	struct mcp_live *l = s->live;

	st->running = l && !l->reaped && !l->ended;
	st->capture = st->producer = st->error = NULL;
	st->events_total = st->lost_events = st->exit_status = st->running_ms = -1;
	if (!l)
		return;
	st->capture = copy_str(st->capture_buf, l->argdesc, sizeof(l->argdesc));
	st->events_total = (int64_t)l->total;
	st->lost_events = (int64_t)l->lost;
	if (l->producer[0])
		st->producer = copy_str(st->producer_buf, l->producer, sizeof(l->producer));
	if (l->err[0])
		st->error = copy_str(st->error_buf, l->err, sizeof(l->err));
	if (l->reaped && WIFEXITED(l->exit_status))
		st->exit_status = WEXITSTATUS(l->exit_status);
	st->running_ms = (int64_t)(scx_now_mono_ns() / 1000000 - l->started_ms);
}

static void status_fields(struct mcp_server *s, struct scx_jw *w)
{
	struct mcp_live_status st;

	status_locked(s, &st);
	mcp_out_fields(w, status_out, &st);
}

void mcp_live_status_get(struct mcp_server *s, struct mcp_live_status *st)
{
	if (s->live)
		pthread_mutex_lock(&s->live->mu);
	status_locked(s, st);
	if (s->live)
		pthread_mutex_unlock(&s->live->mu);
}

void mcp_live_status(struct mcp_server *s, struct scx_jw *w)
{
	if (s->live)
		pthread_mutex_lock(&s->live->mu);
	status_fields(s, w);
	if (s->live)
		pthread_mutex_unlock(&s->live->mu);
}

int mcp_live_stream(struct mcp_server *s, struct scx_jw *w)
{
	struct mcp_live *l = s->live;
	struct scx_buf tmp = { 0 };
	unsigned n, first;
	size_t start = w->out->len;

	scx_jw_obj_begin(w);
	if (!l) {
		scx_jw_kbool(w, "running", false);
		scx_jw_kstr(w, "hint",
			    "start a capture with control_event_tracking "
			    "{\"action\":\"start\"}, then subscribe to this resource");
		scx_jw_obj_end(w);
		return 0;
	}
	pthread_mutex_lock(&l->mu);
	status_fields(s, w);
	n = (unsigned)SCX_MIN(l->total, (uint64_t)l->cap);
	first = (l->head + l->cap - n) % l->cap;
	/* the newest events that fit ~40 KB (an event is < 200 bytes), oldest first */
	if (n > 200) {
		first = (first + n - 200) % l->cap;
		n = 200;
	}
	scx_jw_kuint(w, "returned", n);
	scx_jw_key(w, "events");
	scx_jw_arr_begin(w);
	for (unsigned i = 0; i < n && w->out->len - start < 48000; i++) {
		scx_buf_reset(&tmp);
		scx_event_to_json(&tmp, &l->ring[(first + i) % l->cap]);
		while (tmp.len && tmp.data[tmp.len - 1] == '\n')
			tmp.len--;
		scx_jw_raw(w, tmp.data, tmp.len);
	}
	scx_jw_arr_end(w);
	pthread_mutex_unlock(&l->mu);
	scx_jw_obj_end(w);
	scx_buf_free(&tmp);
	return 0;
}

static void write_group(struct scx_jw *w, const struct scx_agg_snap *snap,
			const struct scx_agg_group *g)
{
	scx_jw_obj_begin(w);
	scx_agg_group_key_json(w, g);
	for (unsigned i = 0; i < scx_agg_nr_metrics; i++) {
		double v;
		struct scx_dist d;

		if (!scx_agg_metric_get(snap, g, i, &v, &d))
			continue;
		if (scx_agg_metrics[i].kind == SCX_AGG_M_DIST) {
			if (!d.count)
				continue;
			scx_jw_key(w, scx_agg_metrics[i].name);
			scx_jw_obj_begin(w);
			scx_jw_kuint(w, "count", d.count);
			scx_jw_kuint(w, "min", d.min);
			scx_jw_knum(w, "avg", d.avg);
			scx_jw_kuint(w, "p50", d.p50);
			scx_jw_kuint(w, "p90", d.p90);
			scx_jw_kuint(w, "p99", d.p99);
			scx_jw_kuint(w, "p999", d.p999);
			scx_jw_kuint(w, "max", d.max);
			scx_jw_obj_end(w);
		} else {
			scx_jw_knum(w, scx_agg_metrics[i].name, v);
		}
	}
	scx_jw_obj_end(w);
}

static int cmp_busy(const void *a, const void *b)
{
	const struct scx_agg_group *x = *(const struct scx_agg_group *const *)a;
	const struct scx_agg_group *y = *(const struct scx_agg_group *const *)b;

	return x->s->busy_ns < y->s->busy_ns ? 1 : x->s->busy_ns > y->s->busy_ns ? -1 : 0;
}

void mcp_stats_none(struct mcp_stats_rec *r)
{
	/* field by field: the status' string copies need no zeroing */
	r->st.running = -1;
	r->st.capture = r->st.producer = r->st.error = NULL;
	r->st.events_total = r->st.lost_events = r->st.exit_status = r->st.running_ms = -1;
	r->group = r->hint = NULL;
	r->available = -1;
	r->interval_seq = r->start_ns = r->end_ns = r->events = r->lost = r->tasks_dropped = -1;
	r->rows = NULL;
	r->total_rows = -1;
	r->omitted_rows = 0;
	r->sched_ext_interval = NULL;
	r->cpu = r->memory = NULL;
}

/* a group's rows to write, and where to say how many did not fit */
struct live_rows {
	const struct live_group *g;
	unsigned limit;
	uint64_t *omitted;
};

void mcp_live_rows(struct scx_jw *w, const void *rows)
{
	const struct live_rows *r = rows;
	const struct live_group *g = r->g;
	unsigned shown;

	scx_jw_arr_begin(w);
	for (shown = 0; shown < g->n && shown < r->limit && w->out->len < 40000; shown++)
		scx_jw_raw(w, g->rows.data + g->off[shown], g->off[shown + 1] - g->off[shown]);
	scx_jw_arr_end(w);
	if (shown < g->total)
		*r->omitted = g->total - shown;
}

void mcp_live_scx_stats(struct mcp_server *s, struct scx_jw *w)
{
	struct mcp_live *l = s->live;
	struct mcp_stats_rec rec;

	if (!l || !l->agg)
		return;
	mcp_stats_none(&rec);
	pthread_mutex_lock(&l->mu);
	if (l->have_snap && l->snap_scx.ts)
		rec.sched_ext_interval = &l->snap_scx;
	mcp_out_fields(w, mcp_out_stats, &rec);
	pthread_mutex_unlock(&l->mu);
}

int mcp_live_stats(struct mcp_server *s, const char *group, struct scx_jw *w, unsigned limit)
{
	struct mcp_live *l = s->live;
	struct mcp_stats_rec rec;
	struct live_rows rows = { .limit = limit, .omitted = &rec.omitted_rows };
	unsigned k = 0;

	while (k < NR_GROUPS - 1 && strcmp(group, group_names[k]))
		k++;
	mcp_stats_none(&rec);
	rec.group = group;
	rec.available = false;
	if (!l || !l->agg) {
		rec.hint = "no live capture: run control_event_tracking "
			   "{\"action\":\"start\"} and read again after a second";
		mcp_out_write(w, mcp_out_stats, &rec);
		return 0;
	}
	pthread_mutex_lock(&l->mu);
	status_locked(s, &rec.st);
	if (!l->have_snap) {
		rec.hint = "the first 1 s interval has not closed yet; read again";
	} else {
		rows.g = &l->grp[k];
		rec.available = true;
		rec.interval_seq = (int64_t)l->snap_seq;
		rec.start_ns = (int64_t)l->snap_start;
		rec.end_ns = (int64_t)l->snap_end;
		rec.events = (int64_t)l->snap_events;
		rec.lost = (int64_t)l->snap_lost;
		rec.tasks_dropped = (int64_t)l->snap_tasks_dropped;
		rec.rows = &rows;
		rec.total_rows = rows.g->total;
	}
	mcp_out_write(w, mcp_out_stats, &rec);
	pthread_mutex_unlock(&l->mu);
	return 0;
}

int mcp_live_report(struct mcp_server *s, const char *name, unsigned limit, struct scx_buf *out)
{
	struct mcp_live *l = s->live;
	struct scx_report_ctx rc = { 0 };
	struct scx_table *list;
	unsigned i = 0;

	if (!l || !l->agg)
		return -ESRCH;
	while (i < NR_REPORTS && strcmp(report_names[i], name))
		i++;
	if (i == NR_REPORTS)
		return -ENOENT;
	pthread_mutex_lock(&l->mu);
	list = l->rep[i];
	if (!list) {
		pthread_mutex_unlock(&l->mu);
		return -EAGAIN;
	}
	rc.seq = l->snap_seq;
	rc.start_ns = l->snap_start;
	rc.end_ns = l->snap_end;
	/* show the first rows without giving up the others: the tables are kept */
	unsigned nt = 0, saved_rows[32];
	uint64_t saved_omit[32];

	for (struct scx_table *t = list; t && nt < 32; t = t->next, nt++) {
		saved_rows[nt] = t->nrows;
		saved_omit[nt] = t->omitted;
		if (t->nrows > limit) {
			t->omitted += t->nrows - limit;
			t->nrows = limit;
		}
	}
	scx_report_json(out, list, &rc);
	nt = 0;
	for (struct scx_table *t = list; t && nt < 32; t = t->next, nt++) {
		t->nrows = saved_rows[nt];
		t->omitted = saved_omit[nt];
	}
	pthread_mutex_unlock(&l->mu);
	while (out->len && out->data[out->len - 1] == '\n')
		out->len--;
	return 0;
}
