// SPDX-License-Identifier: MIT
// Exact mode: breadth-first traversal of both meshes' flattened AABB trees on
// the device (Xiao & Shi, "GPGPU-based real-time collision detection"; the
// balanced trees of CN 102663825), one dispatch per level sized by the
// previous level's counters through vkCmdDispatchIndirect, then exact
// triangle tests and containment. Per chunk, one command buffer: the setup,
// search and walk passes (the early accepts), the levels, the containment
// pass; the host then collects the answers and reruns what overflowed
// (rerun.c).
#include "batch/exact.h"

#include <string.h>

#include "batch/pairs.h"
#include "batch/pool.h"
#include "batch/rerun.h"
#include "batch/timing.h"

bool exact_in_double(const batch_scope *s)
{
	return s->gpu->float64 && !s->state->knobs.float64_off;
}

// Exact mode's pipeline `id` in the precision exact_in_double chooses.
static pipeline_id exact_pipeline(const batch_scope *s, pipeline_id id)
{
	return exact_in_double(s) ? pipeline_in_double(id) : id;
}

// Items of a frontier's three regions (16 bytes each; one binding, also
// read as texels), bounded so that the buffer, with up to as many slots
// again for the candidate and the confirmation entries (each region as
// large as the leaf region, at most half the items), fits a binding
// (exact_buffers_create then sizes them by the chunk); 2^21 items are
// 32 MiB (and 8 MiB each of candidate and confirmation slots, 16 MiB
// without depth-first items) per frontier.
static uint32_t frontier_capacity(const batch_scope *s)
{
	if (s->state->knobs.frontier_capacity)
		return s->state->knobs.frontier_capacity;
	uint64_t by_binding = gpu_texel_binding_max(s->gpu) / 16 / 2;
	return by_binding < UINT32_MAX ? (uint32_t)by_binding : UINT32_MAX;
}

// Depth-first steps per traversal item, chosen by measurement (the budgets
// tried are in docs/performance-notes.md): EXACT_BUDGET
// steps find the first hit of a colliding pair after far fewer node pairs
// than level-by-level expansion, while the invocations of a subgroup stay
// within a bounded number of steps of each other.
#define EXACT_BUDGET 16u
// ... except a diving pair's first item, from the two roots: a path to a
// pair of leaves takes about the two trees' depths added up (20-40 steps
// for meshes of 10^3-10^5 triangles), and an item that stops short of the
// leaves hands its whole stack on, so that the next levels expand the
// pair's tree pairs side by side, as breadth first does.
#define EXACT_SEED_BUDGET VKCOL_TRAVERSE_BUDGET_MAX
// ... and a scout, the seed of a pair with an open mesh that goes breadth
// first (exact_setup.comp): far enough for a colliding pair's first path
// to reach the leaves of two trees of 10^3 triangles, short enough that a
// pair apart, which lavapipe proves apart more cheaply level by level, pays
// little for it (24, 40 and 63 steps measured in docs/performance-notes.md).
#define EXACT_SCOUT_BUDGET 32u

static uint32_t clamp_budget(uint32_t budget)
{
	return budget < VKCOL_TRAVERSE_BUDGET_MAX ? budget : VKCOL_TRAVERSE_BUDGET_MAX;
}

static uint32_t traverse_budget(const batch_scope *s)
{
	return clamp_budget(s->state->knobs.traverse_budget ? s->state->knobs.traverse_budget : EXACT_BUDGET);
}

// A knob that sets the budget sets the seeds' too, unless it sets theirs.
static uint32_t seed_budget(const batch_scope *s, uint32_t budget)
{
	const batch_knobs *k = &s->state->knobs;
	if (budget <= 1)
		return budget;
	uint32_t seed = k->seed_budget ? k->seed_budget : k->traverse_budget ? budget : EXACT_SEED_BUDGET;
	return clamp_budget(seed > budget ? seed : budget);
}

// A scout's steps: the knob's when set (1: no scouts).
static uint32_t scout_budget(const batch_scope *s, uint32_t budget)
{
	if (budget <= 1)
		return 1;
	return clamp_budget(s->state->knobs.scout_budget ? s->state->knobs.scout_budget : EXACT_SCOUT_BUDGET);
}

// Pairs per exact-mode chunk on a CPU device unless the caller says
// otherwise: 2^14 rather than 2^13 measured x0.94-0.97 of the CPU per pair
// on batches of 20,000 (each level's passes and round trips cost alike
// whatever their items), for frontiers of 2 x 96 MiB of host memory.
#define EXACT_DEFAULT_CHUNK (1u << 14)
// Frontier items per pair of a chunk: those of the 2^13 chunks before
// (2^21 items), and the fewest a batch's frontiers hold.
#define EXACT_ITEMS_PER_PAIR 256u
#define EXACT_ITEMS_MIN (1u << 18)

