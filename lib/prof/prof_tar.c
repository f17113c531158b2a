// SPDX-License-Identifier: GPL-2.0
/*
 * Just enough ustar-in-gzip for profile archives, with zlib: record packs
 * DIR into DIR.tar.gz and process unpacks it, without an external tar (the
 * original shelled out to tar and extracted into the current directory).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "prof/prof.h"

#define BLK 512

struct hdr {
	char name[100], mode[8], uid[8], gid[8], size[12], mtime[12], chksum[8], type;
	char linkname[100], magic[6], version[2], uname[32], gname[32], devmajor[8], devminor[8],
		prefix[155], pad[12];
};
_Static_assert(sizeof(struct hdr) == BLK, "ustar header is one block");

static void octal(char *f, size_t w, uint64_t v)
{
	/* w-1 digits and a NUL; larger sizes use GNU base-256 */
	if (w == 12 && v >= 077777777777ULL) {
		memset(f, 0, w);
		f[0] = (char)0x80;
		for (int i = (int)w - 1; i > 0; i--, v >>= 8)
			f[i] = (char)(v & 0xff);
		return;
	}
	snprintf(f, w, "%0*llo", (int)w - 1, (unsigned long long)v);
}

static unsigned checksum(const struct hdr *h)
{
	const unsigned char *p = (const unsigned char *)h;
	unsigned s = 0;

	for (size_t i = 0; i < BLK; i++)
		s += (i >= 148 && i < 156) ? ' ' : p[i];
	return s;
}

struct tw {
	gzFile gz;
	char *err;
	size_t errsz;
	const char *out;
};

static int gzw(struct tw *w, const void *p, size_t n)
{
	while (n) {
		unsigned k = n > (1u << 30) ? 1u << 30 : (unsigned)n;
		int r = gzwrite(w->gz, p, k);

		if (r <= 0) {
			int e;
			const char *m = gzerror(w->gz, &e);

			snprintf(w->err, w->errsz, "cannot write '%s': %s", w->out,
				 e == Z_ERRNO ? strerror(errno) : m);
			return e == Z_ERRNO && errno ? -errno : -EIO;
		}
		p = (const char *)p + r;
		n -= (size_t)r;
	}
	return 0;
}

static int put_header(struct tw *w, const char *name, const struct stat *st, char type)
{
	struct hdr h;
	size_t n = strlen(name);

	memset(&h, 0, sizeof(h));
	if (n <= sizeof(h.name)) {
		memcpy(h.name, name, n);
	} else {
		/* split at a '/' so that prefix <= 155 and name <= 100 */
		const char *slash = NULL;

		for (const char *q = name; *q; q++)
			if (*q == '/' && (size_t)(q - name) <= sizeof(h.prefix) &&
			    strlen(q + 1) <= sizeof(h.name))
				slash = q;
		if (!slash) {
			snprintf(w->err, w->errsz, "path too long for the archive: '%s'", name);
			return -ENAMETOOLONG;
		}
		memcpy(h.prefix, name, (size_t)(slash - name));
		memcpy(h.name, slash + 1, strlen(slash + 1));
	}
	octal(h.mode, sizeof(h.mode), st->st_mode & 07777);
	octal(h.uid, sizeof(h.uid), st->st_uid & 07777777);
	octal(h.gid, sizeof(h.gid), st->st_gid & 07777777);
	octal(h.size, sizeof(h.size), type == '0' ? (uint64_t)st->st_size : 0);
	octal(h.mtime, sizeof(h.mtime), (uint64_t)(st->st_mtime > 0 ? st->st_mtime : 0));
	h.type = type;
	memcpy(h.magic, "ustar", 6);
	memcpy(h.version, "00", 2);
	snprintf(h.chksum, sizeof(h.chksum), "%06o", checksum(&h));
	h.chksum[7] = ' ';
	return gzw(w, &h, sizeof(h));
}

