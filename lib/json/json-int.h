/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of the JSON reader shared by json.c and json_ref.c; not an API. */
#ifndef SCX_JSON_INT_H
#define SCX_JSON_INT_H

#include "json/json.h"

/*
 * The first byte of js[0..len) that no JSON text may hold (NUL, a control
 * character other than tab, CR and LF, invalid UTF-8), with *why; SIZE_MAX
 * if there is none.
 */
size_t scx_json_check_bytes(const char *js, size_t len, const char **why);
/* Set up d for the text js[0..len); -EINVAL (d->err set) if it is too large. */
int scx_json_begin(struct scx_json_doc *d, const char *js, size_t len);
/* Record a parse error at byte off; returns -EINVAL. */
int scx_json_fail(struct scx_json_doc *d, size_t off, const char *why);
/* Is s[0..n) a JSON number (RFC 8259 grammar)? */
bool scx_json_is_number(const char *s, size_t n);
/*
 * The reference reader (json_ref.c: jsmn and the grammar checks around it),
 * for tests and fuzzers: scx_json_parse() must agree with it on every text,
 * but for a top-level number or literal ending the text (jsmn's strict mode
 * wants a delimiter after it; "3" is valid JSON).
 */
int scx_json_parse_ref(struct scx_json_doc *d, const char *js, size_t len);

#endif
