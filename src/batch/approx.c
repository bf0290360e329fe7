// SPDX-License-Identifier: MIT
// Approx mode: the patent's vertex test (Intel, US 7,928,993) with culling,
// in chunks of pairs on two frames of buffers, so that while the device
// answers chunk k the host collects chunk k - 1's answers and writes chunk
// k + 1's pairs. Per chunk: approx_pairs.comp (stage 0, the inner balls,
// the nearest cluster per direction, jobs for the rest), approx_groups.comp
// (group jobs), approx_jobs.comp (cluster jobs), then approx_pairs.comp's
// spilled variant for the pairs whose jobs did not fit and the penetration
// of those the jobs found colliding.
#include "batch/approx.h"

#include <string.h>

#include "batch/pairs.h"
#include "batch/pool.h"
#include "batch/timing.h"

// The buffers of an approx frame are the context's scratch buffers
// (gpu/memory.h), slot FRAME_<buffer> + frame index: a run of batches reuses
// them.
enum { FRAME_PAIRS = 0, FRAME_RESULTS = 2, FRAME_STATS = 4, FRAME_JOBS = 6, FRAME_JOB_ARGS = 8 };
_Static_assert(FRAME_JOB_ARGS + 2 <= GPU_SCRATCH_SLOTS, "an approx frame's buffers fit the scratch slots");

typedef struct frame {
	// Its pairs host-visible (as pairs_upload writes them), its results too
	// (read back without a copy).
	approx_chunk c;
	VkCommandBuffer cmd;
	VkFence fence;
	bool in_flight;
	uint64_t first, count; // pairs of the chunk in flight
} frame;

// The most pairs one dispatch can take: the pair buffer within one binding
// (storage and texels), and one invocation per pair in a 2D grid of
// workgroups.
static uint32_t max_chunk(const batch_scope *s)
{
	uint64_t by_binding = gpu_texel_binding_max(s->gpu) / sizeof(vkcol_gpu_pair);
	uint64_t by_dispatch = (uint64_t)s->gpu->props.limits.maxComputeWorkGroupCount[0] *
	                       s->gpu->props.limits.maxComputeWorkGroupCount[1] * VKCOL_WORKGROUP_SIZE;
	uint64_t chunk = by_binding < by_dispatch ? by_binding : by_dispatch;
	return chunk < UINT32_MAX ? (uint32_t)chunk : UINT32_MAX;
}

// Approx mode: 2^16 pairs, 4 MiB of pairs, 1 MiB of results and 20 MiB
// of jobs per frame (two frames, kept between batches as scratch buffers);
// large enough to fill a GPU (the jobs passes have many more invocations
// than pairs), small enough that memory stays bounded.
#define DEFAULT_CHUNK (1u << 16)

// Cluster and group jobs per pair of a chunk, on average, that approx
// mode's lists hold. A pair whose jobs do not fit is spilled (shared.h): a
// pass after the jobs tests all its clusters, one invocation per pair; the
// same answers, but on a SIMD driver such as lavapipe a pair's whole SIMD
// group waits for its longest loop. The lists leave room over what the
// benchmark's non-convex pairs make on average
// (docs/performance-notes.md). Each list is one dispatch of one
// dimension (on lavapipe at most 4 Mi jobs, 32 MiB: 16 per pair for chunks
// of 2^18, the CLI's largest), and the two lists share one binding.
#define APPROX_JOBS_PER_PAIR 32u
#define APPROX_GROUP_JOBS_PER_PAIR 8u

uint32_t approx_chunk_limit(const batch_scope *s, uint32_t most)
{
	most = most ? most : DEFAULT_CHUNK;
	return most < max_chunk(s) ? most : max_chunk(s);
}

