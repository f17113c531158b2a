// SPDX-License-Identifier: GPL-2.0
/* Raw-mode terminal on /dev/tty with VT100/ANSI sequences (see term.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "top/term.h"
#include "core/util.h"

volatile sig_atomic_t scx_term_winch;
volatile sig_atomic_t scx_term_quit;

static int tty_fd = -1;
static struct termios saved;
static volatile sig_atomic_t raw_on;

/* alternate screen on, cursor hidden, autowrap off */
static const char enter_seq[] = "\033[?1049h\033[?25l\033[?7l\033[H\033[2J";
/* attributes off, autowrap on, cursor shown, alternate screen off */
static const char leave_seq[] = "\033[0m\033[?7h\033[?25h\033[?1049l";

void scx_term__restore(void)
{
	/* async-signal-safe: called from the crash handler too */
	if (!raw_on || tty_fd < 0)
		return;
	raw_on = 0;
	if (write(tty_fd, leave_seq, sizeof(leave_seq) - 1) < 0) {
		/* nothing more we can do */
	}
	tcsetattr(tty_fd, TCSAFLUSH, &saved);
}

static void on_signal(int sig)
{
	if (sig == SIGWINCH)
		scx_term_winch = 1;
	else
		scx_term_quit = sig;
}

static void on_crash(int sig)
{
	scx_term__restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_exit_restore(void)
{
	scx_term__restore();
}

int scx_term__open(void)
{
	static bool atexit_done;
	struct sigaction sa;
	struct termios raw;
	static const int quit_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	int err;

	tty_fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (tty_fd < 0)
		return -errno;
	if (tcgetattr(tty_fd, &saved) < 0) {
		err = -errno;
		close(tty_fd);
		tty_fd = -1;
		return err;
	}
	raw = saved;
	/* no echo, byte at a time; keep ISIG so ^C is SIGINT even when the
	 * main loop is busy, and keep output processing */
	raw.c_lflag &= ~(ICANON | ECHO | IEXTEN);
	raw.c_iflag &= ~(IXON | ICRNL | INLCR | IGNCR | ISTRIP | INPCK);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: poll() must return EINTR so a resize redraws at once */
	sa.sa_handler = on_signal;
	sigaction(SIGWINCH, &sa, NULL);
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(quit_sigs); i++)
		sigaction(quit_sigs[i], &sa, NULL);
	sa.sa_handler = on_crash;
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(crash_sigs); i++)
		sigaction(crash_sigs[i], &sa, NULL);
	if (!atexit_done) {
		atexit(on_exit_restore);
		atexit_done = true;
	}

	if (tcsetattr(tty_fd, TCSAFLUSH, &raw) < 0) {
		err = -errno;
		close(tty_fd);
		tty_fd = -1;
		return err;
	}
	raw_on = 1;
	scx_write_all(tty_fd, enter_seq, sizeof(enter_seq) - 1);
	return 0;
}

int scx_term__fd(void)
{
	return tty_fd;
}

int scx_term__size(int *rows, int *cols)
{
	struct winsize ws;

	if (tty_fd < 0 || ioctl(tty_fd, TIOCGWINSZ, &ws) < 0)
		return tty_fd < 0 ? -EBADF : -errno;
	*rows = ws.ws_row ? ws.ws_row : 24;
	*cols = ws.ws_col ? ws.ws_col : 80;
	return 0;
}

int scx_term__write(const void *buf, size_t len)
{
	return scx_write_all(tty_fd, buf, len);
}

/* ---- keys ------------------------------------------------------------------- */

/* The final byte's key where CSI and SS3 agree: cursor keys, Home, End. */
static int key_from_final(unsigned char c)
{
	switch (c) {
	case 'A':
		return SCX_KEY_UP;
	case 'B':
		return SCX_KEY_DOWN;
	case 'C':
		return SCX_KEY_RIGHT;
	case 'D':
		return SCX_KEY_LEFT;
	case 'H':
		return SCX_KEY_HOME;
	case 'F':
		return SCX_KEY_END;
	}
	return SCX_KEY_NONE;
}

/* CSI n ~: the VT220 editing keys and F1-F12, which skip 16 and 22. */
static int key_from_tilde(int n)
{
	switch (n) {
	case 1:
	case 7:
		return SCX_KEY_HOME;
	case 4:
	case 8:
		return SCX_KEY_END;
	case 5:
		return SCX_KEY_PGUP;
	case 6:
		return SCX_KEY_PGDN;
	case 11 ... 15:
		return SCX_KEY_F1 + n - 11;
	case 17 ... 21:
		return SCX_KEY_F1 + n - 12;
	case 23:
	case 24:
		return SCX_KEY_F1 + n - 13;
	}
	return SCX_KEY_NONE;
}

