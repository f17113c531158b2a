// SPDX-License-Identifier: GPL-2.0
/* scx-top's library parts without a terminal: number formats, key decoding,
 * config parsing, sorting, filtering, scrolling and frame clipping. */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "top/term.h"
#include "top/topconf.h"
#include "core/reorder.h"
#include "top/topview.h"

static int key1(const char *s, size_t *used)
{
	int k;

	*used = scx_term_decode((const unsigned char *)s, strlen(s), &k);
	return k;
}

static void test_formats(void)
{
	char b[32];

	is_str(top_fmt_rate(0, b, sizeof(b)), "0", "rate 0");
	is_str(top_fmt_rate(2.5, b, sizeof(b)), "2.5", "rate 2.5");
	is_str(top_fmt_rate(9999, b, sizeof(b)), "9999", "rate 9999");
	is_str(top_fmt_rate(12345, b, sizeof(b)), "12.3k", "rate 12.3k");
	is_str(top_fmt_rate(2.5e6, b, sizeof(b)), "2.50M", "rate 2.50M");
	is_str(top_fmt_ns(850, b, sizeof(b)), "850ns", "850ns");
	is_str(top_fmt_ns(12345, b, sizeof(b)), "12.3us", "12.3us");
	is_str(top_fmt_ns(1e6, b, sizeof(b)), "1.00ms", "1.00ms");
	is_str(top_fmt_ns(2.5e9, b, sizeof(b)), "2.50s", "2.50s");
}

static void test_keys(void)
{
	size_t n;
	char name[16];

	is_int(key1("q", &n), 'q', "plain key");
	is_int(key1("\r", &n), SCX_KEY_ENTER, "CR is Enter");
	is_int(key1("\x7f", &n), SCX_KEY_BACKSPACE, "DEL is Backspace");
	is_int(key1("\033", &n), SCX_KEY_ESC, "lone ESC");
	is_int(key1("\033[A", &n), SCX_KEY_UP, "CSI A");
	is_int(n, 3, "CSI A is 3 bytes");
	is_int(key1("\033OB", &n), SCX_KEY_DOWN, "SS3 B");
	is_int(key1("\033[5~", &n), SCX_KEY_PGUP, "CSI 5~");
	is_int(key1("\033[6~x", &n), SCX_KEY_PGDN, "CSI 6~ then more");
	is_int(n, 4, "CSI 6~ is 4 bytes");
	is_int(key1("\033[1;5H", &n), SCX_KEY_HOME, "Home with a modifier");
	is_int(key1("\033[15~", &n), SCX_KEY_F1 + 4, "F5");
	is_int(key1("\033[200~", &n), SCX_KEY_NONE, "an unknown sequence");
	is_int(n, 6, "is swallowed whole");
	is_int(key1("\xc3\xa9", &n), SCX_KEY_NONE, "UTF-8 is not a key");
	is_int(n, 2, "and is swallowed whole");
	is_int(key1("\033x", &n), SCX_KEY_ESC, "ESC then a key: Esc first");
	is_int(n, 1, "one byte");
	is_int(scx_term_key_by_name("PgDn"), SCX_KEY_PGDN, "PgDn by name");
	is_int(scx_term_key_by_name("pagedown"), SCX_KEY_PGDN, "pagedown by name");
	is_int(scx_term_key_by_name("F12"), SCX_KEY_F1 + 11, "F12 by name");
	is_int(scx_term_key_by_name("F13"), SCX_KEY_NONE, "no F13");
	is_int(scx_term_key_by_name("Ctrl-Q"), SCX_KEY_NONE, "no Ctrl-Q");
	is_str(scx_term_key_name(' ', name, sizeof(name)), "Space", "Space named");
	is_str(scx_term_key_name('x', name, sizeof(name)), "x", "x named");
}

static int nwarn;
static char lastwarn[512];

static void warn(const char *msg, void *ctx)
{
	nwarn++;
	snprintf(lastwarn, sizeof(lastwarn), "%s", msg);
}

