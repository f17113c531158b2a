// SPDX-License-Identifier: GPL-2.0
/* scx-top's renderer: one frame of the model in the view's state (top_render). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top/topview_cols.h"

/* ---- frame building --------------------------------------------------------- */

/* Colour roles; a theme maps each to SGR parameters. */
enum role {
	R_NONE,
	R_TITLE,
	R_HEAD,
	R_TAB,
	R_LOW,
	R_MID,
	R_HIGH,
	R_ALERT,
	R_DIM,
	R_GROUP,
	R_SEL,
	R__COUNT
};

static const char *const themes[TH__COUNT][R__COUNT] = {
	[TH_DEFAULT] = { "", "1;36", "30;46", "1;30;46", "32", "33", "31", "1;37;41", "90",
			 "1;34", "30;47", },
	[TH_OCEAN] = { "", "1;34", "37;44", "1;33;44", "36", "34", "35", "1;37;45", "90", "1;36",
		       "30;46", },
	[TH_FOREST] = { "", "1;32", "30;42", "1;37;42", "32", "92", "33", "1;37;41", "90", "1;32",
			"30;42", },
	[TH_GREY] = { "", "1", "7", "1;7", "37", "97", "1;97", "1;7", "90", "1", "7" },
};

struct frame {
	struct scx_buf *out;
	const struct top_view *v;
	int col;	/* display columns used on the current line */
	int max;	/* columns available; < 0 no limit */
	int line;	/* lines emitted */
	bool sgr;	/* an SGR is active */
	bool insel;	/* drawing the selected row: one attribute for all of it */
	enum role role; /* of the active SGR */
};

static void f_sgr(struct frame *f, enum role r)
{
	const char *p;

	if (!f->v->escapes || (f->insel && r != R_SEL))
		return;
	if (r == R_NONE) {
		if (f->sgr)
			scx_buf_addstr(f->out, "\033[0m");
		f->sgr = false;
		return;
	}
	if (!f->v->color) {
		/* NO_COLOR: reverse video and bold only, so the header and the
		 * selection still stand out without any colour */
		p = r == R_HEAD || r == R_SEL || r == R_TAB || r == R_ALERT ? "7" :
		    r == R_TITLE || r == R_GROUP			    ? "1" :
									      NULL;
	} else {
		p = themes[f->v->theme][r];
	}
	if (f->sgr && f->role == r)
		return; /* already on: sparklines repeat a colour a lot */
	if (f->sgr)
		scx_buf_addstr(f->out, "\033[0m");
	f->sgr = false;
	if (p && *p) {
		scx_buf_addstr(f->out, "\033[");
		scx_buf_addstr(f->out, p);
		scx_buf_addstr(f->out, "m");
		f->sgr = true;
		f->role = r;
	}
}

/* n bytes of ASCII text (one column each), clipped to the line. */
static void f_text(struct frame *f, const char *s, size_t n)
{
	if (f->max >= 0 && f->col + (int)n > f->max)
		n = f->col < f->max ? (size_t)(f->max - f->col) : 0;
	scx_buf_reserve(f->out, n);
	/* comms come from the traced machine */
	for (size_t i = 0; i < n; i++)
		f->out->data[f->out->len++] = scx_printable((unsigned char)s[i]);
	f->col += (int)n;
}

static void f_str(struct frame *f, const char *s)
{
	f_text(f, s, strlen(s));
}