void approx_job_capacities(const batch_scope *s, uint64_t room, approx_chunk *c)
{
	// Each job list is one indirect dispatch of one dimension.
	uint64_t job_max = (uint64_t)s->gpu->props.limits.maxComputeWorkGroupCount[0] * VKCOL_WORKGROUP_SIZE;
	uint64_t job_capacity = APPROX_JOBS_PER_PAIR * room;
	job_capacity = job_capacity < job_max ? job_capacity : job_max;
	if (s->state->knobs.approx_job_capacity)
		job_capacity = s->state->knobs.approx_job_capacity;
	uint64_t group_capacity = APPROX_GROUP_JOBS_PER_PAIR * room;
	group_capacity = group_capacity < job_max ? group_capacity : job_max;
	// Two jobs a texel: what the binding holds besides a slot per pair for
	// the spilled pairs is shared in the same proportion.
	uint64_t binding_jobs = gpu_texel_binding_max(s->gpu) / 16 * 2 - room;
	if (job_capacity + group_capacity > binding_jobs) {
		uint64_t both = job_capacity + group_capacity;
		job_capacity = job_capacity * binding_jobs / both;
		group_capacity = binding_jobs - job_capacity;
	}
	if (s->state->knobs.approx_group_capacity)
		group_capacity = s->state->knobs.approx_group_capacity;
	c->job_capacity = (uint32_t)job_capacity;
	c->group_capacity = (uint32_t)group_capacity;
	c->spill_capacity = (uint32_t)room;
}

VkDeviceSize approx_jobs_bytes(const approx_chunk *c)
{
	// Whole texels of two jobs each: the cluster jobs, the group jobs, the
	// spilled pairs.
	return ((VkDeviceSize)c->job_capacity + c->group_capacity + c->spill_capacity + 1) / 2 * 16;
}

vkcol_result approx_chunk_bind(batch_scope *s, uint32_t map_array, VkDescriptorPool recorded_sets, approx_chunk *c)
{
	vkcol_result res = VKCOL_SUCCESS;
	static const pipeline_id ids[APPROX_PIPELINES] = {
	    [APPROX_PAIRS] = PIPELINE_APPROX,
	    [APPROX_SPILLED] = PIPELINE_APPROX_SPILLED,
	    [APPROX_SPILLED_LIST] = PIPELINE_APPROX_SPILLED_LIST,
	    [APPROX_GROUPS] = PIPELINE_APPROX_GROUPS,
	    [APPROX_JOBS] = PIPELINE_APPROX_JOBS,
	};
	VkImageView views[VKCOL_MAP_ARRAYS];
	pool_views(s->state->pool, views);
	gpu_binding bindings[VKCOL_APPROX_BINDINGS] = {
	    [VKCOL_APPROX_BINDING_STATS] = {c->stats, 0, 0},
	    [VKCOL_APPROX_BINDING_JOBS] = {c->jobs, 0, 0},
	    [VKCOL_APPROX_BINDING_JOB_TEXELS] = {c->jobs, 0, 0},
	    [VKCOL_APPROX_BINDING_JOB_ARGS] = {c->job_args, 0, 0},
	};
	pool_bind(s->state->pool, c->pairs, c->results, bindings);
	const gpu_binding *one[1] = {bindings};
	for (int i = 0; i < APPROX_PIPELINES; i++) {
		TRY(pipeline_get(s->gpu, s->pipelines, ids[i], map_array, &c->pipes[i]));
		if (recorded_sets)
			TRY(gpu_pipeline_bind_in(s->gpu, c->pipes[i], recorded_sets, 1, one, views, s->meshes->sampler.sampler,
			                         &c->sets[i]));
		else
			TRY(gpu_pipeline_bind(s->gpu, c->pipes[i], bindings, views, s->meshes->sampler.sampler, &c->sets[i]));
	}
cleanup:
	return res;
}

// A timestamp after the passes recorded so far (timing.h), when timed.
static void mark(const batch_scope *s, batch_timer *timer, VkCommandBuffer cmd, uint32_t slot, vkcol_timed_stage stage)
{
	if (timer)
		batch_timer_mark(s, timer, cmd, slot, BATCH_TIMER_TAG(stage, BATCH_TIMER_NO_LEVEL));
}

