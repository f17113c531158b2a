/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx-top's config file: settings and a keymap, in a small "name = value"
 * format with a [keys] section (see scx-top(1), FILES).  Unknown or stale
 * names give a warning naming the file and line and are ignored, so an old
 * file never stops the tool from starting.
 */
#ifndef SCX_TOPCONF_H
#define SCX_TOPCONF_H

#include <stddef.h>
#include <stdint.h>

#include "top/term.h"
#include "top/topview.h"

struct top_keymap {
	uint8_t act[SCX_KEY__MAX]; /* key -> enum top_action */
};

void top_keymap_defaults(struct top_keymap *km);
/* Fill v->keyname[] (shown by the help view) from the keymap. */
void top_keymap_names(const struct top_keymap *km, struct top_view *v);

typedef void (*top_conf_warn_fn)(const char *msg, void *ctx);

/*
 * Apply config text to v and km.  'name' is used in messages
 * ("NAME: line 3: unknown setting 'foo', ignored").  Returns the number of
 * warnings given (every problem is a warning; nothing is fatal).
 */
int top_conf_parse(const char *text, size_t len, const char *name, struct top_view *v,
		   struct top_keymap *km, top_conf_warn_fn warn, void *ctx);
/* Read and apply a file: 0 or warnings count; -errno if unreadable (-ENOENT: none). */
int top_conf_load(const char *path, struct top_view *v, struct top_keymap *km,
		  top_conf_warn_fn warn, void *ctx);
/* The whole config as text (what top_conf_save writes). */
void top_conf_format(struct scx_buf *b, const struct top_view *v, const struct top_keymap *km);
/* Write atomically (temp file + rename), creating the directory.  0 or -errno. */
int top_conf_save(const char *path, const struct top_view *v, const struct top_keymap *km);
/* $XDG_CONFIG_HOME/scx-top/config, else $HOME/.config/scx-top/config; malloc'd, NULL if neither. */
char *top_conf_default_path(void);

#endif
