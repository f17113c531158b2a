// SPDX-License-Identifier: GPL-2.0
/*
 * CPU profiles from bpf/profile.bpf.c: one perf event per CPU (hardware when
 * the machine has a PMU, else cpu-clock), a ring buffer drained by a thread
 * that folds identical stacks, and symbolization on demand.
 *
 * User addresses are resolved with the process's executable mappings, read
 * from /proc/PID/maps when its first sample arrives (it may be gone by the
 * time results are asked for), and the ELF symbol tables of the mapped files.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "json/json.h"
#include "core/libbpf_print.h"
#include "mcp/profile.h"
#include "profile.skel.h"
#include "core/util.h"

#include "mcp/profile_int.h"

/* ---- events ----------------------------------------------------------------- */

struct ev_name {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct ev_name events[] = {
	{ "hw:cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "hw:cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "hw:instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "hw:cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "hw:cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "hw:branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "hw:branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "sw:cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "sw:task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
};

static const struct ev_name *find_event(const char *s)
{
	/* "cycles" means "hw:cycles", "cpu-clock" means "sw:cpu-clock" */
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(events); i++)
		if (!strcmp(s, events[i].name) || !strcmp(s, events[i].name + 3))
			return &events[i];
	return NULL;
}

static int open_event(const struct ev_name *ev, unsigned freq, int cpu)
{
	struct perf_event_attr a = { 0 };

	a.size = sizeof(a);
	a.type = ev->type;
	a.config = ev->config;
	a.sample_freq = freq;
	a.freq = 1;
	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* ---- samples ------------------------------------------------------------------ */

static uint64_t hash_sample(const struct profile_sample *s, unsigned nk, unsigned nu)
{
	uint64_t h = 0xcbf29ce484222325ull ^ s->tgid ^ ((uint64_t)s->pid << 32);

	for (unsigned i = 0; i < nk; i++)
		h = (h ^ s->kstack[i]) * 0x100000001b3ull;
	h ^= 0x9e3779b97f4a7c15ull;
	for (unsigned i = 0; i < nu; i++)
		h = (h ^ s->ustack[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

static void read_maps(struct scx_profile *p, uint32_t tgid)
{
	char path[64], line[PATH_MAX + 128];
	struct proc *pr;
	FILE *f;

	for (size_t i = 0; i < p->nr_procs; i++)
		if (p->procs[i].tgid == tgid)
			return;
	p->procs = scx_xrealloc(p->procs, (p->nr_procs + 1) * sizeof(*p->procs));
	pr = &p->procs[p->nr_procs++];
	memset(pr, 0, sizeof(*pr));
	pr->tgid = tgid;
	snprintf(path, sizeof(path), "/proc/%u/maps", tgid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8], file[PATH_MAX];
		int n = 0;

		file[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &n) <
		    4)
			continue;
		if (perms[2] != 'x' || !n || line[n] != '/')
			continue;
		snprintf(file, sizeof(file), "%s", line + n);
		file[strcspn(file, "\n")] = 0;
		pr->maps = scx_xrealloc(pr->maps, (pr->nr + 1) * sizeof(*pr->maps));
		pr->maps[pr->nr++] = (struct mapping){ start, end, off, scx_xstrdup(file) };
	}
	if (f)
		fclose(f);
}

static void stop_locked(struct scx_profile *p)
{
	for (unsigned i = 0; i < p->nr_fds; i++) {
		bpf_link__destroy(p->links[i]);
		close(p->fds[i]);
	}
	p->nr_fds = 0;
	if (p->running)
		p->end_ns = scx_now_mono_ns();
	p->running = false;
}

static int on_sample(void *ctx, void *data, size_t len)
{
	struct scx_profile *p = ctx;
	const struct profile_sample *s = data;
	unsigned nk, nu;
	uint64_t h, k;

	if (len < sizeof(*s))
		return 0;
	nk = s->kstack_bytes > 0 ? (unsigned)s->kstack_bytes / 8 : 0;
	nu = s->ustack_bytes > 0 ? (unsigned)s->ustack_bytes / 8 : 0;
	h = hash_sample(s, nk, nu);
	pthread_mutex_lock(&p->mu);
	if (!p->running) {
		pthread_mutex_unlock(&p->mu);
		return 0;
	}
	p->samples++;
	if (nu)
		read_maps(p, s->tgid);
	/* keyed by the hash, the next key on a collision (core/hashmap.h) */
	for (k = h;; k++) {
		uint32_t *idx = scx_map_get(&p->index, k);
		struct stack *st;

		if (!idx) {
			if (p->nr_stacks >= MAX_STACKS) {
				p->other++;
				break;
			}
			if (p->nr_stacks == p->cap_stacks) {
				p->cap_stacks = p->cap_stacks ? p->cap_stacks * 2 : 1024;
				p->stacks =
					scx_xrealloc(p->stacks, p->cap_stacks * sizeof(*p->stacks));
			}
			st = &p->stacks[p->nr_stacks];
			memset(st, 0, sizeof(*st));
			st->hash = h;
			st->pid = s->pid;
			st->tgid = s->tgid;
			st->nk = nk;
			st->nu = nu;
			memcpy(st->comm, s->comm, sizeof(st->comm));
			st->comm[15] = 0;
			st->ips = scx_xmalloc((nk + nu + 1) * sizeof(uint64_t));
			memcpy(st->ips, s->kstack, nk * 8);
			memcpy(st->ips + nk, s->ustack, nu * 8);
			st->count = 1;
			*(uint32_t *)scx_map_put(&p->index, k, NULL) = (uint32_t)p->nr_stacks++;
			break;
		}
		st = &p->stacks[*idx];
		if (st->hash == h && st->pid == s->pid && st->nk == nk && st->nu == nu &&
		    !memcmp(st->ips, s->kstack, nk * 8) &&
		    !memcmp(st->ips + nk, s->ustack, nu * 8)) {
			st->count++;
			break;
		}
	}
	if ((p->o.max_samples && p->samples >= p->o.max_samples) ||
	    (p->o.duration_s &&
	     scx_now_mono_ns() - p->start_ns >= p->o.duration_s * 1000000000ull)) {
		snprintf(p->note + strlen(p->note), sizeof(p->note) - strlen(p->note), "%s",
			 p->samples >= p->o.max_samples && p->o.max_samples ?
				 "stopped at max_samples" :
				 "stopped after duration_secs");
		stop_locked(p);
	}
	pthread_mutex_unlock(&p->mu);
	return 0;
}

static void *poll_main(void *arg)
{
	struct scx_profile *p = arg;

	while (!p->stop) {
		ring_buffer__poll(p->rb, 100);
		pthread_mutex_lock(&p->mu);
		if (p->running && p->o.duration_s &&
		    scx_now_mono_ns() - p->start_ns >= p->o.duration_s * 1000000000ull) {
			snprintf(p->note + strlen(p->note), sizeof(p->note) - strlen(p->note),
				 "stopped after duration_secs");
			stop_locked(p);
		}
		pthread_mutex_unlock(&p->mu);
	}
	ring_buffer__consume(p->rb);
	return NULL;
}

struct scx_profile *scx_profile__start(const struct scx_profile_opts *o, char *err, size_t errsz)
{
	struct scx_profile *p = scx_xcalloc(1, sizeof(*p));
	const struct ev_name *ev = find_event(o->event ? o->event : "hw:cycles");
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int e = 0;

	if (!ev) {
		snprintf(err, errsz,
			 "unknown event '%s' (hw:cycles, hw:instructions, "
			 "hw:cache-misses, hw:branch-misses, sw:cpu-clock, sw:task-clock)",
			 o->event);
		free(p);
		return NULL;
	}
	p->o = *o;
	if (!p->o.freq)
		p->o.freq = 99;
	pthread_mutex_init(&p->mu, NULL);
	scx_map_init(&p->index, sizeof(uint32_t));
	libbpf_set_print(scx_libbpf_print);
	p->skel = profile_bpf__open();
	if (!p->skel) {
		e = errno;
		snprintf(err, errsz, "cannot open the BPF program: %s", strerror(e));
		goto fail;
	}
	p->skel->rodata->filter_tgid = o->pid > 0 ? (uint32_t)o->pid : 0;
	if (profile_bpf__load(p->skel)) {
		e = errno;
		snprintf(err, errsz, "cannot load the BPF program: %s%s", strerror(e),
			 e == EPERM ? " (needs root or CAP_BPF and CAP_PERFMON)" : "");
		goto fail;
	}
	snprintf(p->event, sizeof(p->event), "%s", ev->name);
	for (long cpu = 0; cpu < ncpu && cpu < MAX_CPUS; cpu++) {
		int fd;

		if (o->cpu >= 0 && cpu != o->cpu)
			continue;
		fd = open_event(ev, p->o.freq, (int)cpu);
		if (fd < 0 && ev->type == PERF_TYPE_HARDWARE &&
		    (errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV ||
		     errno == EINVAL)) {
			/* no hardware PMU (VMs): the software clock samples the same way */
			snprintf(p->note, sizeof(p->note),
				 "%s unavailable (%s): sampling "
				 "sw:cpu-clock instead; ",
				 ev->name, strerror(errno));
			ev = find_event("sw:cpu-clock");
			snprintf(p->event, sizeof(p->event), "%s", ev->name);
			fd = open_event(ev, p->o.freq, (int)cpu);
		}
		if (fd < 0) {
			if (errno == ENODEV) /* offline cpu */
				continue;
			e = errno;
			snprintf(err, errsz, "perf_event_open %s on cpu %ld: %s", ev->name, cpu,
				 strerror(e));
			goto fail;
		}
		p->fds[p->nr_fds] = fd;
		p->links[p->nr_fds] = bpf_program__attach_perf_event(p->skel->progs.on_sample, fd);
		if (!p->links[p->nr_fds]) {
			e = errno;
			close(fd);
			snprintf(err, errsz, "cannot attach to the perf event on cpu %ld: %s", cpu,
				 strerror(e));
			goto fail;
		}
		p->nr_fds++;
	}
	if (!p->nr_fds) {
		snprintf(err, errsz, "no cpu to sample (cpu %d)", o->cpu);
		goto fail;
	}
	p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.samples), on_sample, p, NULL);
	if (!p->rb) {
		e = errno;
		snprintf(err, errsz, "cannot create the ring buffer: %s", strerror(e));
		goto fail;
	}
	p->running = true;
	p->start_ns = scx_now_mono_ns();
	if (pthread_create(&p->thr, NULL, poll_main, p)) {
		snprintf(err, errsz, "cannot start the sample thread");
		goto fail;
	}
	p->thr_started = true;
	return p;
fail:
	scx_profile__free(p);
	return NULL;
}

bool scx_profile__running(struct scx_profile *p)
{
	bool r;

	pthread_mutex_lock(&p->mu);
	r = p->running;
	pthread_mutex_unlock(&p->mu);
	return r;
}

int scx_profile__stop(struct scx_profile *p)
{
	pthread_mutex_lock(&p->mu);
	stop_locked(p);
	pthread_mutex_unlock(&p->mu);
	return 0;
}

void scx_profile__free(struct scx_profile *p)
{
	if (!p)
		return;
	scx_profile__stop(p);
	p->stop = true;
	if (p->thr_started)
		pthread_join(p->thr, NULL);
	ring_buffer__free(p->rb);
	profile_bpf__destroy(p->skel);
	for (size_t i = 0; i < p->nr_stacks; i++)
		free(p->stacks[i].ips);
	for (size_t i = 0; i < p->nr_procs; i++) {
		for (unsigned j = 0; j < p->procs[i].nr; j++)
			free(p->procs[i].maps[j].path);
		free(p->procs[i].maps);
	}
	free(p->procs);
	free(p->stacks);
	scx_map_free(&p->index);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

void scx_profile__status(struct scx_profile *p, struct scx_profile_status *st)
{
	uint64_t dropped = p->skel && p->skel->bss ? p->skel->bss->dropped : 0;

	pthread_mutex_lock(&p->mu);
	*st = (struct scx_profile_status){
		.running = p->running,
		.event = p->event,
		.freq_hz = p->o.freq,
		.cpu = p->o.cpu,
		.pid = p->o.pid,
		.samples = p->samples,
		.dropped_samples = dropped,
		.distinct_stacks = p->nr_stacks,
		.duration_ms =
			((p->running ? scx_now_mono_ns() : p->end_ns) - p->start_ns) / 1000000,
	};
	memcpy(st->note, p->note, sizeof(st->note)); /* (the same size, NUL-terminated) */
	pthread_mutex_unlock(&p->mu);
}
