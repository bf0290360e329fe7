// SPDX-License-Identifier: MIT
// libFuzzer harness of the pairs-file line parser (src/cli/pairline.c): the
// input is cut into lines as `vkcollide run` cuts a pairs file, and every
// line that counts is parsed against a job of three meshes. Besides the
// sanitizers' checks, a parsed pair must hold valid mesh indices, a unit
// quaternion and finite translations, and an error must point inside the
// line (or just past it) with a reason.
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pairline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_pose(const vkcol_pose *p)
{
	double n = 0.0;
	for (int k = 0; k < 4; k++)
		n += (double)p->rotation[k] * p->rotation[k];
	if (!(fabs(n - 1.0) < 1e-5))
		abort();
	for (int k = 0; k < 3; k++) {
		if (!isfinite(p->translation[k]))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"box", "torus", "a-b_c.1"};
	mesh_names meshes = {names, 3, NULL};
	static const uint32_t sorted[] = {2, 0, 1}; // a-b_c.1 < box < torus
	mesh_names sorted_meshes = {names, 3, sorted};
	const char *text = (const char *)data;
	size_t start = 0;
	while (start <= size) {
		const char *nl = memchr(text + start, '\n', size - start);
		size_t end = nl ? (size_t)(nl - text) : size;
		size_t len = end - start;
		if (pair_line_counts(text + start, len)) {
			pair_line out;
			pair_line_error err;
			memset(&err, 0, sizeof(err));
			// Both lookups (linear and by sorted names) give the same answer.
			pair_line out2;
			pair_line_error err2;
			memset(&err2, 0, sizeof(err2));
			bool ok2 = pair_line_parse(text + start, len, &sorted_meshes, &out2, &err2);
			bool ok = pair_line_parse(text + start, len, &meshes, &out, &err);
			if (ok != ok2 || (ok && memcmp(out.mesh, out2.mesh, sizeof(out.mesh)) != 0) ||
			    (!ok && (err.column != err2.column || strcmp(err.reason, err2.reason) != 0)))
				abort();
			if (ok) {
				if (out.mesh[0] >= 3 || out.mesh[1] >= 3)
					abort();
				check_pose(&out.pose_a);
				check_pose(&out.pose_b);
			} else if (err.column < 1 || err.column > len + 1 || err.reason[0] == '\0' ||
			           strlen(err.reason) >= sizeof(err.reason)) {
				abort();
			}
		}
		if (!nl)
			break;
		start = end + 1;
	}
	return 0;
}