static void f_printf(struct frame *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void f_printf(struct frame *f, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	f_text(f, buf, n < 0 ? 0 : SCX_MIN((size_t)n, sizeof(buf) - 1));
}

/* One glyph of one column (UTF-8 bytes g, or the ASCII fallback a). */
static void f_glyph(struct frame *f, const char *g, char a)
{
	if (f->max >= 0 && f->col >= f->max)
		return;
	if (f->v->utf8)
		scx_buf_addstr(f->out, g);
	else
		scx_buf_add(f->out, &a, 1);
	f->col++;
}

static void f_pad(struct frame *f, int to)
{
	int n;

	if (f->max >= 0 && to > f->max)
		to = f->max;
	n = to - f->col;
	if (n <= 0)
		return;
	scx_buf_reserve(f->out, n);
	memset(f->out->data + f->out->len, ' ', n);
	f->out->len += n;
	f->col = to;
}

static void f_eol(struct frame *f)
{
	f->insel = false;
	f_sgr(f, R_NONE);
	if (f->v->escapes) {
		scx_buf_addstr(f->out, "\033[K");
		if (f->v->rows > 0 && f->line + 1 >= f->v->rows) {
			/* no newline after the last row: it would scroll */
			f->line++;
			f->col = 0;
			return;
		}
		scx_buf_addstr(f->out, "\r\n");
	} else {
		/* plain text: drop the trailing blanks of padded columns */
		while (f->out->len && f->out->data[f->out->len - 1] == ' ')
			f->out->len--;
		scx_buf_addstr(f->out, "\n");
	}
	f->line++;
	f->col = 0;
}

static bool f_full(const struct frame *f)
{
	return f->v->rows > 0 && f->line >= f->v->rows;
}

static enum role level(double util)
{
	return util >= 0.9 ? R_HIGH : util >= 0.5 ? R_MID : R_LOW;
}

/* ---- rows ------------------------------------------------------------------- */

static const char *cell(const struct col *c, const struct top_row *r, char *buf, size_t size)
{
	switch (c->fmt) {
	case CF_ID:
		if (r->id >= 0)
			return top_fmt_fixed((double)r->id, 0, "", buf, size);
		snprintf(buf, size, "%lld", (long long)r->id);
		return buf;
	case CF_HEX:
		/* built-in DSQs (SCX_DSQ_FLAG_BUILTIN, the top bit) by name */
		if ((uint64_t)r->id == 0x8000000000000001ull)
			snprintf(buf, size, "global");
		else if ((uint64_t)r->id == 0x8000000000000002ull)
			snprintf(buf, size, "local");
		else if (((uint64_t)r->id >> 62) == 3)
			snprintf(buf, size, "local_on:%llu",
				 (unsigned long long)((uint64_t)r->id & 0xffffffffull));
		else if ((uint64_t)r->id >> 63)
			snprintf(buf, size, "0x%llx", (unsigned long long)r->id);
		else
			snprintf(buf, size, "%lld", (long long)r->id);
		return buf;
	case CF_LABEL:
		return r->label;
	case CF_PARENT:
		if (r->aux < 0 && r->parent < 0)
			return "-";
		snprintf(buf, size, "%lld", (long long)(c->name[0] == 'l' ? r->aux : r->parent));
		return buf;
	default:
		break;
	}
	if (!r->has[c->c])
		return "-";
	switch (c->fmt) {
	case CF_PCT:
		top_fmt_fixed(r->v[c->c] * 100, 1, "", buf, size);
		break;
	case CF_RATE:
		top_fmt_rate(r->v[c->c], buf, size);
		break;
	case CF_NS:
		top_fmt_ns(r->v[c->c], buf, size);
		break;
	case CF_MHZ:
		if (r->v[c->c] <= 0)
			return "-";
		top_fmt_fixed(r->v[c->c] / 1000, 0, "", buf, size);
		break;
	case CF_NUM1:
		top_fmt_fixed(r->v[c->c], 1, "", buf, size);
		break;
	default:
		top_fmt_fixed(r->v[c->c], 0, "", buf, size);
		break;
	}
	return buf;
}

#define BAR_W 12

static void f_bar(struct frame *f, double util, int w)
{
	int n = !(util > 0) ? 0 : util >= 1 ? w : (int)(util * w + 0.5);

	f_text(f, "[", 1);
	f_sgr(f, level(util));
	for (int i = 0; i < n; i++)
		f_text(f, "|", 1);
	f_sgr(f, R_NONE);
	f_pad(f, f->col + (w - n));
	f_text(f, "]", 1);
}

static void f_spark(struct frame *f, const struct top_row *r, int w)
{
	static const char *const g[8] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char a[8] = { '_', '.', ':', '-', '=', '+', '*', '#' };
	int n = SCX_MIN((int)r->nr_hist, w);
	double top = 0, scale;

	/* full height is 25%, 50% or 100%, the least that holds the history:
	 * light loads keep a visible shape, and rows stay comparable */
	for (int i = (int)r->nr_hist - n; i < (int)r->nr_hist; i++)
		top = r->hist[i] > top ? r->hist[i] : top;
	scale = top <= 0.25 ? 4 : top <= 0.5 ? 2 : 1;
	f_pad(f, f->col + (w - n));
	for (int i = (int)r->nr_hist - n; i < (int)r->nr_hist; i++) {
		double u = r->hist[i] * scale;
		/* compare before converting: a NaN or huge value is not an int */
		int k = !(u > 0) ? 0 : u >= 1 ? 7 : (int)(u * 8);

		f_sgr(f, level(r->hist[i]));
		f_glyph(f, g[k], a[k]);
	}
	f_sgr(f, R_NONE);
}

static int graph_width(const struct top_view *v)
{
	return v->mode == TM_BAR ? BAR_W + 3 : v->mode == TM_SPARK ? 17 : 0;
}

static void f_row(struct frame *f, const struct col *cols, const struct top_row *r, int indent,
		  bool sel)
{
	char buf[64];
	int x = 0;

	if (sel) {
		f_sgr(f, R_SEL);
		f->insel = true;
	}
	for (int i = 0; cols[i].name; i++) {
		const struct col *c = &cols[i];
		const char *s = cell(c, r, buf, sizeof(buf));
		int w = c->width;

		if (c->fmt == CF_LABEL) {
			f_pad(f, x + indent);
			f_text(f, s, strnlen(s, w - 1 - indent));
		} else {
			{
				f_pad(f, x + w - 1 - (int)strlen(s));
				if (c->c == TC_UTIL && r->has[TC_UTIL] && f->v->mode == TM_NUM)
					f_sgr(f, level(r->v[TC_UTIL]));
				f_str(f, s);
				if (c->c == TC_UTIL && f->v->mode == TM_NUM)
					f_sgr(f, R_NONE);
			}
		}
		x += w;
		f_pad(f, x);
		if (c->c == TC_UTIL && f->v->mode != TM_NUM) {
			if (f->v->mode == TM_BAR)
				f_bar(f, r->has[TC_UTIL] ? SCX_MIN(r->v[TC_UTIL], 1.0) : 0, BAR_W);
			else
				f_spark(f, r, graph_width(f->v) - 1);
			x += graph_width(f->v);
			f_pad(f, x);
		}
	}
	if (sel)
		f_pad(f, f->max >= 0 ? f->max : x);
	f_eol(f);
}

static void f_header(struct frame *f, const struct col *cols, int sort, bool asc)
{
	int x = 0;

	f_sgr(f, R_HEAD);
	for (int i = 0; cols[i].name; i++) {
		const struct col *c = &cols[i];
		int len = (int)strlen(c->head) + (i == sort);

		if (c->fmt == CF_LABEL || (i == 0 && c->fmt != CF_HEX)) {
			if (c->fmt == CF_LABEL)
				f_pad(f, x);
		} else {
			f_pad(f, x + c->width - 1 - len);
		}
		if (i == 0 && c->fmt != CF_LABEL)
			f_pad(f, x + c->width - 1 - len);
		f_str(f, c->head);
		if (i == sort) {
			if (f->v->utf8)
				f_glyph(f, asc ? "▲" : "▼", asc ? '^' : 'v');
			else
				f_text(f, asc ? "^" : "v", 1);
		}
		x += c->width;
		f_pad(f, x);
		if (c->c == TC_UTIL && f->v->mode != TM_NUM) {
			f_str(f, f->v->mode == TM_BAR ? "" : "history");
			x += graph_width(f->v);
			f_pad(f, x);
		}
	}
	f_pad(f, f->max >= 0 ? f->max : 0);
	f_eol(f);
}

/* ---- sorting and filtering -------------------------------------------------- */

struct sort_ctx {
	const struct col *c;
	bool asc;
	bool group; /* cpu view: keep nodes together */
};

static struct sort_ctx sctx; /* qsort has no context argument in C11 */

static int cmp_rows(const void *a, const void *b)
{
	const struct top_row *x = *(const struct top_row *const *)a;
	const struct top_row *y = *(const struct top_row *const *)b;
	int r = 0;

	if (sctx.group && x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (sctx.c->c >= 0) {
		double vx = x->has[sctx.c->c] ? x->v[sctx.c->c] : -1;
		double vy = y->has[sctx.c->c] ? y->v[sctx.c->c] : -1;

		r = vx < vy ? -1 : vx > vy;
	} else if (sctx.c->fmt == CF_LABEL) {
		r = strcmp(x->label, y->label);
	} else if (sctx.c->fmt == CF_PARENT) {
		int64_t px = sctx.c->name[0] == 'l' ? x->aux : x->parent;
		int64_t py = sctx.c->name[0] == 'l' ? y->aux : y->parent;

		r = px < py ? -1 : px > py;
	} else if (sctx.c->fmt == CF_HEX) {
		r = (uint64_t)x->id<(uint64_t)y->id ? -1 : (uint64_t)x->id>(uint64_t) y->id;
	}
	if (!sctx.asc)
		r = -r;
	if (!r)
		r = x->id < y->id ? -1 : x->id > y->id;
	return r;
}

static bool match(const struct top_view *v, const struct top_row *r)
{
	char *end;
	long pid;

	if (!v->filter[0])
		return true;
	pid = strtol(v->filter, &end, 10);
	if (!*end && end != v->filter)
		return r->id == pid || r->parent == pid;
	return strstr(r->label, v->filter) != NULL;
}

/* Rows of a table that pass the filter, sorted per the view. */
static unsigned sorted(const struct top_table *t, const struct top_view *v, enum top_viewid view,
		       const struct top_row ***out, bool filter, int64_t parent)
{
	const struct top_row **idx = scx_xcalloc(t->n ? t->n : 1, sizeof(*idx));
	unsigned n = 0;

	for (unsigned i = 0; i < t->n; i++) {
		if (parent >= 0 && t->rows[i].parent != parent)
			continue;
		if (filter && !match(v, &t->rows[i]))
			continue;
		idx[n++] = &t->rows[i];
	}
	sctx.c = &top_view_cols(view)[v->sort[view] < top_view_ncols(view) ? v->sort[view] : 0];
	sctx.asc = v->sort_asc[view];
	sctx.group = view == TV_CPU;
	qsort(idx, n, sizeof(*idx), cmp_rows);
	*out = idx;
	return n;
}

/* ---- the frame -------------------------------------------------------------- */

static void f_title(struct frame *f, const struct top_model *m)
{
	double win = m->end_ns > m->start_ns ? (m->end_ns - m->start_ns) / 1e9 : 0;
	char b1[32];

	/* states and losses first: they must survive a narrow terminal */
	f_sgr(f, R_TITLE);
	f_str(f, "scx-top");
	f_sgr(f, R_NONE);
	if (f->v->paused) {
		f_text(f, "  ", 2);
		f_sgr(f, R_ALERT);
		f_str(f, "PAUSED");
		f_sgr(f, R_NONE);
	}
	if (f->v->ended) {
		f_text(f, "  ", 2);
		f_sgr(f, R_TITLE);
		f_str(f, "END OF INPUT");
		f_sgr(f, R_NONE);
	}
	if (m->lost_total) {
		f_text(f, "  ", 2);
		f_sgr(f, R_ALERT);
		f_printf(f, "LOST %llu events (%llu in window)", (unsigned long long)m->lost_total,
			 (unsigned long long)m->lost);
		f_sgr(f, R_NONE);
	}
	if (m->tasks_dropped_total) { /* their per-task rows are incomplete */
		f_text(f, "  ", 2);
		f_sgr(f, R_ALERT);
		f_printf(f, "TASKS DROPPED %llu (%llu in window)",
			 (unsigned long long)m->tasks_dropped_total,
			 (unsigned long long)m->tasks_dropped);
		f_sgr(f, R_NONE);
	}
	f_printf(f, "  %s  cpus %u  llcs %u  nodes %u  window %.2fs  events %s/s", m->source,
		 m->nr_cpus, m->nr_llcs, m->nr_nodes, win,
		 top_fmt_rate(win > 0 ? m->events / win : 0, b1, sizeof(b1)));
	if (m->scheduler[0])
		f_printf(f, "  sched %s", m->scheduler);
	f_eol(f);
	if (m->scx.ts) {
		struct scx_buf b = { 0 };

		scx_stats_text(&b, &m->scx);
		f_text(f, b.data, b.len);
		f_eol(f);
		scx_buf_free(&b);
	}
}

/* "12.3k/s", or "-" for a rate the stream cannot give */
static const char *per_s(bool known, double v, char buf[32])
{
	if (!known)
		return "-";
	top_fmt_rate(v, buf, 28);
	strcat(buf, "/s");
	return buf;
}

static void f_summary(struct frame *f, const struct top_model *m)
{
	double util = 0, sw = 0, wake = 0, mig = 0, xllc = 0, xnode = 0, p99 = 0;
	/* a stream without wakeup or migrate events leaves those unknown: "-", never 0 */
	bool has_wake = false, has_mig = false;
	/* without a topology there are no nodes: the cpus add up the same */
	bool nodes = m->t[TT_NODE].n > 0;
	const struct top_table *t = nodes ? &m->t[TT_NODE] : &m->t[TT_CPU];
	char a[6][32];
	unsigned ncpu = 0;

	for (unsigned i = 0; i < m->t[TT_CPU].n; i++) {
		const struct top_row *r = &m->t[TT_CPU].rows[i];

		util += r->v[TC_UTIL];
		ncpu++;
	}
	ncpu = SCX_MAX(ncpu, m->nr_cpus); /* cpus with no row were idle */
	for (unsigned i = 0; i < t->n; i++) {
		sw += t->rows[i].v[TC_SW];
		wake += t->rows[i].v[TC_WAKE];
		mig += t->rows[i].v[TC_MIG];
		has_wake |= t->rows[i].has[TC_WAKE];
		has_mig |= t->rows[i].has[TC_MIG];
		xllc += t->rows[i].v[TC_XLLC];
		xnode += t->rows[i].v[TC_XNODE];
		if (t->rows[i].has[TC_P99])
			p99 = SCX_MAX(p99, t->rows[i].v[TC_P99]);
	}
	f_printf(f, "util %.1f%%  sw %s  wake %s  worst %s lat.p99 %s  mig %s (xllc %s  xnode %s)",
		 ncpu ? util * 100 / ncpu : 0, per_s(true, sw, a[0]), per_s(has_wake, wake, a[1]),
		 nodes ? "node" : "cpu", p99 > 0 ? top_fmt_ns(p99, a[2], 32) : "-",
		 per_s(has_mig, mig, a[3]), has_mig ? top_fmt_rate(xllc, a[4], 32) : "-",
		 has_mig ? top_fmt_rate(xnode, a[5], 32) : "-");
	f_eol(f);
}

static void f_tabs(struct frame *f)
{
	static const struct {
		const char *key, *name;
	} tabs[] = {
		{ "c", "cpu" }, { "l", "llc" },	   { "n", "node" }, { "p", "proc" },
		{ "s", "dsq" }, { "o", "cgroup" }, { "h", "help" },
	};
	const struct col *cols = top_view_cols(f->v->view);

	for (unsigned i = 0; i < SCX_ARRAY_SIZE(tabs); i++) {
		bool cur = f->v->view == (enum top_viewid)i;

		f_text(f, " ", 1);
		f_sgr(f, cur ? R_TAB : R_DIM);
		const char *k = f->v->keyname[TA_VIEW_CPU + i], *p;
		int kl;

		/* a letter bound to it if there is one, else the first key */
		for (p = k; *p && !(isalnum((unsigned char)p[0]) && (!p[1] || p[1] == ' '));
		     p += strcspn(p, " "), p += *p == ' ')
			;
		if (!*p)
			p = k[0] ? k : tabs[i].key;
		kl = (int)strcspn(p, " ");
		f_printf(f, "%.*s %s", kl, p, tabs[i].name);
		f_sgr(f, R_NONE);
	}
	f_printf(f, "   mode %s", top_mode_name(f->v->mode));
	if (cols)
		f_printf(f, "  sort %s%s", cols[f->v->sort[f->v->view]].name,
			 f->v->sort_asc[f->v->view] ? "" : " (desc)");
	if (f->v->filter[0])
		f_printf(f, "  filter '%s'", f->v->filter);
	f_eol(f);
}

static void f_footer(struct frame *f)
{
	if (!f->v->escapes)
		return;
	while (f->line < f->v->rows - 1)
		f_eol(f);
	f->max = f->v->cols - 1; /* never write the last cell: it may scroll */
	if (f->v->editing) {
		f_sgr(f, R_SEL);
		f_printf(f, "filter (comm or pid, Enter applies, Esc cancels): %s", f->v->edit);
		f_sgr(f, R_NONE);
		scx_buf_addstr(f->out, "\033[?25h"); /* a cursor where the typing goes */
	} else if (f->v->status[0]) {
		f_sgr(f, R_ALERT);
		f_str(f, f->v->status);
	} else {
		f_sgr(f, R_DIM);
		f_str(f, "h help  q quit  space pause  < > sort  r reverse  m mode  / filter  "
			 "+ - refresh  t theme  W save");
	}
	f_eol(f);
}

struct help_line {
	enum top_action a;
	const char *what;
};

static int f_help(struct frame *f, const struct top_model *m, int first, int avail)
{
	static const struct help_line keys[] = {
		{ TA_VIEW_CPU, "per-CPU view, grouped by NUMA node" },
		{ TA_VIEW_LLC, "per-LLC view" },
		{ TA_VIEW_NODE, "per-node view" },
		{ TA_VIEW_PROC, "processes; Enter shows/hides the threads of the selected one" },
		{ TA_VIEW_DSQ, "sched_ext DSQs: queueing latency, depth, vtime, slice used" },
		{ TA_VIEW_CGROUP, "cgroups: CPU time, preemptions, wakeup latency" },
		{ TA_HELP, "this help (again, q or Esc to leave)" },
		{ TA_MODE, "cycle display: numbers, bars, sparklines (utilisation history)" },
		{ TA_SORT_NEXT, "sort by the next column" },
		{ TA_SORT_PREV, "sort by the previous column" },
		{ TA_SORT_REVERSE, "reverse the sort order" },
		{ TA_FILTER, "filter processes by comm substring or pid" },
		{ TA_PAUSE, "pause the display (input is still read)" },
		{ TA_FASTER, "refresh faster" },
		{ TA_SLOWER, "refresh slower" },
		{ TA_THEME, "next colour theme (NO_COLOR disables colour)" },
		{ TA_SAVE, "write settings and keymap to the config file" },
		{ TA_UP, "scroll/select up" },
		{ TA_DOWN, "scroll/select down" },
		{ TA_PGUP, "page up" },
		{ TA_PGDN, "page down" },
		{ TA_HOME, "top" },
		{ TA_END, "bottom" },
		{ TA_ESC, "leave help, clear the filter, fold threads" },
		{ TA_QUIT, "quit" },
	};
	struct scx_buf lines = { 0 };
	char *p, *nl;
	int i = 0;

	scx_buf_printf(&lines, "settings: refresh %u ms  mode %s  theme %s%s  view %s\n",
		       f->v->refresh_ms, top_mode_name(f->v->mode), top_theme_name(f->v->theme),
		       f->v->color ? "" : " (colour off)", top_view_name(f->v->prev_view));
	scx_buf_printf(&lines, "config:   %s\n", f->v->config_path ? f->v->config_path : "(none)");
	scx_buf_printf(&lines, "input:    %s, %llu windows so far\n", m->source,
		       (unsigned long long)m->seq);
	scx_buf_printf(&lines, "\nkey         action          what it does\n");
	for (unsigned k = 0; k < SCX_ARRAY_SIZE(keys); k++)
		scx_buf_printf(&lines, "%-11s %-15s %s\n",
			       f->v->keyname[keys[k].a][0] ? f->v->keyname[keys[k].a] : "-",
			       top_action_name(keys[k].a), keys[k].what);
	scx_buf_printf(
		&lines,
		"\nLAT.pNN: wakeup-to-run latency percentiles (waking until switched in).\n"
		"MIG/s: migrations in; XLLC/s and XNODE/s: those that crossed an LLC or node.\n"
		"SIRQ%%: softirq time; MHz: last reported frequency; rates are per second\n"
		"of event time, over the last window.\n");
	scx_buf_add(&lines, "", 1);
	for (p = lines.data; p && *p; p = nl + 1, i++) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		if (i >= first && (avail < 0 || i < first + avail) && !f_full(f)) {
			f_text(f, p, nl - p);
			f_eol(f);
		}
	}
	scx_buf_free(&lines);
	return i;
}

static void f_group(struct frame *f, const struct top_model *m, int64_t node)
{
	const struct top_row *n = top_table_find(&m->t[TT_NODE], node);
	unsigned cpus = 0;
	char b[32];

	for (unsigned i = 0; i < m->t[TT_CPU].n; i++)
		cpus += m->t[TT_CPU].rows[i].parent == node;
	f_sgr(f, R_GROUP);
	f_printf(f, "node %lld: %u cpus", (long long)node, cpus);
	if (n && n->has[TC_UTIL])
		f_printf(f, ", util %.1f%%", n->v[TC_UTIL] * 100);
	if (n && n->has[TC_P99])
		f_printf(f, ", lat.p99 %s", top_fmt_ns(n->v[TC_P99], b, sizeof(b)));
	f_sgr(f, R_NONE);
	f_eol(f);
}

/*
 * The data lines of the current view, as (row, kind) pairs, so scrolling and
 * selection work on one list whatever the view mixes in (group headers,
 * threads under their process).
 */
struct dline {
	const struct top_row *r;
	int kind; /* 0 row, 1 node header, 2 thread */
};

static unsigned build_lines(const struct top_model *m, const struct top_view *v, struct dline **out)
{
	const struct top_row **idx, **tidx;
	enum top_viewid view = v->view;
	const struct top_table *t = &m->t[top_view_table(view)];
	struct dline *l;
	unsigned n, nl = 0, cap;
	int64_t node = INT64_MIN;

	n = sorted(t, v, view, &idx, view == TV_PROC, -1);
	cap = n * 2 + 16;
	l = scx_xcalloc(cap, sizeof(*l));
	for (unsigned i = 0; i < n; i++) {
		if (view == TV_CPU && idx[i]->parent != node) {
			node = idx[i]->parent;
			l[nl++] = (struct dline){ idx[i], 1 };
		}
		l[nl++] = (struct dline){ idx[i], 0 };
		if (view == TV_PROC && idx[i]->id == v->expanded) {
			/* the threads, sorted like their processes */
			unsigned nt =
				sorted(&m->t[TT_THREAD], v, TV_PROC, &tidx, false, idx[i]->id);

			if (nl + nt + (n - i) + 1 > cap) {
				cap = nl + nt + (n - i) + 16;
				l = scx_xrealloc(l, cap * sizeof(*l));
			}
			for (unsigned j = 0; j < nt; j++)
				l[nl++] = (struct dline){ tidx[j], 2 };
			free(tidx);
		}
	}
	free(idx);
	*out = l;
	return nl;
}

/* The selection stays on its process when the order changes. */
static void keep_selection(struct top_view *v, const struct dline *lines, unsigned nl)
{
	if (v->view == TV_PROC && !v->sel_moved && v->sel_id >= 0) {
		for (unsigned i = 0; i < nl; i++) {
			if (lines[i].kind == 0 && lines[i].r->id == v->sel_id) {
				v->sel = (int)i;
				break;
			}
		}
	}
	v->sel_moved = false;
}

/* Enter on a process folds or unfolds its threads; the lines are built again. */
static unsigned toggle_threads(const struct top_model *m, struct top_view *v, struct dline **lines,
			       unsigned nl)
{
	int64_t id = v->sel < (int)nl ? (*lines)[v->sel].r->id : -1;

	if (v->sel < (int)nl && (*lines)[v->sel].kind == 0)
		v->expanded = v->expanded == id ? -1 : id;
	free(*lines);
	nl = build_lines(m, v, lines);
	v->nr_lines = (int)nl;
	/* unfolding may move the process: find it again */
	for (unsigned i = 0; i < nl; i++)
		if ((*lines)[i].kind == 0 && (*lines)[i].r->id == id)
			v->sel = (int)i;
	return nl;
}

/* Keep scroll and selection inside the nl data lines, avail of them shown. */
static void clamp_scroll(struct top_view *v, const struct dline *lines, unsigned nl, int avail)
{
	if (v->sel >= (int)nl)
		v->sel = nl ? (int)nl - 1 : 0;
	if (avail > 0 && v->scroll > (int)nl - avail)
		v->scroll = (int)nl - avail;
	if (v->scroll < 0 || avail < 0)
		v->scroll = 0;
	if (avail > 0 && v->view == TV_PROC) {
		if (v->sel < v->scroll)
			v->scroll = v->sel;
		if (v->sel >= v->scroll + avail)
			v->scroll = v->sel - avail + 1;
	}
	if (v->view == TV_PROC)
		v->sel_id = v->sel < (int)nl && lines[v->sel].kind == 0 ? lines[v->sel].r->id : -1;
}

/* Why a view has no rows, for the line shown instead. */
static const char *empty_reason(const struct top_model *m, const struct top_view *v)
{
	if (v->view == TV_DSQ)
		return "no DSQ data: the stream has no sched_ext switch or dsq_insert events";
	if ((v->view == TV_LLC || v->view == TV_NODE) && m->t[TT_CPU].n)
		return "no LLC or node groups: the input has no CPU topology (see --topology)";
	if (v->view == TV_CGROUP)
		return "no cgroup rows: the input carries no cgroup ids "
		       "(cgroup v2, scx-events without --no-cgroups)";
	if ((v->view == TV_PROC || v->view == TV_DSQ) && !strcmp(m->source, TOP_SOURCE_KERNEL))
		return "no per-task or DSQ rows: the input has only kernel aggregates "
		       "(scx-events --aggregate)";
	if (v->view == TV_PROC && m->tasks_off)
		return "collecting per-task statistics: they start with the next window";
	if (v->filter[0] && v->view == TV_PROC)
		return "no process matches the filter";
	return m->seq	? "no data in this window" :
	       v->ended ? "the input held no events" :
			  "waiting for input...";
}

/* A data view: its header, then the lines from the scroll position that fit in avail. */
static void f_data(struct frame *f, const struct top_model *m, struct top_view *v,
		   const struct col *cols, int avail)
{
	struct dline *lines = NULL;
	unsigned nl;
	int first;

	f_header(f, cols, v->sort[v->view], v->sort_asc[v->view]);
	nl = build_lines(m, v, &lines);
	v->nr_lines = (int)nl;
	keep_selection(v, lines, nl);
	if (v->view == TV_PROC && v->want_toggle)
		nl = toggle_threads(m, v, &lines, nl);
	v->want_toggle = false;
	clamp_scroll(v, lines, nl, avail);
	first = v->scroll;
	for (unsigned i = first; i < nl; i++) {
		if (avail == -2 || (avail > 0 && (int)i >= first + avail))
			break;
		if (lines[i].kind == 1)
			f_group(f, m, lines[i].r->parent);
		else
			f_row(f, cols, lines[i].r, lines[i].kind == 2 ? 2 : 0,
			      v->escapes && v->view == TV_PROC && (int)i == v->sel);
	}
	if (!nl) {
		f_sgr(f, R_DIM);
		f_str(f, empty_reason(m, v));
		f_eol(f);
	}
	free(lines);
}

void top_render(struct scx_buf *out, const struct top_model *m, struct top_view *v)
{
	struct frame f = { .out = out, .v = v, .max = v->escapes && v->cols > 0 ? v->cols : -1 };
	const struct col *cols = top_view_cols(v->view);
	int avail;

	if (v->escapes)
		scx_buf_addstr(out, "\033[H");
	f_title(&f, m);
	f_summary(&f, m);
	f_tabs(&f);
	avail = v->escapes && v->rows > 0 ? v->rows - f.line - 1 - (cols ? 1 : 0) : -1;
	if (avail == 0)
		avail = -2; /* too small: draw no data lines */
	v->page = avail > 0 ? avail : 0;
	if (cols)
		f_data(&f, m, v, cols, avail);
	else
		v->nr_lines = f_help(&f, m, v->scroll, avail == -2 ? 0 : avail);
	if (v->escapes) {
		f_footer(&f);
		scx_buf_addstr(out, "\033[J");
	}
}
