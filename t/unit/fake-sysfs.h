/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake /sys/kernel/sched_ext for unit tests, laid out as the kernel does:
 * the global attributes in the directory, the root scheduler's in root/.
 * Shared by the tests of the sysfs reader (t/unit/1002) and of the scx_stats
 * record it makes (t/unit/1020).
 */
#ifndef SCX_T_FAKE_SYSFS_H
#define SCX_T_FAKE_SYSFS_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* Write text to dir/name, or end the test: a tree it could not build proves nothing. */
static void fake_sysfs_put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* The files of a tree; a NULL one is left out (hotplug_seq and root/events are recent). */
struct fake_sysfs {
	const char *state, *switch_all, *nr_rejected, *hotplug_seq, *enable_seq;
	const char *ops, *events; /* root/ops, root/events */
};

static void fake_sysfs_tree(const char *dir, const struct fake_sysfs *t)
{
	char root[600];

	snprintf(root, sizeof(root), "%s/root", dir);
	mkdir(dir, 0755);
	mkdir(root, 0755);
	if (t->state)
		fake_sysfs_put(dir, "state", t->state);
	if (t->switch_all)
		fake_sysfs_put(dir, "switch_all", t->switch_all);
	if (t->nr_rejected)
		fake_sysfs_put(dir, "nr_rejected", t->nr_rejected);
	if (t->hotplug_seq)
		fake_sysfs_put(dir, "hotplug_seq", t->hotplug_seq);
	if (t->enable_seq)
		fake_sysfs_put(dir, "enable_seq", t->enable_seq);
	if (t->ops)
		fake_sysfs_put(dir, "root/ops", t->ops);
	if (t->events)
		fake_sysfs_put(dir, "root/events", t->events);
}

#endif