static void test_conf(void)
{
	static const char text[] = "# comment\n"
				   "view = proc\n"
				   "mode=spark\n"
				   "refresh_ms = 30\n"
				   "sort.cpu = -sirq\n"
				   "[keys]\n"
				   "x = quit\n"
				   "q = none\n"
				   "'=' = pause\n"
				   "F5 = AppStateEvent\n";
	struct top_view v;
	struct top_keymap km;
	struct scx_buf b = { 0 };
	int n;

	top_view_init(&v);
	top_keymap_defaults(&km);
	n = top_conf_parse(text, sizeof(text) - 1, "cfg", &v, &km, warn, NULL);
	is_int(n, 2, "two warnings");
	is_int(nwarn, 2, "both reported");
	is_str(lastwarn, "cfg: line 10: unknown action 'AppStateEvent' for key 'F5', ignored",
	       "warning names file and line");
	is_int(v.view, TV_PROC, "view set");
	is_int(v.mode, TM_SPARK, "mode set");
	is_int(v.refresh_ms, 1000, "out-of-range refresh ignored");
	is_int(v.sort[TV_CPU], top_col_by_name(TV_CPU, "sirq"), "sort column");
	ok(!v.sort_asc[TV_CPU], "descending");
	is_int(km.act['x'], TA_QUIT, "x bound to quit");
	is_int(km.act['q'], TA_NONE, "q unbound");
	is_int(km.act['='], TA_PAUSE, "quoted '=' key");
	is_int(km.act[SCX_KEY_F1 + 4], TA_NONE, "bad action leaves F5 alone");

	/* what we write reads back to the same settings, without warnings */
	top_conf_format(&b, &v, &km);
	{
		struct top_view v2;
		struct top_keymap k2;

		top_view_init(&v2);
		memset(&k2, 0, sizeof(k2));
		nwarn = 0;
		n = top_conf_parse(b.data, b.len, "round", &v2, &k2, warn, NULL);
		is_int(n, 0, "round trip: no warnings");
		ok(!memcmp(&k2, &km, sizeof(km)), "round trip: same keymap");
		is_int(v2.mode, v.mode, "round trip: mode");
		is_int(v2.sort[TV_CPU], v.sort[TV_CPU], "round trip: sort");
		ok(v2.sort_asc[TV_CPU] == v.sort_asc[TV_CPU], "round trip: order");
	}
	scx_buf_free(&b);
}

static void model(struct top_model *m)
{
	static const char *const comms[] = { "alpha", "beta", "gamma", "delta" };

	memset(m, 0, sizeof(*m));
	strcpy(m->source, "test");
	m->start_ns = 1000000000;
	m->end_ns = 2000000000;
	m->seq = 1;
	m->nr_cpus = 8;
	m->nr_nodes = 2;
	m->nr_llcs = 2;
	for (int c = 0; c < 8; c++) {
		struct top_row *r = top_table_get(&m->t[TT_CPU], c, c / 4);

		r->aux = c / 4;
		r->v[TC_UTIL] = (c % 4) / 4.0;
		r->has[TC_UTIL] = true;
		r->v[TC_SW] = 100 * (8 - c);
		r->has[TC_SW] = true;
	}
	for (int p = 0; p < 4; p++) {
		struct top_row *r = top_table_get(&m->t[TT_PROC], 100 * (p + 1), -1);

		strcpy(r->label, comms[p]);
		r->v[TC_UTIL] = p / 10.0;
		r->has[TC_UTIL] = true;
		for (int t = 0; t < 2; t++) {
			struct top_row *th =
				top_table_get(&m->t[TT_THREAD], 100 * (p + 1) + t, 100 * (p + 1));

			strcpy(th->label, comms[p]);
		}
	}
}

/* line n (0-based) of a plain frame */
static const char *line(const struct scx_buf *b, int n, char *out, size_t size)
{
	const char *p = b->data, *e = b->data + b->len;

	for (; n > 0 && p < e; n--)
		p = memchr(p, '\n', e - p) + 1;
	snprintf(out, size, "%.*s", (int)(strchrnul(p, '\n') - p), p);
	return out;
}

