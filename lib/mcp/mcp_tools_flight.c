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

const struct mcp_out mcp_out_flight[] = {
	{ "signalled", "array" },
	{ "recorders", "number" },
	{ "note", "string" },
	{ "" },
};

#define MAX_RECORDERS 64

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
	int pids[MAX_RECORDERS], nr = 0, sent = 0;
	char dirs[MAX_RECORDERS][256];
	int64_t want = 0;
	struct dirent *d;
	DIR *proc;

	if (mcp_arg_i64(c, "pid", &want, 1, INT_MAX) < 0)
		return -EINVAL;
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
	scx_jw_obj_begin(&c->w);
	scx_jw_key(&c->w, "signalled");
	scx_jw_arr_begin(&c->w);
	for (int i = 0; i < nr; i++) {
		union sigval v = { .sival_int = SCX_FLIGHT_SIGVAL_MCP };

		if (sigqueue(pids[i], SIGUSR1, v))
			continue;
		sent++;
		scx_jw_obj_begin(&c->w);
		scx_jw_kint(&c->w, "pid", pids[i]);
		scx_jw_kstr(&c->w, "windows_dir", dirs[i]);
		scx_jw_obj_end(&c->w);
	}
	scx_jw_arr_end(&c->w);
	scx_jw_kint(&c->w, "recorders", nr);
	scx_jw_kstr(&c->w, "note",
		    sent ? "each writes flight-NNN-mcp.* in its windows_dir within "
			   "about 100 ms" :
			   "no scx-events --flight is running (or it could not "
			   "be signalled)");
	scx_jw_obj_end(&c->w);
	return 0;
}