// A discrete GPU runs many more invocations at once than lavapipe, and each
// level pass costs it about 20 us whatever its items: chunks of 2^15 pairs
// (frontiers of 2^23 items, 2 x 192 MiB, kept between calls) fill it better.
#define EXACT_DISCRETE_CHUNK (1u << 15)

static uint32_t exact_default_chunk(const batch_scope *s)
{
	return s->gpu->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? EXACT_DISCRETE_CHUNK
	                                                                        : EXACT_DEFAULT_CHUNK;
}

// lavapipe runs a SIMD group's lanes in lockstep on a CPU core, so a lane's
// depth-first steps cost it two to three breadth-first items, and the probe
// between a small and a large open mesh (exact_setup.comp) pays for itself
// by its accepts and by telling which pairs to send depth first. On a
// discrete GPU (an H100: docs/performance-notes.md, "Depth first on a GPU")
// the probe pass cost more than it saved, and pairs with an open mesh ran
// 1.3-3.2x as fast depth first at random poses (0.83-1.65x near contact);
// pairs of two solids kept their old policy.
#define EXACT_DISCRETE_POLICY (VKCOL_EXACT_NO_PROBE | VKCOL_EXACT_DIVE_OPEN)

uint32_t exact_policy(const batch_scope *s)
{
	if (s->state->knobs.exact_policy & EXACT_POLICY_SET)
		return s->state->knobs.exact_policy & ~EXACT_POLICY_SET;
	return s->gpu->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? EXACT_DISCRETE_POLICY : 0u;
}

// Traversal levels per submission of vkcol_batch_run (exact_pass).
#define EXACT_LEVELS_PER_SUBMIT 8u

// Entries of the device's triangle-pair list per chunk (16 bytes each).
#define EXACT_LIST_MAX (1u << 20)

// Byte offset of indirect dispatch d (VKCOL_ARGS_*, shared.h) in the args
// buffer, as exact_args.comp writes them (4 words each).
#define ARGS_AT(d) ((VkDeviceSize)16 * (d))
_Static_assert(VKCOL_ARGS_CONFIRM < VKCOL_EXACT_ARGS_WORDS / 4, "every indirect dispatch has its words");

// The buffers of exact_buffers, in the order of their scratch slots, with
// their usage and memory kind (recorded batches keep everything on the
// device) and, from b's sizes, their size in bytes.
enum { EXACT_BUFFERS = 9, EXACT_SCRATCH_FIRST = 10 };
_Static_assert(EXACT_SCRATCH_FIRST + EXACT_BUFFERS <= GPU_SCRATCH_SLOTS, "exact mode's buffers have their slots");

typedef struct exact_buffer_spec {
	gpu_buffer *buffer;
	VkDeviceSize size;
	VkBufferUsageFlags usage;
	gpu_memory_kind kind;
	const char *name;
} exact_buffer_spec;

static void exact_buffer_specs(exact_buffers *b, exact_buffer_spec *out)
{
	const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
	// Pairs, frames and frontiers are read as texel buffers (exact_common.glsl).
	const VkBufferUsageFlags texel = storage | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
	// Recorded batches copy their pairs in and their answers out on the
	// device.
	const gpu_memory_kind upload = b->recorded ? GPU_MEMORY_DEVICE : GPU_MEMORY_UPLOAD;
	const gpu_memory_kind readback = b->recorded ? GPU_MEMORY_DEVICE : GPU_MEMORY_READBACK;
	// After the three regions, the triangle pairs the leaf culls left, one
	// entry per window of A and batch of B with any (shared.h), then those
	// the separating axes left for the confirmations: each as many slots as
	// the leaf region, one entry per leaf-leaf item at most for leaves of
	// up to 4 triangles; a pair whose entry does not fit is flagged for a
	// rerun.
	const VkDeviceSize frontier = ((VkDeviceSize)b->capacity + 2 * (b->dive_base - b->leaf_base)) * 16;
	const exact_buffer_spec specs[EXACT_BUFFERS] = {
	    {&b->pairs, (VkDeviceSize)b->chunk * sizeof(vkcol_gpu_pair), texel, upload, "exact pairs"},
	    {&b->results, (VkDeviceSize)b->chunk * sizeof(vkcol_gpu_result), storage, readback, "exact results"},
	    // uvec2 per pair, read as RGBA32UI texels too: whole texels.
	    {&b->state, ((VkDeviceSize)b->chunk + 1) / 2 * 16, texel, GPU_MEMORY_DEVICE, "exact pair state"},
	    {&b->frames, (VkDeviceSize)b->chunk * VKCOL_FRAME_VEC4S * 16, texel, GPU_MEMORY_DEVICE, "exact pair frames"},
	    {&b->frontiers[0], frontier, texel, GPU_MEMORY_DEVICE, "exact frontier 0"},
	    {&b->frontiers[1], frontier, texel, GPU_MEMORY_DEVICE, "exact frontier 1"},
	    {&b->counters, VKCOL_COUNTER_WORDS * 4, storage, readback, "exact counters"},
	    // Five indirect dispatches per level: breadth-first, depth-first and
	    // leaf-leaf items, the triangle tests and their confirmations; and
	    // the search and walk passes'.
	    {&b->args, VKCOL_EXACT_ARGS_WORDS * 4, storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, GPU_MEMORY_DEVICE,
	     "exact indirect args"},
	    {&b->list, (VkDeviceSize)(b->list_capacity ? b->list_capacity : 1) * 16, storage, readback,
	     "exact triangle-pair list"},
	};
	memcpy(out, specs, sizeof(specs));
}

