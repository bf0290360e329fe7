// SPDX-License-Identifier: MIT
// Exact mode's overflow reruns and CPU fallback. A frontier region is fixed
// in size, and an item that does not fit flags its pair: the pairs a pass
// leaves so are rerun in chunks a quarter the size, round after round, down
// to one pair; a lone pair that still overflows, or one that float could not
// decide, is answered by the double-precision CPU reference. No answer is
// dropped, and host memory stays bounded by the chunk.
#include "batch/rerun.h"

vkcol_result rerun_queue_init(const core_env *env, rerun_queue *q, uint32_t chunk)
{
	*q = (rerun_queue){.chunk = chunk};
	for (int i = 0; i < 2; i++) {
		q->pairs[i] = core_calloc(env, chunk, sizeof(uint64_t));
		if (!q->pairs[i]) {
			rerun_queue_free(env, q);
			return VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		}
	}
	return VKCOL_SUCCESS;
}

void rerun_queue_free(const core_env *env, rerun_queue *q)
{
	for (int i = 0; i < 2; i++)
		core_free(env, q->pairs[i]);
	*q = (rerun_queue){0};
}

void rerun_begin(rerun_queue *q, uint32_t chunk)
{
	q->cur = 0;
	q->count[0] = q->count[1] = 0;
	q->chunk = chunk;
}

bool rerun_round(rerun_queue *q, vkcol_batch_stats *stats)
{
	if (q->count[q->cur] == 0)
		return false;
	if (stats)
		stats->reruns += q->count[q->cur];
	if (q->chunk == 1)
		return false; // alone already: rerun_on_cpu
	q->chunk = q->chunk / 4 ? q->chunk / 4 : 1;
	q->count[q->cur ^ 1] = 0;
	return true;
}

void rerun_round_done(rerun_queue *q)
{
	q->cur ^= 1;
}

vkcol_result rerun_on_cpu(batch_scope *s, rerun_queue *q, const vkcol_pair *pairs, vkcol_pair_result *results,
                          list_sink *sink, uint64_t *fallbacks, vkcol_batch_stats *stats)
{
	vkcol_result res = VKCOL_SUCCESS;
	uint64_t n = q->count[q->cur];
	*fallbacks += n;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t k = q->pairs[q->cur][i];
		TRY(rerun_cpu_answer(s, &pairs[k], k, &results[k], sink));
		if (stats)
			stats->cpu_fallbacks++;
	}
	q->count[q->cur] = 0;
cleanup:
	return res;
}

vkcol_result rerun_cpu_answer(batch_scope *s, const vkcol_pair *pair, uint64_t at, vkcol_pair_result *result,
                              list_sink *sink)
{
	vkcol_result res = VKCOL_SUCCESS;
	const mesh_cpu *a, *b;
	ref_transform b_in_a;
	TRY(mesh_table_pair(s->meshes, pair, "exact mode's CPU fallback", &a, &b, &b_in_a));
	// Listing: the list's surface test answers first; only a pair without a
	// crossing needs the reference's containment test on top.
	uint64_t found = sink ? list_add_reference(sink, at, a, b, &b_in_a) : 0;
	if (found > 0) {
		*result = (vkcol_pair_result){1u, VKCOL_STAGE_TREE, 0.0f, (uint32_t)(found < UINT32_MAX ? found : UINT32_MAX)};
		goto cleanup;
	}
	bool collide = ref_collide_env(s->env, a, b, &b_in_a);
	if (!sink)
		*result = (vkcol_pair_result){collide, VKCOL_STAGE_TREE, 0.0f, collide ? 1u : 0u};
	else
		*result = (vkcol_pair_result){collide, collide ? VKCOL_STAGE_CONTAINMENT : VKCOL_STAGE_TREE, 0.0f, 0u};
cleanup:
	return res;
}
