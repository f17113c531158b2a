// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz scx-top's config parser: any bytes parse with warnings at worst, and
 * what the parser leaves in the view and keymap writes out as a file that
 * parses back without a warning to the same keymap.
 */
#include <stdlib.h>
#include <string.h>

#include "top/topconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct top_view v, v2;
	struct top_keymap km, km2;
	struct scx_buf b = { 0 };

	top_view_init(&v);
	top_keymap_defaults(&km);
	top_conf_parse((const char *)data, size, "fuzz", &v, &km, NULL, NULL);
	if (v.view >= TV__COUNT || v.mode >= TM__COUNT || v.theme >= TH__COUNT ||
	    v.refresh_ms < 50 || v.refresh_ms > 60000)
		abort();
	top_conf_format(&b, &v, &km);
	top_view_init(&v2);
	memset(&km2, 0, sizeof(km2));
	if (top_conf_parse(b.data, b.len, "again", &v2, &km2, NULL, NULL) != 0)
		abort();
	if (memcmp(&km, &km2, sizeof(km)) || v2.mode != v.mode || v2.theme != v.theme)
		abort();
	scx_buf_free(&b);
	return 0;
}
