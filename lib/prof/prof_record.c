// SPDX-License-Identifier: GPL-2.0
/*
 * record: perf mem record system-wide for a while, the hint recorder beside
 * it, optionally perf script, then DIR.tar.gz.  perf runs in its own process
 * group (a terminal ^C reaches only us, and we decide what perf gets) and
 * dies with us (PDEATHSIG).  Its stderr is relayed and its tail kept, so a
 * failure is reported with perf's own words.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prof/prof.h"

const char *prof_perf_binary(void)
{
	const char *p = getenv("SCX_PROF_PERF");

	if (!p || !*p)
		p = getenv("SCXPROF_PERF");
	return p && *p ? p : "perf";
}

int prof_record_argv(const struct prof_record_opts *o, const char **argv, size_t max)
{
	static char ldlat[16], data[4096];
	size_t n = 0;

	if (max < 16)
		return -ENOSPC;
	snprintf(ldlat, sizeof(ldlat), "%u", o->ldlat);
	snprintf(data, sizeof(data), "%s/perf.data", o->out);
	argv[n++] = o->perf;
	argv[n++] = "mem";
	argv[n++] = "record";
	argv[n++] = "--all-cgroups";
	argv[n++] = "--phys-data";
	argv[n++] = "--data-page-size";
	argv[n++] = "--ldlat";
	argv[n++] = ldlat;
	if (o->hints_map) {
		/* hint timestamps are CLOCK_MONOTONIC; samples must be too to be joined */
		argv[n++] = "-k";
		argv[n++] = "CLOCK_MONOTONIC";
	}
	argv[n++] = "-o";
	argv[n++] = data;
	argv[n] = NULL;
	return (int)n;
}

/* after -t, how long perf may take to stop on SIGINT before SIGKILL */
#define STOP_GRACE_NS (30 * 1000000000ULL)
/* a perf that never opens its output is stopped after this anyway */
#define START_GRACE_NS (30 * 1000000000ULL)

struct child {
	pid_t pid;
	int err_fd;	     /* its stderr, or -1 once closed */
	struct scx_buf tail; /* what it said on stderr */
	bool relay;
	int status;
	bool exited;
};

static int spawn(struct child *c, const char *const *argv, int out_fd, bool relay)
{
	int p[2];

	memset(c, 0, sizeof(*c));
	c->relay = relay;
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	c->pid = fork();
	if (c->pid < 0) {
		int e = -errno;

		close(p[0]);
		close(p[1]);
		return e;
	}
	if (!c->pid) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		dup2(p[1], STDERR_FILENO);
		if (out_fd >= 0)
			dup2(out_fd, STDOUT_FILENO);
		execvp(argv[0], (char *const *)argv);
		dprintf(STDERR_FILENO, "cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	c->err_fd = p[0];
	fcntl(c->err_fd, F_SETFL, fcntl(c->err_fd, F_GETFL) | O_NONBLOCK);
	return 0;
}

/* Read what the child said; false when there is nothing more to read now. */
static bool drain(struct child *c)
{
	char buf[4096];
	ssize_t n;

	if (c->err_fd < 0)
		return false;
	n = read(c->err_fd, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return false;
	if (n <= 0) {
		close(c->err_fd);
		c->err_fd = -1;
		return false;
	}
	if (c->relay)
		scx_write_all(STDERR_FILENO, buf, (size_t)n);
	scx_buf_add(&c->tail, buf, (size_t)n);
	if (c->tail.len > 8192) { /* keep the end: that is where perf says why */
		memmove(c->tail.data, c->tail.data + c->tail.len - 4096, 4096);
		c->tail.len = 4096;
	}
	return true;
}

static bool reap(struct child *c, bool block)
{
	if (c->exited)
		return true;
	for (;;) {
		pid_t r = waitpid(c->pid, &c->status, block ? 0 : WNOHANG);

		if (r == c->pid) {
			c->exited = true;
			/*
			 * What it said before exiting; its stderr is non-blocking,
			 * since a descendant may hold it open long after: then the
			 * rest is the descendant's, and not waited for.
			 */
			while (drain(c))
				;
			if (c->err_fd >= 0) {
				close(c->err_fd);
				c->err_fd = -1;
			}
			return true;
		}
		if (r < 0 && errno == EINTR)
			continue;
		return false;
	}
}

/* perf's last non-empty stderr lines, for the error message */
static const char *said(struct child *c)
{
	char *s;

	scx_buf_add(&c->tail, "", 1);
	s = c->tail.data;
	while (*s == '\n' || *s == ' ')
		s++;
	for (size_t n = strlen(s); n && (s[n - 1] == '\n' || s[n - 1] == ' '); n--)
		s[n - 1] = 0;
	for (char *q = s; *q; q++)
		if (*q == '\n')
			*q = ' '; /* one line: "failed: memory events not supported" */
	return *s ? s : "no message";
}

static void status_str(int st, char *buf, size_t n)
{
	if (WIFEXITED(st))
		snprintf(buf, n, "exit %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, n, "killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, n, "status %d", st);
}

/* run to completion with stdout into out_fd; 0 when it exited 0 */
static int run(const char *const *argv, int out_fd, volatile sig_atomic_t *stop, struct child *c)
{
	int err = spawn(c, argv, out_fd, false);

	if (err)
		return err;
	while (!reap(c, false)) {
		struct pollfd pfd = { c->err_fd, POLLIN, 0 };

		if (stop && *stop) {
			kill(c->pid, SIGKILL);
			reap(c, true);
			return -EINTR;
		}
		if (c->err_fd >= 0) {
			if (poll(&pfd, 1, 100) > 0)
				drain(c);
		} else {
			usleep(10000);
		}
	}
	return WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0 ? 0 : -ECHILD;
}

static int write_file_of(const char *dir, const char *name, int *fd)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	*fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	return *fd < 0 ? -errno : 0;
}

static int mkdir_p(const char *path)
{
	char p[4096];
	size_t n = strlen(path);

	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, path, n + 1);
	for (size_t i = 1; i < n; i++) {
		if (p[i] != '/')
			continue;
		p[i] = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		p[i] = '/';
	}
	return mkdir(p, 0755) ? -errno : 0;
}

