// SPDX-License-Identifier: GPL-2.0
/* The mitosis config validator and the pretty printer on arbitrary JSON. */
#include <stdint.h>
#include <stdlib.h>

#include "prof/prof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scx_buf b = { 0 };
	char err[512];

	prof_mitosis_validate((const char *)data, size, err, sizeof(err));
	prof_json_pretty((const char *)data, size, &b);
	scx_buf_free(&b);
	return 0;
}
