// SPDX-License-Identifier: GPL-2.0
/*
 * sched_ext's sysfs state and counters, read from fake trees laid out as the
 * kernel does: 6.12 (no root/events), a later kernel with root/events, no
 * sched_ext at all, and broken files, which must be refused with the file and
 * line named.  Deltas between two snapshots.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/scx_sysfs.h"
#include "fake-sysfs.h"
#include "tap.h"

static char base[] = "/tmp/scx-sysfs.XXXXXX";

int main(void)
{
	struct scx_stats a, b, d;
	char dir[512], err[512] = "";
	char lines[4096] = "";

	if (!mkdtemp(base))
		return perror("mkdtemp"), 1;

	snprintf(dir, sizeof(dir), "%s/none", base);
	is_int(scx_sysfs__read(dir, &a, err, sizeof(err)), -ENOENT, "no sched_ext: -ENOENT");
	ok(strstr(err, "no sched_ext"), "and says so: %s", err);

	snprintf(dir, sizeof(dir), "%s/v612", base);
	/* a 6.12 tree: global attributes, root/ops, no root/events */
	fake_sysfs_tree(dir, &(struct fake_sysfs){ .state = "enabled\n",
						   .switch_all = "1\n",
						   .nr_rejected = "2\n",
						   .hotplug_seq = "0\n",
						   .enable_seq = "3\n",
						   .ops = "qmap\n" });
	is_int(scx_sysfs__read(dir, &a, err, sizeof(err)), 0, "6.12 tree reads");
	is_str(a.state, "enabled", "state");
	is_str(a.ops, "qmap", "root/ops");
	is_int(a.enable_seq, 3, "enable_seq");
	is_int(a.nr_rejected, 2, "nr_rejected");
	is_int(a.switch_all, 1, "switch_all");
	ok(!a.has_events && a.nr_events == 0, "no root/events on 6.12");

	fake_sysfs_put(dir, "enable_seq", "5\n");
	fake_sysfs_put(dir, "nr_rejected", "2\n");
	is_int(scx_sysfs__read(dir, &b, err, sizeof(err)), 0, "second snapshot");
	scx_sysfs__delta(&b, &a, &d);
	is_int(d.enable_seq, 2, "enable_seq delta: two loads in the interval");
	is_int(d.nr_rejected, 0, "nr_rejected delta");
	is_int(d.switch_all, 1, "switch_all is a state, not a delta");

	/* a later kernel: root/events */
	fake_sysfs_put(dir, "root/events",
		       "SCX_EV_SELECT_CPU_FALLBACK 10\nSCX_EV_DISPATCH_KEEP_LAST 4\n"
		       "SCX_EV_BYPASS_DURATION 1000\n");
	is_int(scx_sysfs__read(dir, &a, err, sizeof(err)), 0, "tree with root/events reads");
	ok(a.has_events && a.nr_events == 3, "three counters");
	is_str(a.events[0].name, "SELECT_CPU_FALLBACK", "name without the SCX_EV_ prefix");
	is_int(a.events[2].value, 1000, "value");
	fake_sysfs_put(dir, "root/events",
		       "SCX_EV_SELECT_CPU_FALLBACK 25\nSCX_EV_DISPATCH_KEEP_LAST 4\n"
		       "SCX_EV_BYPASS_DURATION 0\nSCX_EV_NEW_ONE 7\n");
	scx_sysfs__read(dir, &b, err, sizeof(err));
	scx_sysfs__delta(&b, &a, &d);
	is_int(d.events[0].value, 15, "counter delta");
	is_int(d.events[1].value, 0, "unchanged counter: 0");
	is_int(d.events[2].value, 0, "a counter that went back (scheduler reloaded) counts from 0");
	is_int(d.events[3].value, 7, "a new counter counts from 0");

	/* memory stays bounded: counters past the cap are counted, not kept */
	for (int i = 0; i < SCX_STATS_MAX_EVENTS + 5; i++)
		snprintf(lines + strlen(lines), sizeof(lines) - strlen(lines), "SCX_EV_C%d %d\n", i,
			 i);
	fake_sysfs_put(dir, "root/events", lines);
	is_int(scx_sysfs__read(dir, &a, err, sizeof(err)), 0, "many counters read");
	is_int(a.nr_events, SCX_STATS_MAX_EVENTS, "kept up to the cap");
	is_int(a.events_dropped, 5, "the rest counted as dropped");

	/* bad input: named by file and line */
	fake_sysfs_put(dir, "root/events", "SCX_EV_A 1\nSCX_EV_B x\n");
	is_int(scx_sysfs__read(dir, &a, err, sizeof(err)), -EINVAL, "a counter without a value");
	ok(strstr(err, "root/events:2:") && strstr(err, "SCX_EV_B"), "names file and line: %s",
	   err);
	fake_sysfs_put(dir, "root/events", "SCX_EV_A -1\n");
	is_int(scx_sysfs__read(dir, &a, err, sizeof(err)), -EINVAL, "a negative counter");
	fake_sysfs_put(dir, "root/events", "SCX_EV_A 1 2\n");
	is_int(scx_sysfs__read(dir, &a, err, sizeof(err)), -EINVAL, "trailing words");
	fake_sysfs_put(dir, "root/events", "");
	fake_sysfs_put(dir, "enable_seq", "many\n");
	is_int(scx_sysfs__read(dir, &a, err, sizeof(err)), -EINVAL, "enable_seq not a number");
	ok(strstr(err, "enable_seq") && strstr(err, "many"), "names the file: %s", err);

	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
		if (system(cmd))
			return 1;
	}
	return done_testing();
}
