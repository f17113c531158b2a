// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz what scx-top takes from outside: an scx-agg snapshot line (parsed,
 * then rendered in every view, plain and for a small terminal) and the
 * bytes typed on the terminal (decoded into keys, then applied).
 */
#include <stdlib.h>
#include <string.h>

#include "top/term.h"
#include "top/topconf.h"
#include "top/topview.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct top_model m = { 0 }, prev = { 0 };
	struct top_view v;
	struct top_keymap km;
	struct scx_buf b = { 0 };
	char err[256];
	size_t off = 0;

	top_view_init(&v);
	top_keymap_defaults(&km);
	if (!top_snap_parse(&m, (const char *)data, size, err, sizeof(err))) {
		top_model_carry_hist(&m, &prev);
		for (int view = 0; view < TV__COUNT; view++) {
			v.view = view;
			v.expanded = m.t[TT_PROC].n ? m.t[TT_PROC].rows[0].id : -1;
			v.escapes = false;
			v.rows = 0;
			top_render(&b, &m, &v);
			v.escapes = v.utf8 = true;
			v.rows = 10;
			v.cols = 50;
			top_render(&b, &m, &v);
			scx_buf_reset(&b);
		}
	}
	/* the same bytes as keystrokes */
	while (off < size) {
		int key;
		size_t n = scx_term_decode(data + off, size - off, &key);

		if (!n || n > size - off)
			abort();
		off += n;
		if (key >= SCX_KEY__MAX)
			abort();
		if (key >= 0) {
			if (v.editing && key != SCX_KEY_ENTER && key != SCX_KEY_ESC)
				top_view_edit_key(&v, key == SCX_KEY_BACKSPACE ? 127 : key);
			else
				top_view_action(&v, km.act[key]);
		}
	}
	top_render(&b, &m, &v);
	scx_buf_free(&b);
	top_model_free(&m);
	top_model_free(&prev);
	return 0;
}
