// SPDX-License-Identifier: GPL-2.0
/* Fuzz the topology reader of headers and topology files. */
#include <stdlib.h>

#include "stream/stream-int.h"
#include "core/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scx_json_doc d = { 0 };
	struct scx_topo *t = NULL;
	size_t off = 0;

	if (!scx_json_parse(&d, (const char *)data, size)) {
		int arr = d.tok[0].type == JSMN_OBJECT ? scx_json_get(&d, 0, "topology") : 0;
		if (arr >= 0 && d.tok[arr].type == JSMN_ARRAY &&
		    !scx_topo_from_json(&d, arr, &t, &off)) {
			for (unsigned i = 0; i < t->nr_cpus; i++) {
				const struct scx_cpu_topo *c = &t->cpus[i];
				if (scx_topo__cpu(t, c->cpu) != c)
					abort();
				/* consumers index per-LLC/node tables by id + 1 */
				if (c->llc < -1 || c->node < -1 || c->core < -1 ||
				    c->llc >= SCX_MAX_CPUS || c->node >= SCX_MAX_CPUS)
					abort();
			}
			struct scx_topo *c = scx_topo__dup(t);
			if (!c || c->nr_cpus != t->nr_cpus)
				abort();
			scx_topo__free(c);
		}
	}
	scx_topo__free(t);
	scx_json_free(&d);
	return 0;
}
