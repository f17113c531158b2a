// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/opts.h"
#include "core/util.h"

enum {
	KEY_HELP = 'h',
	KEY_VERSION = 'V',
	KEY_COMPLETION = 0x7fff0001,
	KEY_OLD_LONG = 0x7fff1000, /* + index in cmd->old: an old long name */
	MAX_OLD = 64,		   /* old spellings a command may keep */
};

static const struct scx_opt builtin[] = {
	{ 'h', "help", NULL, "show this help and exit" },
	{ 'V', "version", NULL, "show the version and exit" },
};

static size_t count_opts(const struct scx_cmd *cmd)
{
	size_t n = 0;

	while (cmd->opts && cmd->opts[n].lng)
		n++;
	return n;
}

static size_t count_old(const struct scx_cmd *cmd)
{
	size_t n = 0;

	while (cmd->old && cmd->old[n].key)
		n++;
	return n;
}

static const struct scx_opt *find_opt(const struct scx_cmd *cmd, int key)
{
	for (size_t i = 0; cmd->opts && cmd->opts[i].lng; i++)
		if (cmd->opts[i].key == key)
			return &cmd->opts[i];
	return NULL;
}

static bool is_current(const struct scx_cmd *cmd, int key, const char *lng)
{
	size_t n = count_opts(cmd);

	for (size_t i = 0; i < n + SCX_ARRAY_SIZE(builtin); i++) {
		const struct scx_opt *o = i < n ? &cmd->opts[i] : &builtin[i - n];

		if ((key && o->key == key) || (lng && !strcmp(o->lng, lng)))
			return true;
	}
	return false;
}

/*
 * An old spelling that meant something else in this command would silently
 * change meaning, and one naming no option would do nothing: both are bugs
 * in the table, caught on the first run of any test.
 */
static void check_old(const struct scx_cmd *cmd)
{
	size_t n = count_old(cmd);

	for (size_t i = 0; i < n; i++) {
		const struct scx_opt_old *o = &cmd->old[i];

		if (n > MAX_OLD || !find_opt(cmd, o->key) || (!o->old_key && !o->old_lng) ||
		    is_current(cmd, o->old_key, o->old_lng)) {
			scx_warn("%s: old spelling %zu of the option table is wrong", cmd->name, i);
			abort();
		}
	}
}

/* "-I (--interval)" or "--mode" */
static void spell(char *buf, size_t size, int key, const char *lng)
{
	if (key > 0 && key < 256)
		snprintf(buf, size, "-%c (--%s)", key, lng);
	else
		snprintf(buf, size, "--%s", lng);
}

static uint64_t noted; /* old spellings of the current command already noted, by index */

/* The current key for what getopt returned, after a note if it was an old spelling. */
static int current_key(const struct scx_cmd *cmd, int c)
{
	size_t n = count_old(cmd), i;
	const struct scx_opt *o;
	char was[64], now[80];

	for (i = 0; i < n; i++)
		if (c == KEY_OLD_LONG + (int)i || (cmd->old[i].old_key && c == cmd->old[i].old_key))
			break;
	if (i == n)
		return c;
	o = find_opt(cmd, cmd->old[i].key);
	if (!(noted & (1ULL << i))) {
		noted |= 1ULL << i;
		if (c == KEY_OLD_LONG + (int)i)
			snprintf(was, sizeof(was), "--%s", cmd->old[i].old_lng);
		else
			snprintf(was, sizeof(was), "-%c", c);
		spell(now, sizeof(now), o->key, o->lng);
		scx_warn("%s is now %s; the old spelling will go away", was, now);
	}
	return o->key;
}

static void print_opt(struct scx_buf *b, const struct scx_opt *o)
{
	char left[64];

	if (o->key > 0 && o->key < 256)
		snprintf(left, sizeof(left), "-%c, --%s%s%s", o->key, o->lng, o->arg ? "=" : "",
			 o->arg ? o->arg : "");
	else
		snprintf(left, sizeof(left), "    --%s%s%s", o->lng, o->arg ? "=" : "",
			 o->arg ? o->arg : "");
	if (strlen(left) > 28) /* too wide: the help goes on its own line */
		scx_buf_printf(b, "  %s\n  %-28s %s\n", left, "", o->help);
	else
		scx_buf_printf(b, "  %-28s %s\n", left, o->help);
}

int scx_usage(const struct scx_cmd *cmd, int fd)
{
	int err;

	struct scx_buf b = { 0 };
	size_t n = count_opts(cmd);

	if (cmd->subcommands) {
		scx_buf_printf(&b, "Usage: %s COMMAND [OPTION]...\n%s\n\nCommands:\n", cmd->name,
			       cmd->summary);
		for (size_t i = 0; cmd->subcommands[i]; i++)
			scx_buf_printf(&b, "  %s\n", cmd->subcommands[i]);
		scx_buf_printf(&b, "\n'%s COMMAND --help' describes a command's options.\n\n",
			       cmd->name);
	} else {
		scx_buf_printf(&b, "Usage: %s [OPTION]...%s%s\n%s\n\n", cmd->name,
			       cmd->args ? " " : "", cmd->args ? cmd->args : "", cmd->summary);
	}
	scx_buf_printf(&b, "Options:\n");
	for (size_t i = 0; i < n; i++)
		print_opt(&b, &cmd->opts[i]);
	for (size_t i = 0; i < SCX_ARRAY_SIZE(builtin); i++)
		print_opt(&b, &builtin[i]);
	if (cmd->footer)
		scx_buf_printf(&b, "\n%s", cmd->footer);
	err = scx_write_all(fd, b.data, b.len);
	scx_buf_free(&b);
	return err;
}

