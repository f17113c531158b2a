// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: a ring-buffer sample as bpf/events.bpf.c hands it over (records
 * back to back), through the decoder and the NDJSON encoder.  The producer is
 * our own BPF, but a decoder bug must not turn into a crash or an endless loop.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "stream/stream.h"
#include "core/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* records are 8-aligned in the ring: copy so the decoder sees that too */
	uint64_t *buf = malloc(size + 8);
	struct scx_buf out = { 0 };
	struct scx_event e;
	size_t off = 0;

	memcpy(buf, data, size);
	while (off < size) {
		int n = scx_capture_decode((char *)buf + off, size - off, &e);

		if (n <= 0)
			break;
		if (e.type != SCX_EV_NONE)
			scx_event_to_json(&out, &e);
		off += n;
	}
	scx_buf_free(&out);
	free(buf);
	return 0;
}
