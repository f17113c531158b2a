// SPDX-License-Identifier: GPL-2.0
/* Fuzz the Perfetto reader: any bytes must give events or an error, never a crash. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "perfetto/perfetto_read.h"

static int touch(void *ctx, const struct scx_event *e)
{
	uint64_t *sum = ctx;

	*sum += e->ts + (uint64_t)e->cpu + e->type;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t sum = 0;
	/* a small limit: corpus bombs (compressed packets) must stop at it */
	struct scx_pf_opts o = { .on_event = touch, .ctx = &sum, .max_bytes = 32u << 20 };
	struct scx_pf_trace *t = NULL;

	/* the last byte picks the source rule, so every path is reached */
	if (size)
		o.source = data[size - 1] % 3;
	scx_pf_read_mem(data, size, "fuzz", &o, &t);
	if (t) {
		for (unsigned i = 0; i < t->nr_threads; i++)
			sum += (uint64_t)t->threads[i].tid + strlen(t->threads[i].comm);
		for (unsigned i = 0; i < t->nr_processes; i++)
			sum += strlen(t->processes[i].cmdline);
	}
	scx_pf_trace__free(t);
	return sum == 42 ? 0 : 0;
}