static int version(const struct prof_record_opts *o)
{
	const char *argv[] = { o->perf, "version", NULL };
	struct child c;
	char st[64];
	int fd, err = write_file_of(o->out, "perf.version", &fd);

	if (err) {
		scx_warn("cannot create '%s/perf.version': %s", o->out, strerror(-err));
		return err;
	}
	err = run(argv, fd, o->stop, &c);
	close(fd);
	if (err == -EINTR) {
		scx_buf_free(&c.tail);
		return err;
	}
	if (err) {
		if (c.pid > 0) {
			status_str(c.status, st, sizeof(st));
			scx_warn("'%s version' failed (%s): %s", o->perf, st, said(&c));
		} else {
			scx_warn("cannot run '%s': %s", o->perf, strerror(-err));
		}
	}
	scx_buf_free(&c.tail);
	return err;
}

int prof_perf_script(const char *perf, const char *data, const char *out,
		     volatile sig_atomic_t *stop, char *err, size_t errsz)
{
	const char *argv[] = { perf, "script", "-F", PROF_SCRIPT_FIELDS, "-i", data, NULL };
	struct child c;
	char st[64];
	int fd, ret;

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errsz, "cannot create '%s': %s", out, strerror(errno));
		return ret;
	}
	ret = run(argv, fd, stop, &c);
	if (close(fd) && !ret) {
		ret = -errno;
		snprintf(err, errsz, "cannot write '%s': %s", out, strerror(errno));
	} else if (ret == -EINTR) {
		snprintf(err, errsz, "interrupted");
	} else if (ret && c.pid > 0) {
		status_str(c.status, st, sizeof(st));
		snprintf(err, errsz, "perf script failed (%s): %s", st, said(&c));
	} else if (ret) {
		snprintf(err, errsz, "cannot run '%s': %s", perf, strerror(-ret));
	}
	if (ret)
		unlink(out);
	scx_buf_free(&c.tail);
	return ret;
}

/*
 * Whether perf has opened its output yet.  The duration counts from then, not
 * from the fork: a loaded machine can take longer than a short -d to start
 * perf, and a SIGINT before perf handles it leaves nothing recorded.
 */
static bool perf_started(const struct prof_record_opts *o)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/perf.data", o->out);
	return !access(path, F_OK);
}

/* perf exited 0 but wrote no perf.data (or an empty one): nothing to archive. */
static bool no_data(const struct prof_record_opts *o)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/perf.data", o->out);
	return stat(path, &st) || !st.st_size;
}