// A dispatch of one invocation per pair of the chunk: n of them, or as
// many as per_pair's indirect arguments say (a recorded query's).
static void per_pair_dispatch(batch_scope *s, VkCommandBuffer cmd, const approx_chunk *c, int pipe,
                              const vkcol_approx_params *params, uint32_t n, const gpu_indirect *per_pair)
{
	if (per_pair)
		gpu_pipeline_dispatch_indirect(s->gpu, cmd, c->pipes[pipe], c->sets[pipe], params, *per_pair);
	else
		gpu_pipeline_dispatch(s->gpu, cmd, c->pipes[pipe], c->sets[pipe], params,
		                      (n + VKCOL_WORKGROUP_SIZE - 1) / VKCOL_WORKGROUP_SIZE);
}

void approx_record_chunk(batch_scope *s, VkCommandBuffer cmd, const approx_chunk *c, uint32_t n, uint32_t mip_level,
                         uint32_t mesh_index_mask, bool stats, const gpu_indirect *per_pair, batch_timer *timer,
                         uint32_t slot)
{
	vkcol_approx_params params = {
	    .pair_count = n,
	    .mip_level = mip_level,
	    .mesh_index_mask = mesh_index_mask,
	    .flags = (stats ? VKCOL_APPROX_STATS : 0u) | (s->state->knobs.cone_bounds_off ? VKCOL_APPROX_NO_CONES : 0u) |
	             (s->state->knobs.clearance_off ? VKCOL_APPROX_NO_CLEARANCE : 0u) |
	             (s->state->knobs.open_bounds_off ? VKCOL_APPROX_NO_OPEN_BOUNDS : 0u),
	    .job_capacity = c->job_capacity,
	    .group_capacity = c->group_capacity,
	};
	// Per list: no workgroups (x = 0, y = z = 1), no jobs.
	static const uint32_t no_jobs[VKCOL_JOB_ARGS_WORDS] = {0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0};
	s->gpu->vk.vkCmdUpdateBuffer(cmd, c->job_args->buffer, 0, sizeof(no_jobs), no_jobs);
	if (stats)
		s->gpu->vk.vkCmdFillBuffer(cmd, c->stats->buffer, 0, VK_WHOLE_SIZE, 0);
	mark(s, timer, cmd, slot, VKCOL_TIMED_SETUP);
	gpu_barrier_all(s->gpu, cmd);
	per_pair_dispatch(s, cmd, c, APPROX_PAIRS, &params, n, per_pair);
	mark(s, timer, cmd, slot, VKCOL_TIMED_BOUNDS);
	gpu_barrier_all(s->gpu, cmd);
	// The group jobs, the cluster jobs and the spilled pairs, each an
	// indirect dispatch of its list's words in job_args; then, one
	// invocation per pair, the penetration of the pairs found colliding.
	static const struct {
		int pipe;
		uint32_t list;
	} passes[] = {{APPROX_GROUPS, VKCOL_JOBS_GROUP},
	              {APPROX_JOBS, VKCOL_JOBS_CLUSTER},
	              {APPROX_SPILLED_LIST, VKCOL_JOBS_SPILLED}};
	for (size_t i = 0; i < CORE_COUNT_OF(passes); i++) {
		gpu_pipeline_dispatch_indirect(s->gpu, cmd, c->pipes[passes[i].pipe], c->sets[passes[i].pipe], &params,
		                               (gpu_indirect){c->job_args->buffer, 16 * passes[i].list});
		mark(s, timer, cmd, slot, VKCOL_TIMED_CUBE_MAP);
		gpu_barrier_all(s->gpu, cmd);
	}
	per_pair_dispatch(s, cmd, c, APPROX_SPILLED, &params, n, per_pair);
	mark(s, timer, cmd, slot, VKCOL_TIMED_CUBE_MAP);
	gpu_barrier_all(s->gpu, cmd);
}

