// SPDX-License-Identifier: GPL-2.0
/*
 * The path check of each member prof_tar_extract writes: one top directory
 * for the whole archive, renamed to ROOT under PARENT; absolute paths, ".."
 * components and a second top directory refused; names that do not fit
 * refused rather than cut.
 */
#include <string.h>

#include "prof/prof.h"
#include "tap.h"

struct c {
	const char *name, *want; /* want NULL: refused */
};

/* the members of one archive, checked in order against one TOP */
static void archive(const char *what, const struct c *cs, size_t n)
{
	char top[16] = "", out[64];

	for (size_t i = 0; i < n; i++) {
		bool got = prof_tar_member_path(cs[i].name, "P", "R", top, sizeof(top), out,
						sizeof(out));

		if (cs[i].want)
			ok(got && !strcmp(out, cs[i].want), "%s: '%s' -> '%s' (got %s '%s')", what,
			   cs[i].name, cs[i].want, got ? "true" : "false", got ? out : "");
		else
			ok(!got, "%s: '%s' refused", what, cs[i].name);
	}
}

int main(void)
{
	static const struct c plain[] = {
		{ "prof/", "P/R/" },
		{ "prof/a", "P/R/a" },
		{ "./prof/b/c", "P/R/b/c" },
		{ "prof", "P/R/" },
		{ "prof/..x/y", "P/R/..x/y" },
		{ "prof/x..", "P/R/x.." },
		{ "other/a", NULL },
		{ "pro/a", NULL },
		{ "profx/a", NULL },
		{ "/prof/a", NULL },
		{ "", NULL },
		{ "prof/../a", NULL },
		{ "prof/a/../../b", NULL },
		{ "prof/a/..", NULL },
	};
	static const struct c dotdot[] = { { "../x", NULL } };
	static const struct c abs[] = { { "/etc/passwd", NULL } };
	static const struct c longtop[] = {
		{ "a-top-directory-name-too-long/x", NULL },
	};
	static const struct c longout[] = {
		{ "t/0123456789012345678901234567890123456789012345678901234567890123", NULL },
		{ "t/short", "P/R/short" },
	};

	archive("one top", plain, SCX_ARRAY_SIZE(plain));
	archive("'..' first", dotdot, 1);
	archive("absolute first", abs, 1);
	archive("top past its buffer", longtop, 1);
	archive("out past its buffer", longout, SCX_ARRAY_SIZE(longout));
	return done_testing();
}