static int perf_script(const struct prof_record_opts *o)
{
	char in[4096], path[4096], err[1024];
	int ret;

	snprintf(in, sizeof(in), "%s/perf.data", o->out);
	snprintf(path, sizeof(path), "%s/perf.script", o->out);
	printf("Generating perf.script...\n");
	fflush(stdout);
	ret = prof_perf_script(o->perf, in, path, o->stop, err, sizeof(err));
	if (ret == -EINTR)
		return ret;
	/* not fatal: process can generate it later, perhaps with a newer perf */
	if (ret)
		scx_warn("warning: failed to generate perf.script: %s", err);
	return 0;
}

static void interrupted_msg(const struct prof_record_opts *o)
{
	scx_warn("interrupted: perf stopped, partial output '%s' removed", o->out);
}

/* One recording: perf, and the hint recorder beside it. */
struct recording {
	const struct prof_record_opts *o;
	struct child perf;
	struct prof_hintrec *hr; /* NULL without --hints-map, or when hints are off */
	int hfd;
	char hpath[4096];
	bool stopping, started;
};

/* Refuse to overwrite, then create the output directory. */
static int record_prepare(const struct prof_record_opts *o, const char *archive)
{
	struct stat sb;
	int err;

	if (!lstat(o->out, &sb)) {
		scx_warn("output directory '%s' already exists", o->out);
		return -EEXIST;
	}
	if (!o->no_archive && !lstat(archive, &sb)) {
		scx_warn("archive '%s' already exists", archive);
		return -EEXIST;
	}
	if ((err = mkdir_p(o->out))) {
		scx_warn("cannot create '%s': %s", o->out, strerror(-err));
		return err;
	}
	return 0;
}

/* The hint recorder, when asked for; a kernel that cannot is a warning, not a failure. */
static int hints_start(struct recording *rc)
{
	const struct prof_record_opts *o = rc->o;
	char herr[512];
	int err;

	if (!o->hints_map)
		return 0;
	snprintf(rc->hpath, sizeof(rc->hpath), "%s/hints.jsonl", o->out);
	if ((err = write_file_of(o->out, "hints.jsonl", &rc->hfd))) {
		scx_warn("cannot create '%s': %s", rc->hpath, strerror(-err));
		return err;
	}
	rc->hr = prof_hintrec__new(o->hints_map, o->hints_ring_mb, rc->hfd, herr, sizeof(herr));
	if (!rc->hr && errno != ENOTSUP) {
		scx_warn("%s", herr);
		return -EINVAL;
	}
	if (!rc->hr) {
		/* a profile without hints is still useful: say so and go on */
		scx_warn("%s; recording without hints", herr);
		close(rc->hfd);
		rc->hfd = -1;
		unlink(rc->hpath);
	} else {
		scx_debug(1, "hints: recording updates of '%s' via %s", o->hints_map,
			  prof_hintrec__how(rc->hr));
	}
	return 0;
}

/*
 * Until perf exits: the duration from perf's start, SIGINT at its end (or at
 * the user's), SIGKILL after a grace; perf's stderr relayed, hints polled.
 */
static int wait_perf(struct recording *rc, bool *interrupted)
{
	const struct prof_record_opts *o = rc->o;
	uint64_t deadline = scx_now_mono_ns() + START_GRACE_NS;
	int err;

	while (!reap(&rc->perf, false)) {
		struct pollfd pfd[2] = {
			{ rc->perf.err_fd, POLLIN, 0 },
			{ rc->hr ? prof_hintrec__fd(rc->hr) : -1, POLLIN, 0 },
		};
		uint64_t now = scx_now_mono_ns();
		/* the hint scan runs every 10 ms, and so does the wait for perf's start */
		int ms = rc->hr || !rc->started ? 10 : 100;

		if (!rc->started && !rc->stopping && !*o->stop && perf_started(o)) {
			rc->started = true;
			deadline = now + o->timeout_ns;
		}
		if (*o->stop) {
			if (!*interrupted) {
				*interrupted = true;
				kill(rc->perf.pid, SIGINT);
				/* perf gets a moment to exit cleanly, then no more */
				deadline = now + 2000000000ULL;
			} else if (now >= deadline) {
				kill(rc->perf.pid, SIGKILL);
			}
		} else if (!rc->stopping && now >= deadline) {
			rc->stopping = true;
			kill(rc->perf.pid, SIGINT);
			/*
			 * perf writes its buffers and build ids after SIGINT, which can
			 * take a while on a big or loaded machine; one that ignores
			 * SIGINT is killed after this grace.
			 */
			deadline = now + STOP_GRACE_NS;
		} else if (rc->stopping && now >= deadline) {
			kill(-rc->perf.pid, SIGKILL); /* its process group: children too */
		}
		if (!rc->stopping && !*interrupted && deadline > now)
			ms = (int)SCX_MIN((deadline - now) / 1000000 + 1, (uint64_t)ms);
		if (poll(pfd, 2, ms) > 0) {
			if (pfd[0].revents)
				drain(&rc->perf);
		}
		if (rc->hr && (err = prof_hintrec__poll(rc->hr, 0))) {
			scx_warn("cannot write '%s': %s", rc->hpath, strerror(-err));
			kill(rc->perf.pid, SIGKILL);
			reap(&rc->perf, true);
			return err;
		}
	}
	return 0;
}

