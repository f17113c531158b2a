// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF hint recorder, live: a task-storage map pinned in bpffs, updated
 * from user space with a pidfd key, must show up in hints.jsonl with the
 * target task, the value and a CLOCK_MONOTONIC timestamp; updates of another
 * map must not.  Needs root and bpffs; skipped with the reason otherwise.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hints.skel.h"
#include "prof/prof.h"
#include "tap.h"

static int task_storage_map(const char *name)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_NO_PREALLOC);
	struct btf *btf = btf__new_empty();
	int key, val, fd;

	key = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	val = btf__add_int(btf, "unsigned long long", 8, 0);
	if (key < 0 || val < 0 || btf__load_into_kernel(btf))
		return -1;
	o.btf_fd = btf__fd(btf);
	o.btf_key_type_id = (__u32)key;
	o.btf_value_type_id = (__u32)val;
	fd = bpf_map_create(BPF_MAP_TYPE_TASK_STORAGE, name, 4, 8, 0, &o);
	btf__free(btf);
	return fd;
}

static void skip_rest(int n, const char *why)
{
	for (int i = 0; i < n; i++)
		printf("ok %d # SKIP %s\n", ++tap_n, why);
}

/* lines of the hints file at path that parse and are pid's with that value */
static int count_hints(const char *path, int pid, uint64_t hints)
{
	FILE *f = fopen(path, "r");
	struct prof_hint_rec h;
	const char *why;
	char line[512];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		if (!prof_hint_parse(line, strlen(line) - 1, &h, &why) && h.pid == pid &&
		    h.hints == hints)
			n++;
	if (f)
		fclose(f);
	return n;
}

