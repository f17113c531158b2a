// SPDX-License-Identifier: GPL-2.0
/*
 * Records updates of a pinned task-storage hint map into hints.jsonl.  The
 * kernel side (bpf/hints.bpf.c) prefers fentry on bpf_map_update_value and
 * falls back to the bpf syscall tracepoint; both see updates made from user
 * space.  Updates a BPF program makes by writing into bpf_task_storage_get()'s
 * pointer are plain stores that no hook can see: that limit is documented.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hints.skel.h"
#include "core/hashmap.h"
#include "core/libbpf_print.h"
#include "prof/prof.h"

#include "../../bpf/hints.h"

#define PROF_HINT_SCAN_NS 10000000ULL /* iter/task scan every 10 ms */

struct prof_hintrec {
	struct hints_bpf *skel;
	int map_fd; /* the pinned map */
	bool scan;  /* iter/task attached */
	uint64_t last_scan;
	uint64_t scan_gen;	/* scans so far: which scan an event arrived during */
	struct scx_map seen;	/* tid -> struct hint_seen */
	struct scx_buf scanned; /* one scan's records, held until the ring is drained */
	char how[128];
	struct ring_buffer *rb;
	int out_fd;
	uint32_t map_id;
	struct scx_buf buf;
	uint64_t written, unresolved;
	int werr;
};