/* The hint recorder's end: its file closed, its losses said. */
static void hints_stop(struct recording *rc)
{
	uint64_t dropped;

	if (rc->hr) {
		dropped = prof_hintrec__free(rc->hr);
		rc->hr = NULL;
		if (dropped) {
			struct scx_buf m = { 0 };

			prof_hints_dropped_msg(&m, dropped);
			scx_buf_add(&m, "", 1);
			scx_warn("%s", m.data);
			scx_buf_free(&m);
		}
	}
	if (rc->hfd >= 0) {
		close(rc->hfd);
		rc->hfd = -1;
	}
}

/* Whether perf succeeded and left something to keep. */
static int perf_outcome(struct recording *rc)
{
	char st[64];
	int status = rc->perf.status;

	/* perf ends with SIGINT's status or 0 when we stopped it; anything else is its failure */
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) &&
	    !(rc->stopping && WIFSIGNALED(status) && WTERMSIG(status) == SIGINT)) {
		status_str(status, st, sizeof(st));
		scx_warn("perf failed (%s): %s", st, said(&rc->perf));
		return -ECHILD;
	}
	if (no_data(rc->o)) {
		status_str(status, st, sizeof(st));
		scx_warn("perf exited (%s) without recording anything: %s", st, said(&rc->perf));
		return -ENODATA;
	}
	return 0;
}

/* The archive, or the directory as it is with --no-archive. */
static int record_keep(const struct prof_record_opts *o, const char *archive)
{
	char terr[512];
	int err;

	if (o->no_archive) {
		printf("Profile: %s\n", o->out);
		return 0;
	}
	if ((err = prof_tar_create(o->out, archive, terr, sizeof(terr)))) {
		scx_warn("%s (the profile is kept in '%s')", terr, o->out);
		return err;
	}
	if ((err = prof_rmtree(o->out)))
		scx_warn("cannot remove '%s': %s", o->out, strerror(-err));
	printf("Profile: %s\n", archive);
	return 0;
}

int prof_record(const struct prof_record_opts *o, bool *interrupted)
{
	const char *argv[24];
	char archive[4096];
	struct recording rc = { .o = o, .perf = { .pid = -1, .err_fd = -1 }, .hfd = -1 };
	int err;

	*interrupted = false;
	snprintf(archive, sizeof(archive), "%s.tar.gz", o->out);
	if ((err = record_prepare(o, archive)))
		return err;
	if ((err = version(o)) || (err = hints_start(&rc)))
		goto fail;
	prof_record_argv(o, argv, SCX_ARRAY_SIZE(argv));
	if ((err = spawn(&rc.perf, argv, -1, true))) {
		scx_warn("cannot run '%s': %s", o->perf, strerror(-err));
		goto fail;
	}
	if ((err = wait_perf(&rc, interrupted)))
		goto fail;
	hints_stop(&rc);
	if (*interrupted || *o->stop) {
		*interrupted = true;
		err = 0;
		goto fail;
	}
	if ((err = perf_outcome(&rc)))
		goto fail;
	if (o->perf_script && (err = perf_script(o)) == -EINTR) {
		*interrupted = true;
		err = 0;
		goto fail;
	}
	err = record_keep(o, archive);
	goto out;
fail:
	if (rc.hr)
		prof_hintrec__free(rc.hr);
	if (rc.hfd >= 0)
		close(rc.hfd);
	if (rc.perf.pid > 0 && !rc.perf.exited) {
		kill(rc.perf.pid, SIGKILL);
		reap(&rc.perf, true);
	}
	prof_rmtree(o->out);
	if (*interrupted)
		interrupted_msg(o);
out:
	if (rc.perf.err_fd >= 0)
		close(rc.perf.err_fd);
	scx_buf_free(&rc.perf.tail);
	return err;
}
