// SPDX-License-Identifier: MIT
// Recorded queries (vkcol_gpu_batch, vkcol_batch_record): a whole query of
// either mode recorded into the caller's command buffer, for renderers that
// keep their poses and answers on the GPU. A batch is made once: it holds a
// reference to the pool (pool.c) it was made on, its pipelines, descriptor
// sets of its own and scratch for one chunk of pairs. Recording then only
// records: per chunk, the caller's pairs copied into the batch's buffer,
// record.comp's prepare pass (the count the device reads, the pairs
// checked), the mode's passes (approx_record_chunk, exact_record_chunk: the
// same as vkcol_batch_run's, their per-pair passes dispatched indirectly),
// record.comp's finish pass (the public answers, the summary), the answers
// copied to the caller's buffer. Copies rather than the caller's buffers in
// the descriptor sets: a set that names a buffer would have to be written
// (and allocated, since a pending command buffer may still use the last
// one) per recording; a copy is recorded like any command
// (docs/design.md, "Recorded queries", has their measured cost).
#include "batch/record.h"

#include <math.h>
#include <string.h>

#include "batch/approx.h"
#include "batch/exact.h"
#include "batch/pool.h"

struct vkcol_gpu_batch {
	vkcol_gpu_batch *next; // the batch state's list
	vkcol_mode mode;       // APPROX or EXACT
	uint32_t max_pairs, chunk, mip_level, vertex_budget;
	uint32_t slots;        // mesh slots in the ids buffer (the mesh table's capacity, at least 1)
	bool relative;         // VKCOL_RECORD_RELATIVE: the mode's frames are composed in float
	batch_pool *pool;      // a reference: the pool the sets and the ids were made on
	VkDescriptorPool sets; // every set of the batch
	gpu_buffer ids;        // the live mesh id of every mesh slot (0: none); with a vertex budget, then the id
	                       // of the record each slot's pairs read (pool_budget_ids); in exact mode, then
	                       // pool_fine_ids'
	gpu_buffer state;      // the record's state (shared.h, VKCOL_RECORD_*): count, dispatch, summary, slots
	gpu_pipeline *prepare, *finish;
	VkDescriptorSet prepare_set, finish_set;
	uint32_t stand_in_mesh;
	float stand_in_apart;
	// The mode's buffers: exact_buffers, or an approx chunk on approx_buffers.
	exact_buffers exact;
	approx_chunk approx;
	gpu_buffer approx_buffers[5]; // pairs, results, stats, jobs, job_args
	uint64_t device_bytes;
};

// The chunk's pairs and results, whichever the mode.
static const gpu_buffer *batch_pairs(const vkcol_gpu_batch *b)
{
	return b->mode == VKCOL_MODE_APPROX ? b->approx.pairs : &b->exact.pairs;
}

static const gpu_buffer *batch_results(const vkcol_gpu_batch *b)
{
	return b->mode == VKCOL_MODE_APPROX ? b->approx.results : &b->exact.results;
}

static void batch_free(batch_scope *s, vkcol_gpu_batch *b)
{
	exact_buffers_free(s, &b->exact);
	for (size_t i = 0; i < CORE_COUNT_OF(b->approx_buffers); i++)
		gpu_buffer_destroy(s->gpu, &b->approx_buffers[i]);
	gpu_buffer_destroy(s->gpu, &b->ids);
	gpu_buffer_destroy(s->gpu, &b->state);
	if (b->sets)
		s->gpu->vk.vkDestroyDescriptorPool(s->gpu->device, b->sets, NULL);
	pool_release(s->gpu, b->pool);
	core_free(s->env, b);
}

void record_free_all(batch_scope *s)
{
	while (s->state->gpu_batches) {
		vkcol_gpu_batch *b = s->state->gpu_batches;
		s->state->gpu_batches = b->next;
		batch_free(s, b);
	}
}