/* "key:\t123" of /proc/PID/FILE (or fdinfo/FD); -1 if absent */
static long long proc_field(int pid, const char *file, int fd, const char *key)
{
	char path[64], line[256];
	size_t kl = strlen(key);
	long long v = -1;
	FILE *f;

	if (fd >= 0)
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	else
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			v = strtoll(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

struct hint_seen {
	uint64_t hints;	    /* the last value written for the thread */
	uint64_t event_gen; /* scan_gen when its last hooked update was read */
};

/*
 * Write a hooked update, always (an update to the same value is still an
 * update), or a scanned value unless it is the one already written for the
 * thread or a hooked update of that thread was read during this scan.
 */
static void emit(struct prof_hintrec *r, const struct prof_hint_rec *h, bool scanned)
{
	bool added;
	struct hint_seen *last = scx_map_put(&r->seen, (uint32_t)h->pid, &added);

	if (scanned && !added && (last->hints == h->hints || last->event_gen == r->scan_gen))
		return;
	if (!scanned)
		last->event_gen = r->scan_gen; /* (a new entry starts zeroed) */
	last->hints = h->hints;
	prof_hint_write(&r->buf, h);
	r->written++;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct prof_hintrec *r = ctx;
	const struct prof_hint_event *e = data;
	struct prof_hint_rec h;
	long long pid, tgid;

	if (size < sizeof(*e))
		return 0;
	if (e->src == PROF_HINT_SRC_SYSCALL) {
		long long id = proc_field((int)e->tgid, NULL, e->map_fd, "map_id");

		if (id < 0) {
			r->unresolved++; /* the updater exited or closed the fd */
			return 0;
		}
		if ((uint32_t)id != r->map_id)
			return 0;
	}
	/* the key is a pidfd of the task whose hint changes */
	pid = proc_field((int)e->tgid, NULL, e->key, "Pid");
	if (pid <= 0) {
		r->unresolved++;
		return 0;
	}
	tgid = proc_field((int)pid, "status", -1, "Tgid");
	h.pid = (int32_t)pid;
	h.tgid = (int32_t)(tgid > 0 ? tgid : pid);
	h.hints = e->hints;
	h.ts = e->ts;
	emit(r, &h, false);
	return 0;
}

/*
 * Every task's current hint; changes since the last scan are written.  The
 * hooks fire on entry, before the update: a value the scan reads was hooked
 * before it was read, but its event may still be in the ring.  So the ring
 * is drained between reading the tasks and writing what changed, and a
 * thread whose hooked update came in meanwhile keeps that exact record
 * alone (written twice otherwise, once from each side).
 */
static void scan(struct prof_hintrec *r)
{
	struct prof_hint_scan rec[256];
	int fd = bpf_iter_create(bpf_link__fd(r->skel->links.scan_tasks));
	ssize_t n;

	if (fd < 0)
		return;
	r->scan_gen++;
	scx_buf_reset(&r->scanned);
	while ((n = read(fd, rec, sizeof(rec))) > 0)
		scx_buf_add(&r->scanned, rec, (size_t)n / sizeof(rec[0]) * sizeof(rec[0]));
	close(fd);
	ring_buffer__consume(r->rb);
	for (size_t i = 0; i < r->scanned.len / sizeof(rec[0]); i++) {
		const struct prof_hint_scan *s =
			(const void *)(r->scanned.data + i * sizeof(rec[0]));
		struct prof_hint_rec h = {
			(int32_t)s->pid,
			(int32_t)s->tgid,
			s->hints,
			s->ts,
		};

		emit(r, &h, true);
	}
	r->last_scan = scx_now_mono_ns();
}

static int flush(struct prof_hintrec *r)
{
	int err = 0;

	if (r->buf.len && (err = scx_write_all(r->out_fd, r->buf.data, r->buf.len)))
		r->werr = err;
	scx_buf_reset(&r->buf);
	return err;
}

static int try_load(struct prof_hintrec *r, bool fentry, bool iter, unsigned ring_mb, char *err,
		    size_t errsz)
{
	struct hints_bpf *s = hints_bpf__open();
	int e;

	if (!s) {
		e = -errno;
		snprintf(err, errsz, "cannot open the BPF object: %s", strerror(errno));
		return e;
	}
	s->rodata->target_map_id = r->map_id;
	bpf_map__set_max_entries(s->maps.events, ring_mb << 20);
	bpf_program__set_autoload(s->progs.on_update_value, fentry);
	bpf_program__set_autoload(s->progs.on_sys_bpf, !fentry);
	bpf_program__set_autoload(s->progs.scan_tasks, iter);
	e = bpf_map__reuse_fd(s->maps.hint_map, r->map_fd);
	if (!e)
		e = hints_bpf__load(s);
	if (!e)
		e = hints_bpf__attach(s);
	if (e) {
		snprintf(err, errsz, "%s%s: %s",
			 fentry ? "fentry/bpf_map_update_value" :
				  "tracepoint/syscalls/sys_enter_bpf",
			 iter ? " with iter/task" : "", strerror(-e));
		hints_bpf__destroy(s);
		return e;
	}
	r->skel = s;
	r->scan = iter;
	return 0;
}

struct prof_hintrec *prof_hintrec__new(const char *map_path, unsigned ring_mb, int out_fd,
				       char *err, size_t errsz)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	struct prof_hintrec *r;
	int fd;

	if (!ring_mb || (ring_mb & (ring_mb - 1)) || ring_mb > 1024) {
		snprintf(err, errsz, "ring size must be a power of two between 1 and 1024 MB");
		errno = EINVAL;
		return NULL;
	}
	libbpf_set_print(scx_libbpf_print);
	fd = bpf_obj_get(map_path);
	if (fd < 0) {
		snprintf(err, errsz, "cannot open pinned map '%s': %s", map_path, strerror(errno));
		return NULL;
	}
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		snprintf(err, errsz, "cannot inspect map '%s': %s", map_path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (info.type != BPF_MAP_TYPE_TASK_STORAGE) {
		snprintf(err, errsz, "'%s' is not a task-storage map (type %u)", map_path,
			 info.type);
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	r = scx_xcalloc(1, sizeof(*r));
	scx_map_init(&r->seen, sizeof(struct hint_seen));
	r->out_fd = out_fd;
	r->map_id = info.id;
	r->map_fd = fd;
	/* preferred first: exact user-space updates plus the scan for BPF-side stores */
	{
		static const struct {
			bool fentry, iter;
		} tries[] = {
			{ true, true },
			{ false, true },
			{ true, false },
			{ false, false },
		};
		char e[4][160];
		size_t k;

		for (k = 0; k < SCX_ARRAY_SIZE(tries); k++)
			if (!try_load(r, tries[k].fentry, tries[k].iter, ring_mb, e[k],
				      sizeof(e[k])))
				break;
		if (k == SCX_ARRAY_SIZE(tries)) {
			snprintf(err, errsz, "hints unavailable: %s; %s", e[0], e[3]);
			close(fd);
			free(r);
			errno = ENOTSUP;
			return NULL;
		}
		snprintf(r->how, sizeof(r->how), "%s%s%s",
			 tries[k].fentry ? "fentry/bpf_map_update_value" :
					   "tracepoint/syscalls/sys_enter_bpf",
			 tries[k].fentry ? "" : " (fentry refused)",
			 tries[k].iter ? " + iter/task scan" :
					 " (no iter/task scan: BPF-side stores are not seen)");
	}
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.events), on_event, r, NULL);
	if (!r->rb) {
		snprintf(err, errsz, "hints unavailable: ring buffer: %s", strerror(errno));
		hints_bpf__destroy(r->skel);
		close(fd);
		free(r);
		return NULL;
	}
	if (r->scan)
		scan(r); /* the hints already set when recording starts */
	flush(r);
	return r;
}

const char *prof_hintrec__how(const struct prof_hintrec *r)
{
	return r->how;
}

int prof_hintrec__fd(const struct prof_hintrec *r)
{
	return ring_buffer__epoll_fd(r->rb);
}

int prof_hintrec__poll(struct prof_hintrec *r, int timeout_ms)
{
	int n = timeout_ms ? ring_buffer__poll(r->rb, timeout_ms) : ring_buffer__consume(r->rb);

	if (n < 0 && n != -EINTR)
		return n;
	/* after the ring, so exact hook timestamps win over the scan's */
	if (r->scan && scx_now_mono_ns() - r->last_scan >= PROF_HINT_SCAN_NS)
		scan(r);
	return flush(r);
}

int prof_hintrec__scan(struct prof_hintrec *r)
{
	if (r->scan)
		scan(r);
	return flush(r);
}

uint64_t prof_hintrec__written(const struct prof_hintrec *r)
{
	return r->written;
}

uint64_t prof_hintrec__free(struct prof_hintrec *r)
{
	uint64_t dropped;

	if (!r)
		return 0;
	/* a last scan (it drains the ring first), then the final drain after detaching */
	if (r->scan)
		scan(r);
	hints_bpf__detach(r->skel);
	ring_buffer__consume(r->rb);
	flush(r);
	dropped = __atomic_load_n(&r->skel->bss->dropped, __ATOMIC_RELAXED);
	if (r->unresolved)
		scx_warn("%llu hint update%s could not be attributed (the updater exited or the "
			 "key was not a pidfd)",
			 (unsigned long long)r->unresolved, r->unresolved == 1 ? "" : "s");
	ring_buffer__free(r->rb);
	hints_bpf__destroy(r->skel);
	close(r->map_fd);
	scx_map_free(&r->seen);
	scx_buf_free(&r->scanned);
	scx_buf_free(&r->buf);
	free(r);
	return dropped;
}
