// SPDX-License-Identifier: GPL-2.0
/*
 * Archive extraction on arbitrary bytes: it either fails cleanly (and leaves
 * nothing behind) or produces a tree only under the chosen root.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "prof/prof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[] = "/tmp/scx-prof-fuzz.XXXXXX", arc[64], root[80], err[512];
	struct stat st;
	FILE *f;

	if (!mkdtemp(dir))
		return 0;
	snprintf(arc, sizeof(arc), "%s/in.tar.gz", dir);
	snprintf(root, sizeof(root), "%s/out", dir);
	/* raw bytes, compressed so the tar parser is reached */
	{
		gzFile gz = gzopen(arc, "wb1");

		if (gz) {
			if (size)
				gzwrite(gz, data, (unsigned)size);
			gzclose(gz);
		}
	}
	if (prof_tar_extract(arc, dir, "out", err, sizeof(err)) && !stat(root, &st))
		abort(); /* a failed extraction must not leave a partial tree */
	/* the input itself as an archive (it may be a real .tar.gz) */
	f = fopen(arc, "wb");
	if (f) {
		fwrite(data, 1, size, f);
		fclose(f);
	}
	prof_rmtree(root);
	if (prof_tar_extract(arc, dir, "out", err, sizeof(err)) && !stat(root, &st))
		abort();
	prof_rmtree(dir);
	return 0;
}
