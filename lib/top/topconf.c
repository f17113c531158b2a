// SPDX-License-Identifier: GPL-2.0
/* scx-top's config file: settings and keymap (see topconf.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "top/topconf.h"

static const struct {
	int key;
	enum top_action a;
} default_keys[] = {
	{ 'c', TA_VIEW_CPU },
	{ 'l', TA_VIEW_LLC },
	{ 'n', TA_VIEW_NODE },
	{ 'p', TA_VIEW_PROC },
	{ 's', TA_VIEW_DSQ },
	{ 'o', TA_VIEW_CGROUP },
	{ 'h', TA_HELP },
	{ '?', TA_HELP },
	{ 'm', TA_MODE },
	{ 'v', TA_MODE },
	{ '>', TA_SORT_NEXT },
	{ '.', TA_SORT_NEXT },
	{ '<', TA_SORT_PREV },
	{ ',', TA_SORT_PREV },
	{ 'r', TA_SORT_REVERSE },
	{ '/', TA_FILTER },
	{ 'f', TA_FILTER },
	{ ' ', TA_PAUSE },
	{ '+', TA_FASTER },
	{ '=', TA_FASTER },
	{ '-', TA_SLOWER },
	{ 't', TA_THEME },
	{ 'S', TA_SAVE },
	{ 'W', TA_SAVE },
	{ 'q', TA_QUIT },
	{ 'Q', TA_QUIT },
	{ SCX_KEY_UP, TA_UP },
	{ 'k', TA_UP },
	{ SCX_KEY_DOWN, TA_DOWN },
	{ 'j', TA_DOWN },
	{ SCX_KEY_PGUP, TA_PGUP },
	{ SCX_KEY_PGDN, TA_PGDN },
	{ SCX_KEY_HOME, TA_HOME },
	{ 'g', TA_HOME },
	{ SCX_KEY_END, TA_END },
	{ 'G', TA_END },
	{ SCX_KEY_ENTER, TA_ENTER },
	{ SCX_KEY_ESC, TA_ESC },
};

void top_keymap_defaults(struct top_keymap *km)
{
	memset(km, 0, sizeof(*km));
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(default_keys); i++)
		km->act[default_keys[i].key] = default_keys[i].a;
}

void top_keymap_names(const struct top_keymap *km, struct top_view *v)
{
	char name[16];

	memset(v->keyname, 0, sizeof(v->keyname));
	for (int k = 0; k < SCX_KEY__MAX; k++) {
		char *d = v->keyname[km->act[k]];
		size_t n = strlen(d);

		if (!km->act[k])
			continue;
		/* the help shows '=' and '#' as typed; the file needs their names */
		if (k > ' ' && k < 127)
			snprintf(name, sizeof(name), "%c", k);
		else
			scx_term_key_name(k, name, sizeof(name));
		if (n + strlen(name) + (n ? 1 : 0) < sizeof(v->keyname[0]))
			snprintf(d + n, sizeof(v->keyname[0]) - n, "%s%s", n ? " " : "", name);
	}
}

/* ---- parsing ---------------------------------------------------------------- */

struct pctx {
	const char *name;
	unsigned line;
	int warnings;
	top_conf_warn_fn warn;
	void *ctx;
};