static void test_render(void)
{
	struct top_model m;
	struct top_view v;
	struct scx_buf b = { 0 };
	char l[256];

	model(&m);
	top_view_init(&v);
	v.escapes = v.color = false;
	v.mode = TM_NUM;
	top_render(&b, &m, &v);
	ok(!memchr(b.data, '\033', b.len), "plain frame: no escape");
	is_str(line(&b, 4, l, sizeof(l)), "node 0: 4 cpus", "group header for node 0");
	ok(!strncmp(line(&b, 5, l, sizeof(l)), "   0   0    0.0    800", 22), "cpu 0 first");
	is_str(line(&b, 9, l, sizeof(l)), "node 1: 4 cpus", "group header for node 1");
	is_int(v.nr_lines, 10, "8 cpus and 2 group lines");

	/* sort by util descending, still grouped by node */
	v.sort[TV_CPU] = top_col_by_name(TV_CPU, "util");
	v.sort_asc[TV_CPU] = false;
	scx_buf_reset(&b);
	top_render(&b, &m, &v);
	ok(!strncmp(line(&b, 5, l, sizeof(l)), "   3   0   75.0", 15), "busiest cpu of node 0");
	ok(!strncmp(line(&b, 10, l, sizeof(l)), "   7   1   75.0", 15), "busiest cpu of node 1");

	/* processes: filter and unfold */
	v.view = TV_PROC;
	strcpy(v.filter, "ta");
	scx_buf_reset(&b);
	top_render(&b, &m, &v);
	is_int(v.nr_lines, 2, "filter 'ta' keeps beta and delta");
	ok(strstr(line(&b, 4, l, sizeof(l)), "delta") != NULL, "delta first (busiest)");
	strcpy(v.filter, "300");
	scx_buf_reset(&b);
	top_render(&b, &m, &v);
	is_int(v.nr_lines, 1, "filter by pid");
	v.filter[0] = 0;
	top_view_action(&v, TA_HOME); /* select the first line again */
	top_view_action(&v, TA_ENTER);
	scx_buf_reset(&b);
	top_render(&b, &m, &v);
	is_int(v.expanded, 400, "Enter unfolds the selected process");
	is_int(v.nr_lines, 6, "4 processes and 2 threads");
	ok(!strncmp(line(&b, 5, l, sizeof(l)), "    400   delta", 15), "thread row, comm indented");

	/* the selection follows its process when the order changes */
	top_view_action(&v, TA_ENTER); /* fold again */
	scx_buf_reset(&b);
	top_render(&b, &m, &v);
	is_int(v.sel_id, 400, "delta selected");
	top_table_find(&m.t[TT_PROC], 400)->v[TC_UTIL] = 0;
	scx_buf_reset(&b);
	top_render(&b, &m, &v);
	is_int(v.sel, 3, "delta now last, still selected");
	is_int(v.sel_id, 400, "by pid");

	/* terminal frame: clipped to the size, footer on the last row */
	v.escapes = true;
	v.rows = 8;
	v.cols = 40;
	v.view = TV_CPU;
	scx_buf_reset(&b);
	top_render(&b, &m, &v);
	is_int(v.page, 3, "3 data rows fit in 8");
	top_view_action(&v, TA_END);
	is_int(v.scroll, 7, "End scrolls to the last page");
	top_view_action(&v, TA_PGUP);
	is_int(v.scroll, 5, "PgUp scrolls a page less one");
	top_view_action(&v, TA_HOME);
	is_int(v.scroll, 0, "Home");
	{
		int rows = 0, maxw = 0, w = 0;

		scx_buf_reset(&b);
		top_render(&b, &m, &v);
		for (size_t i = 0; i < b.len; i++) {
			if (b.data[i] == '\033') {
				/* skip a CSI sequence */
				while (++i < b.len && !(b.data[i] >= 0x40 && b.data[i] <= 0x7e &&
							b.data[i] != '['))
					;
				continue;
			}
			if (b.data[i] == '\n') {
				rows++;
				w = 0;
			} else if (b.data[i] != '\r' && (b.data[i] & 0xc0) != 0x80) {
				w++;
				maxw = w > maxw ? w : maxw;
			}
		}
		is_int(rows, 7, "8 rows: 7 newlines, none after the last");
		ok(maxw <= 40, "no row wider than the terminal (%d)", maxw);
	}
	/* a terminal too small for any data still draws header and footer */
	v.rows = 4;
	scx_buf_reset(&b);
	top_render(&b, &m, &v);
	ok(b.len > 0, "tiny terminal");
	scx_buf_free(&b);
	top_model_free(&m);
}

