// SPDX-License-Identifier: MIT
// The host's per-pair work of a batch (batch/pairs.h): pairs_validate and
// pairs_upload over 10^6 torus pairs, on the calling thread alone and in
// tasks of 2^14 on the context's threads, five rounds each, in turn:
//
//   bench_host [PAIRS]
//
// prints ns per pair for both. On a GPU the library splits the work so; on
// a CPU device (lavapipe) it keeps it on the calling thread, which this
// overrides with the test knob to measure the split there too.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "batch/batch.h"
#include "batch/pairs.h"
#include "context.h"
#include "meshgen.h"
#include "vkcollide.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	if (n == 0) {
		fprintf(stderr, "usage: bench_host [PAIRS]\n");
		return 2;
	}
	vkcol_context *ctx = NULL;
	vkcol_context_desc cd = {0};
	if (vkcol_context_create(&cd, &ctx) != VKCOL_SUCCESS) {
		fprintf(stderr, "bench_host: no Vulkan device\n");
		return 1;
	}
	meshgen_mesh torus;
	vkcol_mesh mesh;
	if (!meshgen_torus(&torus, 1.0f, 0.3f, 48, 20)) {
		fprintf(stderr, "bench_host: out of memory\n");
		return 1;
	}
	vkcol_mesh_desc md = meshgen_desc(&torus, "torus");
	if (vkcol_mesh_create(ctx, &md, &mesh) != VKCOL_SUCCESS) {
		fprintf(stderr, "bench_host: cannot make the torus\n");
		return 1;
	}
	vkcol_pair *pairs = malloc(n * sizeof(*pairs));
	vkcol_gpu_pair *out = malloc(n * sizeof(*out));
	if (!pairs || !out) {
		fprintf(stderr, "bench_host: out of memory\n");
		return 1;
	}
	for (uint64_t i = 0; i < n; i++)
		pairs[i] = (vkcol_pair){mesh, mesh, {{1, 0, 0, 0}, {0, 0, 0}},
		                        {{1, 0, 0, 0}, {0.3f * (float)(i % 7), 0.1f, 0}}};
	batch_scope s;
	if (!batch_scope_of(ctx, &s))
		return 1;
	vkcol_batch_desc desc = {.pairs = pairs, .pair_count = n};
	for (int round = 0; round < 5; round++) {
		for (int split = 0; split < 2; split++) {
			// One task of all the pairs, or tasks of 2^14, on any device.
			ctx->batch.knobs.host_pairs_per_task = split ? 1u << 14 : (uint32_t)(n < UINT32_MAX ? n : UINT32_MAX);
			uint32_t map_array;
			double t0 = now();
			bool obb;
			if (pairs_validate(&s, &desc, &map_array, &obb) != VKCOL_SUCCESS)
				return 1;
			double t1 = now();
			pairs_upload(&s, pairs, n, NULL, false, NULL, false, out);
			double t2 = now();
			printf("%-16s validate %6.2f ns/pair, upload %6.2f ns/pair\n", split ? "tasks of 2^14" : "calling thread",
			       (t1 - t0) * 1e9 / (double)n, (t2 - t1) * 1e9 / (double)n);
		}
	}
	free(pairs);
	free(out);
	meshgen_free(&torus);
	vkcol_context_destroy(ctx);
	return 0;
}