static uint64_t stat64(const uint32_t *words, uint32_t index)
{
	return (uint64_t)words[index] | ((uint64_t)words[index + 1] << 32);
}

// Waits for f's chunk (frame `slot`) and copies its answers (and counters
// and timestamps) out.
static vkcol_result harvest(batch_scope *s, frame *f, uint32_t slot, batch_timer *timer, vkcol_pair_result *results,
                            vkcol_batch_stats *stats)
{
	const core_env *env = s->env;
	vkcol_result res = VKCOL_SUCCESS;
	if (!f->in_flight)
		return VKCOL_SUCCESS;
	f->in_flight = false;
	VK_TRY(env, s->gpu->vk.vkWaitForFences(s->gpu->device, 1, &f->fence, VK_TRUE, UINT64_MAX));
	double start = batch_now();
	TRY(gpu_buffer_host_read(s->gpu, f->c.results));
	memcpy(&results[f->first], f->c.results->mapped, f->count * sizeof(vkcol_pair_result));
	if (stats)
		batch_timer_host(timer, start, &stats->readback_seconds);
	TRY(batch_timer_collect(s, timer, slot));
	if (stats) {
		TRY(gpu_buffer_host_read(s->gpu, f->c.stats));
		const uint32_t *words = f->c.stats->mapped;
		stats->vertex_tests += stat64(words, VKCOL_STAT_VERTEX_TESTS);
		stats->cube_samples += stat64(words, VKCOL_STAT_CUBE_SAMPLES);
	}
cleanup:
	return res;
}

