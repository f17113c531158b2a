/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compressed byte streams (zio.c): gzip (one or more members) and zstd in,
 * gzip and zstd out, detected from the first bytes.  The stream readers and
 * everything else that reads a possibly compressed file go through this.
 */
#ifndef SCX_ZIO_H
#define SCX_ZIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <zlib.h>
#include <zstd.h>

#include "stream/stream.h"

/* ---- compressed input --------------------------------------------------- */

struct scx_zin {
	int fd; /* -1 for memory */
	enum scx_compress comp;
	const char *src; /* staged raw bytes: cbuf or the caller's memory */
	char *cbuf;
	size_t ccap, clen, cpos;
	bool eof;	  /* no more raw bytes */
	uint64_t raw_off; /* raw bytes consumed before src[0] */
	z_stream zs;
	bool zs_live, member_done;
	ZSTD_DStream *zd;
	size_t zret;
	char err[160]; /* "byte N: ..." */
};

/* Stage the first bytes and detect the compression; -errno, or -EINVAL + err. */
int scx_zin_open(struct scx_zin *z, int fd, const void *mem, size_t memlen);
/*
 * Deflate data in memory with a zlib or a gzip header, as Perfetto's
 * compressed_packets are: zlib output has no magic that detection could
 * trust, so the caller says what it is.  -ENOMEM + err.
 */
int scx_zin_open_deflate(struct scx_zin *z, const void *mem, size_t memlen);
/* Up to n decompressed bytes; 0 at the end, -errno / -EINVAL with err set. */
ssize_t scx_zin_read(struct scx_zin *z, char *dst, size_t n);
void scx_zin_close(struct scx_zin *z);
/* The first bytes start a zstd stream (a frame or a skippable frame). */
bool scx_zstd_magic(const void *p, size_t n);
/* Plain input straight from memory: the reader can use it without copying. */
bool scx_zin_is_plain_mem(const struct scx_zin *z);

/* ---- compressed output -------------------------------------------------- */

struct scx_zout {
	int fd;
	enum scx_compress comp;
	z_stream zs;
	bool zs_live;
	ZSTD_CCtx *zc;
	char *obuf;
	size_t ocap;
};

int scx_zout_open(struct scx_zout *z, int fd, enum scx_compress comp, int level);
/* mode: 0 buffer, 1 flush (the reader can decode all so far), 2 end of stream */
int scx_zout_write(struct scx_zout *z, const char *p, size_t n, int mode);
void scx_zout_close(struct scx_zout *z);

#endif
