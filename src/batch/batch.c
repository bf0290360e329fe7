// SPDX-License-Identifier: MIT
// vkcol_batch_run: checks the batch, makes the pool current, runs the mode's
// stages and counts the answers. The batch shaders read every mesh through
// one pool (pool.c); pairs are validated and copied by pairs.c; approx mode
// (approx.c) keeps two chunks in flight, exact mode (exact.c) submits a
// chunk and waits for it, then reruns its overflowed pairs (rerun.c) and
// collects its triangle pairs (triangle_list.c), before the next.
#include "batch/batch.h"

#include <string.h>
#include <time.h>

#include "batch/approx.h"
#include "batch/exact.h"
#include "batch/pairs.h"
#include "batch/pool.h"
#include "batch/record.h"

_Static_assert(sizeof(vkcol_pair) == sizeof(vkcol_gpu_pair), "vkcol_pair is uploaded as vkcol_gpu_pair");
_Static_assert(sizeof(vkcol_pair_result) == sizeof(vkcol_gpu_result), "results are read back as vkcol_pair_result");

void batch_state_free(batch_scope *s)
{
	record_free_all(s);
	pool_release(s->gpu, s->state->pool);
	s->state->pool = NULL;
}

double batch_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// The batch description's own fields (its pairs are pairs_validate's).
static vkcol_result check_desc(const core_env *env, const vkcol_batch_desc *desc, const vkcol_pair_result *results)
{
	if (!desc || (desc->pair_count > 0 && (!desc->pairs || !results))) {
		CORE_ERROR(env, "vkcol_batch_run: desc, desc->pairs and results are required");
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if (desc->mode != VKCOL_MODE_DEFAULT && desc->mode != VKCOL_MODE_APPROX && desc->mode != VKCOL_MODE_EXACT) {
		CORE_ERROR(env, "vkcol_batch_run: %d is not a vkcol_mode", (int)desc->mode);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if (desc->triangles && desc->mode == VKCOL_MODE_APPROX) {
		CORE_ERROR(env, "vkcol_batch_run: a triangle-pair list needs exact mode (approx mode tests vertices, not "
		                "triangles)");
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if (desc->vertex_budget != 0 && desc->mode != VKCOL_MODE_APPROX) {
		CORE_ERROR(env, "vkcol_batch_run: a vertex budget (%u) needs approx mode (exact mode tests triangles, not "
		                "vertices)",
		           desc->vertex_budget);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if (desc->triangles && desc->triangles->capacity > 0 && !desc->triangles->entries) {
		CORE_ERROR(env, "vkcol_batch_run: triangles->entries is NULL with a capacity of %llu",
		           (unsigned long long)desc->triangles->capacity);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	const uint32_t known = VKCOL_BATCH_NO_EARLY_ACCEPT | VKCOL_BATCH_TIMESTAMPS;
	if (desc->flags & ~known) {
		CORE_ERROR(env, "vkcol_batch_run: unknown flags 0x%x", desc->flags & ~known);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if ((desc->flags & VKCOL_BATCH_TIMESTAMPS) && !desc->stats) {
		CORE_ERROR(env, "vkcol_batch_run: VKCOL_BATCH_TIMESTAMPS needs desc->stats to write the times to");
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	return VKCOL_SUCCESS;
}

// The statistics every mode reports, from the answers (a pair not answered,
// after an error or an interruption, has stage NONE).
static void count_answers(const vkcol_batch_desc *desc, const vkcol_pair_result *results, double start)
{
	vkcol_batch_stats *stats = desc->stats;
	for (uint64_t i = 0; i < desc->pair_count; i++) {
		stats->pairs += results[i].stage != VKCOL_STAGE_NONE;
		stats->sphere_rejected += results[i].stage == VKCOL_STAGE_BOUNDS;
		stats->collisions += results[i].collide != 0;
	}
	stats->seconds = batch_now() - start;
}

VKCOL_API vkcol_result vkcol_batch_run(vkcol_context *ctx, const vkcol_batch_desc *desc, vkcol_pair_result *results)
{
	batch_scope scope, *s = &scope;
	if (!batch_scope_of(ctx, s))
		return VKCOL_ERROR_INVALID_ARGUMENT;
	vkcol_result res = VKCOL_SUCCESS;
	TRY(check_desc(s->env, desc, results));
	double start = batch_now();
	if (desc->stats)
		memset(desc->stats, 0, sizeof(*desc->stats));
	s->gpu->memory_peak = s->gpu->memory_bytes;
	if (desc->pair_count == 0)
		return VKCOL_SUCCESS;
	uint32_t map_array;
	bool obb;
	TRY(pairs_validate(s, desc, &map_array, &obb));
	memset(results, 0, desc->pair_count * sizeof(*results));
	TRY(cubemap_check_support(s->gpu, &s->meshes->sampler));
	bool approx = desc->mode == VKCOL_MODE_APPROX;
	TRY(pool_ensure(s, approx));
	res = approx ? approx_run(s, desc, map_array, results) : exact_run(s, desc, map_array, obb, results);
	if (desc->stats) {
		count_answers(desc, results, start);
		desc->stats->device_bytes = s->gpu->memory_peak;
	}
cleanup:
	return res;
}
