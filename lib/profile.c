// SPDX-License-Identifier: GPL-2.0
/* placeholder while the BPF sampler is written */
#include <stdio.h>
#include <stdlib.h>

#include "json.h"
#include "profile.h"

struct scx_profile *scx_profile__start(const struct scx_profile_opts *o, char *err, size_t errsz)
{
	snprintf(err, errsz, "not available in this build");
	return NULL;
}
bool scx_profile__running(struct scx_profile *p) { return false; }
int scx_profile__stop(struct scx_profile *p) { return 0; }
void scx_profile__free(struct scx_profile *p) { free(p); }
uint64_t scx_profile__samples(struct scx_profile *p) { return 0; }
void scx_profile__status(struct scx_profile *p, struct scx_jw *w) {}
void scx_profile__results(struct scx_profile *p, unsigned limit, bool stacks, size_t max_bytes,
			  struct scx_jw *w) {}