void exact_buffers_free(batch_scope *s, exact_buffers *b)
{
	exact_buffer_spec specs[EXACT_BUFFERS];
	exact_buffer_specs(b, specs);
	for (uint32_t i = 0; i < EXACT_BUFFERS; i++) {
		if (b->recorded)
			gpu_buffer_destroy(s->gpu, specs[i].buffer);
		else
			gpu_scratch_give(s->gpu, EXACT_SCRATCH_FIRST + i, specs[i].usage, specs[i].kind, specs[i].buffer);
	}
	batch_timer_destroy(s, &b->timer);
}

vkcol_result exact_buffers_create(batch_scope *s, uint32_t chunk, uint32_t list_capacity, uint32_t flags,
                                  uint32_t map_array, bool obb, VkDescriptorPool recorded_sets, exact_buffers *b)
{
	vkcol_result res = VKCOL_SUCCESS;
	b->recorded = recorded_sets != VK_NULL_HANDLE;
	b->chunk = chunk;
	b->capacity = frontier_capacity(s);
	// The frontiers follow the chunk, at EXACT_ITEMS_PER_PAIR, so that a
	// renderer's few hundred recorded pairs do not hold 2 x 48 MiB, nor
	// does a small batch allocate them (on an H100 that cost 6.8 of the
	// 7.5 ms of a batch of 1,000 pairs); a batch keeps at least
	// EXACT_ITEMS_MIN, room for a heavy pair alone.
	uint64_t follow = (uint64_t)chunk * EXACT_ITEMS_PER_PAIR;
	if (!recorded_sets && follow < EXACT_ITEMS_MIN)
		follow = EXACT_ITEMS_MIN;
	if (!s->state->knobs.frontier_capacity && follow < b->capacity)
		b->capacity = (uint32_t)follow;
	b->list_capacity = list_capacity;
	obb = s->state->knobs.obb ? s->state->knobs.obb > 0 : obb;
	b->flags = (flags & VKCOL_EXACT_FIND_ALL ? flags : flags | exact_policy(s)) |
	           (s->state->knobs.ball_test_off ? VKCOL_EXACT_NO_BALL : 0u);
	// Listing visits every overlapping node pair: depth first saves nothing.
	// (A frontier of one item has no room for two regions.)
	b->budget = (flags & VKCOL_EXACT_FIND_ALL) || b->capacity < 2 ? 1 : traverse_budget(s);
	b->seed_budget = seed_budget(s, b->budget);
	b->scout_budget = scout_budget(s, b->budget);
	b->dive_base = b->budget > 1 ? b->capacity / 2 : b->capacity;
	// Leaf-leaf items get half of the rest (none in a frontier too small to
	// split: their pairs then overflow, and the CPU reference answers them).
	b->leaf_base = b->dive_base >= 2 ? b->dive_base - b->dive_base / 2 : b->dive_base;
	// Every pair's seed must fit in the breadth-first and the depth-first
	// regions; the breadth-first one is never the larger.
	if (b->chunk > b->leaf_base)
		b->chunk = b->leaf_base;
	// Each level moves one step down one tree: depth A + depth B steps reach
	// two leaves, one more tests them.
	// The pairs may read the fine trees (pool_exact_pair; record.comp's
	// VKCOL_RECORD_FINE for a recorded batch).
	const batch_pool *deepest = s->state->pool;
	uint32_t depth = deepest->max_depth;
	if (deepest->fine_depth > depth)
		depth = deepest->fine_depth;
	b->levels = 2 * depth + 2;
	// vkcol_batch_run's buffers stay with the device between calls (gpu/memory.h),
	// a recorded batch's are its own.
	exact_buffer_spec specs[EXACT_BUFFERS];
	exact_buffer_specs(b, specs);
	for (uint32_t i = 0; i < EXACT_BUFFERS; i++) {
		if (b->recorded)
			TRY(gpu_buffer_create(s->gpu, specs[i].size, specs[i].usage, specs[i].kind, specs[i].name,
			                      specs[i].buffer));
		else
			TRY(gpu_scratch_take(s->gpu, EXACT_SCRATCH_FIRST + i, specs[i].size, specs[i].usage, specs[i].kind,
			                     specs[i].name, specs[i].buffer));
	}
	const pipeline_id ids[EXACT_PIPELINES] = {
	    [EXACT_SETUP] = PIPELINE_EXACT_SETUP,         [EXACT_ARGS] = PIPELINE_EXACT_ARGS,
	    [EXACT_TRAVERSE] = obb ? PIPELINE_EXACT_TRAVERSE_OBB : PIPELINE_EXACT_TRAVERSE,
	    [EXACT_CONTAIN] = PIPELINE_EXACT_CONTAIN,
	    [EXACT_DIVE] = obb ? PIPELINE_EXACT_DIVE_OBB : PIPELINE_EXACT_DIVE,
	    [EXACT_LEAVES] = PIPELINE_EXACT_LEAVES,
	    [EXACT_SEARCH] = PIPELINE_EXACT_SEARCH,       [EXACT_TRIANGLES] = PIPELINE_EXACT_TRIANGLES,
	    [EXACT_WALK] = PIPELINE_EXACT_WALK,           [EXACT_CONFIRM] = PIPELINE_EXACT_CONFIRM,
	};
	batch_pool *pool = s->state->pool;
	b->obb_base = pool->obb_base; // of the node pool bound below
	gpu_binding bindings[2][VKCOL_EXACT_BINDINGS];
	for (int parity = 0; parity < 2; parity++) {
		const gpu_binding set[VKCOL_EXACT_BINDINGS] = {
		    [VKCOL_EXACT_BINDING_NODES] = {&pool->nodes, 0, 0},
		    [VKCOL_EXACT_BINDING_TRIANGLES] = {&pool->triangles, 0, 0},
		    [VKCOL_EXACT_BINDING_PIECES] = {&pool->pieces, 0, 0},
		    [VKCOL_EXACT_BINDING_STATE] = {&b->state, 0, 0},
		    [VKCOL_EXACT_BINDING_FRONTIER_OUT] = {&b->frontiers[parity ^ 1], 0, 0},
		    [VKCOL_EXACT_BINDING_FRONTIER_IN] = {&b->frontiers[parity], 0, 0},
		    [VKCOL_EXACT_BINDING_COUNTERS] = {&b->counters, 0, 0},
		    [VKCOL_EXACT_BINDING_ARGS] = {&b->args, 0, 0},
		    [VKCOL_EXACT_BINDING_FRAMES] = {&b->frames, 0, 0},
		    [VKCOL_EXACT_BINDING_FRAME_TEXELS] = {&b->frames, 0, 0},
		    [VKCOL_EXACT_BINDING_LIST] = {&b->list, 0, 0},
		    [VKCOL_EXACT_BINDING_STATE_TEXELS] = {&b->state, 0, 0},
		};
		memcpy(bindings[parity], set, sizeof(set));
		pool_bind(pool, &b->pairs, &b->results, bindings[parity]);
	}
	const gpu_binding *by_parity[2] = {bindings[0], bindings[1]};
	VkImageView views[VKCOL_MAP_ARRAYS];
	pool_views(pool, views);
	for (int i = 0; i < EXACT_PIPELINES; i++) {
		TRY(pipeline_get(s->gpu, s->pipelines, exact_pipeline(s, ids[i]), map_array, &b->pipes[i]));
		if (b->recorded)
			TRY(gpu_pipeline_bind_in(s->gpu, b->pipes[i], recorded_sets, 2, by_parity, views, s->meshes->sampler.sampler,
			                         b->sets[i]));
		else
			TRY(gpu_pipeline_bind_sets(s->gpu, b->pipes[i], 2, by_parity, views, s->meshes->sampler.sampler,
			                           b->sets[i]));
	}
cleanup:
	return res;
}