/* One byte that does not start an escape sequence, or a UTF-8 character. */
static size_t decode_plain(const unsigned char *b, size_t len, int *key)
{
	size_t i;

	switch (b[0]) {
	case '\r':
	case '\n':
		*key = SCX_KEY_ENTER;
		break;
	case 127:
	case 8:
		*key = SCX_KEY_BACKSPACE;
		break;
	case '\t':
		*key = SCX_KEY_TAB;
		break;
	default:
		if (b[0] >= 32 && b[0] < 127)
			*key = b[0];
		else if (b[0] >= 0x80) {
			/* a UTF-8 character: swallow it whole */
			for (i = 1; i < len && (b[i] & 0xc0) == 0x80 && i < 4; i++)
				;
			return i;
		}
	}
	return 1;
}

/* CSI: parameters 0x30-0x3f, intermediates 0x20-0x2f, final 0x40-0x7e;
 * the first parameter picks the key, modifiers after ';' are ignored */
static size_t decode_csi(const unsigned char *b, size_t len, int *key)
{
	size_t i;
	int p = 0;
	bool first = true;

	for (i = 2; i < len; i++) {
		unsigned char c = b[i];

		if (c >= '0' && c <= '9') {
			if (first && p < 1000)
				p = p * 10 + (c - '0');
		} else if (c >= 0x20 && c <= 0x3f) {
			first = false;
		} else {
			break;
		}
	}
	if (i < len && (b[i] < 0x40 || b[i] > 0x7e))
		return i; /* a broken sequence: drop what came before */
	if (i >= len)
		return len; /* unterminated: swallow it */
	if (b[i] == '~')
		*key = key_from_tilde(p);
	else if (b[i] == 'Z')
		*key = SCX_KEY_TAB; /* back-tab */
	else
		*key = key_from_final(b[i]);
	return i + 1;
}

size_t scx_term_decode(const unsigned char *b, size_t len, int *key)
{
	*key = SCX_KEY_NONE;
	if (!len)
		return 0;
	if (b[0] != 0x1b)
		return decode_plain(b, len, key);
	/* a lone ESC (nothing follows in this read) is the Esc key */
	if (len == 1) {
		*key = SCX_KEY_ESC;
		return 1;
	}
	if (b[1] == 'O' && len >= 3) {
		/* SS3: application-mode cursor keys and F1-F4 */
		if (b[2] >= 'P' && b[2] <= 'S')
			*key = SCX_KEY_F1 + (b[2] - 'P');
		else
			*key = key_from_final(b[2]);
		return 3;
	}
	if (b[1] != '[') {
		/* ESC followed by something else: Esc, then that key */
		*key = SCX_KEY_ESC;
		return 1;
	}
	return decode_csi(b, len, key);
}

int scx_term__read_keys(void (*fn)(int key, void *ctx), void *ctx)
{
	unsigned char buf[256];
	ssize_t n;
	size_t off = 0;

	n = read(tty_fd, buf, sizeof(buf));
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0)
		return 0;
	while (off < (size_t)n) {
		int key;

		off += scx_term_decode(buf + off, n - off, &key);
		if (key != SCX_KEY_NONE)
			fn(key, ctx);
	}
	return 0;
}

static const struct {
	int key;
	const char *name;
} key_names[] = {
	{ SCX_KEY_ENTER, "Enter" },
	{ SCX_KEY_ESC, "Esc" },
	{ SCX_KEY_BACKSPACE, "Backspace" },
	{ SCX_KEY_TAB, "Tab" },
	{ SCX_KEY_UP, "Up" },
	{ SCX_KEY_DOWN, "Down" },
	{ SCX_KEY_LEFT, "Left" },
	{ SCX_KEY_RIGHT, "Right" },
	{ SCX_KEY_PGUP, "PgUp" },
	{ SCX_KEY_PGDN, "PgDn" },
	{ SCX_KEY_HOME, "Home" },
	{ SCX_KEY_END, "End" },
	{ ' ', "Space" },
	{ '#', "Hash" },
	{ '=', "Equals" },
};

const char *scx_term_key_name(int key, char *buf, size_t size)
{
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(key_names); i++)
		if (key_names[i].key == key) {
			snprintf(buf, size, "%s", key_names[i].name);
			return buf;
		}
	if (key >= SCX_KEY_F1 && key < SCX_KEY__MAX)
		snprintf(buf, size, "F%d", key - SCX_KEY_F1 + 1);
	else if (key > 32 && key < 127)
		snprintf(buf, size, "%c", key);
	else
		snprintf(buf, size, "?");
	return buf;
}

int scx_term_key_by_name(const char *name)
{
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(key_names); i++)
		if (!strcasecmp(key_names[i].name, name))
			return key_names[i].key;
	if (!strcasecmp(name, "Escape"))
		return SCX_KEY_ESC;
	if (!strcasecmp(name, "PageUp"))
		return SCX_KEY_PGUP;
	if (!strcasecmp(name, "PageDown"))
		return SCX_KEY_PGDN;
	if ((name[0] == 'F' || name[0] == 'f') && name[1] >= '1' && name[1] <= '9') {
		int n = atoi(name + 1);

		if (n >= 1 && n <= 12 &&
		    (name[2] == 0 || (name[3] == 0 && name[2] >= '0' && name[2] <= '9')))
			return SCX_KEY_F1 + n - 1;
	}
	if (name[0] > 32 && name[0] < 127 && name[1] == 0)
		return name[0];
	return SCX_KEY_NONE;
}