static int put_file(struct tw *w, const char *path, const char *name, const struct stat *st)
{
	static char buf[1 << 16];
	uint64_t left = (uint64_t)st->st_size;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0) {
		err = -errno;
		snprintf(w->err, w->errsz, "cannot open '%s': %s", path, strerror(errno));
		return err;
	}
	if ((err = put_header(w, name, st, '0')))
		goto out;
	while (left) {
		ssize_t n = read(fd, buf, left < sizeof(buf) ? (size_t)left : sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			snprintf(w->err, w->errsz, "cannot read '%s': %s", path,
				 n < 0 ? strerror(errno) : "file shrank while archiving");
			goto out;
		}
		if ((err = gzw(w, buf, (size_t)n)))
			goto out;
		left -= (uint64_t)n;
	}
	if (st->st_size % BLK) {
		static const char zero[BLK];

		err = gzw(w, zero, BLK - (size_t)(st->st_size % BLK));
	}
out:
	close(fd);
	return err;
}

static int namecmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int put_dir(struct tw *w, const char *path, const char *name)
{
	struct dirent **ents = NULL;
	struct stat st;
	int n, err = 0;

	if (lstat(path, &st)) {
		err = -errno;
		snprintf(w->err, w->errsz, "cannot stat '%s': %s", path, strerror(errno));
		return err;
	}
	{
		char dn[PATH_MAX];

		snprintf(dn, sizeof(dn), "%s/", name);
		if ((err = put_header(w, dn, &st, '5')))
			return err;
	}
	n = scandir(path, &ents, NULL, namecmp);
	if (n < 0) {
		err = -errno;
		snprintf(w->err, w->errsz, "cannot read directory '%s': %s", path, strerror(errno));
		return err;
	}
	for (int i = 0; i < n; i++) {
		char p[PATH_MAX], nm[PATH_MAX];
		const char *d = ents[i]->d_name;

		if (err || !strcmp(d, ".") || !strcmp(d, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, d);
		snprintf(nm, sizeof(nm), "%s/%s", name, d);
		if (lstat(p, &st)) {
			err = -errno;
			snprintf(w->err, w->errsz, "cannot stat '%s': %s", p, strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			err = put_dir(w, p, nm);
		} else if (S_ISREG(st.st_mode)) {
			err = put_file(w, p, nm, &st);
		}
		/* sockets, fifos and links have no place in a profile: left out */
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return err;
}

int prof_tar_create(const char *dir, const char *out, char *err, size_t errsz)
{
	static const char zero[2 * BLK];
	struct tw w = { .err = err, .errsz = errsz, .out = out };
	char *copy = strdup(dir), *base;
	size_t len = strlen(copy);
	int ret, fd;

	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = 0;
	base = strrchr(copy, '/');
	base = base ? base + 1 : copy;
	fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errsz, "cannot create '%s': %s", out, strerror(errno));
		free(copy);
		return ret;
	}
	w.gz = gzdopen(fd, "wb6");
	if (!w.gz) {
		close(fd);
		unlink(out);
		free(copy);
		snprintf(err, errsz, "cannot create '%s': out of memory", out);
		return -ENOMEM;
	}
	ret = put_dir(&w, copy, base);
	if (!ret)
		ret = gzw(&w, zero, sizeof(zero));
	if (gzclose(w.gz) != Z_OK && !ret) {
		ret = -EIO;
		snprintf(err, errsz, "cannot write '%s': %s", out, strerror(errno));
	}
	if (ret)
		unlink(out);
	free(copy);
	return ret;
}

/* ---- extract ------------------------------------------------------------- */

static int gzr(gzFile gz, void *p, size_t n)
{
	while (n) {
		int r = gzread(gz, p, (unsigned)SCX_MIN(n, 1u << 30));

		if (r <= 0)
			return r < 0 ? -EIO : -ENODATA;
		p = (char *)p + r;
		n -= (size_t)r;
	}
	return 0;
}

static uint64_t num(const char *f, size_t w, bool *ok)
{
	uint64_t v = 0;
	size_t i = 0;

	if ((unsigned char)f[0] & 0x80) {
		for (i = 1; i < w; i++)
			v = v << 8 | (unsigned char)f[i];
		return v;
	}
	while (i < w && f[i] == ' ')
		i++;
	for (; i < w && f[i] >= '0' && f[i] <= '7'; i++)
		v = v * 8 + (uint64_t)(f[i] - '0');
	if (i < w && f[i] != 0 && f[i] != ' ')
		*ok = false;
	return v;
}

static int mkdirs(const char *path)
{
	char p[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != 0)
			continue;
		char c = p[i];

		p[i] = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		p[i] = c;
	}
	return 0;
}

