// SPDX-License-Identifier: GPL-2.0
/*
 * CPU topology from JSON: the stream header's "topology" array, and the
 * --topology FILE option that overrides it.  The topology model itself
 * (core/topo.c) knows nothing of JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stream/stream-int.h"
#include "core/topo.h"
#include "core/util.h"

static int get_i32(const struct scx_json_doc *d, int obj, const char *key, int32_t *v, bool need)
{
	int i = scx_json_get(d, obj, key);
	int64_t x;

	if (i < 0)
		return need ? -EINVAL : 0;
	if (scx_json_int(d, i, &x) || x < INT32_MIN || x > INT32_MAX)
		return -EINVAL;
	*v = x;
	return 0;
}

int scx_topo_from_json(const struct scx_json_doc *d, int arr, struct scx_topo **out,
		       size_t *bad_off)
{
	int n = d->tok[arr].size;
	struct scx_cpu_topo *c;
	int i = arr + 1;

	if (d->tok[arr].type != JSMN_ARRAY || n <= 0 || n > SCX_MAX_CPUS) {
		*bad_off = d->tok[arr].start;
		return -EINVAL;
	}
	c = scx_xcalloc(n, sizeof(*c));
	for (int k = 0; k < n; k++) {
		int o;
		bool on = true;

		if (d->tok[i].type != JSMN_OBJECT)
			goto bad;
		c[k].core = c[k].llc = c[k].node = -1;
		if (get_i32(d, i, "cpu", &c[k].cpu, true) ||
		    get_i32(d, i, "core", &c[k].core, false) ||
		    get_i32(d, i, "llc", &c[k].llc, false) ||
		    get_i32(d, i, "node", &c[k].node, false) || !scx_topo_cpu_valid(&c[k]))
			goto bad;
		o = scx_json_get(d, i, "online");
		if (o >= 0 && scx_json_bool(d, o, &on))
			goto bad;
		c[k].online = on;
		i = scx_json_next(d, i);
	}
	*out = scx_topo__from_cpus(c, n);
	free(c);
	if (!*out) {
		*bad_off = d->tok[arr].start;
		return -EINVAL;
	}
	return 0;
bad:
	*bad_off = d->tok[i].start;
	free(c);
	return -EINVAL;
}

struct scx_topo *scx_topo__from_file(const char *path, char *err, size_t errsz)
{
	struct scx_json_doc d = { 0 };
	struct scx_topo *t = NULL;
	struct scx_buf b = { 0 };
	char chunk[65536];
	size_t n, off = 0;
	FILE *f = fopen(path, "re");
	int arr, e = 0;

	if (!f) {
		e = errno;
		snprintf(err, errsz, "cannot open '%s': %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (b.len + n > SCX_MAX_LINE) {
			snprintf(err, errsz, "%s: file too large", path);
			e = EFBIG;
			goto cleanup;
		}
		scx_buf_add(&b, chunk, n);
	}
	if (ferror(f)) {
		e = EIO;
		snprintf(err, errsz, "%s: read error", path);
		goto cleanup;
	}
	if (scx_json_parse(&d, b.data ? b.data : "", b.len)) {
		snprintf(err, errsz, "%s: byte %zu: %s", path, d.err_off, d.err);
		e = EINVAL;
		goto cleanup;
	}
	arr = 0;
	if (d.tok[0].type == JSMN_OBJECT)
		arr = scx_json_get(&d, 0, "topology");
	if (arr < 0 || d.tok[arr].type != JSMN_ARRAY) {
		snprintf(err, errsz, "%s: expected a topology array or a header with one", path);
		e = EINVAL;
		goto cleanup;
	}
	if (scx_topo_from_json(&d, arr, &t, &off)) {
		snprintf(err, errsz,
			 "%s: byte %zu: bad topology entry (ids from -1 to %d, cpus distinct)",
			 path, off, SCX_MAX_CPUS - 1);
		e = EINVAL;
	}
cleanup:
	fclose(f);
	scx_json_free(&d);
	scx_buf_free(&b);
	if (!t)
		errno = e ? e : EINVAL;
	return t;
}
