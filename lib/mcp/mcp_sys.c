// SPDX-License-Identifier: GPL-2.0
/* scx-mcp system resources: scheduler, topology, /proc figures, BPF programs. */
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/mcp_int.h"
#include "capture/scx_sysfs.h"
#include "core/topo.h"

static bool read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok;
}

/* sched_ext's sysfs counters since boot (and root/events since the load) */
static void scx_counters(struct scx_jw *w)
{
	struct scx_stats s;
	char err[512];

	if (scx_sysfs__read(SCX_SYSFS_DIR, &s, err, sizeof(err))) {
		scx_jw_kstr(w, "counters_error", err);
		return;
	}
	s.interval_ns = 0;
	scx_jw_key(w, "counters");
	scx_jw_obj_begin(w);
	scx_stats_json_fields(w, &s);
	scx_jw_obj_end(w);
}

void mcp_sys_scheduler_fields(struct scx_jw *w)
{
	char ops[128] = "", state[64] = "", sw[64] = "";
	bool scx = access("/sys/kernel/sched_ext", F_OK) == 0;

	scx_jw_kbool(w, "sched_ext_supported", scx);
	if (scx) {
		read_line("/sys/kernel/sched_ext/state", state, sizeof(state));
		read_line("/sys/kernel/sched_ext/root/ops", ops, sizeof(ops));
		read_line("/sys/kernel/sched_ext/switch_all", sw, sizeof(sw));
		scx_jw_kstr(w, "state", state);
		scx_jw_kbool(w, "active", ops[0] != 0);
		if (ops[0]) {
			scx_jw_kstr(w, "name", ops);
			scx_jw_kstr(w, "class", "sched_ext");
			scx_jw_kbool(w, "switch_all", !strcmp(sw, "1"));
		}
		scx_counters(w);
	} else {
		scx_jw_kbool(w, "active", false);
	}
	if (!ops[0]) {
		scx_jw_kstr(w, "name", "EEVDF");
		scx_jw_kstr(w, "class", "fair");
	}
}

int mcp_sys_scheduler(struct scx_jw *w)
{
	scx_jw_obj_begin(w);
	mcp_sys_scheduler_fields(w);
	scx_jw_obj_end(w);
	return 0;
}

/* the CPUs of a topology, the offline ones if asked */
struct topo_cpus {
	const struct scx_topo *t;
	bool offline;
};
struct cpu_rec {
	int64_t cpu, core, llc, node;
	bool online;
};
static const struct mcp_out cpu_item[] = {
	MCP_REC_INT(cpu_rec, cpu),  MCP_REC_INT(cpu_rec, core),	   MCP_REC_INT(cpu_rec, llc),
	MCP_REC_INT(cpu_rec, node), MCP_REC_BOOL(cpu_rec, online), { "" },
};

static void topo_cpus(struct scx_jw *w, const void *val)
{
	const struct topo_cpus *tc = val;

	scx_jw_arr_begin(w);
	for (unsigned i = 0; i < tc->t->nr_cpus; i++) {
		const struct scx_cpu_topo *c = &tc->t->cpus[i];

		if (!c->online && !tc->offline)
			continue;
		mcp_out_write(w, cpu_item,
			      &(struct cpu_rec){ c->cpu, c->core, c->llc, c->node, c->online });
	}
	scx_jw_arr_end(w);
}

/* a topology's counts; without one the tool writes only its error, by hand */
struct topo_rec {
	uint64_t nr_cpus, nr_online, nr_cores, nr_llcs, nr_nodes;
	const struct topo_cpus *cpus; /* with detail_level full */
};
const struct mcp_out mcp_out_topology[] = {
	MCP_REC_UINT(topo_rec, nr_cpus),
	MCP_REC_UINT(topo_rec, nr_online),
	MCP_REC_UINT(topo_rec, nr_cores),
	MCP_REC_UINT(topo_rec, nr_llcs),
	MCP_REC_UINT(topo_rec, nr_nodes),
	MCP_REC_FN(topo_rec, cpus, "array", topo_cpus),
	{ "error", "string" },
	{ "" },
};

int mcp_sys_topology(struct scx_jw *w, bool full, bool offline)
{
	struct scx_topo *t = scx_topo__from_sysfs("/sys");
	struct topo_cpus cpus = { t, offline };
	struct topo_rec rec;

	if (!t) {
		scx_jw_obj_begin(w);
		scx_jw_kstr(w, "error", strerror(errno));
		scx_jw_obj_end(w);
		return 0;
	}
	rec = (struct topo_rec){
		.nr_cpus = t->nr_cpus,
		.nr_cores = t->nr_cores,
		.nr_llcs = t->nr_llcs,
		.nr_nodes = t->nr_nodes,
		.cpus = full ? &cpus : NULL,
	};
	for (unsigned i = 0; i < t->nr_cpus; i++)
		rec.nr_online += t->cpus[i].online;
	mcp_out_write(w, mcp_out_topology, &rec);
	scx_topo__free(t);
	return 0;
}

