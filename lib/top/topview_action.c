// SPDX-License-Identifier: GPL-2.0
/* scx-top's controller: the names of views, modes, themes and actions, and what an action does to the view. */
#include <string.h>

#include "top/topview_cols.h"

/* ---- names ------------------------------------------------------------------ */

static const char *const view_names[TV__COUNT] = { "cpu", "llc",    "node", "proc",
						   "dsq", "cgroup", "help" };
static const char *const mode_names[TM__COUNT] = { "num", "bar", "spark" };
static const char *const theme_names[TH__COUNT] = { "default", "ocean", "forest", "grey" };

static int by_name(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

const char *top_view_name(enum top_viewid v)
{
	return v < TV__COUNT ? view_names[v] : "?";
}
int top_view_by_name(const char *s)
{
	return by_name(view_names, TV__COUNT, s);
}
const char *top_mode_name(enum top_mode m)
{
	return m < TM__COUNT ? mode_names[m] : "?";
}
int top_mode_by_name(const char *s)
{
	return by_name(mode_names, TM__COUNT, s);
}
const char *top_theme_name(enum top_theme t)
{
	return t < TH__COUNT ? theme_names[t] : "?";
}
int top_theme_by_name(const char *s)
{
	return by_name(theme_names, TH__COUNT, s);
}

static const char *const action_names[TA__COUNT] = {
	[TA_NONE] = "none",
	[TA_VIEW_CPU] = "view-cpu",
	[TA_VIEW_LLC] = "view-llc",
	[TA_VIEW_NODE] = "view-node",
	[TA_VIEW_PROC] = "view-proc",
	[TA_VIEW_DSQ] = "view-dsq",
	[TA_VIEW_CGROUP] = "view-cgroup",
	[TA_HELP] = "help",
	[TA_MODE] = "mode",
	[TA_SORT_NEXT] = "sort-next",
	[TA_SORT_PREV] = "sort-prev",
	[TA_SORT_REVERSE] = "sort-reverse",
	[TA_FILTER] = "filter",
	[TA_PAUSE] = "pause",
	[TA_FASTER] = "faster",
	[TA_SLOWER] = "slower",
	[TA_THEME] = "theme",
	[TA_SAVE] = "save-config",
	[TA_QUIT] = "quit",
	[TA_UP] = "up",
	[TA_DOWN] = "down",
	[TA_PGUP] = "page-up",
	[TA_PGDN] = "page-down",
	[TA_HOME] = "home",
	[TA_END] = "end",
	[TA_ENTER] = "enter",
	[TA_ESC] = "escape",
};

const char *top_action_name(enum top_action a)
{
	return a < TA__COUNT ? action_names[a] : "?";
}
int top_action_by_name(const char *s)
{
	return by_name(action_names, TA__COUNT, s);
}

/* ---- view state and actions ------------------------------------------------ */

void top_view_init(struct top_view *v)
{
	memset(v, 0, sizeof(*v));
	v->view = v->prev_view = TV_CPU;
	v->mode = TM_BAR;
	v->refresh_ms = 1000;
	v->expanded = v->sel_id = -1;
	v->color = v->escapes = true;
	/* most views sort by their id; processes and DSQs by activity */
	v->sort[TV_CPU] = v->sort[TV_LLC] = v->sort[TV_NODE] = 0;
	v->sort_asc[TV_CPU] = v->sort_asc[TV_LLC] = v->sort_asc[TV_NODE] = true;
	v->sort[TV_PROC] = top_col_by_name(TV_PROC, "util");
	v->sort[TV_DSQ] = top_col_by_name(TV_DSQ, "disp");
	v->sort[TV_CGROUP] = top_col_by_name(TV_CGROUP, "util");
}

static void set_view(struct top_view *v, enum top_viewid to)
{
	if (v->view == to) {
		/* pressing the key of the current view goes back (like scxtop) */
		if (to == TV_HELP)
			to = v->prev_view;
		else
			return;
	}
	if (v->view != TV_HELP)
		v->prev_view = v->view;
	v->view = to;
	v->scroll = v->sel = 0;
	v->sel_id = -1;
}

static void move(struct top_view *v, int delta)
{
	int max = v->nr_lines - 1;

	if (v->view == TV_PROC) {
		v->sel_moved = true;
		v->sel += delta;
		if (v->sel > max)
			v->sel = max;
		if (v->sel < 0)
			v->sel = 0;
		if (v->sel < v->scroll)
			v->scroll = v->sel;
		if (v->page > 0 && v->sel >= v->scroll + v->page)
			v->scroll = v->sel - v->page + 1;
	} else {
		v->scroll += delta;
	}
	if (v->scroll > v->nr_lines - v->page)
		v->scroll = v->nr_lines - v->page;
	if (v->scroll < 0)
		v->scroll = 0;
}

/* While the filter prompt is open, Enter applies what was typed and Esc cancels it. */
static void edit_action(struct top_view *v, enum top_action a)
{
	if (a == TA_ENTER) {
		strcpy(v->filter, v->edit);
		v->editing = false;
		v->scroll = v->sel = 0;
	} else if (a == TA_ESC) {
		v->editing = false;
	}
}

/* How far a scrolling action moves; 0 for one that does not scroll. */
static int scroll_delta(const struct top_view *v, enum top_action a)
{
	int page = v->page > 1 ? v->page - 1 : 1;

	switch (a) {
	case TA_UP:
		return -1;
	case TA_DOWN:
		return 1;
	case TA_PGUP:
		return -page;
	case TA_PGDN:
		return page;
	case TA_HOME:
		return -(1 << 30);
	case TA_END:
		return 1 << 30;
	default:
		return 0;
	}
}

static void sort_step(struct top_view *v, bool next)
{
	int n = top_view_ncols(v->view);

	if (!n)
		return;
	v->sort[v->view] = (v->sort[v->view] + (next ? 1 : n - 1)) % n;
	/* ids and names read best ascending, numbers descending */
	v->sort_asc[v->view] = top_view_cols(v->view)[v->sort[v->view]].c < 0;
}

/* Refresh steps as in scxtop: 100 ms down to 100, then halving, 50 ms minimum. */
static void refresh_faster(struct top_view *v)
{
	v->refresh_ms = v->refresh_ms > 100 ? v->refresh_ms - 100 : SCX_MAX(v->refresh_ms / 2, 50u);
}

static void refresh_slower(struct top_view *v)
{
	v->refresh_ms = v->refresh_ms >= 100 ? v->refresh_ms + 100 : v->refresh_ms * 2;
	if (v->refresh_ms > 60000)
		v->refresh_ms = 60000;
}

/* Esc leaves help, else clears the filter, else folds the threads. */
static void escape(struct top_view *v)
{
	if (v->view == TV_HELP)
		set_view(v, TV_HELP);
	else if (v->filter[0])
		v->filter[0] = 0;
	else
		v->expanded = -1;
}

_Static_assert(TA_HELP - TA_VIEW_CPU == TV_HELP - TV_CPU,
	       "the view actions are in the order of the views");

int top_view_action(struct top_view *v, enum top_action a)
{
	int delta = scroll_delta(v, a);

	if (v->editing) {
		edit_action(v, a);
		return 0;
	}
	if (delta) {
		move(v, delta);
		return 0;
	}
	if (a >= TA_VIEW_CPU && a <= TA_HELP) {
		set_view(v, (enum top_viewid)(TV_CPU + (a - TA_VIEW_CPU)));
		return 0;
	}
	switch (a) {
	case TA_MODE:
		v->mode = (v->mode + 1) % TM__COUNT;
		break;
	case TA_SORT_NEXT:
	case TA_SORT_PREV:
		sort_step(v, a == TA_SORT_NEXT);
		break;
	case TA_SORT_REVERSE:
		v->sort_asc[v->view] = !v->sort_asc[v->view];
		break;
	case TA_FILTER:
		v->editing = true;
		strcpy(v->edit, v->filter);
		break;
	case TA_PAUSE:
		v->paused = !v->paused;
		break;
	case TA_FASTER:
		refresh_faster(v);
		break;
	case TA_SLOWER:
		refresh_slower(v);
		break;
	case TA_THEME:
		v->theme = (v->theme + 1) % TH__COUNT;
		break;
	case TA_SAVE:
		return 2;
	case TA_QUIT:
		if (v->view == TV_HELP) {
			set_view(v, TV_HELP);
			return 0;
		}
		return 1;
	case TA_ESC:
		escape(v);
		break;
	case TA_ENTER:
		v->want_toggle = true;
		break;
	default:
		break;
	}
	return 0;
}

void top_view_edit_key(struct top_view *v, int ch)
{
	size_t n = strlen(v->edit);

	if (ch == 127 || ch == 8) {
		if (n)
			v->edit[n - 1] = 0;
	} else if (ch >= 32 && ch < 127 && n + 1 < sizeof(v->edit)) {
		v->edit[n] = (char)ch;
		v->edit[n + 1] = 0;
	}
}
