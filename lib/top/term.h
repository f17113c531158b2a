/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The terminal for scx-top, in plain VT100/ANSI (no curses): raw mode on
 * /dev/tty (stdin is the data pipe), key decoding, size and resize, and
 * restoring the terminal on every way out (normal exit, exit() from an
 * error, SIGINT/SIGTERM/SIGHUP, and crashes, which restore then re-raise).
 * Signal handlers only set flags (and, for crashes, restore and re-raise).
 */
#ifndef SCX_TERM_H
#define SCX_TERM_H

#include <signal.h>
#include <stddef.h>

/* Keys: printable ASCII as itself, the rest from 0x100. */
enum {
	SCX_KEY_NONE = -1,
	SCX_KEY_ENTER = 0x100,
	SCX_KEY_ESC,
	SCX_KEY_BACKSPACE,
	SCX_KEY_TAB,
	SCX_KEY_UP,
	SCX_KEY_DOWN,
	SCX_KEY_LEFT,
	SCX_KEY_RIGHT,
	SCX_KEY_PGUP,
	SCX_KEY_PGDN,
	SCX_KEY_HOME,
	SCX_KEY_END,
	SCX_KEY_F1, /* F1..F12 follow */
	SCX_KEY__MAX = SCX_KEY_F1 + 12,
};

extern volatile sig_atomic_t scx_term_winch; /* set on SIGWINCH */
extern volatile sig_atomic_t scx_term_quit;  /* set to the signal on INT/TERM/HUP */

/*
 * Open /dev/tty, switch it to raw mode (no echo, no line buffering; ^C still
 * raises SIGINT), enter the alternate screen and hide the cursor.  Installs
 * the signal handlers and an atexit() restore.  0 or -errno.
 */
int scx_term__open(void);
/* Undo everything scx_term__open did; safe to call more than once. */
void scx_term__restore(void);
int scx_term__fd(void);			  /* -1 when not open */
int scx_term__size(int *rows, int *cols); /* 0 or -errno */
/* Write all of a frame; 0 or -errno. */
int scx_term__write(const void *buf, size_t len);
/*
 * Read and decode the keys waiting on the terminal (non-blocking), calling
 * fn for each.  Returns 0, or -EIO when the terminal went away.
 */
int scx_term__read_keys(void (*fn)(int key, void *ctx), void *ctx);

/*
 * Decode one key from buf.  Returns the bytes used (at least 1 when len > 0)
 * and sets *key (SCX_KEY_NONE for a sequence we do not know, which is
 * swallowed whole).  Pure, for tests and fuzzing.
 */
size_t scx_term_decode(const unsigned char *buf, size_t len, int *key);

/* Key names for config files: "q", "Up", "PgDn", "Space", "F5"...  */
const char *scx_term_key_name(int key, char *buf, size_t size);
int scx_term_key_by_name(const char *name); /* SCX_KEY_NONE if unknown */

#endif