vkcol_result approx_run(batch_scope *s, const vkcol_batch_desc *desc, uint32_t map_array, vkcol_pair_result *results)
{
	const core_env *env = s->env;
	vkcol_result res = VKCOL_SUCCESS;
	vkcol_batch_stats *stats = desc->stats;
	frame frames[2] = {0};
	batch_timer timer = {0};
	uint32_t *budget_ids = NULL; // vertex budget: the id of each slot's level of detail
	uint32_t most = approx_chunk_limit(s, desc->chunk_pairs);
	uint32_t chunk = (uint64_t)most > desc->pair_count ? (uint32_t)desc->pair_count : most;
	// The frames' buffers hold `room` pairs: the chunk rounded up to a power
	// of two (at most `most`), so that batches of similar sizes find their
	// scratch buffers (gpu/memory.h) the right size.
	uint64_t room = 1;
	while (room < chunk)
		room <<= 1;
	room = room < most ? room : most;
	for (int i = 0; i < 2; i++) {
		frame *f = &frames[i];
		approx_job_capacities(s, room, &f->c);
		// Pairs and jobs are read as texel buffers (approx_common.glsl).
		const VkBufferUsageFlags texel =
		    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
		TRY(gpu_scratch_get(s->gpu, FRAME_PAIRS + i, (VkDeviceSize)room * sizeof(vkcol_gpu_pair), texel,
		                    GPU_MEMORY_UPLOAD, "batch pairs", &f->c.pairs));
		TRY(gpu_scratch_get(s->gpu, FRAME_RESULTS + i, (VkDeviceSize)room * sizeof(vkcol_gpu_result),
		                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPU_MEMORY_READBACK, "batch results", &f->c.results));
		TRY(gpu_scratch_get(s->gpu, FRAME_STATS + i, VKCOL_STAT_WORDS * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
		                    GPU_MEMORY_READBACK, "batch stats", &f->c.stats));
		TRY(gpu_scratch_get(s->gpu, FRAME_JOBS + i, approx_jobs_bytes(&f->c), texel, GPU_MEMORY_DEVICE, "approx jobs",
		                    &f->c.jobs));
		TRY(gpu_scratch_get(s->gpu, FRAME_JOB_ARGS + i, VKCOL_JOB_ARGS_WORDS * 4,
		                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
		                    VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		                    GPU_MEMORY_DEVICE, "approx job dispatch", &f->c.job_args));
		TRY(approx_chunk_bind(s, map_array, VK_NULL_HANDLE, &f->c));
		VkCommandBufferAllocateInfo alloc = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, s->gpu->command_pool,
		                                     VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
		VK_TRY(env, s->gpu->vk.vkAllocateCommandBuffers(s->gpu->device, &alloc, &f->cmd));
		VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
		VK_TRY(env, s->gpu->vk.vkCreateFence(s->gpu->device, &fence, NULL, &f->fence));
	}

	// Per frame: the start, the set-up and the four passes.
	TRY(batch_timer_create(s, desc, 2, 6, &timer));
	// The vertex budget: pairs name the records of the levels of detail it
	// picks (pool.h).
	if (desc->vertex_budget) {
		budget_ids = core_calloc(env, s->meshes->capacity ? s->meshes->capacity : 1, sizeof(uint32_t));
		if (!budget_ids) {
			res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
			goto cleanup;
		}
		pool_budget_ids(s, desc->vertex_budget, budget_ids);
	}

	uint64_t done = 0;
	bool stopped = false;
	uint32_t k = 0;
	for (uint64_t first = 0; first < desc->pair_count && !stopped; first += chunk, k ^= 1) {
		frame *f = &frames[k];
		if (f->in_flight) {
			TRY(harvest(s, f, k, &timer, results, stats));
			done = f->first + f->count;
			if (desc->progress && !desc->progress(desc->progress_user, done, desc->pair_count)) {
				stopped = true;
				break;
			}
		}
		uint64_t count = desc->pair_count - first < chunk ? desc->pair_count - first : chunk;
		double upload_start = batch_now();
		pairs_upload(s, &desc->pairs[first], count, NULL, false, budget_ids, false, f->c.pairs->mapped);
		if (stats)
			batch_timer_host(&timer, upload_start, &stats->upload_seconds);
		VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		                                  .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
		VK_TRY(env, s->gpu->vk.vkBeginCommandBuffer(f->cmd, &begin));
		batch_timer_begin(s, &timer, f->cmd, k);
		approx_record_chunk(s, f->cmd, &f->c, (uint32_t)count, desc->mip_level,
		                    budget_ids ? UINT32_MAX : MESH_MAX_COUNT, stats != NULL, NULL, &timer, k);
		VK_TRY(env, s->gpu->vk.vkEndCommandBuffer(f->cmd));
		VK_TRY(env, s->gpu->vk.vkResetFences(s->gpu->device, 1, &f->fence));
		VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &f->cmd};
		VK_TRY(env, s->gpu->vk.vkQueueSubmit(s->gpu->queue, 1, &submit, f->fence));
		f->in_flight = true;
		f->first = first;
		f->count = count;
	}
	// Drain in submission order so `done` stays a prefix.
	for (int i = 0; i < 2; i++) {
		frame *f = &frames[k];
		if (f->in_flight) {
			TRY(harvest(s, f, k, &timer, results, stats));
			done = f->first + f->count;
			if (desc->progress && !stopped && done < desc->pair_count)
				stopped = !desc->progress(desc->progress_user, done, desc->pair_count);
		}
		k ^= 1;
	}
	if (desc->progress && !stopped && done == desc->pair_count)
		desc->progress(desc->progress_user, done, desc->pair_count);
	if (stopped && done < desc->pair_count)
		res = VKCOL_ERROR_INTERRUPTED;
cleanup:
	core_free(env, budget_ids);
	for (int i = 0; i < 2; i++) {
		frame *f = &frames[i];
		if (f->in_flight)
			s->gpu->vk.vkWaitForFences(s->gpu->device, 1, &f->fence, VK_TRUE, UINT64_MAX);
		if (f->fence)
			s->gpu->vk.vkDestroyFence(s->gpu->device, f->fence, NULL);
		if (f->cmd)
			s->gpu->vk.vkFreeCommandBuffers(s->gpu->device, s->gpu->command_pool, 1, &f->cmd);
	}
	batch_timer_destroy(s, &timer);
	return res;
}
