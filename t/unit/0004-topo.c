// SPDX-License-Identifier: GPL-2.0
/* lib/core/topo.c on the fake sysfs trees in t/data/sysfs-*, synthetic, JSON, dup. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"
#include "core/topo.h"
#include "stream/stream.h"
#include "core/util.h"

static struct scx_topo *load(const char *tree)
{
	char path[4200];
	const char *src = getenv("SCX_SRC");

	snprintf(path, sizeof(path), "%s/t/data/%s", src ? src : ".", tree);
	return scx_topo__from_sysfs(path);
}

/* "cpu:core/llc/node/online ..." for every cpu, for compact comparisons */
static const char *dump(const struct scx_topo *t)
{
	static char buf[1024];
	size_t n = 0;

	buf[0] = 0;
	for (unsigned i = 0; t && i < t->nr_cpus; i++) {
		const struct scx_cpu_topo *c = &t->cpus[i];
		n += snprintf(buf + n, sizeof(buf) - n, "%s%d:%d/%d/%d/%d", i ? " " : "", c->cpu,
			      c->core, c->llc, c->node, c->online);
	}
	return buf;
}

static void sysfs(void)
{
	struct scx_topo *t = load("sysfs-2s");

	ok(t != NULL, "two sockets: loaded");
	is_str(dump(t),
	       "0:0/0/0/1 1:0/0/0/1 2:1/0/0/1 3:1/0/0/1 4:2/1/1/1 5:-1/-1/-1/0 6:3/1/1/1 7:3/1/1/1",
	       "two sockets: SMT pairs, L3 per package, node per package, cpu 5 offline");
	ok(t && t->nr_cpus == 8 && t->max_cpu == 7 && t->nr_cores == 4 && t->nr_llcs == 2 &&
		   t->nr_nodes == 2,
	   "two sockets: counts");
	ok(t && scx_topo__cpu(t, 6) && scx_topo__cpu(t, 6)->core == 3, "lookup by id");
	ok(t && !scx_topo__cpu(t, 8) && !scx_topo__cpu(t, -1), "unknown ids");
	scx_topo__free(t);

	t = load("sysfs-sparse");
	is_str(dump(t), "0:0/0/0/1 1:1/0/0/1 4:2/1/0/1 5:3/1/0/1",
	       "sparse ids: highest cache level wins whatever its index, no NUMA = node 0");
	ok(t && t->nr_cpus == 4 && t->max_cpu == 5 && !scx_topo__cpu(t, 2) &&
		   scx_topo__cpu(t, 5)->llc == 1,
	   "sparse ids: index has holes");
	scx_topo__free(t);

	t = load("sysfs-nocache");
	is_str(dump(t), "0:0/0/0/1 1:1/0/0/1 2:-1/-1/-1/0",
	       "no cache info: one LLC per package; offline cpu unknown");
	ok(t && t->nr_llcs == 1 && t->nr_cores == 2, "no cache info: counts");
	scx_topo__free(t);

	errno = 0;
	ok(!load("no-such-tree") && errno == ENOENT, "missing tree: NULL + ENOENT");

	t = scx_topo__from_sysfs("/sys");
	ok(t && t->nr_cpus >= 1 && scx_topo__cpu(t, 0), "this machine's /sys");
	scx_topo__free(t);
}

/*
 * This machine's /sys against lscpu(1): the same cpus, the same grouping into
 * cores and LLCs (the last cache column), the same nodes.  Ids may be numbered
 * differently, so groupings are compared pairwise.
 */
static void against_lscpu(void)
{
	FILE *f = popen("lscpu -a -p=CPU,CORE,NODE,CACHE 2>/dev/null", "r");
	struct scx_topo *t = scx_topo__from_sysfs("/sys");
	int cpu[256], core[256], node[256], llc[256], n = 0, bad = 0;
	char line[256];

	while (f && fgets(line, sizeof(line), f) && n < 256) {
		char *last;
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%d,%d,%d", &cpu[n], &core[n], &node[n]) != 3)
			continue;
		last = strrchr(line, ':');
		llc[n] = last ? atoi(last + 1) : atoi(strrchr(line, ',') + 1);
		n++;
	}
	if (f)
		pclose(f);
	if (!n) {
		ok(1, "# SKIP lscpu not available");
		scx_topo__free(t);
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct scx_cpu_topo *a = scx_topo__cpu(t, cpu[i]);
		if (!a || a->node != node[i]) {
			bad++;
			continue;
		}
		for (int j = 0; j < n; j++) {
			const struct scx_cpu_topo *b = scx_topo__cpu(t, cpu[j]);
			if (!b || (a->core == b->core) != (core[i] == core[j]) ||
			    (a->llc == b->llc) != (llc[i] == llc[j]))
				bad++;
		}
	}
	ok(t && n <= (int)t->nr_cpus && !bad, "/sys agrees with lscpu on %d cpus (%d mismatches)",
	   n, bad);
	scx_topo__free(t);
}