bool prof_tar_member_path(const char *name, const char *parent, const char *root, char *top,
			  size_t topsz, char *out, size_t outsz)
{
	const char *rest;
	size_t tl;

	if (name[0] == '/' || !name[0])
		return false;
	while (name[0] == '.' && name[1] == '/')
		name += 2;
	rest = strchr(name, '/');
	tl = rest ? (size_t)(rest - name) : strlen(name);
	if (!tl || tl >= topsz)
		return false;
	if (!top[0]) {
		memcpy(top, name, tl);
		top[tl] = 0;
	} else if (strlen(top) != tl || memcmp(top, name, tl)) {
		return false;
	}
	if (!strncmp(name, "..", tl) && tl == 2)
		return false;
	rest = rest ? rest + 1 : "";
	for (const char *c = rest; *c;) {
		const char *e = strchrnul(c, '/');

		if ((e - c == 2 && !strncmp(c, "..", 2)))
			return false;
		c = *e ? e + 1 : e;
	}
	return (size_t)snprintf(out, outsz, "%s/%s/%s", parent, root, rest) < outsz;
}

/* One extraction: where it reads and writes, and what it has seen so far. */
struct tar_in {
	gzFile gz;
	const char *archive, *parent, *root;
	char *err;
	size_t errsz;
	uint64_t off;		 /* of the block read next, for messages */
	char top[256];		 /* the archive's one top directory, from its first entry */
	char longname[PATH_MAX]; /* a GNU long name for the next entry */
	char rootpath[PATH_MAX];
	bool made_root;
};

static char xbuf[1 << 16];

/* The next header into *h: 0, 1 at the end of the archive, or -EINVAL. */
static int read_header(struct tar_in *t, struct hdr *h)
{
	bool ok = true, zero = true;
	int ret = gzr(t->gz, h, BLK);

	if (ret) {
		snprintf(t->err, t->errsz, "%s: %s at byte %llu", t->archive,
			 ret == -ENODATA ? "truncated archive" : "not a gzip-compressed tar",
			 (unsigned long long)t->off);
		return -EINVAL;
	}
	for (size_t i = 0; i < BLK && zero; i++)
		zero = !((char *)h)[i];
	if (zero)
		return 1;
	if (num(h->chksum, sizeof(h->chksum), &ok) != checksum(h) || !ok) {
		snprintf(t->err, t->errsz, "%s: bad tar header checksum at byte %llu", t->archive,
			 (unsigned long long)t->off);
		return -EINVAL;
	}
	t->off += BLK;
	return 0;
}

/* The entry's name: a pending GNU long name, else the ustar prefix and name. */
static void member_name(struct tar_in *t, const struct hdr *h, char *name, size_t namesz)
{
	if (t->longname[0]) {
		snprintf(name, namesz, "%s", t->longname);
		t->longname[0] = 0;
	} else if (h->prefix[0] && !memcmp(h->magic, "ustar", 5)) {
		snprintf(name, namesz, "%.155s/%.100s", h->prefix, h->name);
	} else {
		snprintf(name, namesz, "%.100s", h->name);
	}
}

/* A GNU long name for the next entry is kept; pax attributes are skipped. */
static int read_extended(struct tar_in *t, const struct hdr *h, uint64_t size)
{
	size_t pad = (size_t)((size + BLK - 1) / BLK * BLK);

	if (size >= sizeof(t->longname) || size > sizeof(xbuf)) {
		snprintf(t->err, t->errsz, "%s: oversized extended header at byte %llu", t->archive,
			 (unsigned long long)t->off);
		return -EINVAL;
	}
	if (gzr(t->gz, xbuf, pad)) {
		snprintf(t->err, t->errsz, "%s: truncated archive", t->archive);
		return -EINVAL;
	}
	if (h->type == 'L') {
		memcpy(t->longname, xbuf, (size_t)size);
		t->longname[size] = 0;
	}
	t->off += pad;
	return 0;
}

