// SPDX-License-Identifier: GPL-2.0
/*
 * What scx_mitosis --cell-config accepts (mitosis-next config.rs): a list of
 * cells {name, matches: {CgroupContains|CgroupRegex: s} or {} / absent for
 * catch-all (only the last cell), subcells: [{name, matches: [[{CommPrefix:
 * s}, ...], ...]}]} with at most 8 subcells including the catch-all one,
 * 4 OR groups, 4 ANDs, prefixes of at most 15 bytes.  Type errors come first,
 * as serde would fail before any rule is checked.
 *
 * The JSON is read by lib/json (strict, like serde_json: valid UTF-8, no
 * control characters, no trailing text).
 */
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "prof/prof.h"

struct v {
	const struct scx_json_doc *d;
	const char *js;
	const jsmntok_t *t;
	int n;
	char *err;
	size_t errsz;
	int pass; /* 0: types, 1: rules */
};

static int fail(struct v *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct v *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->err, v->errsz, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int skip(const struct v *v, int i)
{
	return scx_json_next(v->d, i);
}

static bool is(const struct v *v, int i, jsmntype_t type)
{
	return v->t[i].type == type;
}

static bool key_is(const struct v *v, int i, const char *k)
{
	size_t n = strlen(k);

	return v->t[i].type == JSMN_STRING && (size_t)(v->t[i].end - v->t[i].start) == n &&
	       !memcmp(v->js + v->t[i].start, k, n);
}

/* object member value, or -1 */
static int get(const struct v *v, int obj, const char *key)
{
	int i = obj + 1;

	for (int k = 0; k < v->t[obj].size; k++) {
		if (key_is(v, i, key))
			return i + 1;
		i = skip(v, i + 1);
	}
	return -1;
}

static size_t tlen(const struct v *v, int i)
{
	return (size_t)(v->t[i].end - v->t[i].start);
}

static const char *tstr(const struct v *v, int i)
{
	return v->js + v->t[i].start;
}

static const char *type_name(const struct v *v, int i)
{
	switch (v->t[i].type) {
	case JSMN_OBJECT:
		return "map";
	case JSMN_ARRAY:
		return "sequence";
	case JSMN_STRING:
		return "string";
	default:
		return "primitive";
	}
}

static int subcell(struct v *v, int c, int ci, int si, bool *catchall)
{
	int m, name, g, a;

	if (!is(v, si, JSMN_OBJECT))
		return fail(v, "cell %d subcell %d: invalid type: %s, expected a map", ci, c,
			    type_name(v, si));
	name = get(v, si, "name");
	if (name < 0 || !is(v, name, JSMN_STRING))
		return fail(v, "cell %d subcell %d: 'name' must be a string", ci, c);
	m = get(v, si, "matches");
	*catchall = m < 0 || (is(v, m, JSMN_ARRAY) && v->t[m].size == 0);
	if (m < 0 || is(v, m, JSMN_PRIMITIVE)) /* absent or null */
		return (*catchall = true), 0;
	if (!is(v, m, JSMN_ARRAY))
		return fail(v,
			    "cell %d subcell '%.*s': invalid type: %s, expected a sequence of "
			    "sequences",
			    ci, (int)tlen(v, name), tstr(v, name), type_name(v, m));
	if (v->t[m].size == 1 && is(v, m + 1, JSMN_ARRAY) && v->t[m + 1].size == 0)
		*catchall = true;
	if (v->pass && v->t[m].size > PROF_MITOSIS_MAX_OR)
		return fail(v, "cell %d subcell '%.*s': Too many subcell match OR groups: %d > %d",
			    ci, (int)tlen(v, name), tstr(v, name), v->t[m].size,
			    PROF_MITOSIS_MAX_OR);
	g = m + 1;
	for (int k = 0; k < v->t[m].size; k++, g = skip(v, g)) {
		if (!is(v, g, JSMN_ARRAY))
			return fail(v,
				    "cell %d subcell '%.*s': invalid type: %s, expected a "
				    "sequence",
				    ci, (int)tlen(v, name), tstr(v, name), type_name(v, g));
		if (v->pass && v->t[g].size > PROF_MITOSIS_MAX_AND)
			return fail(v,
				    "cell %d subcell '%.*s': too many ANDs in a match group: "
				    "%d > %d",
				    ci, (int)tlen(v, name), tstr(v, name), v->t[g].size,
				    PROF_MITOSIS_MAX_AND);
		if (v->pass && v->t[g].size == 0 && !*catchall)
			return fail(v, "cell %d subcell '%.*s': an empty match group among others",
				    ci, (int)tlen(v, name), tstr(v, name));
		a = g + 1;
		for (int j = 0; j < v->t[g].size; j++, a = skip(v, a)) {
			int p;

			if (!is(v, a, JSMN_OBJECT) || v->t[a].size != 1 ||
			    !key_is(v, a + 1, "CommPrefix"))
				return fail(v,
					    "cell %d subcell '%.*s': a match must be "
					    "{\"CommPrefix\": string}",
					    ci, (int)tlen(v, name), tstr(v, name));
			p = a + 2;
			if (!is(v, p, JSMN_STRING))
				return fail(v,
					    "cell %d subcell '%.*s': CommPrefix must be a string",
					    ci, (int)tlen(v, name), tstr(v, name));
			/* a comm is a C string: a NUL would end it early in the kernel */
			if (memmem(tstr(v, p), (size_t)tlen(v, p), "\\u0000", 6))
				return fail(v,
					    "cell %d subcell '%.*s': CommPrefix holds a NUL "
					    "(\\u0000)",
					    ci, (int)tlen(v, name), tstr(v, name));
			if (v->pass && tlen(v, p) > PROF_MITOSIS_PREFIX_MAX)
				return fail(v,
					    "cell %d subcell '%.*s': CommPrefix '%.*s' is longer "
					    "than %d bytes (task comms are at most 15)",
					    ci, (int)tlen(v, name), tstr(v, name), (int)tlen(v, p),
					    tstr(v, p), PROF_MITOSIS_PREFIX_MAX);
		}
	}
	return 0;
}

static int cell(struct v *v, int ci, int c, bool last)
{
	int name, m, s;
	bool catchall;

	if (!is(v, c, JSMN_OBJECT))
		return fail(v, "cell %d: invalid type: %s, expected a map", ci, type_name(v, c));
	name = get(v, c, "name");
	if (name < 0 || !is(v, name, JSMN_STRING))
		return fail(v, "cell %d: 'name' must be a string", ci);
	m = get(v, c, "matches");
	catchall = m < 0 || is(v, m, JSMN_PRIMITIVE);
	if (m >= 0 && is(v, m, JSMN_PRIMITIVE) &&
	    !(tlen(v, m) == 4 && !memcmp(tstr(v, m), "null", 4)))
		return fail(v, "cell %d ('%.*s'): invalid type: %s, expected string or map", ci,
			    (int)tlen(v, name), tstr(v, name), type_name(v, m));
	if (m >= 0 && !is(v, m, JSMN_PRIMITIVE)) {
		if (!is(v, m, JSMN_OBJECT))
			return fail(v,
				    "cell %d ('%.*s'): matches: invalid type: %s, expected "
				    "string or map",
				    ci, (int)tlen(v, name), tstr(v, name), type_name(v, m));
		if (v->t[m].size == 0) {
			catchall = true;
		} else {
			bool re = key_is(v, m + 1, "CgroupRegex");

			if (v->t[m].size != 1 || (!re && !key_is(v, m + 1, "CgroupContains")))
				return fail(v,
					    "cell %d ('%.*s'): matches must hold exactly one of "
					    "CgroupContains, CgroupRegex",
					    ci, (int)tlen(v, name), tstr(v, name));
			if (!is(v, m + 2, JSMN_STRING))
				return fail(v, "cell %d ('%.*s'): the match value must be a string",
					    ci, (int)tlen(v, name), tstr(v, name));
			if (re && v->pass) {
				char *pat = scx_json_strdup(v->d, m + 2);
				regex_t rx;
				int r = pat ? regcomp(&rx, pat, REG_EXTENDED | REG_NOSUB) : -1;

				if (!r)
					regfree(&rx);
				free(pat);
				if (r)
					return fail(
						v, "cell %d ('%.*s'): CgroupRegex does not compile",
						ci, (int)tlen(v, name), tstr(v, name));
			}
		}
	}
	if (v->pass && catchall && !last)
		return fail(v,
			    "cell %d ('%.*s'): only the final catch-all cell spec may use an "
			    "empty match",
			    ci, (int)tlen(v, name), tstr(v, name));
	s = get(v, c, "subcells");
	if (s >= 0 && !is(v, s, JSMN_PRIMITIVE)) {
		int nsub, ncatch = 0, e = s + 1;

		if (!is(v, s, JSMN_ARRAY))
			return fail(v,
				    "cell %d ('%.*s'): subcells: invalid type: %s, expected a "
				    "sequence",
				    ci, (int)tlen(v, name), tstr(v, name), type_name(v, s));
		nsub = v->t[s].size;
		for (int k = 0; k < nsub; k++, e = skip(v, e)) {
			bool ca = false;
			int err = subcell(v, k, ci, e, &ca);

			if (err)
				return err;
			ncatch += ca;
		}
		if (v->pass) {
			if (ncatch > 1)
				return fail(v, "cell %d ('%.*s'): more than one catch-all subcell",
					    ci, (int)tlen(v, name), tstr(v, name));
			if (!ncatch)
				nsub++; /* mitosis adds the default rest subcell */
			if (nsub > PROF_MITOSIS_MAX_SUBCELLS)
				return fail(v, "cell %d ('%.*s'): too many subcells: %d > %d", ci,
					    (int)tlen(v, name), tstr(v, name), nsub,
					    PROF_MITOSIS_MAX_SUBCELLS);
		}
	}
	return 0;
}

int prof_mitosis_validate(const char *json, size_t len, char *err, size_t errsz)
{
	struct scx_json_doc d = { 0 };
	struct v v = { .d = &d, .js = json, .err = err, .errsz = errsz };
	int ret;

	if (scx_json_parse(&d, json, len) < 0 || d.ntok < 1) {
		ret = fail(&v, "not valid JSON (byte %zu)", d.err_off + 1);
		goto out;
	}
	v.t = d.tok;
	v.n = d.ntok;
	if (!is(&v, 0, JSMN_ARRAY)) {
		ret = fail(&v, "invalid type: %s, expected a sequence of cell specs",
			   type_name(&v, 0));
		goto out;
	}
	for (v.pass = 0; v.pass < 2; v.pass++) {
		int c = 1;

		for (int k = 0; k < v.t[0].size; k++, c = skip(&v, c))
			if ((ret = cell(&v, k, c, k == v.t[0].size - 1)))
				goto out;
	}
	ret = 0;
out:
	scx_json_free(&d);
	return ret;
}
