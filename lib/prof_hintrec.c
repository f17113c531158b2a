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
#include "prof.h"

#include "../bpf/hints.h"

struct prof_hintrec {
	struct hints_bpf *skel;
	struct ring_buffer *rb;
	int out_fd;
	uint32_t map_id;
	const char *how;
	struct scx_buf buf;
	uint64_t written, unresolved;
	int werr;
};

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (scx_verbose < 1 || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

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
			r->unresolved++;	/* the updater exited or closed the fd */
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
	prof_hint_write(&r->buf, &h);
	r->written++;
	return 0;
}

static int flush(struct prof_hintrec *r)
{
	int err = 0;

	if (r->buf.len && (err = scx_write_all(r->out_fd, r->buf.data, r->buf.len)))
		r->werr = err;
	scx_buf_reset(&r->buf);
	return err;
}

static int try_load(struct prof_hintrec *r, bool fentry, unsigned ring_mb, char *err,
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
	e = hints_bpf__load(s);
	if (!e)
		e = hints_bpf__attach(s);
	if (e) {
		snprintf(err, errsz, "%s: %s", fentry ? "fentry/bpf_map_update_value" :
			 "tracepoint/syscalls/sys_enter_bpf", strerror(-e));
		hints_bpf__destroy(s);
		return e;
	}
	r->skel = s;
	return 0;
}

struct prof_hintrec *prof_hintrec__new(const char *map_path, unsigned ring_mb, int out_fd,
				       char *err, size_t errsz)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	struct prof_hintrec *r;
	char e1[256], e2[256];
	int fd;

	if (!ring_mb || (ring_mb & (ring_mb - 1)) || ring_mb > 1024) {
		snprintf(err, errsz, "ring size must be a power of two between 1 and 1024 MB");
		errno = EINVAL;
		return NULL;
	}
	libbpf_set_print(quiet_print);
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
	close(fd);
	if (info.type != BPF_MAP_TYPE_TASK_STORAGE) {
		snprintf(err, errsz, "'%s' is not a task-storage map (type %u)", map_path,
			 info.type);
		errno = EINVAL;
		return NULL;
	}
	r = scx_xcalloc(1, sizeof(*r));
	r->out_fd = out_fd;
	r->map_id = info.id;
	if (!try_load(r, true, ring_mb, e1, sizeof(e1))) {
		r->how = "fentry/bpf_map_update_value";
	} else if (!try_load(r, false, ring_mb, e2, sizeof(e2))) {
		r->how = "tracepoint/syscalls/sys_enter_bpf (fentry refused)";
	} else {
		snprintf(err, errsz, "hints unavailable: %s; %s", e1, e2);
		free(r);
		errno = ENOTSUP;
		return NULL;
	}
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.events), on_event, r, NULL);
	if (!r->rb) {
		snprintf(err, errsz, "hints unavailable: ring buffer: %s", strerror(errno));
		hints_bpf__destroy(r->skel);
		free(r);
		return NULL;
	}
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
	/* detach first so the final drain sees everything that was accepted */
	hints_bpf__detach(r->skel);
	ring_buffer__consume(r->rb);
	flush(r);
	dropped = __atomic_load_n(&r->skel->bss->dropped, __ATOMIC_RELAXED);
	if (r->unresolved)
		scx_warn("%llu hint update%s could not be attributed (the updater exited or the "
			 "key was not a pidfd)", (unsigned long long)r->unresolved,
			 r->unresolved == 1 ? "" : "s");
	ring_buffer__free(r->rb);
	hints_bpf__destroy(r->skel);
	scx_buf_free(&r->buf);
	free(r);
	return dropped;
}