static void synthetic_and_copies(void)
{
	struct scx_topo *t = scx_topo__synthetic(8, 4, 1), *d;

	is_str(dump(t),
	       "0:0/0/0/1 1:1/0/0/1 2:2/0/0/1 3:3/0/0/1 4:4/1/1/1 5:5/1/1/1 6:6/1/1/1 7:7/1/1/1",
	       "synthetic 8 cpus, 4 per LLC, 1 LLC per node");
	d = scx_topo__dup(t);
	ok(d && d != t && d->cpus != t->cpus && !strcmp(dump(d), dump(t)) && d->nr_llcs == 2 &&
		   d->nr_nodes == 2 && d->nr_cores == 8,
	   "dup is deep and equal");
	scx_topo__free(t);
	scx_topo__free(d);
	scx_topo__free(NULL);

	struct scx_cpu_topo dup_ids[] = { { 3, 0, 0, 0, true }, { 3, 1, 0, 0, true } };
	errno = 0;
	ok(!scx_topo__from_cpus(dup_ids, 2) && errno == EINVAL, "duplicate cpu ids rejected");
	struct scx_cpu_topo unsorted[] = { { 9, 2, 1, 0, true }, { 1, 0, 0, 0, false } };
	t = scx_topo__from_cpus(unsorted, 2);
	is_str(dump(t), "1:0/0/0/0 9:2/1/0/1", "from_cpus sorts by id");
	scx_topo__free(t);
}

static void from_file(void)
{
	char path[] = "/tmp/scx-topo-XXXXXX", err[256];
	int fd = mkstemp(path);
	const char *hdr = "{\"type\":\"header\",\"version\":1,\"topology\":[{\"cpu\":1,\"core\":0,"
			  "\"llc\":0,\"node\":0,\"online\":true},{\"cpu\":0,\"core\":0,\"llc\":0,"
			  "\"node\":0,\"online\":false}]}\n";
	struct scx_topo *t;

	ok(fd >= 0 && write(fd, hdr, strlen(hdr)) == (ssize_t)strlen(hdr), "header file written");
	t = scx_topo__from_file(path, err, sizeof(err));
	is_str(dump(t), "0:0/0/0/0 1:0/0/0/1", "topology from a header line");
	scx_topo__free(t);

	const char *arr = " [{\"cpu\":4}] ";
	ok(!ftruncate(fd, 0) && pwrite(fd, arr, strlen(arr), 0) == (ssize_t)strlen(arr),
	   "array file written");
	t = scx_topo__from_file(path, err, sizeof(err));
	is_str(dump(t), "4:-1/-1/-1/1", "a bare array; missing ids are -1, online by default");
	scx_topo__free(t);

	const char *bad = "[{\"cpu\":1},{\"cpu\":\"x\"}]";
	ok(!ftruncate(fd, 0) && pwrite(fd, bad, strlen(bad), 0) == (ssize_t)strlen(bad),
	   "bad file written");
	t = scx_topo__from_file(path, err, sizeof(err));
	ok(!t && strstr(err, ": byte 11: bad topology entry"), "bad entry: %s", err);
	const char *broken = "[{\"cpu\":1]";
	ok(!ftruncate(fd, 0) && pwrite(fd, broken, strlen(broken), 0) == (ssize_t)strlen(broken),
	   "broken file written");
	t = scx_topo__from_file(path, err, sizeof(err));
	ok(!t && strstr(err, ": byte 9: expected ',' or '}'"), "broken JSON: %s", err);
	close(fd);
	unlink(path);
	t = scx_topo__from_file("/nonexistent/x", err, sizeof(err));
	ok(!t && errno == ENOENT && strstr(err, "cannot open '/nonexistent/x'"), "missing file: %s",
	   err);
}

int main(void)
{
	sysfs();
	against_lscpu();
	synthetic_and_copies();
	from_file();
	return done_testing();
}