int mcp_sys_cpu(struct scx_jw *w)
{
	static const char *const cols[] = {
		"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal",
	};
	FILE *f = fopen("/proc/stat", "re");
	char line[512];
	long hz = sysconf(_SC_CLK_TCK);

	scx_jw_obj_begin(w);
	scx_jw_kstr(w, "unit", "ns");
	scx_jw_key(w, "cpus");
	scx_jw_arr_begin(w);
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long v[8] = { 0 };
		char name[16];

		if (strncmp(line, "cpu", 3))
			continue;
		if (sscanf(line, "%15s %llu %llu %llu %llu %llu %llu %llu %llu", name, &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 5)
			continue;
		scx_jw_obj_begin(w);
		if (!strcmp(name, "cpu"))
			scx_jw_kstr(w, "cpu", "all");
		else
			scx_jw_kint(w, "cpu", atoi(name + 3));
		for (unsigned i = 0; i < 8; i++)
			scx_jw_kuint(w, cols[i], v[i] * (1000000000ull / (hz > 0 ? hz : 100)));
		scx_jw_obj_end(w);
	}
	scx_jw_arr_end(w);
	if (f) {
		rewind(f);
		while (fgets(line, sizeof(line), f)) {
			unsigned long long v;
			char key[32];

			if (sscanf(line, "%31s %llu", key, &v) == 2 &&
			    (!strcmp(key, "ctxt") || !strcmp(key, "processes") ||
			     !strcmp(key, "procs_running") || !strcmp(key, "procs_blocked")))
				scx_jw_kuint(w, key, v);
		}
		fclose(f);
	}
	if (read_line("/proc/loadavg", line, sizeof(line)))
		scx_jw_kstr(w, "loadavg", line);
	scx_jw_obj_end(w);
	return 0;
}

int mcp_sys_memory(struct scx_jw *w)
{
	static const char *const keys[] = {
		"MemTotal",  "MemFree",	 "MemAvailable", "Buffers", "Cached",
		"SwapTotal", "SwapFree", "Dirty",	 "Slab",
	};
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];

	scx_jw_obj_begin(w);
	scx_jw_kstr(w, "unit", "bytes");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long v;
		char key[64];

		if (sscanf(line, "%63[^:]: %llu", key, &v) != 2)
			continue;
		for (unsigned i = 0; i < SCX_ARRAY_SIZE(keys); i++)
			if (!strcmp(key, keys[i]))
				scx_jw_kuint(w, key, v * 1024);
	}
	if (f)
		fclose(f);
	scx_jw_obj_end(w);
	return 0;
}

int mcp_sys_bpf_programs(struct scx_jw *w, unsigned limit)
{
	char en[16] = "0";
	__u32 id = 0;
	unsigned n = 0, total = 0;
	int err = 0;

	read_line("/proc/sys/kernel/bpf_stats_enabled", en, sizeof(en));
	scx_jw_obj_begin(w);
	scx_jw_kbool(w, "stats_enabled", !strcmp(en, "1"));
	if (strcmp(en, "1"))
		scx_jw_kstr(w, "note",
			    "run_time_ns and run_cnt stay 0 unless "
			    "kernel.bpf_stats_enabled=1");
	scx_jw_key(w, "programs");
	scx_jw_arr_begin(w);
	while (!(err = bpf_prog_get_next_id(id, &id))) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len)) {
			total++;
			if (n < limit) {
				scx_jw_obj_begin(w);
				scx_jw_kuint(w, "id", info.id);
				scx_jw_kstr(w, "name", info.name);
				scx_jw_kuint(w, "type", info.type);
				scx_jw_kuint(w, "run_time_ns", info.run_time_ns);
				scx_jw_kuint(w, "run_cnt", info.run_cnt);
				if (info.run_cnt)
					scx_jw_kuint(w, "avg_ns", info.run_time_ns / info.run_cnt);
				scx_jw_kuint(w, "recursion_misses", info.recursion_misses);
				scx_jw_obj_end(w);
				n++;
			}
		}
		close(fd);
	}
	scx_jw_arr_end(w);
	scx_jw_kuint(w, "total", total);
	if (total > n)
		scx_jw_kuint(w, "omitted", total - n);
	if (err && errno != ENOENT)
		scx_jw_kstr(w, "error", strerror(errno));
	scx_jw_obj_end(w);
	return 0;
}
