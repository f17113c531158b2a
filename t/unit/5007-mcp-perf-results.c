// SPDX-License-Identifier: GPL-2.0
/*
 * get_perf_results over a profile made by hand (no BPF): the hottest leaf
 * symbols and stacks, the samples outside the kept stacks, a limit, the
 * stacks left out, and the cut of a result larger than a tool result (with
 * and without a link to the whole).  Every answer, byte for byte, is the
 * one the hand-written writer gave (scx_profile__results before its keys
 * came from get_perf_results' outputSchema table); only the count of
 * kernel symbols, which is the machine's, is masked.  The frames in this
 * program are named after its file, 5007-mcp-perf-results, as make builds
 * it: under another name the bytes, and so the cuts, move.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_int.h"
#include "mcp/profile_int.h"
#include "mcp-unit.h"
#include "tap.h"

int main(void);
/* a user frame the symbolizer finds in this program's own symbol table */
__attribute__((noinline)) int perf_results_leaf(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

/* this process's mapping of the code at ip, as the sampler records it */
static void map_self(struct proc *pr, uint64_t ip)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512], path[400];
	unsigned long long start, end, off;

	pr->tgid = 30; /* any: the stacks name it */
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %399s", &start, &end, &off, path) !=
			    4 ||
		    ip < start || ip >= end)
			continue;
		pr->maps = scx_xcalloc(1, sizeof(*pr->maps));
		pr->maps[0] = (struct mapping){ start, end, off, scx_xstrdup(path) };
		pr->nr = 1;
	}
	if (f)
		fclose(f);
}

static void add_stack(struct scx_profile *p, uint64_t count, uint32_t tgid, const char *comm,
		      unsigned nk, unsigned nu, const uint64_t *ips)
{
	struct stack *s = &p->stacks[p->nr_stacks++];

	*s = (struct stack){ .count = count,
			     .pid = tgid + 1,
			     .tgid = tgid,
			     .nk = (uint16_t)nk,
			     .nu = (uint16_t)nu };
	snprintf(s->comm, sizeof(s->comm), "%s", comm);
	s->ips = scx_xcalloc(nk + nu + 1, sizeof(*s->ips));
	memcpy(s->ips, ips, (nk + nu) * sizeof(*ips));
	p->samples += count;
}

/*
 * A stopped profile of n stacks: a few kinds (kernel frames below every
 * kernel symbol, user frames of an unknown process and of this one, no
 * stack at all), then n - 5 deep stacks of 24 frames and more.
 */
static struct scx_profile *profile(unsigned n, uint64_t other)
{
	struct scx_profile *p = scx_xcalloc(1, sizeof(*p));
	uint64_t me = (uint64_t)(uintptr_t)perf_results_leaf;
	uint64_t ips[30];

	pthread_mutex_init(&p->mu, NULL);
	snprintf(p->event, sizeof(p->event), "sw:cpu-clock");
	p->stacks = scx_xcalloc(n, sizeof(*p->stacks));
	p->procs = scx_xcalloc(1, sizeof(*p->procs));
	map_self(&p->procs[0], me);
	p->nr_procs = 1;
	ips[0] = 0x10, ips[1] = 0x20, ips[2] = 0x7f0000001000, ips[3] = 0x7f0000002000;
	add_stack(p, 40, 10, "spin", 2, 2, ips);
	ips[0] = 0x7f0000001000;
	add_stack(p, 25, 10, "spin", 0, 1, ips);
	add_stack(p, 15, 20, "idle", 0, 0, ips);
	ips[0] = me, ips[1] = (uint64_t)(uintptr_t)main + 8;
	add_stack(p, 12, p->procs[0].tgid, "self", 0, 2, ips);
	ips[0] = 0x10, ips[1] = me;
	add_stack(p, 9, p->procs[0].tgid, "self\"q", 1, 1, ips);
	for (unsigned i = 5; i < n; i++) {
		for (unsigned f = 0; f < 30; f++)
			ips[f] = 0x7f0000100000 + 0x1000 * i + 8 * f;
		add_stack(p, 5, 100 + i, "deep", 4, 26, ips);
	}
	p->other = other;
	p->samples += other;
	return p;
}

/* the digits after each key k in s, masked */
static void mask(char *s, const char *k)
{
	for (char *at = strstr(s, k); at; at = strstr(at, k)) {
		char *end;

		at += strlen(k);
		end = at + strspn(at, "0123456789");
		*at++ = 'N';
		memmove(at, end, strlen(end) + 1);
	}
}

/*
 * The last answer (ask() cut its lines at their newlines), with what is
 * the machine's masked: the kernel symbols counted (in the text and in
 * structuredContent), and so the size of the whole in a link to it.
 */
static const char *answer(void)
{
	static char got[65536];

	got[0] = 0;
	for (const char *p = out.data; p < out.data + out.len; p += strlen(p) + 1)
		if (strstr(p, "\"id\":")) {
			snprintf(got, sizeof(got), "%s", p);
			break;
		}
	mask(got, "kernel_symbols\\\":");
	mask(got, "kernel_symbols\":");
	mask(got, "the whole result of get_perf_results, ");
	mask(got, " bytes of JSON in ");
	return got;
}

static FILE *golden;

/* ask get_perf_results with args; its answer is the golden's next line */
static void check(struct mcp_server *s, int id, const char *args, const char *what)
{
	static char want[65536];
	char line[512];
	const char *got;

	snprintf(line, sizeof(line),
		 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{"
		 "\"name\":\"get_perf_results\",\"arguments\":%s}}",
		 id, args);
	ask(s, line);
	got = answer();
	if (!golden || !fgets(want, sizeof(want), golden))
		want[0] = 0;
	want[strcspn(want, "\n")] = 0;
	if (!ok(!strcmp(got, want), "%s: the hand-written writer's bytes", what)) {
		size_t i = 0, from;

		while (got[i] && got[i] == want[i])
			i++;
		from = i > 60 ? i - 60 : 0;
		tap_diag("#   byte %zu: got  ...%.120s\n#   want ...%.120s\n", i, got + from,
			 want + from);
	}
}

int main(void)
{
	const char *src = getenv("SCX_SRC");
	struct mcp_opts o = { 0 }, small = { .max_result = 8192 };
	struct mcp_server *s = mcp_session(&o, "2025-11-25");
	char path[4096];

	snprintf(path, sizeof(path), "%s/t/data/mcp-perf-results.golden", src ? src : ".");
	golden = fopen(path, "re");
	ok(golden, "%s: %s", path, golden ? "open" : strerror(errno));
	check(s, 1, "{}", "no profile");
	s->prof = profile(5, 7);
	check(s, 2, "{}", "symbols and stacks, samples outside the kept stacks");
	check(s, 3, "{\"limit\":1}", "limit 1: the stacks left out counted");
	check(s, 4, "{\"include_stacks\":false}", "without stacks");
	mcp_server__free(s);
	/* larger than a tool result of 8 KB: cut, and (since 2025-06-18)
	   linked to the whole */
	s = mcp_session(&small, "2025-03-26");
	s->prof = profile(200, 0);
	check(s, 1, "{\"limit\":500}", "cut to fit");
	mcp_server__free(s);
	s = mcp_session(&small, "2025-11-25");
	s->prof = profile(200, 0);
	check(s, 1, "{\"limit\":500}", "cut to fit, linked to the whole");
	mcp_server__free(s);
	if (golden)
		fclose(golden);
	scx_buf_free(&out);
	return done_testing();
}