// A timestamp after the passes recorded so far (timing.h), when timed.
static void mark(const batch_scope *s, batch_timer *timer, VkCommandBuffer cmd, uint16_t tag)
{
	if (timer)
		batch_timer_mark(s, timer, cmd, 0, tag);
}

// A pass over the pairs the one before it listed (exact_setup.comp's
// search or walk pass, pipes[pipe] with `set`): exact_args.comp sizes its
// dispatch to the list (args_level: VKCOL_ARGS_FOR_SEARCH or
// VKCOL_ARGS_FOR_WALK, which writes indirect dispatch `dispatch`), then the
// pass runs. Leaves params->level at 0.
static void listed_pass(batch_scope *s, VkCommandBuffer cmd, const exact_buffers *b, batch_timer *timer,
                        vkcol_exact_params *params, uint32_t args_level, int pipe, VkDescriptorSet set,
                        uint32_t dispatch)
{
	gpu_barrier_all(s->gpu, cmd);
	params->level = args_level;
	gpu_pipeline_dispatch(s->gpu, cmd, b->pipes[EXACT_ARGS], b->sets[EXACT_ARGS][0], params, 1);
	mark(s, timer, cmd, BATCH_TIMER_TAG(VKCOL_TIMED_SETUP, BATCH_TIMER_NO_LEVEL));
	gpu_barrier_all(s->gpu, cmd);
	params->level = 0;
	gpu_pipeline_dispatch(s->gpu, cmd, b->pipes[pipe], set, params, 0);
	s->gpu->vk.vkCmdDispatchIndirect(cmd, b->args.buffer, ARGS_AT(dispatch));
	mark(s, timer, cmd, BATCH_TIMER_TAG(VKCOL_TIMED_CUBE_MAP, BATCH_TIMER_NO_LEVEL));
}