static void test_actions(void)
{
	struct top_view v;

	top_view_init(&v);
	top_view_action(&v, TA_VIEW_LLC);
	is_int(v.view, TV_LLC, "llc view");
	top_view_action(&v, TA_HELP);
	is_int(v.view, TV_HELP, "help");
	is_int(top_view_action(&v, TA_QUIT), 0, "q in help does not quit");
	is_int(v.view, TV_LLC, "q in help goes back");
	is_int(top_view_action(&v, TA_QUIT), 1, "q quits");
	is_int(top_view_action(&v, TA_SAVE), 2, "save asks the caller");
	v.refresh_ms = 200;
	top_view_action(&v, TA_FASTER);
	is_int(v.refresh_ms, 100, "faster: -100ms");
	top_view_action(&v, TA_FASTER);
	is_int(v.refresh_ms, 50, "faster: halves below 100ms");
	top_view_action(&v, TA_FASTER);
	is_int(v.refresh_ms, 50, "50ms minimum");
	top_view_action(&v, TA_SLOWER);
	is_int(v.refresh_ms, 100, "slower: doubles below 100ms");
	top_view_action(&v, TA_FILTER);
	ok(v.editing, "filter prompt");
	top_view_edit_key(&v, 'a');
	top_view_edit_key(&v, 'b');
	top_view_edit_key(&v, 127);
	top_view_action(&v, TA_ENTER);
	is_str(v.filter, "a", "typed filter applied");
	top_view_action(&v, TA_ESC);
	is_str(v.filter, "", "Esc clears it");
	top_view_action(&v, TA_MODE);
	is_int(v.mode, TM_SPARK, "mode cycles bar -> spark");
	top_view_action(&v, TA_SORT_NEXT);
	is_int(v.sort[TV_LLC], 1, "next sort column");
	ok(v.sort_asc[TV_LLC], "the node column sorts ascending");
	top_view_action(&v, TA_SORT_NEXT);
	ok(!v.sort_asc[TV_LLC], "a number column sorts descending");
}

static void test_order(void)
{
	static const uint64_t in[] = { 10, 30, 20, 25, 40, 35, 200, 190, 5 };
	static const uint64_t want[] = { 10, 20, 25, 30, 35, 40, 5, 190, 200 };
	struct scx_reorder *o = scx_reorder__new(100);
	struct scx_event e;
	uint64_t out[16];
	unsigned n = 0;

	for (unsigned i = 0; i < SCX_ARRAY_SIZE(in); i++) {
		scx_event_init(&e, SCX_EV_SWITCH);
		e.ts = in[i];
		e.cpu = (int)i;
		scx_reorder__push(o, &e);
		while (scx_reorder__pop(o, &e, false))
			out[n++] = e.ts;
	}
	is_int(n, 7, "events 100 ns older than the newest (and the late one) went out");
	while (scx_reorder__pop(o, &e, true))
		out[n++] = e.ts;
	is_int(n, SCX_ARRAY_SIZE(want), "drained");
	ok(!memcmp(out, want, sizeof(want)), "in time order, the late one as it came");
	is_int(scx_reorder__late(o), 1, "one event came too late");
	scx_reorder__free(o);
}

/* Utilisation history follows each row by id, whether the rows come sorted or not. */
static void test_carry_hist(void)
{
	static const int64_t prev_sorted[] = { 1, 3, 5, 7 }, prev_mixed[] = { 5, 1, 7, 3 };
	static const int64_t now_sorted[] = { 1, 2, 5, 8 }, now_mixed[] = { 8, 5, 2, 1 };
	const int64_t *pv[] = { prev_sorted, prev_mixed }, *nv[] = { now_sorted, now_mixed };

	for (int k = 0; k < 4; k++) {
		struct top_model p = { 0 }, m = { 0 };
		unsigned good = 0;

		for (int j = 0; j < 4; j++) {
			struct top_row *r = top_table_add(&p.t[TT_THREAD], pv[k & 1][j], -1);

			/* row id x has the history x/10, x/10 + 1 */
			r->hist[0] = pv[k & 1][j] / 10.0f;
			r->hist[1] = r->hist[0] + 1;
			r->nr_hist = 2;
			r = top_table_add(&m.t[TT_THREAD], nv[k >> 1][j], -1);
			r->v[TC_UTIL] = 0.5;
			r->has[TC_UTIL] = true;
		}
		top_model_carry_hist(&m, &p);
		for (int j = 0; j < 4; j++) {
			const struct top_row *r = &m.t[TT_THREAD].rows[j];
			bool seen = r->id == 1 || r->id == 5;

			good += seen ? r->nr_hist == 3 && r->hist[0] == r->id / 10.0f &&
						r->hist[1] == r->id / 10.0f + 1 &&
						r->hist[2] == 0.5f :
				       r->nr_hist == 1 && r->hist[0] == 0.5f;
		}
		is_int(good, 4, "history carried by id (previous rows %s, current rows %s)",
		       k & 1 ? "unsorted" : "sorted", k >> 1 ? "unsorted" : "sorted");
		top_model_free(&p);
		top_model_free(&m);
	}
}

int main(void)
{
	test_order();
	test_formats();
	test_keys();
	test_conf();
	test_render();
	test_actions();
	test_carry_hist();
	return done_testing();
}
