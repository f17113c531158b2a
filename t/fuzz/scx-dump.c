// SPDX-License-Identifier: GPL-2.0
/* Fuzz the sched_ext debug dump parser: the input is split into lines. */
#include <stdlib.h>
#include <string.h>

#include "capture/scx_dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct scx_event out[2];
	struct scx_dump d;

	scx_dump__init(&d);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int n = scx_dump__line(&d, p, len, 1, 0, out);

		if (n < 1 || n > 2 || out[0].type != SCX_EV_SCX_DUMP_LINE ||
		    out[0].dump_line.line[SCX_DUMP_LINE_LEN - 1] != '\0')
			abort();
		if (n == 2 && out[1].type != SCX_EV_SCX_DUMP_CPU &&
		    out[1].type != SCX_EV_SCX_DUMP_TASK)
			abort();
		if (n == 2 && out[1].type == SCX_EV_SCX_DUMP_TASK &&
		    (out[1].dump_task.comm[SCX_COMM_LEN - 1] ||
		     out[1].dump_task.cpus[SCX_DUMP_MASK_LEN - 1]))
			abort();
		p += len + 1;
	}
	return 0;
}