static vkcol_exact_params chunk_params(const exact_buffers *b, uint32_t n)
{
	// The pairs name records (pool_exact_pair; record.comp's
	// VKCOL_RECORD_FINE for a recorded batch), not mesh handles.
	return (vkcol_exact_params){n,         UINT32_MAX, b->capacity, 0,
	                            b->flags,  b->list_capacity, b->budget, b->dive_base,
	                            b->leaf_base, b->obb_base, b->seed_budget, b->scout_budget};
}

// The passes before the levels: the counters cleared, setup, search, walk.
static void record_head(batch_scope *s, VkCommandBuffer cmd, const exact_buffers *b, uint32_t n,
                        const gpu_indirect *per_pair, batch_timer *timer)
{
	s->gpu->vk.vkCmdFillBuffer(cmd, b->counters.buffer, 0, VK_WHOLE_SIZE, 0);
	mark(s, timer, cmd, BATCH_TIMER_TAG(VKCOL_TIMED_SETUP, BATCH_TIMER_NO_LEVEL));
	gpu_barrier_all(s->gpu, cmd);
	vkcol_exact_params params = chunk_params(b, n);
	uint32_t groups = (n + VKCOL_WORKGROUP_SIZE - 1) / VKCOL_WORKGROUP_SIZE;
	// The setup lists the pairs it leaves undecided in the frontier that
	// level 0 writes (it is bound as level 0); the search pass reads
	// them there and seeds the frontier level 0 reads (it is bound as
	// the level before level 0), where it also lists the pairs for the
	// walk pass, after the three regions (bound as level 0, the walk
	// pass reads them there).
	if (per_pair)
		gpu_pipeline_dispatch_indirect(s->gpu, cmd, b->pipes[EXACT_SETUP], b->sets[EXACT_SETUP][0], &params,
		                               *per_pair);
	else
		gpu_pipeline_dispatch(s->gpu, cmd, b->pipes[EXACT_SETUP], b->sets[EXACT_SETUP][0], &params, groups);
	mark(s, timer, cmd, BATCH_TIMER_TAG(VKCOL_TIMED_BOUNDS, BATCH_TIMER_NO_LEVEL));
	listed_pass(s, cmd, b, timer, &params, VKCOL_ARGS_FOR_SEARCH, EXACT_SEARCH, b->sets[EXACT_SEARCH][1],
	            VKCOL_ARGS_SEARCH);
	listed_pass(s, cmd, b, timer, &params, VKCOL_ARGS_FOR_WALK, EXACT_WALK, b->sets[EXACT_WALK][0],
	            VKCOL_ARGS_WALK);
}

