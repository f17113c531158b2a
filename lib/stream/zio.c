// SPDX-License-Identifier: GPL-2.0
/*
 * Compressed I/O under the stream codecs: gzip (zlib) and zstd, detected on
 * input from the first bytes, streaming both ways.  Concatenated gzip members
 * and zstd frames decode as one stream, like zcat does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream/stream-int.h"
#include "core/util.h"

#define ZIN_CHUNK (256u << 10)

static ssize_t read_fd(int fd, char *p, size_t n)
{
	for (;;) {
		ssize_t r = read(fd, p, n);
		if (r >= 0 || errno != EINTR)
			return r < 0 ? -errno : r;
	}
}

/* More raw bytes into cbuf (everything consumed so far is dropped). */
static int refill(struct scx_zin *z)
{
	ssize_t r;

	if (z->eof)
		return 0;
	if (z->fd < 0) {
		z->eof = true;
		return 0;
	}
	z->raw_off += z->cpos;
	memmove(z->cbuf, z->cbuf + z->cpos, z->clen - z->cpos);
	z->clen -= z->cpos;
	z->cpos = 0;
	r = read_fd(z->fd, z->cbuf + z->clen, z->ccap - z->clen);
	if (r < 0) {
		snprintf(z->err, sizeof(z->err), "read error: %s", strerror((int)-r));
		return (int)r;
	}
	if (r == 0)
		z->eof = true;
	z->clen += r;
	return 0;
}

bool scx_zin_is_plain_mem(const struct scx_zin *z)
{
	return z->fd < 0 && z->comp == SCX_COMP_NONE;
}

int scx_zin_open(struct scx_zin *z, int fd, const void *mem, size_t memlen)
{
	const unsigned char *s;
	int err;

	memset(z, 0, sizeof(*z));
	z->fd = fd;
	z->zret = 1;
	if (fd < 0) {
		z->src = mem;
		z->clen = memlen;
		z->eof = true;
	} else {
		z->ccap = ZIN_CHUNK;
		z->cbuf = scx_xmalloc(z->ccap);
		z->src = z->cbuf;
		while (z->clen < 4 && !z->eof)
			if ((err = refill(z)))
				return err;
	}
	s = (const unsigned char *)z->src;
	if (z->clen >= 2 && s[0] == 0x1f && s[1] == 0x8b) {
		z->comp = SCX_COMP_GZIP;
		/* 16 + MAX_WBITS: gzip wrapper only */
		if (inflateInit2(&z->zs, 16 + MAX_WBITS) != Z_OK) {
			snprintf(z->err, sizeof(z->err), "cannot initialise zlib");
			return -ENOMEM;
		}
		z->zs_live = true;
	} else if (scx_zstd_magic(s, z->clen)) {
		z->comp = SCX_COMP_ZSTD;
		z->zd = ZSTD_createDStream();
		if (!z->zd) {
			snprintf(z->err, sizeof(z->err), "cannot initialise zstd");
			return -ENOMEM;
		}
	}
	return 0;
}

int scx_zin_open_deflate(struct scx_zin *z, const void *mem, size_t memlen)
{
	memset(z, 0, sizeof(*z));
	z->fd = -1;
	z->zret = 1;
	z->src = mem;
	z->clen = memlen;
	z->eof = true;
	z->comp = SCX_COMP_GZIP;
	/* 32 + MAX_WBITS: zlib or gzip header, whichever is there */
	if (inflateInit2(&z->zs, 32 + MAX_WBITS) != Z_OK) {
		snprintf(z->err, sizeof(z->err), "cannot initialise zlib");
		return -ENOMEM;
	}
	z->zs_live = true;
	return 0;
}

bool scx_zstd_magic(const void *p, size_t n)
{
	const unsigned char *s = p;

	if (n < 4)
		return false;
	/* a zstd frame, or a skippable frame (0x184D2A5?: pzstd and seekable zstd start so) */
	return (s[0] == 0x28 && s[1] == 0xb5 && s[2] == 0x2f && s[3] == 0xfd) ||
	       ((s[0] & 0xf0) == 0x50 && s[1] == 0x2a && s[2] == 0x4d && s[3] == 0x18);
}