int main(void)
{
	char pin[128], pin2[128], err[512], tmpl[] = "/tmp/scx-prof-hints.XXXXXX", line[512];
	struct prof_hintrec *r;
	struct prof_hint_rec h;
	const char *why;
	uint64_t v = 0x1234, other = 0x9999, t0, t1, dropped;
	int map, map2, arr, pidfd, out, n = 0;
	FILE *f;

	if (geteuid() != 0) {
		skip_rest(14, "needs root");
		return done_testing();
	}
	map = task_storage_map("scxprof_test");
	map2 = task_storage_map("scxprof_other");
	if (map < 0 || map2 < 0) {
		skip_rest(14, "cannot create task-storage maps here");
		return done_testing();
	}
	snprintf(pin, sizeof(pin), "/sys/fs/bpf/scx-prof-test-%d", getpid());
	snprintf(pin2, sizeof(pin2), "/sys/fs/bpf/scx-prof-test-arr-%d", getpid());
	/* bpffs is where schedulers pin their maps; mount it like they would */
	if (bpf_obj_pin(map, pin) &&
	    (mount("bpf", "/sys/fs/bpf", "bpf", 0, NULL) || bpf_obj_pin(map, pin))) {
		skip_rest(14, "bpffs is not mounted at /sys/fs/bpf");
		return done_testing();
	}
	arr = bpf_map_create(BPF_MAP_TYPE_ARRAY, "scxprof_arr", 4, 8, 1, NULL);
	bpf_obj_pin(arr, pin2);

	out = mkstemp(tmpl);
	ok(!prof_hintrec__new(pin, 3, out, err, sizeof(err)) && errno == EINVAL,
	   "a ring size that is not a power of two is refused up front");
	ok(!prof_hintrec__new(pin2, 1, out, err, sizeof(err)) && strstr(err, "not a task-storage"),
	   "another map type is refused: %s", err);

	r = prof_hintrec__new(pin, 1, out, err, sizeof(err));
	if (!r) {
		printf("# %s\n", err);
		skip_rest(12, "hints unavailable on this kernel");
		goto out;
	}
	printf("# hint hook: %s\n", prof_hintrec__how(r));
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	t0 = scx_now_mono_ns();
	ok(!bpf_map_update_elem(map, &pidfd, &v, BPF_ANY), "user-space hint update");
	ok(!bpf_map_update_elem(map2, &pidfd, &other, BPF_ANY), "update of another map");
	t1 = scx_now_mono_ns();
	for (int i = 0; i < 20 && prof_hintrec__written(r) < 1; i++)
		prof_hintrec__poll(r, 50);
	dropped = prof_hintrec__free(r);
	is_int(dropped, 0, "nothing dropped");

	f = fopen(tmpl, "r");
	while (f && fgets(line, sizeof(line), f)) {
		n++;
		if (n > 1)
			continue;
		ok(!prof_hint_parse(line, strlen(line) - 1, &h, &why) && h.pid == getpid() &&
			   h.tgid == getpid() && h.hints == 0x1234,
		   "hints.jsonl: %s", line);
		ok(h.ts >= t0 && h.ts <= t1, "timestamp is CLOCK_MONOTONIC at the update");
	}
	if (f)
		fclose(f);
	is_int(n, 1, "exactly the pinned map's update was recorded");

	/* a 1 MB ring holds about 21k events: 40k updates without reading must drop some */
	r = prof_hintrec__new(pin, 1, out, err, sizeof(err));
	if (r) {
		uint64_t written;
		int fails = 0;

		for (int i = 0; i < 40000; i++)
			fails += !!bpf_map_update_elem(map, &pidfd, &v, BPF_ANY);
		prof_hintrec__poll(r, 0);
		written = prof_hintrec__written(r);
		dropped = prof_hintrec__free(r);
		ok(!fails && dropped > 0 && written + dropped >= 40000 && written <= 40000,
		   "a full ring buffer counts drops: %llu written, %llu dropped",
		   (unsigned long long)written, (unsigned long long)dropped);
	} else {
		ok(0, "recorder reopens: %s", err);
	}
	close(pidfd);

	/* a store made by a BPF program (as a scheduler makes them) is seen by the scan */
	{
		struct hints_bpf *t = hints_bpf__open();
		char tmpl2[] = "/tmp/scx-prof-hints2.XXXXXX";
		int out2 = mkstemp(tmpl2), found = 0;

		bpf_program__set_autoload(t->progs.on_update_value, false);
		bpf_program__set_autoload(t->progs.on_sys_bpf, false);
		bpf_program__set_autoload(t->progs.scan_tasks, false);
		bpf_program__set_autoload(t->progs.test_store_hint, true);
		bpf_map__reuse_fd(t->maps.hint_map, map);
		t->bss->test_hint_tgid = (__u32)getpid();
		t->bss->test_hint_value = 0xbeef;
		if (hints_bpf__load(t) || hints_bpf__attach(t)) {
			ok(0, "test store program loads");
		} else {
			r = prof_hintrec__new(pin, 1, out2, err, sizeof(err));
			syscall(SYS_getppid);
			for (int i = 0; r && i < 5; i++)
				prof_hintrec__poll(r, 20);
			prof_hintrec__free(r);
			found = count_hints(tmpl2, getpid(), 0xbeef);
			ok(found == 1, "a BPF-side hint store is recorded once (%s)",
			   r ? "recorder ran" : err);
		}
		hints_bpf__destroy(t);
		close(out2);
		unlink(tmpl2);
	}

	/*
	 * An update hooked but not yet read from the ring when a scan sees its
	 * value (a poll drains the ring, the update lands, the scan runs) is
	 * one update: written once, from the hook.
	 */
	{
		char tmpl3[] = "/tmp/scx-prof-hints3.XXXXXX";
		int out3 = mkstemp(tmpl3), pfd = (int)syscall(SYS_pidfd_open, getpid(), 0),
		    seen = 0;
		uint64_t val = 0x5151;

		r = prof_hintrec__new(pin, 1, out3, err, sizeof(err));
		if (r) {
			bool scans = strstr(prof_hintrec__how(r), "iter/task scan") != NULL;

			bpf_map_update_elem(map, &pfd, &val, BPF_ANY);
			prof_hintrec__scan(r);
			prof_hintrec__poll(r, 0);
			prof_hintrec__free(r);
			seen = count_hints(tmpl3, getpid(), 0x5151);
			ok(seen == 1,
			   "an update the scan sees before the ring is read is written once (%d times%s)",
			   seen, scans ? "" : "; no iter/task scan here");
		} else {
			ok(0, "recorder reopens: %s", err);
		}
		close(pfd);
		close(out3);
		unlink(tmpl3);
	}

	/* the whole record path: fake perf, a child updating its own hint meanwhile */
	{
		char dir[] = "/tmp/scx-prof-rec.XXXXXX", outdir[256], log[300], fake[4096], *l;
		const char *src = getenv("SCX_SRC");
		volatile sig_atomic_t stop = 0;
		struct prof_record_opts o = {
			.out = outdir,
			.timeout_ns = 600000000ULL,
			.ldlat = 10,
			.hints_map = pin,
			.hints_ring_mb = 1,
			.no_archive = true,
			.perf = fake,
			.stop = &stop,
		};
		int go[2], done[2];
		bool intr;
		pid_t child;
		struct scx_buf b = { 0 };

		mkdtemp(dir);
		snprintf(outdir, sizeof(outdir), "%s/p", dir);
		snprintf(log, sizeof(log), "%s/perf.log", dir);
		snprintf(fake, sizeof(fake), "%s/t/data/prof-fake-perf", src ? src : ".");
		setenv("FAKE_PERF_LOG", log, 1);
		if (pipe(go) || pipe(done))
			return 1;
		child = fork();
		if (!child) {
			uint64_t mine = 77;
			int me = (int)syscall(SYS_pidfd_open, getpid(), 0);
			char c;

			close(go[1]);
			close(done[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(1);
			/*
			 * record spawns perf only once the hint recorder is
			 * attached: wait for the fake perf to log "record", not a
			 * fixed time a slow (sanitized, loaded) attach may overrun
			 */
			for (int i = 0; i < 500; i++) {
				FILE *lf = fopen(log, "r");
				char ln[512];
				bool seen = false;

				while (lf && !seen && fgets(ln, sizeof(ln), lf))
					seen = strstr(ln, "record") != NULL;
				if (lf)
					fclose(lf);
				if (seen)
					break;
				usleep(10000);
			}
			bpf_map_update_elem(map, &me, &mine, BPF_ANY);
			(void)!read(done[0], &c, 1); /* stay alive until resolved */
			_exit(0);
		}
		close(go[0]);
		(void)!write(go[1], "g", 1);
		ok(!prof_record(&o, &intr) && !intr, "record with --hints-map");
		close(done[1]);
		waitpid(child, NULL, 0);
		snprintf(line, sizeof(line), "%s/hints.jsonl", outdir);
		is_int(count_hints(line, child, 77), 1, "the child's update is in hints.jsonl");
		f = fopen(log, "r");
		while (f && fgets(line, sizeof(line), f))
			scx_buf_addstr(&b, line);
		if (f)
			fclose(f);
		scx_buf_add(&b, "", 1);
		l = strstr(b.data ? b.data : "", "mem record");
		ok(l && strstr(l, "--ldlat 10 -k CLOCK_MONOTONIC -o "),
		   "perf records CLOCK_MONOTONIC so samples join hints");
		scx_buf_free(&b);
		prof_rmtree(dir);
	}
out:
	unlink(pin);
	unlink(pin2);
	unlink(tmpl);
	return done_testing();
}
