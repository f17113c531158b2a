// SPDX-License-Identifier: GPL-2.0
/*
 * Profile archives: what prof_tar_create packs, GNU tar lists and extracts
 * byte for byte (long paths through the ustar prefix, empty files, sizes on
 * and off block boundaries), prof_tar_extract restores under the archive's
 * name, and hand-made hostile or broken archives are refused leaving nothing.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "prof/prof.h"
#include "tap.h"

static char base[64];

static void put(const char *rel, size_t size)
{
	char p[1024];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", base, rel);
	f = fopen(p, "w");
	for (size_t i = 0; i < size; i++)
		fputc('a' + (int)(i % 26), f);
	fclose(f);
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* a one-entry archive with a hand-made header */
static void evil(const char *path, const char *name, char type, bool bad_sum, size_t trunc)
{
	unsigned char h[512] = { 0 }, body[512] = "x";
	unsigned sum = 0;
	gzFile gz = gzopen(path, "wb");

	memcpy(h, name, strlen(name));
	memcpy(h + 100, "0000644", 7);
	memcpy(h + 124, "00000000001", 11);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum + (bad_sum ? 1 : 0));
	gzwrite(gz, h, trunc ? (unsigned)trunc : 512);
	if (!trunc) {
		gzwrite(gz, body, 512);
		memset(body, 0, sizeof(body));
		gzwrite(gz, body, 512);
		gzwrite(gz, body, 512);
	}
	gzclose(gz);
}

int main(void)
{
	char dir[1024], arc[1024], err[512] = "", longdir[512], tmp[1024];
	struct stat st;

	snprintf(base, sizeof(base), "/tmp/scx-prof-tar.%d", getpid());
	mkdir(base, 0755);
	snprintf(dir, sizeof(dir), "%s/prof", base);
	mkdir(dir, 0755);
	put("prof/perf.data", 0);
	put("prof/perf.version", 21);
	put("prof/block", 1024);
	/* a path longer than 100 bytes: needs the ustar prefix field */
	snprintf(longdir, sizeof(longdir), "prof/%s",
		 "a-directory-name-that-is-quite-long-indeed-"
		 "to-push-the-path-beyond-one-hundred-bytes");
	snprintf(tmp, sizeof(tmp), "%s/%s", base, longdir);
	mkdir(tmp, 0755);
	snprintf(tmp, sizeof(tmp), "%s/%s", longdir, "and-a-file-name-that-is-long-too.txt");
	put(tmp, 777);

	snprintf(arc, sizeof(arc), "%s/prof.tar.gz", base);
	ok(!prof_tar_create(dir, arc, err, sizeof(err)), "create: %s", err);
	ok(prof_tar_create(dir, arc, err, sizeof(err)) == -EEXIST, "an existing archive is kept");
	ok(!sh("cd %s && mkdir gnu && tar xzf %s -C gnu", base, arc), "GNU tar extracts it");
	ok(!sh("diff -r %s/prof %s/gnu/prof", base, base), "GNU tar gets every byte back");
	ok(!sh("tar tzf %s | grep -qx 'prof/a-directory-name-that-is-quite-long-indeed-to-push-the-"
	       "path-beyond-one-hundred-bytes/and-a-file-name-that-is-long-too.txt'",
	       arc),
	   "the long path is listed whole");

	ok(!prof_tar_extract(arc, base, "copy", err, sizeof(err)), "extract under another name: %s",
	   err);
	ok(!sh("diff -r %s/prof %s/copy", base, base), "extract gets every byte back");
	ok(prof_tar_extract(arc, base, "copy", err, sizeof(err)) && strstr(err, "File exists"),
	   "an existing target is not overwritten: %s", err);

	snprintf(tmp, sizeof(tmp), "%s/e.tar.gz", base);
	evil(tmp, "../escape", '0', false, 0);
	ok(prof_tar_extract(tmp, base, "e", err, sizeof(err)) == -EINVAL && strstr(err, "refusing"),
	   "'..' refused: %s", err);
	evil(tmp, "/etc/escape", '0', false, 0);
	ok(prof_tar_extract(tmp, base, "e", err, sizeof(err)) == -EINVAL, "absolute path refused");
	evil(tmp, "e/dev", '3', false, 0);
	ok(prof_tar_extract(tmp, base, "e", err, sizeof(err)) == -EINVAL && strstr(err, "type '3'"),
	   "device refused: %s", err);
	evil(tmp, "e/f", '0', true, 0);
	ok(prof_tar_extract(tmp, base, "e", err, sizeof(err)) == -EINVAL && strstr(err, "checksum"),
	   "bad checksum: %s", err);
	evil(tmp, "e/f", '0', false, 300);
	ok(prof_tar_extract(tmp, base, "e", err, sizeof(err)) == -EINVAL &&
		   strstr(err, "truncated"),
	   "truncated header: %s", err);
	snprintf(tmp, sizeof(tmp), "%s/e", base);
	ok(stat(tmp, &st) && errno == ENOENT, "nothing is left behind by refused archives");

	prof_rmtree(base);
	ok(stat(base, &st) && errno == ENOENT, "rmtree");
	return done_testing();
}