// The cube array every live mesh's map is in, or VKCOL_MAP_ARRAYS when they
// differ (the sampling pipelines are specialized for it, as pairs_validate
// chooses per batch).
static uint32_t shared_map_array(const batch_scope *s)
{
	uint32_t resolution = 0;
	for (uint32_t i = 0; i < s->meshes->capacity; i++) {
		const mesh_slot *m = &s->meshes->slots[i];
		if (!m->used)
			continue;
		if (resolution && m->cube.resolution != resolution)
			return VKCOL_MAP_ARRAYS;
		resolution = m->cube.resolution;
	}
	return pool_array_index(resolution);
}

// The stand-in pair (record.comp): the first live mesh against itself, B
// moved along x by twice its bounding sphere's diameter and one unit more,
// so stage 0 rejects it in either mode.
static void choose_stand_in(const batch_scope *s, vkcol_gpu_batch *b)
{
	for (uint32_t i = 0; i < s->meshes->capacity; i++)
		if (s->meshes->slots[i].used) {
			b->stand_in_mesh = mesh_table_handle(s->meshes, i).id;
			b->stand_in_apart = 4.0f * s->meshes->slots[i].cpu.sphere_radius + 1.0f;
			return;
		}
}

// Approx mode's chunk buffers, all device-local, and their sets.
static vkcol_result approx_create(batch_scope *s, vkcol_gpu_batch *b, uint32_t map_array)
{
	vkcol_result res = VKCOL_SUCCESS;
	approx_chunk *c = &b->approx;
	approx_job_capacities(s, b->chunk, c);
	const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
	const VkBufferUsageFlags texel = storage | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
	const struct {
		VkDeviceSize size;
		VkBufferUsageFlags usage;
		const char *name;
		gpu_buffer **into;
	} buffers[] = {
	    {(VkDeviceSize)b->chunk * sizeof(vkcol_gpu_pair), texel, "recorded approx pairs", &c->pairs},
	    {(VkDeviceSize)b->chunk * sizeof(vkcol_gpu_result), storage, "recorded approx results", &c->results},
	    {VKCOL_STAT_WORDS * 4, storage, "recorded approx stats", &c->stats},
	    {approx_jobs_bytes(c), texel, "recorded approx jobs", &c->jobs},
	    {VKCOL_JOB_ARGS_WORDS * 4, storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, "recorded approx job dispatch",
	     &c->job_args},
	};
	_Static_assert(CORE_COUNT_OF(buffers) == CORE_COUNT_OF(((vkcol_gpu_batch *)0)->approx_buffers),
	               "one buffer each");
	for (size_t i = 0; i < CORE_COUNT_OF(buffers); i++) {
		TRY(gpu_buffer_create(s->gpu, buffers[i].size, buffers[i].usage, GPU_MEMORY_DEVICE, buffers[i].name,
		                      &b->approx_buffers[i]));
		*buffers[i].into = &b->approx_buffers[i];
	}
	TRY(approx_chunk_bind(s, map_array, b->sets, c));
cleanup:
	return res;
}

VkBuffer record_exact_pairs(const vkcol_gpu_batch *b)
{
	return b->mode == VKCOL_MODE_EXACT ? b->exact.pairs.buffer : VK_NULL_HANDLE;
}

// The ids buffer: the live mesh id of each slot of the mesh table, which
// record.comp checks the pairs' ids against; with a vertex budget, then the
// ids the pairs of each slot go to the passes with (VKCOL_RECORD_BUDGET);
// in exact mode, then what record.comp picks the fine trees by
// (VKCOL_RECORD_FINE, pool_fine_ids).
static vkcol_result ids_create(batch_scope *s, vkcol_gpu_batch *b, bool exact)
{
	vkcol_result res = VKCOL_SUCCESS;
	uint32_t slots = s->meshes->capacity ? s->meshes->capacity : 1;
	uint32_t halves = b->vertex_budget ? 2 : exact ? 4 : 1;
	uint32_t *ids = core_calloc(s->env, (size_t)halves * slots, sizeof(uint32_t));
	if (!ids)
		return VKCOL_ERROR_OUT_OF_HOST_MEMORY;
	b->slots = slots;
	for (uint32_t i = 0; i < s->meshes->capacity; i++)
		ids[i] = s->meshes->slots[i].used ? mesh_table_handle(s->meshes, i).id : 0u;
	if (b->vertex_budget)
		pool_budget_ids(s, b->vertex_budget, &ids[slots]);
	else if (exact && s->meshes->capacity)
		pool_fine_ids(s, &ids[slots]);
	TRY(gpu_buffer_create_filled(s->gpu, ids, (VkDeviceSize)halves * slots * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                             "recorded mesh ids", &b->ids));
cleanup:
	core_free(s->env, ids);
	return res;
}

