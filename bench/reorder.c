// SPDX-License-Identifier: GPL-2.0
/*
 * The reorder buffer as scx-events and scx-top use it: every 50 ms each
 * CPU's staged batch arrives in its own time order, the CPUs in random
 * order, and events leave through a 100 ms window.  Prints CPU time per
 * event pushed and popped (the stream's timestamps are made beforehand).
 *
 *   reorder CPUS EVENTS_PER_CPU_PER_BATCH BATCHES
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/reorder.h"
#include "core/util.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return scx_xorshift64(&rng);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const uint64_t batch_ns = 50000000, window_ns = 100000000;

	if (argc != 4) {
		fprintf(stderr, "usage: reorder CPUS EVENTS_PER_CPU_PER_BATCH BATCHES\n");
		return 2;
	}
	unsigned cpus = atoi(argv[1]), per = atoi(argv[2]), batches = atoi(argv[3]);
	size_t n = (size_t)cpus * per * batches, k = 0;
	uint64_t *ts = malloc(n * sizeof(*ts));
	int32_t *cpu = malloc(n * sizeof(*cpu));
	unsigned *order = malloc(cpus * sizeof(*order));

	if (!cpus || !per || !batches || !ts || !cpu || !order)
		return 2;
	for (unsigned b = 0; b < batches; b++) {
		for (unsigned c = 0; c < cpus; c++)
			order[c] = c;
		for (unsigned c = cpus - 1; c > 0; c--) {
			unsigned j = rnd() % (c + 1), t = order[c];
			order[c] = order[j];
			order[j] = t;
		}
		for (unsigned c = 0; c < cpus; c++) {
			for (unsigned i = 0; i < per; i++) {
				ts[k + i] = 1000000000ull + b * batch_ns + rnd() % batch_ns;
				cpu[k + i] = (int32_t)order[c];
			}
			qsort(ts + k, per, sizeof(*ts), cmp_u64);
			k += per;
		}
	}

	struct scx_reorder *o = scx_reorder__new(window_ns);
	struct scx_event e;
	uint64_t out = 0, sum = 0;
	double t0 = cpu_s();

	scx_event_init(&e, SCX_EV_SWITCH);
	for (size_t i = 0; i < n; i++) {
		e.ts = ts[i];
		e.cpu = cpu[i];
		scx_reorder__push(o, &e);
		while (scx_reorder__pop(o, &e, false))
			out++, sum += e.ts;
	}
	while (scx_reorder__pop(o, &e, true))
		out++, sum += e.ts;
	double t = cpu_s() - t0;

	printf("reorder: %u cpus, %zu events, %.1f ns/event, late %llu (check %llu)\n", cpus, n,
	       t / (double)n * 1e9, (unsigned long long)scx_reorder__late(o),
	       (unsigned long long)(out == n ? sum % 1000 : ~0ull));
	scx_reorder__free(o);
	return out == n ? 0 : 1;
}