static ssize_t read_plain(struct scx_zin *z, char *dst, size_t n)
{
	if (z->cpos < z->clen) {
		size_t k = SCX_MIN(n, z->clen - z->cpos);
		memcpy(dst, z->src + z->cpos, k);
		z->cpos += k;
		return k;
	}
	if (z->eof || z->fd < 0)
		return 0;
	ssize_t r = read_fd(z->fd, dst, n);
	if (r < 0)
		snprintf(z->err, sizeof(z->err), "read error: %s", strerror((int)-r));
	else
		z->raw_off += r;
	return r;
}

static ssize_t read_gzip(struct scx_zin *z, char *dst, size_t n)
{
	for (;;) {
		int err;

		if (z->cpos == z->clen && !z->eof && (err = refill(z)))
			return err;
		if (z->member_done) {
			/* another member follows, or this is the end */
			if (z->cpos == z->clen)
				return 0;
			inflateReset(&z->zs);
			z->member_done = false;
		}
		z->zs.next_in = (unsigned char *)z->src + z->cpos;
		z->zs.avail_in = z->clen - z->cpos;
		z->zs.next_out = (unsigned char *)dst;
		z->zs.avail_out = n;
		int ret = inflate(&z->zs, Z_NO_FLUSH);
		size_t used = (z->clen - z->cpos) - z->zs.avail_in;
		size_t got = n - z->zs.avail_out;
		z->cpos += used;
		if (ret == Z_STREAM_END) {
			z->member_done = true;
		} else if (ret == Z_BUF_ERROR || (ret == Z_OK && !used && !got)) {
			if (z->cpos == z->clen && z->eof) {
				snprintf(z->err, sizeof(z->err), "byte %llu: truncated gzip stream",
					 (unsigned long long)(z->raw_off + z->cpos));
				return -EINVAL;
			}
		} else if (ret != Z_OK) {
			snprintf(z->err, sizeof(z->err), "byte %llu: corrupt gzip data: %s",
				 (unsigned long long)(z->raw_off + z->cpos),
				 z->zs.msg ? z->zs.msg : "inflate failed");
			return -EINVAL;
		}
		if (got)
			return got;
	}
}

static ssize_t read_zstd(struct scx_zin *z, char *dst, size_t n)
{
	for (;;) {
		int err;

		if (z->cpos == z->clen) {
			if (!z->eof && (err = refill(z)))
				return err;
			if (z->cpos == z->clen && z->eof) {
				if (z->zret == 0)
					return 0;
				/* the decoder may still hold output of a complete frame */
				ZSTD_inBuffer in = { z->src, 0, 0 };
				ZSTD_outBuffer out = { dst, n, 0 };
				z->zret = ZSTD_decompressStream(z->zd, &out, &in);
				if (ZSTD_isError(z->zret) || (!out.pos && z->zret)) {
					snprintf(z->err, sizeof(z->err),
						 "byte %llu: truncated zstd stream",
						 (unsigned long long)(z->raw_off + z->cpos));
					return -EINVAL;
				}
				if (out.pos)
					return out.pos;
				return 0;
			}
		}
		ZSTD_inBuffer in = { z->src, z->clen, z->cpos };
		ZSTD_outBuffer out = { dst, n, 0 };
		z->zret = ZSTD_decompressStream(z->zd, &out, &in);
		if (ZSTD_isError(z->zret)) {
			snprintf(z->err, sizeof(z->err), "byte %llu: corrupt zstd data: %s",
				 (unsigned long long)(z->raw_off + in.pos),
				 ZSTD_getErrorName(z->zret));
			return -EINVAL;
		}
		z->cpos = in.pos;
		if (out.pos)
			return out.pos;
	}
}