static vkcol_result check_desc(const core_env *env, const vkcol_gpu_batch_desc *desc)
{
	if (desc->mode != VKCOL_MODE_DEFAULT && desc->mode != VKCOL_MODE_APPROX && desc->mode != VKCOL_MODE_EXACT) {
		CORE_ERROR(env, "vkcol_gpu_batch_create: %d is not a vkcol_mode", (int)desc->mode);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if (desc->max_pairs == 0) {
		CORE_ERROR(env, "vkcol_gpu_batch_create: max_pairs must be at least 1");
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if (desc->flags & ~(uint32_t)VKCOL_BATCH_NO_EARLY_ACCEPT) {
		CORE_ERROR(env, "vkcol_gpu_batch_create: unknown flags 0x%x",
		           desc->flags & ~(uint32_t)VKCOL_BATCH_NO_EARLY_ACCEPT);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if (desc->vertex_budget != 0 && desc->mode != VKCOL_MODE_APPROX) {
		CORE_ERROR(env, "vkcol_gpu_batch_create: a vertex budget (%u) needs approx mode (exact mode tests "
		                "triangles, not vertices)",
		           desc->vertex_budget);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	return VKCOL_SUCCESS;
}

// Pairs per exact-mode chunk unless the caller says otherwise: as
// vkcol_batch_run's (exact.c), whose frontiers rarely overflow for meshes
// of a few thousand triangles.
#define RECORD_EXACT_CHUNK (1u << 13)

VKCOL_API vkcol_result vkcol_gpu_batch_create(vkcol_context *ctx, const vkcol_gpu_batch_desc *desc,
                                              vkcol_gpu_batch **out)
{
	batch_scope scope, *s = &scope;
	if (out)
		*out = NULL;
	if (!batch_scope_of(ctx, s))
		return VKCOL_ERROR_INVALID_ARGUMENT;
	const core_env *env = s->env;
	vkcol_result res = VKCOL_SUCCESS;
	vkcol_gpu_batch *b = NULL;
	if (!desc || !out) {
		CORE_ERROR(env, "vkcol_gpu_batch_create: desc and out are required");
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	TRY(check_desc(env, desc));
	if (!s->gpu->external) {
		CORE_ERROR(env, "vkcol_gpu_batch_create: recorded queries need a context on the caller's device "
		                "(vkcol_context_desc.external), whose command buffers they are recorded into");
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	b = core_calloc(env, 1, sizeof(*b));
	if (!b)
		return VKCOL_ERROR_OUT_OF_HOST_MEMORY;
	b->mode = desc->mode == VKCOL_MODE_APPROX ? VKCOL_MODE_APPROX : VKCOL_MODE_EXACT;
	b->max_pairs = desc->max_pairs;
	b->mip_level = desc->mip_level;
	b->vertex_budget = b->mode == VKCOL_MODE_APPROX ? desc->vertex_budget : 0;
	choose_stand_in(s, b);
	if (!b->stand_in_mesh) {
		CORE_ERROR(env, "vkcol_gpu_batch_create: the context has no mesh to query");
		res = VKCOL_ERROR_INVALID_ARGUMENT;
		goto cleanup;
	}
	bool approx = b->mode == VKCOL_MODE_APPROX;
	TRY(cubemap_check_support(s->gpu, &s->meshes->sampler));
	TRY(pool_ensure(s, approx));
	b->pool = s->state->pool;
	pool_retain(b->pool);
	uint32_t map_array = shared_map_array(s);

	// One descriptor pool for every set: the mode's (exact: two per
	// pipeline, one per frontier parity; all share one layout) and the
	// prepare and finish passes'.
	gpu_pipeline *mode_layout = NULL;
	TRY(pipeline_get(s->gpu, s->pipelines, approx ? PIPELINE_APPROX_GROUPS : PIPELINE_EXACT_ARGS, map_array,
	                 &mode_layout));
	TRY(pipeline_get(s->gpu, s->pipelines, PIPELINE_RECORD_PREPARE, 0, &b->prepare));
	TRY(pipeline_get(s->gpu, s->pipelines, PIPELINE_RECORD_FINISH, 0, &b->finish));
	const gpu_pipeline *layouts[] = {mode_layout, b->prepare, b->finish};
	const uint32_t sets[] = {approx ? APPROX_PIPELINES : 2 * EXACT_PIPELINES, 1, 1};
	TRY(gpu_set_pool_create(s->gpu, layouts, sets, CORE_COUNT_OF(layouts), &b->sets));

	uint32_t most = approx ? approx_chunk_limit(s, desc->chunk_pairs)
	                       : (desc->chunk_pairs ? desc->chunk_pairs : RECORD_EXACT_CHUNK);
	b->chunk = most < b->max_pairs ? most : b->max_pairs;
	if (approx) {
		TRY(approx_create(s, b, map_array));
		b->relative = true;
	} else {
		uint32_t flags = desc->flags & VKCOL_BATCH_NO_EARLY_ACCEPT ? 0u : VKCOL_EXACT_EARLY_ACCEPT;
		// Its pairs come later, frame by frame: the oriented boxes are tested
		// when every mesh of the context has them worth it.
		TRY(exact_buffers_create(s, b->chunk, 0, flags, map_array, !b->pool->no_obb, b->sets, &b->exact));
		b->chunk = b->exact.chunk; // within the frontier's breadth-first region
		b->relative = !exact_in_double(s);
	}
	TRY(ids_create(s, b, !approx));
	TRY(gpu_buffer_create(s->gpu, ((VkDeviceSize)VKCOL_RECORD_SLOTS + b->chunk) * 4,
	                      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, GPU_MEMORY_DEVICE,
	                      "recorded query state", &b->state));
	gpu_binding bindings[VKCOL_RECORD_BINDINGS] = {
	    [VKCOL_RECORD_BINDING_PAIRS] = {batch_pairs(b), 0, 0},
	    [VKCOL_RECORD_BINDING_MESHES] = {&b->pool->meshes, 0, 0},
	    [VKCOL_RECORD_BINDING_IDS] = {&b->ids, 0, 0},
	    [VKCOL_RECORD_BINDING_STATE] = {&b->state, 0, 0},
	    [VKCOL_RECORD_BINDING_RESULTS] = {batch_results(b), 0, 0},
	};
	const gpu_binding *one[1] = {bindings};
	TRY(gpu_pipeline_bind_in(s->gpu, b->prepare, b->sets, 1, one, NULL, VK_NULL_HANDLE, &b->prepare_set));
	TRY(gpu_pipeline_bind_in(s->gpu, b->finish, b->sets, 1, one, NULL, VK_NULL_HANDLE, &b->finish_set));

	const gpu_buffer *all[] = {&b->ids,           &b->state,          &b->exact.pairs,    &b->exact.results,
	                           &b->exact.state,   &b->exact.frames,   &b->exact.counters, &b->exact.args,
	                           &b->exact.list,    &b->exact.frontiers[0], &b->exact.frontiers[1],
	                           &b->approx_buffers[0], &b->approx_buffers[1], &b->approx_buffers[2],
	                           &b->approx_buffers[3], &b->approx_buffers[4]};
	for (size_t i = 0; i < CORE_COUNT_OF(all); i++)
		b->device_bytes += all[i]->size;
	b->next = s->state->gpu_batches;
	s->state->gpu_batches = b;
	*out = b;
	b = NULL;
cleanup:
	if (b)
		batch_free(s, b);
	return res;
}

// The batch in the context's list that `batch` is, unlinked when `unlink`;
// NULL when it is not one of this context's.
static vkcol_gpu_batch *find_batch(batch_scope *s, const vkcol_gpu_batch *batch, bool unlink)
{
	for (vkcol_gpu_batch **at = &s->state->gpu_batches; *at; at = &(*at)->next)
		if (*at == batch) {
			vkcol_gpu_batch *found = *at;
			if (unlink)
				*at = found->next;
			return found;
		}
	return NULL;
}

VKCOL_API void vkcol_gpu_batch_destroy(vkcol_context *ctx, vkcol_gpu_batch *batch)
{
	batch_scope scope, *s = &scope;
	if (!batch || !batch_scope_of(ctx, s))
		return;
	vkcol_gpu_batch *b = find_batch(s, batch, true);
	if (!b) {
		CORE_WARN(s->env, "vkcol_gpu_batch_destroy: ignoring a batch that is not one of this context's");
		return;
	}
	batch_free(s, b);
}

VKCOL_API vkcol_result vkcol_gpu_batch_get_info(const vkcol_gpu_batch *batch, vkcol_gpu_batch_info *out)
{
	if (out)
		memset(out, 0, sizeof(*out));
	if (!batch || !out)
		return VKCOL_ERROR_INVALID_ARGUMENT;
	*out = (vkcol_gpu_batch_info){
	    .mode = batch->mode,
	    .max_pairs = batch->max_pairs,
	    .chunk_pairs = batch->chunk,
	    .chunks = (batch->max_pairs + batch->chunk - 1) / batch->chunk,
	    .device_bytes = batch->device_bytes,
	    .poses_in_double = !batch->relative,
	};
	return VKCOL_SUCCESS;
}

// The stages and accesses of the library's own commands in a recording:
// copies, compute shaders and their indirect dispatches.
#define OWN_STAGES (VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_TRANSFER_BIT)
#define OWN_READ_STAGES (OWN_STAGES | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT)
#define OWN_ACCESS                                                                                       \
	(VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_TRANSFER_READ_BIT |        \
	 VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT)

// Checks a recording's arguments; *batch: desc->batch, found in the
// context's list (a pointer that is not in it is never dereferenced).
static vkcol_result check_record(batch_scope *s, VkCommandBuffer cmd, const vkcol_record_desc *desc,
                                 vkcol_gpu_batch **batch)
{
	const core_env *env = s->env;
	if (!cmd || !desc || !desc->batch || !desc->pairs || !desc->results) {
		CORE_ERROR(env, "vkcol_batch_record: cmd, desc, desc->batch, desc->pairs and desc->results are required");
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	*batch = find_batch(s, desc->batch, false);
	if (!*batch) {
		CORE_ERROR(env, "vkcol_batch_record: desc->batch is not a batch of this context");
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if (desc->pair_count > (*batch)->max_pairs) {
		CORE_ERROR(env, "vkcol_batch_record: %u pairs, but the batch was made for at most %u (max_pairs)",
		           desc->pair_count, (*batch)->max_pairs);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if (!s->gpu->barrier2 && ((desc->wait_stages | desc->signal_stages) >> 32) != 0) {
		CORE_ERROR(env, "vkcol_batch_record: wait_stages or signal_stages has synchronization2 stages (bits above "
		                "2^32), but the device has no synchronization2 enabled");
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if (!pool_matches(s, (*batch)->pool, (*batch)->mode == VKCOL_MODE_APPROX)) {
		CORE_ERROR(env, "vkcol_batch_record: a mesh was created or destroyed since this vkcol_gpu_batch was made; "
		                "destroy it and create another");
		return VKCOL_ERROR_OUT_OF_DATE;
	}
	return VKCOL_SUCCESS;
}

VKCOL_API vkcol_result vkcol_batch_record(vkcol_context *ctx, VkCommandBuffer cmd, const vkcol_record_desc *desc)
{
	batch_scope scope, *s = &scope;
	if (!batch_scope_of(ctx, s))
		return VKCOL_ERROR_INVALID_ARGUMENT;
	vkcol_gpu_batch *b = NULL;
	vkcol_result res = check_record(s, cmd, desc, &b);
	if (res != VKCOL_SUCCESS)
		return res;
	gpu_device *gpu = s->gpu;
	VkPipelineStageFlags2 wait = desc->wait_stages ? desc->wait_stages : VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
	VkPipelineStageFlags2 signal = desc->signal_stages
	                                   ? desc->signal_stages
	                                   : VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_2_HOST_BIT;
	// The caller's writes, and the library's earlier use of this batch's
	// scratch (an earlier recording, in this command buffer or an earlier
	// submission), before any of this query's commands.
	gpu_barrier(gpu, cmd, wait | OWN_STAGES, VK_ACCESS_2_MEMORY_WRITE_BIT, OWN_READ_STAGES, OWN_ACCESS);
	if (desc->count_buffer) {
		VkBufferCopy count = {desc->count_offset, VKCOL_RECORD_COUNT * 4, 4};
		gpu->vk.vkCmdCopyBuffer(cmd, desc->count_buffer, b->state.buffer, 1, &count);
	} else {
		gpu->vk.vkCmdUpdateBuffer(cmd, b->state.buffer, VKCOL_RECORD_COUNT * 4, 4, &desc->pair_count);
	}
	gpu->vk.vkCmdFillBuffer(cmd, b->state.buffer, VKCOL_RECORD_SUMMARY * 4, sizeof(vkcol_record_summary), 0);
	const gpu_indirect per_pair = {b->state.buffer, VKCOL_RECORD_ARGS * 4};
	for (uint32_t first = 0; first < desc->pair_count; first += b->chunk) {
		uint32_t slots = desc->pair_count - first < b->chunk ? desc->pair_count - first : b->chunk;
		VkBufferCopy in = {desc->pairs_offset + (VkDeviceSize)first * sizeof(vkcol_pair), 0,
		                   (VkDeviceSize)slots * sizeof(vkcol_pair)};
		gpu->vk.vkCmdCopyBuffer(cmd, desc->pairs, batch_pairs(b)->buffer, 1, &in);
		gpu_barrier_all(gpu, cmd);
		vkcol_record_params params = {
		    .chunk_first = first,
		    .chunk_slots = slots,
		    .pair_count = desc->pair_count,
		    .mesh_index_mask = MESH_MAX_COUNT,
		    .mesh_slots = b->slots,
		    .flags = (b->relative ? VKCOL_RECORD_RELATIVE : 0u) | (b->vertex_budget ? VKCOL_RECORD_BUDGET : 0u) |
		             (b->mode == VKCOL_MODE_EXACT ? VKCOL_RECORD_FINE : 0u),
		    .stand_in_mesh = b->stand_in_mesh,
		    .stand_in_apart = b->stand_in_apart,
		};
		uint32_t groups = (slots + VKCOL_WORKGROUP_SIZE - 1) / VKCOL_WORKGROUP_SIZE;
		gpu_pipeline_dispatch(gpu, cmd, b->prepare, b->prepare_set, &params, groups);
		gpu_barrier_all(gpu, cmd);
		// Both end with a barrier.
		if (b->mode == VKCOL_MODE_APPROX)
			approx_record_chunk(s, cmd, &b->approx, slots, b->mip_level,
			                    b->vertex_budget ? UINT32_MAX : MESH_MAX_COUNT, false, &per_pair, NULL, 0);
		else
			exact_record_chunk(s, cmd, &b->exact, slots, &per_pair, NULL);
		gpu_pipeline_dispatch(gpu, cmd, b->finish, b->finish_set, &params, groups);
		gpu_barrier_all(gpu, cmd);
		VkBufferCopy out = {0, desc->results_offset + (VkDeviceSize)first * sizeof(vkcol_pair_result),
		                    (VkDeviceSize)slots * sizeof(vkcol_pair_result)};
		gpu->vk.vkCmdCopyBuffer(cmd, batch_results(b)->buffer, desc->results, 1, &out);
	}
	if (desc->summary) {
		// After the last finish pass's barrier (or, without pairs, the fill
		// before it).
		if (desc->pair_count == 0)
			gpu_barrier_all(gpu, cmd);
		VkBufferCopy summary = {VKCOL_RECORD_SUMMARY * 4, desc->summary_offset, sizeof(vkcol_record_summary)};
		gpu->vk.vkCmdCopyBuffer(cmd, b->state.buffer, desc->summary, 1, &summary);
	}
	gpu_barrier(gpu, cmd, OWN_STAGES, VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT, signal,
	            VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
	return VKCOL_SUCCESS;
}
