// SPDX-License-Identifier: GPL-2.0
/*
 * The workload of t/11xx-events-*.t, built by the test as "scxev-wl" (its
 * comm): sleeps N times for 20 ms, forks a child that execs PROG, waits for
 * it, writes "PARENT_PID CHILD_PID" to PIDFILE and exits.
 *   scxev-wl N PROG PIDFILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int n, status;
	pid_t child;
	FILE *f;

	if (argc != 4)
		return 2;
	n = atoi(argv[1]);
	for (int i = 0; i < n; i++)
		nanosleep(&ts, NULL);
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		execl(argv[2], argv[2], (char *)NULL);
		_exit(127);
	}
	if (waitpid(child, &status, 0) != child)
		return 1;
	f = fopen(argv[3], "w");
	if (!f)
		return 1;
	fprintf(f, "%d %d\n", (int)getpid(), (int)child);
	return fclose(f) ? 1 : 0;
}