ssize_t scx_zin_read(struct scx_zin *z, char *dst, size_t n)
{
	switch (z->comp) {
	case SCX_COMP_GZIP:
		return read_gzip(z, dst, n);
	case SCX_COMP_ZSTD:
		return read_zstd(z, dst, n);
	default:
		return read_plain(z, dst, n);
	}
}

void scx_zin_close(struct scx_zin *z)
{
	if (z->zs_live)
		inflateEnd(&z->zs);
	ZSTD_freeDStream(z->zd);
	free(z->cbuf);
	memset(z, 0, sizeof(*z));
	z->fd = -1;
}

/* ---- output ------------------------------------------------------------- */

int scx_zout_open(struct scx_zout *z, int fd, enum scx_compress comp, int level)
{
	memset(z, 0, sizeof(*z));
	z->fd = fd;
	z->comp = comp;
	if (comp == SCX_COMP_NONE)
		return 0;
	z->ocap = 256u << 10;
	z->obuf = scx_xmalloc(z->ocap);
	if (comp == SCX_COMP_GZIP) {
		if (deflateInit2(&z->zs, level ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED,
				 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			return -EINVAL;
		z->zs_live = true;
	} else {
		z->zc = ZSTD_createCCtx();
		if (!z->zc)
			return -ENOMEM;
		if (level &&
		    ZSTD_isError(ZSTD_CCtx_setParameter(z->zc, ZSTD_c_compressionLevel, level)))
			return -EINVAL;
	}
	return 0;
}

static int zout_gzip(struct scx_zout *z, const char *p, size_t n, int mode)
{
	int flush = mode == 2 ? Z_FINISH : mode == 1 ? Z_SYNC_FLUSH : Z_NO_FLUSH;
	int ret, err;

	z->zs.next_in = (unsigned char *)p;
	z->zs.avail_in = n;
	do {
		z->zs.next_out = (unsigned char *)z->obuf;
		z->zs.avail_out = z->ocap;
		ret = deflate(&z->zs, flush);
		if (ret == Z_STREAM_ERROR)
			return -EIO;
		size_t got = z->ocap - z->zs.avail_out;
		if (got && (err = scx_write_all(z->fd, z->obuf, got)))
			return err;
		/* deflate is done when it left room in the output buffer */
	} while (z->zs.avail_out == 0 || z->zs.avail_in ||
		 (flush == Z_FINISH && ret != Z_STREAM_END));
	return 0;
}

static int zout_zstd(struct scx_zout *z, const char *p, size_t n, int mode)
{
	ZSTD_EndDirective op = mode == 2 ? ZSTD_e_end : mode == 1 ? ZSTD_e_flush : ZSTD_e_continue;
	ZSTD_inBuffer in = { p, n, 0 };
	size_t rem;
	int err;

	do {
		ZSTD_outBuffer out = { z->obuf, z->ocap, 0 };
		rem = ZSTD_compressStream2(z->zc, &out, &in, op);
		if (ZSTD_isError(rem))
			return -EIO;
		if (out.pos && (err = scx_write_all(z->fd, z->obuf, out.pos)))
			return err;
	} while (op == ZSTD_e_continue ? in.pos < in.size : rem != 0);
	return 0;
}

int scx_zout_write(struct scx_zout *z, const char *p, size_t n, int mode)
{
	switch (z->comp) {
	case SCX_COMP_GZIP:
		return zout_gzip(z, p, n, mode);
	case SCX_COMP_ZSTD:
		return zout_zstd(z, p, n, mode);
	default:
		return n ? scx_write_all(z->fd, p, n) : 0;
	}
}

void scx_zout_close(struct scx_zout *z)
{
	if (z->zs_live)
		deflateEnd(&z->zs);
	ZSTD_freeCCtx(z->zc);
	free(z->obuf);
	z->zs_live = false;
	z->zc = NULL;
	z->obuf = NULL;
}