static void pwarn(struct pctx *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pwarn(struct pctx *p, const char *fmt, ...)
{
	char msg[512];
	int n;
	va_list ap;

	n = snprintf(msg, sizeof(msg), "%s: line %u: ", p->name, p->line);
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	va_end(ap);
	p->warnings++;
	if (p->warn)
		p->warn(msg, p->ctx);
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

/* A value that may be quoted: "x" or 'x' (for keys like '=' or '#'). */
static char *unquote(char *s)
{
	size_t n = strlen(s);

	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		s[n - 1] = 0;
		return s + 1;
	}
	return s;
}

static void set_setting(struct pctx *p, struct top_view *v, const char *k, const char *val)
{
	int i;
	char *end;
	long n;

	if (!strcmp(k, "view")) {
		if ((i = top_view_by_name(val)) < 0 || i == TV_HELP)
			pwarn(p, "unknown view '%s', ignored", val);
		else
			v->view = v->prev_view = i;
	} else if (!strcmp(k, "mode")) {
		if ((i = top_mode_by_name(val)) < 0)
			pwarn(p, "unknown mode '%s', ignored", val);
		else
			v->mode = i;
	} else if (!strcmp(k, "theme")) {
		if ((i = top_theme_by_name(val)) < 0)
			pwarn(p, "unknown theme '%s', ignored", val);
		else
			v->theme = i;
	} else if (!strcmp(k, "refresh_ms")) {
		errno = 0;
		n = strtol(val, &end, 10);
		if (errno || *end || end == val || n < 50 || n > 60000)
			pwarn(p, "refresh_ms '%s' is not a number from 50 to 60000, ignored", val);
		else
			v->refresh_ms = (unsigned)n;
	} else if (!strncmp(k, "sort.", 5)) {
		int view = top_view_by_name(k + 5);
		bool desc = val[0] == '-';

		if (view < 0 || view == TV_HELP)
			pwarn(p, "unknown view in '%s', ignored", k);
		else if ((i = top_col_by_name(view, val + desc)) < 0)
			pwarn(p, "unknown column '%s' for the %s view, ignored", val + desc, k + 5);
		else {
			v->sort[view] = i;
			v->sort_asc[view] = !desc;
		}
	} else {
		pwarn(p, "unknown setting '%s', ignored", k);
	}
}

int top_conf_parse(const char *text, size_t len, const char *name, struct top_view *v,
		   struct top_keymap *km, top_conf_warn_fn warn, void *ctx)
{
	struct pctx p = { .name = name, .warn = warn, .ctx = ctx };
	int sect = 0; /* 0 settings, 1 keys, 2 an unknown section */
	size_t off = 0;

	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) : len - off;
		char line[256], *s, *eq, *k, *val;

		p.line++;
		if (n >= sizeof(line) || memchr(text + off, 0, n)) {
			pwarn(&p, "line too long or not text, ignored");
			off += n + 1;
			continue;
		}
		memcpy(line, text + off, n);
		line[n] = 0;
		off += n + 1;
		s = trim(line);
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			if (!strcmp(s, "[keys]")) {
				sect = 1;
			} else if (!strcmp(s, "[settings]")) {
				sect = 0;
			} else {
				pwarn(&p, "unknown section '%s', its lines are ignored", s);
				sect = 2;
			}
			continue;
		}
		/* the key may itself be '=': "'=' = faster" */
		if ((s[0] == '\'' || s[0] == '"') && s[1] && s[2] == s[0])
			eq = strchr(s + 3, '=');
		else
			eq = strchr(s, '=');
		if (!eq) {
			pwarn(&p, "expected 'name = value', ignored");
			continue;
		}
		*eq = 0;
		k = unquote(trim(s));
		val = unquote(trim(eq + 1));
		if (sect == 2)
			continue;
		if (sect == 0) {
			set_setting(&p, v, k, val);
			continue;
		}
		int key = scx_term_key_by_name(k);
		int act = top_action_by_name(val);

		if (key == SCX_KEY_NONE)
			pwarn(&p, "unknown key '%s', ignored", k);
		else if (act < 0)
			pwarn(&p, "unknown action '%s' for key '%s', ignored", val, k);
		else
			km->act[key] = (uint8_t)act;
	}
	return p.warnings;
}

int top_conf_load(const char *path, struct top_view *v, struct top_keymap *km,
		  top_conf_warn_fn warn, void *ctx)
{
	struct scx_buf b = { 0 };
	char tmp[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, tmp, sizeof(tmp))) > 0) {
		scx_buf_add(&b, tmp, n);
		if (b.len > 1 << 20) {
			n = -1;
			errno = EFBIG;
			break;
		}
	}
	ret = n < 0 ? -errno : top_conf_parse(b.data ? b.data : "", b.len, path, v, km, warn, ctx);
	close(fd);
	scx_buf_free(&b);
	return ret;
}

/* ---- writing ---------------------------------------------------------------- */

void top_conf_format(struct scx_buf *b, const struct top_view *v, const struct top_keymap *km)
{
	char name[16];

	scx_buf_printf(b, "# scx-top settings, written by scx-top (see scx-top(1), FILES)\n");
	scx_buf_printf(b, "view = %s\n",
		       top_view_name(v->view == TV_HELP ? v->prev_view : v->view));
	scx_buf_printf(b, "mode = %s\n", top_mode_name(v->mode));
	scx_buf_printf(b, "theme = %s\n", top_theme_name(v->theme));
	scx_buf_printf(b, "refresh_ms = %u\n", v->refresh_ms);
	for (int i = 0; i < TV_HELP; i++)
		scx_buf_printf(b, "sort.%s = %s%s\n", top_view_name(i), v->sort_asc[i] ? "" : "-",
			       top_col_name(i, v->sort[i]));
	scx_buf_printf(b, "\n[keys]\n");
	for (int k = 0; k < SCX_KEY__MAX; k++) {
		if (!km->act[k])
			continue;
		scx_term_key_name(k, name, sizeof(name));
		scx_buf_printf(b, "%s = %s\n", name, top_action_name(km->act[k]));
	}
}

static int mkdir_p(char *dir)
{
	for (char *s = dir + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			*s = '/';
			return -errno;
		}
		*s = '/';
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int top_conf_save(const char *path, const struct top_view *v, const struct top_keymap *km)
{
	struct scx_buf b = { 0 };
	char *dir = scx_xstrdup(path), *slash = strrchr(dir, '/'), *tmp = NULL;
	int fd = -1, err = 0;

	if (slash && slash != dir) {
		*slash = 0;
		err = mkdir_p(dir);
		if (err)
			goto cleanup;
	}
	top_conf_format(&b, v, km);
	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0) {
		tmp = NULL;
		err = -ENOMEM;
		goto cleanup;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		goto cleanup;
	}
	err = scx_write_all(fd, b.data, b.len);
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	fd = -1;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
cleanup:
	free(tmp);
	free(dir);
	scx_buf_free(&b);
	return err;
}

char *top_conf_default_path(void)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	char *p = NULL;
	int n;

	if (x && x[0] == '/')
		n = asprintf(&p, "%s/scx-top/config", x);
	else if (h && h[0])
		n = asprintf(&p, "%s/.config/scx-top/config", h);
	else
		return NULL;
	return n < 0 ? NULL : p;
}