// Levels [from, to) of the traversal (level_count: all of them).
static void record_levels(batch_scope *s, VkCommandBuffer cmd, const exact_buffers *b, uint32_t n, uint32_t from,
                          uint32_t to, batch_timer *timer)
{
	vkcol_exact_params params = chunk_params(b, n);
	for (uint32_t level = from; level < to; level++) {
		uint32_t parity = level & 1;
		gpu_barrier_all(s->gpu, cmd);
		params.level = level;
		gpu_pipeline_dispatch(s->gpu, cmd, b->pipes[EXACT_ARGS], b->sets[EXACT_ARGS][parity], &params, 1);
		mark(s, timer, cmd, BATCH_TIMER_TAG(VKCOL_TIMED_SETUP, level));
		gpu_barrier_all(s->gpu, cmd);
		// The level's size comes from the previous level's counters: no
		// host round trip between levels. The shaders read their own
		// regions of one frontier and append to the other, so no
		// barrier lies between them. The confirmations and the triangle
		// tests of the previous level's leaf-leaf items go first: a pair
		// they find a hit for spawns no more items (on a driver that
		// runs the dispatches in order, as lavapipe does; elsewhere it
		// is a hint, as the other invocations' hits are).
		const struct {
			int pipe;
			uint32_t dispatch; // VKCOL_ARGS_*
			vkcol_timed_stage timed;
		} passes[] = {{EXACT_CONFIRM, VKCOL_ARGS_CONFIRM, VKCOL_TIMED_LEAVES},
		              {EXACT_TRIANGLES, VKCOL_ARGS_TRIANGLES, VKCOL_TIMED_LEAVES},
		              {EXACT_TRAVERSE, VKCOL_ARGS_TRAVERSE, VKCOL_TIMED_TRAVERSAL},
		              {EXACT_DIVE, VKCOL_ARGS_DIVE, VKCOL_TIMED_TRAVERSAL},
		              {EXACT_LEAVES, VKCOL_ARGS_LEAVES, VKCOL_TIMED_LEAVES}};
		for (size_t k = 0; k < CORE_COUNT_OF(passes); k++) {
			if (passes[k].pipe == EXACT_DIVE && b->budget <= 1)
				continue;
			int pipe = passes[k].pipe;
			gpu_pipeline_dispatch(s->gpu, cmd, b->pipes[pipe], b->sets[pipe][parity], &params, 0);
			s->gpu->vk.vkCmdDispatchIndirect(cmd, b->args.buffer, ARGS_AT(passes[k].dispatch));
			mark(s, timer, cmd, BATCH_TIMER_TAG(passes[k].timed, level));
		}
	}
}

// The answer pass (containment), then a barrier.
static void record_tail(batch_scope *s, VkCommandBuffer cmd, const exact_buffers *b, uint32_t n,
                        const gpu_indirect *per_pair, batch_timer *timer)
{
	vkcol_exact_params params = chunk_params(b, n);
	uint32_t groups = (n + VKCOL_WORKGROUP_SIZE - 1) / VKCOL_WORKGROUP_SIZE;
	gpu_barrier_all(s->gpu, cmd);
	if (per_pair)
		gpu_pipeline_dispatch_indirect(s->gpu, cmd, b->pipes[EXACT_CONTAIN], b->sets[EXACT_CONTAIN][0], &params,
		                               *per_pair);
	else
		gpu_pipeline_dispatch(s->gpu, cmd, b->pipes[EXACT_CONTAIN], b->sets[EXACT_CONTAIN][0], &params, groups);
	mark(s, timer, cmd, BATCH_TIMER_TAG(VKCOL_TIMED_CONTAINMENT, BATCH_TIMER_NO_LEVEL));
	gpu_barrier_all(s->gpu, cmd);
}

// Two levels more than the traversal needs: the last leaf pairs' separating
// axes, then their confirmations.
static uint32_t level_count(const exact_buffers *b)
{
	return b->levels + 2;
}

void exact_record_chunk(batch_scope *s, VkCommandBuffer cmd, const exact_buffers *b, uint32_t n,
                        const gpu_indirect *per_pair, batch_timer *timer)
{
	record_head(s, cmd, b, n, per_pair, timer);
	record_levels(s, cmd, b, n, 0, level_count(b), timer);
	record_tail(s, cmd, b, n, per_pair, timer);
}

// Has level `level` anything to do: items in any region of the frontier it
// reads, or triangle pairs the level before left for its leaf passes? The
// counts the level before wrote (exact_args.comp reads the same). When it
// has none, no later level has any.
static bool level_pending(const uint32_t *counters, uint32_t level)
{
	uint32_t in = level & 1u;
	return counters[VKCOL_COUNTER_BREADTH + in] || counters[VKCOL_COUNTER_DIVE + in] ||
	       counters[VKCOL_COUNTER_LEAF + in] || counters[VKCOL_COUNTER_CAND + in] ||
	       counters[VKCOL_COUNTER_CONFIRM + in];
}

