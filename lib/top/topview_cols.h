/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The columns of scx-top's views (topview_cols.c): what a sort key names
 * (topview_action.c) and what a row draws (topview_render.c).  Not an API.
 */
#ifndef SCX_TOPVIEW_COLS_H
#define SCX_TOPVIEW_COLS_H

#include "top/topview.h"

enum cfmt { CF_ID, CF_HEX, CF_LABEL, CF_PARENT, CF_PCT, CF_RATE, CF_NS, CF_MHZ, CF_NUM, CF_NUM1 };

struct col {
	const char *name; /* config/sort name */
	const char *head;
	int width;
	int c; /* enum top_col, or -1 for id/label/parent */
	enum cfmt fmt;
};

/* The columns of view v, ended by one without a name; NULL for the help view. */
const struct col *top_view_cols(enum top_viewid v);
/* How many columns view v has (0 for help). */
int top_view_ncols(enum top_viewid v);
/* The table whose rows view v shows. */
enum top_table_id top_view_table(enum top_viewid v);

#endif