/* --help, --version and the completion helper succeed only if their text got out. */
static _Noreturn void exit_written(int err)
{
	if (err)
		scx_die(SCX_EXIT_FAIL, "cannot write standard output: %s", strerror(-err));
	exit(SCX_EXIT_OK);
}

void scx_usage_error(const struct scx_cmd *cmd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	scx_warn("%s", msg);
	fprintf(stderr, "Try '%s --help' for more information.\n", cmd->name);
	exit(SCX_EXIT_USAGE);
}

/*
 * One tab-separated line an option: "opt", "--long" (with "=" when it takes
 * an argument), "-s" or "-", completion values (may be empty), help text.
 * Subcommands: "sub<TAB>NAME".  Old spellings: "old<TAB>-i<TAB>--interval"
 * (not completed, but t/9003-option-letters.t checks them against scx(7)).
 */
static int completion_helper(const struct scx_cmd *cmd)
{
	int err;

	struct scx_buf b = { 0 };
	size_t n = count_opts(cmd);

	for (size_t i = 0; cmd->subcommands && cmd->subcommands[i]; i++)
		scx_buf_printf(&b, "sub\t%s\n", cmd->subcommands[i]);
	for (size_t i = 0; i < n + SCX_ARRAY_SIZE(builtin); i++) {
		const struct scx_opt *o = i < n ? &cmd->opts[i] : &builtin[i - n];
		char s[3] = "-";

		if (o->key > 0 && o->key < 256)
			s[1] = (char)o->key;
		scx_buf_printf(&b, "opt\t--%s%s\t%s\t%s\t%s\n", o->lng, o->arg ? "=" : "", s,
			       o->values ? o->values : "", o->help);
	}
	for (size_t i = 0; i < count_old(cmd); i++) {
		const struct scx_opt_old *o = &cmd->old[i];
		const char *now = find_opt(cmd, o->key)->lng;

		if (o->old_key)
			scx_buf_printf(&b, "old\t-%c\t--%s\n", o->old_key, now);
		if (o->old_lng)
			scx_buf_printf(&b, "old\t--%s\t--%s\n", o->old_lng, now);
	}
	err = scx_write_all(STDOUT_FILENO, b.data, b.len);
	scx_buf_free(&b);
	return err;
}

int scx_getopt(const struct scx_cmd *cmd, int argc, char **argv, const char **arg)
{
	/* built once per command; tools parse one command line per process */
	static const struct scx_cmd *built;
	static struct option *longopts;
	static char shortopts[256];
	size_t n = count_opts(cmd), n_old = count_old(cmd);
	int idx, c;

	if (built != cmd) {
		size_t k = 0, s = 0;

		check_old(cmd);
		noted = 0;
		free(longopts);
		longopts = scx_xcalloc(n + SCX_ARRAY_SIZE(builtin) + n_old + 2, sizeof(*longopts));
		shortopts[s++] = ':';
		for (size_t i = 0; i < n + SCX_ARRAY_SIZE(builtin); i++) {
			const struct scx_opt *o = i < n ? &cmd->opts[i] : &builtin[i - n];
			longopts[k++] =
				(struct option){ o->lng, o->arg ? required_argument : no_argument,
						 NULL, o->key };
			if (o->key > 0 && o->key < 128 && s + 3 < sizeof(shortopts)) {
				shortopts[s++] = (char)o->key;
				if (o->arg)
					shortopts[s++] = ':';
			}
		}
		for (size_t i = 0; i < n_old; i++) {
			const struct scx_opt_old *o = &cmd->old[i];
			int has_arg = find_opt(cmd, o->key)->arg ? required_argument : no_argument;

			if (o->old_lng)
				longopts[k++] = (struct option){ o->old_lng, has_arg, NULL,
								 KEY_OLD_LONG + (int)i };
			if (o->old_key > 0 && o->old_key < 128 && s + 3 < sizeof(shortopts)) {
				shortopts[s++] = (char)o->old_key;
				if (has_arg == required_argument)
					shortopts[s++] = ':';
			}
		}
		longopts[k++] =
			(struct option){ "completion-helper", no_argument, NULL, KEY_COMPLETION };
		shortopts[s] = 0;
		built = cmd;
	}
	opterr = 0;
	c = getopt_long(argc, argv, shortopts, longopts, &idx);
	*arg = optarg;
	switch (c) {
	case KEY_HELP:
		exit_written(scx_usage(cmd, STDOUT_FILENO));
	case KEY_VERSION: {
		char v[256];
		int len = snprintf(v, sizeof(v), "%s %s\n", cmd->name, SCX_VERSION);

		exit_written(scx_write_all(STDOUT_FILENO, v, SCX_MIN((size_t)len, sizeof(v) - 1)));
	}
	case KEY_COMPLETION:
		exit_written(completion_helper(cmd));
	case ':':
		if (optopt > 0 && optopt < 256)
			scx_usage_error(cmd, "option -%c needs an argument", optopt);
		scx_usage_error(cmd, "option '%s' needs an argument", argv[optind - 1]);
	case '?':
		if (optopt > 0 && optopt < 256)
			scx_usage_error(cmd, "unknown option -%c", optopt);
		scx_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
	default:
		return current_key(cmd, c);
	}
}
