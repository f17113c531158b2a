// SPDX-License-Identifier: GPL-2.0
/* scx-mcp's flight_trigger tool (mcp_tools_flight.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/flight.h"
#include "mcp/mcp_tools_flight.h"

#define MAX_RECORDERS 64

/* the recorders signalled, each writing its windows to its directory */
struct flight_sent {
	unsigned n;
	int pids[MAX_RECORDERS];
	const char *dirs[MAX_RECORDERS];
};
struct recorder_rec {
	int64_t pid;
	const char *windows_dir;
};
static const struct mcp_out recorder_item[] = {
	MCP_REC_INT(recorder_rec, pid),
	MCP_REC_STR(recorder_rec, windows_dir),
	{ "" },
};

static void signalled(struct scx_jw *w, const void *val)
{
	const struct flight_sent *sent = val;

	scx_jw_arr_begin(w);
	for (unsigned i = 0; i < sent->n; i++)
		mcp_out_write(w, recorder_item,
			      &(struct recorder_rec){ sent->pids[i], sent->dirs[i] });
	scx_jw_arr_end(w);
}

struct flight_rec {
	const struct flight_sent *signalled;
	uint64_t recorders;
	const char *note;
};
const struct mcp_out mcp_out_flight[] = {
	MCP_REC_FN(flight_rec, signalled, "array", signalled),
	MCP_REC_UINT(flight_rec, recorders),
	MCP_REC_STR(flight_rec, note),
	{ "" },
};

/*
 * Is pid an scx-events running with --flight?  Only those get the signal:
 * SIGUSR1 kills a process that does not handle it.  dir gets its -o argument
 * made absolute against its working directory ("" when none).
 */
static bool is_recorder(int pid, char *dir, size_t size)
{
	char path[64], buf[4096], cwd[PATH_MAX];
	const char *out = ".";
	bool flight = false;
	size_t n;
	ssize_t len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (!n || strcmp(strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf, "scx-events"))
		return false;
	for (size_t i = strlen(buf) + 1; i < n; i += strlen(buf + i) + 1) {
		const char *a = buf + i;

		if (!strncmp(a, "--flight", 8) && (a[8] == '\0' || a[8] == '='))
			flight = true;
		if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + strlen(a) + 1 < n)
			out = buf + i + strlen(a) + 1;
		else if (!strncmp(a, "--output=", 9))
			out = a + 9;
	}
	snprintf(path, sizeof(path), "/proc/%d/cwd", pid);
	len = readlink(path, cwd, sizeof(cwd) - 1);
	cwd[len > 0 ? len : 0] = '\0';
	/* a path longer than dir is cut: it is shown, never opened */
	if (out[0] == '/' || !cwd[0])
		cwd[0] = '\0';
	else
		strncat(cwd, "/", sizeof(cwd) - strlen(cwd) - 1);
	strncat(cwd, out, sizeof(cwd) - strlen(cwd) - 1);
	memcpy(dir, cwd, size - 1);
	dir[size - 1] = '\0';
	return flight;
}

int mcp_t_flight(struct mcp_call *c)
{
	int pids[MAX_RECORDERS], nr = 0;
	char dirs[MAX_RECORDERS][256];
	struct flight_sent sent;
	int64_t want = 0;
	struct dirent *d;
	DIR *proc;

	if (mcp_arg_i64(c, "pid", &want, 1, INT_MAX) < 0)
		return -EINVAL;
	sent.n = 0; /* (not its arrays: only the first n are read) */
	if (want) {
		if (!is_recorder((int)want, dirs[0], sizeof(dirs[0])))
			return mcp_fail(c, "pid %lld is not an scx-events running with --flight",
					(long long)want);
		pids[nr++] = (int)want;
	} else {
		proc = opendir("/proc");
		if (!proc) {
			int err = -errno;

			mcp_fail(c, "cannot read /proc: %s", strerror(-err));
			return err;
		}
		while ((d = readdir(proc)) && nr < MAX_RECORDERS) {
			int pid = atoi(d->d_name);

			if (pid > 0 && pid != getpid() &&
			    is_recorder(pid, dirs[nr], sizeof(dirs[0])))
				pids[nr++] = pid;
		}
		closedir(proc);
	}
	for (int i = 0; i < nr; i++) {
		union sigval v = { .sival_int = SCX_FLIGHT_SIGVAL_MCP };

		if (sigqueue(pids[i], SIGUSR1, v))
			continue;
		sent.pids[sent.n] = pids[i];
		sent.dirs[sent.n++] = dirs[i];
	}
	mcp_out_write(&c->w, mcp_out_flight,
		      &(struct flight_rec){
			      .signalled = &sent,
			      .recorders = (uint64_t)nr,
			      .note = sent.n ? "each writes flight-NNN-mcp.* in its windows_dir "
					       "within about 100 ms" :
					       "no scx-events --flight is running (or it could "
					       "not be signalled)",
		      });
	return 0;
}