// Answers `count` pairs in chunks of b->chunk: pair i of the pass is
// pairs[index[i]], or pairs[base + i] when index is NULL, and its answer goes
// to the same position of results. Pairs whose frontier overflowed without a
// hit are appended (by position) to rerun; pairs float could not decide are
// answered by the CPU reference at once (for_cpu: room for a chunk).
static vkcol_result exact_pass(batch_scope *s, exact_buffers *b, const vkcol_pair *pairs, const uint64_t *index,
                               uint64_t base, uint64_t count, vkcol_pair_result *results, uint64_t *rerun,
                               uint64_t *rerun_count, uint64_t *at, uint64_t *for_cpu, list_sink *sink,
                               vkcol_batch_stats *stats)
{
	vkcol_result res = VKCOL_SUCCESS;
	for (uint64_t first = 0; first < count; first += b->chunk) {
		uint32_t n = (uint32_t)(count - first < b->chunk ? count - first : b->chunk);
		for (uint32_t i = 0; i < n; i++)
			at[i] = index ? index[first + i] : base + first + i;
		double start = batch_now();
		pairs_upload(s, pairs, n, at, exact_in_double(s), NULL, true, b->pairs.mapped);
		if (stats)
			batch_timer_host(&b->timer, start, &stats->upload_seconds);
		// The levels go in submissions of EXACT_LEVELS_PER_SUBMIT: after
		// each the host reads whether the next level has anything to do,
		// and when it has not, the answer pass follows at once (the tree
		// depths bound the levels, while most chunks' items die out long
		// before: each empty level costs its passes' dispatches all the same).
		const uint32_t total = level_count(b);
		uint32_t next = 0;
		while (next <= total) {
			bool pending = true;
			if (next > 0 && next < total) {
				TRY(gpu_buffer_host_read(s->gpu, &b->counters));
				pending = level_pending(b->counters.mapped, next);
			}
			uint32_t to = !pending ? total : next + EXACT_LEVELS_PER_SUBMIT < total ? next + EXACT_LEVELS_PER_SUBMIT
			                                                                          : total;
			VkCommandBuffer cmd;
			TRY(gpu_begin_once(s->gpu, &cmd));
			batch_timer_begin(s, &b->timer, cmd, 0);
			if (next == 0)
				record_head(s, cmd, b, n, NULL, &b->timer);
			if (pending)
				record_levels(s, cmd, b, n, next, to, &b->timer);
			if (to == total)
				record_tail(s, cmd, b, n, NULL, &b->timer);
			TRY(gpu_submit_once(s->gpu, cmd));
			TRY(batch_timer_collect(s, &b->timer, 0));
			next = to == total ? total + 1 : to;
		}
		start = batch_now();
		TRY(gpu_buffer_host_read(s->gpu, &b->results));
		TRY(gpu_buffer_host_read(s->gpu, &b->counters));
		TRY(gpu_buffer_host_read(s->gpu, &b->list));
		const vkcol_pair_result *got = b->results.mapped;
		uint32_t cpu_count = 0;
		for (uint32_t i = 0; i < n; i++) {
			results[at[i]] = got[i];
			if (got[i].stage != VKCOL_STAGE_NONE)
				continue;
			// Left to the CPU (float could not decide), or rerun (an
			// overflow). Until the CPU answers, the pair stays undecided, so
			// that list_take skips what the device listed of it.
			if (got[i].triangle_pairs == VKCOL_RESULT_FOR_CPU) {
				results[at[i]].triangle_pairs = 0;
				for_cpu[cpu_count++] = at[i];
			} else {
				rerun[(*rerun_count)++] = at[i];
			}
		}
		if (stats)
			batch_timer_host(&b->timer, start, &stats->readback_seconds);
		if (sink)
			list_take(sink, b->list.mapped, ((const uint32_t *)b->counters.mapped)[VKCOL_COUNTER_LIST],
			          b->list_capacity, at, n, results);
		for (uint32_t i = 0; i < cpu_count; i++) {
			TRY(rerun_cpu_answer(s, &pairs[for_cpu[i]], for_cpu[i], &results[for_cpu[i]], sink));
			if (stats) {
				stats->cpu_fallbacks++;
				stats->float_undecided++;
			}
		}
		const uint32_t *counters = b->counters.mapped;
		if (stats) {
			stats->witness_accepted += counters[VKCOL_COUNTER_WITNESS];
			stats->inner_ball_accepted += counters[VKCOL_COUNTER_BALLS];
			for (uint32_t level = 0; level < b->levels && level < VKCOL_MAX_LEVELS; level++) {
				uint32_t items = counters[VKCOL_COUNTER_LEVELS + level];
				stats->level_items[level] += items;
				if (items && level + 1 > stats->levels)
					stats->levels = level + 1;
			}
		}
	}
cleanup:
	return res;
}