/* A regular file's SIZE bytes, and the padding to its last block, into PATH. */
static int write_file(struct tar_in *t, const char *name, char *path, uint64_t size)
{
	char *slash = strrchr(path, '/');
	uint64_t left;
	int ret, fd;

	*slash = 0;
	ret = mkdirs(path);
	*slash = '/';
	if (ret) {
		snprintf(t->err, t->errsz, "cannot create '%s': %s", path, strerror(-ret));
		return ret;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		snprintf(t->err, t->errsz, "cannot create '%s': %s", path, strerror(errno));
		return ret;
	}
	for (left = (size + BLK - 1) / BLK * BLK; left;) {
		size_t k = left < sizeof(xbuf) ? (size_t)left : sizeof(xbuf);

		if (gzr(t->gz, xbuf, k)) {
			snprintf(t->err, t->errsz, "%s: truncated archive in '%s'", t->archive,
				 name);
			close(fd);
			return -EINVAL;
		}
		/* the last block is padding past the file's size */
		if (size) {
			size_t w = (size_t)SCX_MIN((uint64_t)k, size);

			if ((ret = scx_write_all(fd, xbuf, w))) {
				snprintf(t->err, t->errsz, "cannot write '%s': %s", path,
					 strerror(-ret));
				close(fd);
				return ret;
			}
			size -= w;
		}
		left -= k;
		t->off += k;
	}
	if (close(fd)) {
		ret = -errno;
		snprintf(t->err, t->errsz, "cannot write '%s': %s", path, strerror(errno));
		return ret;
	}
	return 0;
}

/* One file or directory entry, checked, under parent/root. */
static int extract_member(struct tar_in *t, const struct hdr *h, const char *name, uint64_t size)
{
	char path[PATH_MAX];
	int ret;

	if (!prof_tar_member_path(name, t->parent, t->root, t->top, sizeof(t->top), path,
				  sizeof(path))) {
		snprintf(t->err, t->errsz,
			 "%s: refusing entry '%s' (absolute, '..' or outside "
			 "the archive's single top directory)",
			 t->archive, name);
		return -EINVAL;
	}
	if (!t->made_root) {
		if (mkdir(t->rootpath, 0755)) {
			ret = -errno;
			snprintf(t->err, t->errsz, "cannot create '%s': %s", t->rootpath,
				 strerror(errno));
			return ret;
		}
		t->made_root = true;
	}
	if (h->type == '5') {
		if ((ret = mkdirs(path)))
			snprintf(t->err, t->errsz, "cannot create '%s': %s", path, strerror(-ret));
		return ret;
	}
	if (h->type != '0' && h->type != 0) {
		snprintf(t->err, t->errsz,
			 "%s: refusing entry '%s' of type '%c' (only files and "
			 "directories)",
			 t->archive, name, h->type);
		return -EINVAL;
	}
	return write_file(t, name, path, size);
}

int prof_tar_extract(const char *archive, const char *parent, const char *root, char *err,
		     size_t errsz)
{
	struct tar_in t = { .archive = archive,
			    .parent = parent,
			    .root = root,
			    .err = err,
			    .errsz = errsz };
	struct hdr h;
	int ret, fd = open(archive, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		ret = -errno;
		snprintf(err, errsz, "cannot open '%s': %s", archive, strerror(errno));
		return ret;
	}
	t.gz = gzdopen(fd, "rb");
	if (!t.gz) {
		close(fd);
		snprintf(err, errsz, "cannot read '%s': out of memory", archive);
		return -ENOMEM;
	}
	snprintf(t.rootpath, sizeof(t.rootpath), "%s/%s", parent, root);
	while (!(ret = read_header(&t, &h))) {
		char name[PATH_MAX];
		bool ok = true;
		uint64_t size = num(h.size, sizeof(h.size), &ok);

		member_name(&t, &h, name, sizeof(name));
		if (h.type == 'L' || h.type == 'x' || h.type == 'g')
			ret = read_extended(&t, &h, size);
		else
			ret = extract_member(&t, &h, name, size);
		if (ret)
			break;
	}
	if (ret == 1) {
		ret = 0;
		if (!t.made_root) {
			snprintf(err, errsz, "%s: empty archive", archive);
			ret = -EINVAL;
		}
	}
	/* a failed extraction leaves nothing behind, but never removes a
	 * directory it did not make */
	if (ret && t.made_root)
		prof_rmtree(t.rootpath);
	gzclose(t.gz);
	return ret;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	return (flag == FTW_DP ? rmdir(p) : unlink(p)) ? -1 : 0;
}

int prof_rmtree(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS))
		return -errno;
	return 0;
}