vkcol_result exact_run(batch_scope *s, const vkcol_batch_desc *desc, uint32_t map_array, bool obb,
                       vkcol_pair_result *results)
{
	const core_env *env = s->env;
	vkcol_result res = VKCOL_SUCCESS;
	vkcol_batch_stats *stats = desc->stats;
	exact_buffers b = {0};
	rerun_queue reruns = {0};
	uint64_t *at = NULL, *for_cpu = NULL;
	uint32_t chunk = desc->chunk_pairs ? desc->chunk_pairs : exact_default_chunk(s);
	// A smaller batch gets the power of two at or above its size: batches
	// of similar sizes then find the buffers of the last one the right size.
	uint64_t room = 1;
	while (room < desc->pair_count)
		room <<= 1;
	if ((uint64_t)chunk > room)
		chunk = (uint32_t)room;
	list_sink sink = {desc->triangles, 0, false};
	uint32_t flags = 0, list_capacity = 0;
	if (desc->triangles) {
		desc->triangles->count = 0;
		desc->triangles->truncated = false;
		flags |= VKCOL_EXACT_FIND_ALL;
		// The device list does not depend on the caller's capacity: the
		// host keeps whole pairs of it (list_take).
		list_capacity = EXACT_LIST_MAX;
	} else if (!(desc->flags & VKCOL_BATCH_NO_EARLY_ACCEPT)) {
		flags |= VKCOL_EXACT_EARLY_ACCEPT;
	}
	TRY(exact_buffers_create(s, chunk, list_capacity, flags, map_array, obb, VK_NULL_HANDLE, &b));
	// Per submission: the start, the counters' clearing, the setup pass, two
	// marks for each of the search and walk passes, six per level (its
	// sizing pass and five passes), the containment pass.
	TRY(batch_timer_create(s, desc, 1, 8 + 6 * (b.levels + 2), &b.timer));
	// Overflowed pairs are settled chunk by chunk, so these lists (and all
	// host memory) stay bounded by the chunk, whatever the batch size.
	TRY(rerun_queue_init(env, &reruns, b.chunk));
	at = core_calloc(env, b.chunk, sizeof(uint64_t));
	for_cpu = core_calloc(env, b.chunk, sizeof(uint64_t));
	if (!at || !for_cpu) {
		res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		goto cleanup;
	}
	uint64_t done = 0, fallbacks = 0;
	list_sink *list = desc->triangles ? &sink : NULL;
	const uint32_t full = b.chunk;
	for (uint64_t first = 0; first < desc->pair_count; first += full) {
		uint64_t n = desc->pair_count - first < full ? desc->pair_count - first : full;
		rerun_begin(&reruns, full);
		TRY(exact_pass(s, &b, desc->pairs, NULL, first, n, results, reruns.pairs[reruns.cur],
		               &reruns.count[reruns.cur], at, for_cpu, list, stats));
		// The pairs that overflowed, in smaller chunks, then alone, then on
		// the CPU.
		while (rerun_round(&reruns, stats)) {
			b.chunk = reruns.chunk;
			int next = reruns.cur ^ 1;
			TRY(exact_pass(s, &b, desc->pairs, reruns.pairs[reruns.cur], 0, reruns.count[reruns.cur], results,
			               reruns.pairs[next], &reruns.count[next], at, for_cpu, list, stats));
			rerun_round_done(&reruns);
		}
		b.chunk = full;
		TRY(rerun_on_cpu(s, &reruns, desc->pairs, results, list, &fallbacks, stats));
		if (list)
			list_close_chunk(list, results, first, n);
		done = first + n;
		if (desc->progress && !desc->progress(desc->progress_user, done, desc->pair_count))
			break;
	}
	if (done < desc->pair_count)
		res = VKCOL_ERROR_INTERRUPTED;
	if (fallbacks)
		CORE_WARN(env, "%llu pair(s) overflowed the traversal frontier (%u items) even alone; the CPU reference "
		               "answered them",
		          (unsigned long long)fallbacks, b.capacity);
cleanup:
	rerun_queue_free(env, &reruns);
	core_free(env, at);
	core_free(env, for_cpu);
	exact_buffers_free(s, &b);
	return res;
}
