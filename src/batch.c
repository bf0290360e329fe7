// SPDX-License-Identifier: MIT
// vkcol_batch_run. The batch shaders read every mesh through one pool: a
// table of vkcol_gpu_mesh records indexed by mesh slot, one vertex buffer
// holding every mesh's vertices, and one cube-array image per cube-map
// resolution. The pool is rebuilt (device-side copies only) when the set of
// live meshes has changed since the last batch. Pairs are processed in
// chunks sized from the device limits, two chunks in flight: while the device
// answers chunk k, the host copies chunk k+1 in and chunk k-1's answers out.
#include "batch.h"

#include <math.h>
#include <string.h>
#include <time.h>

_Static_assert(sizeof(vkcol_pair) == sizeof(vkcol_gpu_pair), "vkcol_pair is uploaded as vkcol_gpu_pair");
_Static_assert(sizeof(vkcol_pair_result) == sizeof(vkcol_gpu_result), "results are read back as vkcol_pair_result");

typedef struct cube_array {
	VkImage image;
	VkDeviceMemory memory;
	VkImageView view;
	uint64_t bytes;
	uint32_t cubes;
} cube_array;

typedef struct batch_pool {
	uint32_t *ids;        // live mesh ids when built, in slot order
	uint32_t id_count;
	gpu_buffer meshes;    // vkcol_gpu_mesh per slot (mesh_capacity entries)
	gpu_buffer vertices;  // vec4 per used, distinct vertex of every live mesh
	gpu_buffer clusters;  // vec4 (centre, radius) per VKCOL_CLUSTER_SIZE vertices
	cube_array arrays[VKCOL_MAP_ARRAYS];
} batch_pool;

static uint32_t array_index(uint32_t resolution)
{
	uint32_t k = 0;
	while ((4u << k) < resolution)
		k++;
	return k; // 4 -> 0, 8 -> 1, ..., 1024 -> 8
}

static uint32_t mesh_id(const vkcol_context *ctx, uint32_t slot)
{
	return (ctx->meshes[slot].generation << MESH_INDEX_BITS) | (slot + 1);
}

static void pool_free(vkcol_context *ctx, batch_pool *pool)
{
	if (!pool)
		return;
	gpu_buffer_destroy(ctx, &pool->meshes);
	gpu_buffer_destroy(ctx, &pool->vertices);
	gpu_buffer_destroy(ctx, &pool->clusters);
	for (uint32_t i = 0; i < VKCOL_MAP_ARRAYS; i++) {
		cube_array *a = &pool->arrays[i];
		if (a->view)
			ctx->vk.vkDestroyImageView(ctx->device, a->view, NULL);
		if (a->image)
			ctx->vk.vkDestroyImage(ctx->device, a->image, NULL);
		if (a->memory)
			ctx->vk.vkFreeMemory(ctx->device, a->memory, NULL);
	}
	core_free(&ctx->env, pool->ids);
	core_free(&ctx->env, pool);
}

void batch_pool_destroy(vkcol_context *ctx)
{
	pool_free(ctx, ctx->pool);
	ctx->pool = NULL;
}

static bool pool_current(const vkcol_context *ctx)
{
	const batch_pool *pool = ctx->pool;
	if (!pool)
		return false;
	uint32_t n = 0;
	for (uint32_t i = 0; i < ctx->mesh_capacity; i++) {
		if (!ctx->meshes[i].used)
			continue;
		if (n >= pool->id_count || pool->ids[n] != mesh_id(ctx, i))
			return false;
		n++;
	}
	return n == pool->id_count;
}

// Appends mesh m's vertices to out (vec4 each): only vertices some triangle
// uses, one per welded position, in the order the tree's triangles first
// reach them, so consecutive vertices are close in space. Then one bounding
// sphere per VKCOL_CLUSTER_SIZE of them. Returns the vertex count; *clusters
// advances. seen is scratch of vertex_count entries.
static uint32_t emit_vertices(const mesh_cpu *m, uint8_t *seen, float *out, float *cluster_out, uint32_t *clusters)
{
	uint32_t n = 0;
	memset(seen, 0, m->vertex_count);
	for (uint32_t i = 0; i < m->triangle_count; i++) {
		const uint32_t *tri = &m->indices[3 * (size_t)m->tree.triangles[i]];
		for (int k = 0; k < 3; k++) {
			uint32_t v = m->weld ? m->weld[tri[k]] : tri[k];
			if (seen[v])
				continue;
			seen[v] = 1;
			memcpy(&out[4 * (size_t)n], &m->positions[3 * (size_t)v], 3 * sizeof(float));
			out[4 * (size_t)n + 3] = 1.0f;
			n++;
		}
	}
	for (uint32_t first = 0; first < n; first += VKCOL_CLUSTER_SIZE) {
		uint32_t end = first + VKCOL_CLUSTER_SIZE < n ? first + VKCOL_CLUSTER_SIZE : n;
		double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
		for (uint32_t v = first; v < end; v++)
			for (int k = 0; k < 3; k++) {
				lo[k] = fmin(lo[k], out[4 * (size_t)v + k]);
				hi[k] = fmax(hi[k], out[4 * (size_t)v + k]);
			}
		double c[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])}, r2 = 0;
		for (uint32_t v = first; v < end; v++) {
			double d2 = 0;
			for (int k = 0; k < 3; k++)
				d2 += (out[4 * (size_t)v + k] - c[k]) * (out[4 * (size_t)v + k] - c[k]);
			r2 = fmax(r2, d2);
		}
		float *cs = &cluster_out[4 * (size_t)*clusters];
		for (int k = 0; k < 3; k++)
			cs[k] = (float)c[k];
		// Rounding of the float centre: a relative pad keeps the sphere
		// containing its vertices.
		cs[3] = (float)(sqrt(r2) * (1.0 + 1e-5) + 1e-6 * (fabs(c[0]) + fabs(c[1]) + fabs(c[2])));
		(*clusters)++;
	}
	return n;
}

// The inner radius the shaders may trust: float transforms of points at the
// mesh's coordinates err by a few ulps of the largest coordinate, so that much
// (generously) comes off; 0 disables the inner-ball test.
static float inner_radius_for_gpu(const mesh_cpu *m)
{
	if (!m->closed || !m->origin_inside)
		return 0.0f;
	double scale = 0.0;
	for (int k = 0; k < 3; k++)
		scale = fmax(scale, fmax(fabs(m->aabb_min[k]), fabs(m->aabb_max[k])));
	double r = m->inner_radius - 1e-5 * scale;
	return r > 0 ? (float)r : 0.0f;
}

static vkcol_result pool_build(vkcol_context *ctx)
{
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	vkcol_gpu_mesh *records = NULL;
	float *host_vertices = NULL, *host_clusters = NULL;
	uint8_t *seen = NULL;
	batch_pool *pool = core_calloc(env, 1, sizeof(*pool));
	if (!pool)
		return VKCOL_ERROR_OUT_OF_HOST_MEMORY;

	uint32_t live = 0, cubes[VKCOL_MAP_ARRAYS] = {0}, max_vertices = 1;
	uint64_t vertex_total = 0, cluster_total = 0;
	for (uint32_t i = 0; i < ctx->mesh_capacity; i++)
		if (ctx->meshes[i].used) {
			uint32_t nv = ctx->meshes[i].cpu.vertex_count;
			live++;
			vertex_total += nv;
			cluster_total += (nv + VKCOL_CLUSTER_SIZE - 1) / VKCOL_CLUSTER_SIZE;
			max_vertices = nv > max_vertices ? nv : max_vertices;
			cubes[array_index(ctx->meshes[i].cube.resolution)]++;
		}
	pool->ids = core_calloc(env, live ? live : 1, sizeof(uint32_t));
	records = core_calloc(env, ctx->mesh_capacity ? ctx->mesh_capacity : 1, sizeof(*records));
	host_vertices = core_calloc(env, vertex_total ? vertex_total : 1, 4 * sizeof(float));
	host_clusters = core_calloc(env, cluster_total ? cluster_total : 1, 4 * sizeof(float));
	seen = core_alloc(env, max_vertices);
	if (!pool->ids || !records || !host_vertices || !host_clusters || !seen) {
		res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		goto cleanup;
	}
	if (vertex_total * 16 > ctx->props.limits.maxStorageBufferRange) {
		CORE_ERROR(env, "the meshes of this context hold %llu vertices; one batch binding holds at most %u",
		           (unsigned long long)vertex_total, ctx->props.limits.maxStorageBufferRange / 16);
		res = VKCOL_ERROR_TOO_LARGE;
		goto cleanup;
	}
	TRY(gpu_buffer_create(ctx, (vertex_total ? vertex_total : 1) * 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                      GPU_MEMORY_DEVICE, "batch vertex pool", &pool->vertices));
	TRY(gpu_buffer_create(ctx, (cluster_total ? cluster_total : 1) * 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                      GPU_MEMORY_DEVICE, "batch vertex clusters", &pool->clusters));
	TRY(gpu_buffer_create(ctx, (ctx->mesh_capacity ? ctx->mesh_capacity : 1) * sizeof(vkcol_gpu_mesh),
	                      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPU_MEMORY_DEVICE, "batch mesh table", &pool->meshes));
	for (uint32_t k = 0; k < VKCOL_MAP_ARRAYS; k++) {
		// Unused resolutions get a one-cube placeholder: every binding must
		// hold a valid view even if no pair samples it.
		uint32_t count = cubes[k] ? cubes[k] : 1;
		cube_array *a = &pool->arrays[k];
		TRY(distance_map_create_image(ctx, 4u << k, 6 * count, true, &a->image, &a->memory, &a->view, &a->bytes));
		a->cubes = count;
	}

	VkCommandBuffer cmd;
	TRY(gpu_begin_once(ctx, &cmd));
	for (uint32_t k = 0; k < VKCOL_MAP_ARRAYS; k++) {
		uint32_t levels = array_index(4u << k) + 3; // log2(4 << k) + 1
		distance_map_image_barrier(ctx, cmd, pool->arrays[k].image, levels, 6 * pool->arrays[k].cubes,
		                           VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
		                           VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
		                           VK_PIPELINE_STAGE_TRANSFER_BIT);
	}
	uint32_t next_cube[VKCOL_MAP_ARRAYS] = {0};
	uint64_t vertex_first = 0;
	uint32_t cluster_next = 0;
	for (uint32_t i = 0; i < ctx->mesh_capacity; i++) {
		mesh_slot *s = &ctx->meshes[i];
		if (!s->used)
			continue;
		pool->ids[pool->id_count++] = mesh_id(ctx, i);
		uint32_t k = array_index(s->cube.resolution);
		uint32_t cluster_first = cluster_next;
		uint32_t used_vertices =
		    emit_vertices(&s->cpu, seen, &host_vertices[4 * vertex_first], host_clusters, &cluster_next);
		vkcol_gpu_mesh *r = &records[i];
		*r = (vkcol_gpu_mesh){
		    .origin_x = s->cpu.origin[0],
		    .origin_y = s->cpu.origin[1],
		    .origin_z = s->cpu.origin[2],
		    .vertex_first = (uint32_t)vertex_first,
		    .sphere_x = s->cpu.sphere_center[0],
		    .sphere_y = s->cpu.sphere_center[1],
		    .sphere_z = s->cpu.sphere_center[2],
		    .sphere_radius = s->cpu.sphere_radius,
		    .vertex_count = used_vertices,
		    .map_array = k,
		    .map_layer = next_cube[k],
		    .map_levels = s->cube.levels,
		    .cluster_first = cluster_first,
		    .cluster_count = cluster_next - cluster_first,
		    .inner_radius = inner_radius_for_gpu(&s->cpu),
		    .aabb_min_x = s->cpu.aabb_min[0],
		    .aabb_min_y = s->cpu.aabb_min[1],
		    .aabb_min_z = s->cpu.aabb_min[2],
		    .aabb_max_x = s->cpu.aabb_max[0],
		    .aabb_max_y = s->cpu.aabb_max[1],
		    .aabb_max_z = s->cpu.aabb_max[2],
		};
		vertex_first += used_vertices;

		distance_map_image_barrier(ctx, cmd, s->cube.image, s->cube.levels, 6, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
		                           VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_SHADER_READ_BIT,
		                           VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		                           VK_PIPELINE_STAGE_TRANSFER_BIT);
		VkImageCopy regions[16];
		for (uint32_t l = 0; l < s->cube.levels; l++) {
			uint32_t n = s->cube.resolution >> l;
			regions[l] = (VkImageCopy){
			    .srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, 0, 6},
			    .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, 6 * next_cube[k], 6},
			    .extent = {n, n, 1},
			};
		}
		ctx->vk.vkCmdCopyImage(cmd, s->cube.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, pool->arrays[k].image,
		                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, s->cube.levels, regions);
		distance_map_image_barrier(ctx, cmd, s->cube.image, s->cube.levels, 6, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		                           VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_TRANSFER_READ_BIT,
		                           VK_ACCESS_SHADER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
		                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
		next_cube[k]++;
	}
	for (uint32_t k = 0; k < VKCOL_MAP_ARRAYS; k++) {
		uint32_t levels = array_index(4u << k) + 3;
		distance_map_image_barrier(ctx, cmd, pool->arrays[k].image, levels, 6 * pool->arrays[k].cubes,
		                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
		                           VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT,
		                           VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
	}
	gpu_barrier_all(ctx, cmd);
	TRY(gpu_submit_once(ctx, cmd));
	TRY(gpu_upload(ctx, &pool->meshes, 0, records, (VkDeviceSize)(ctx->mesh_capacity ? ctx->mesh_capacity : 1) *
	                                                   sizeof(vkcol_gpu_mesh)));
	if (vertex_first)
		TRY(gpu_upload(ctx, &pool->vertices, 0, host_vertices, vertex_first * 16));
	if (cluster_next)
		TRY(gpu_upload(ctx, &pool->clusters, 0, host_clusters, (VkDeviceSize)cluster_next * 16));
cleanup:
	core_free(env, records);
	core_free(env, host_vertices);
	core_free(env, host_clusters);
	core_free(env, seen);
	if (res != VKCOL_SUCCESS) {
		pool_free(ctx, pool);
		return res;
	}
	batch_pool_destroy(ctx);
	ctx->pool = pool;
	return VKCOL_SUCCESS;
}

static bool finite3(const float *v, int n)
{
	for (int i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return false;
	return true;
}

// Every pair is checked before any work starts, so an error never discards
// answers already computed.
static vkcol_result validate_pairs(const vkcol_context *ctx, const vkcol_batch_desc *desc)
{
	const core_env *env = &ctx->env;
	for (uint64_t p = 0; p < desc->pair_count; p++) {
		const vkcol_pair *pr = &desc->pairs[p];
		const vkcol_mesh ids[2] = {pr->a, pr->b};
		for (int m = 0; m < 2; m++) {
			uint32_t index = (ids[m].id & MESH_MAX_COUNT);
			uint32_t generation = ids[m].id >> MESH_INDEX_BITS;
			if (index == 0 || index > ctx->mesh_capacity || !ctx->meshes[index - 1].used ||
			    ctx->meshes[index - 1].generation != generation) {
				CORE_ERROR(env, "pair %llu: mesh %c (id %u) is not a live mesh of this context",
				           (unsigned long long)p, m == 0 ? 'a' : 'b', ids[m].id);
				return VKCOL_ERROR_INVALID_HANDLE;
			}
		}
		const vkcol_pose *poses[2] = {&pr->pose_a, &pr->pose_b};
		for (int m = 0; m < 2; m++) {
			const float *q = poses[m]->rotation;
			if (!finite3(q, 4) || !finite3(poses[m]->translation, 3)) {
				CORE_ERROR(env, "pair %llu: pose %c has a non-finite number", (unsigned long long)p, m == 0 ? 'a' : 'b');
				return VKCOL_ERROR_INVALID_ARGUMENT;
			}
			if (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] < 1e-12f) {
				CORE_ERROR(env, "pair %llu: pose %c has a zero quaternion", (unsigned long long)p, m == 0 ? 'a' : 'b');
				return VKCOL_ERROR_INVALID_ARGUMENT;
			}
		}
	}
	return VKCOL_SUCCESS;
}

typedef struct frame {
	gpu_buffer pairs;   // host-visible: the shader reads the caller's pairs in place
	gpu_buffer results; // host-visible: read back without a copy
	gpu_buffer stats;   // VKCOL_STAT_WORDS counters, zeroed per chunk
	VkDescriptorSet set;
	VkCommandBuffer cmd;
	VkFence fence;
	bool in_flight;
	uint64_t first, count; // pairs of the chunk in flight
} frame;

// The most pairs one dispatch can take: the pair buffer within one binding's
// range, and one invocation per pair in a 2D grid of workgroups.
static uint32_t max_chunk(const vkcol_context *ctx)
{
	uint64_t by_binding = ctx->props.limits.maxStorageBufferRange / sizeof(vkcol_gpu_pair);
	uint64_t by_dispatch = (uint64_t)ctx->props.limits.maxComputeWorkGroupCount[0] *
	                       ctx->props.limits.maxComputeWorkGroupCount[1] * VKCOL_WORKGROUP_SIZE;
	uint64_t chunk = by_binding < by_dispatch ? by_binding : by_dispatch;
	return chunk < UINT32_MAX ? (uint32_t)chunk : UINT32_MAX;
}

// 2^18 pairs: 16 MiB of pairs and 4 MiB of results per frame; large enough
// to fill a GPU, small enough that memory stays bounded.
#define DEFAULT_CHUNK (1u << 18)

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t stat64(const uint32_t *words, uint32_t index)
{
	return (uint64_t)words[index] | ((uint64_t)words[index + 1] << 32);
}

// Waits for f's chunk and copies its answers (and counters) out.
static vkcol_result harvest(vkcol_context *ctx, frame *f, vkcol_pair_result *results, vkcol_batch_stats *stats)
{
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	if (!f->in_flight)
		return VKCOL_SUCCESS;
	f->in_flight = false;
	VK_TRY(env, ctx->vk.vkWaitForFences(ctx->device, 1, &f->fence, VK_TRUE, UINT64_MAX));
	if (!f->results.coherent) {
		VkMappedMemoryRange range = {VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, NULL, f->results.memory, 0, VK_WHOLE_SIZE};
		VK_TRY(env, ctx->vk.vkInvalidateMappedMemoryRanges(ctx->device, 1, &range));
	}
	memcpy(&results[f->first], f->results.mapped, f->count * sizeof(vkcol_pair_result));
	if (stats) {
		if (!f->stats.coherent) {
			VkMappedMemoryRange range = {VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, NULL, f->stats.memory, 0, VK_WHOLE_SIZE};
			VK_TRY(env, ctx->vk.vkInvalidateMappedMemoryRanges(ctx->device, 1, &range));
		}
		const uint32_t *words = f->stats.mapped;
		stats->vertex_tests += stat64(words, VKCOL_STAT_VERTEX_TESTS);
		stats->cube_samples += stat64(words, VKCOL_STAT_CUBE_SAMPLES);
		for (uint64_t i = f->first; i < f->first + f->count; i++) {
			stats->pairs++;
			stats->sphere_rejected += results[i].stage == VKCOL_STAGE_BOUNDS;
			stats->collisions += results[i].collide != 0;
		}
	}
cleanup:
	return res;
}

VKCOL_API vkcol_result vkcol_batch_run(vkcol_context *ctx, const vkcol_batch_desc *desc, vkcol_pair_result *results)
{
	if (!ctx)
		return VKCOL_ERROR_INVALID_ARGUMENT;
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	frame frames[2] = {0};
	gpu_pipeline *approx = NULL;
	if (!desc || (desc->pair_count > 0 && (!desc->pairs || !results))) {
		CORE_ERROR(env, "vkcol_batch_run: desc, desc->pairs and results are required");
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if (desc->mode == VKCOL_MODE_EXACT) {
		CORE_ERROR(env, "vkcol_batch_run: exact mode is not implemented yet; use VKCOL_MODE_APPROX");
		return VKCOL_ERROR_UNSUPPORTED;
	}
	if (desc->mode != VKCOL_MODE_DEFAULT && desc->mode != VKCOL_MODE_APPROX) {
		CORE_ERROR(env, "vkcol_batch_run: %d is not a vkcol_mode", (int)desc->mode);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	double start = now_seconds();
	vkcol_batch_stats *stats = desc->stats;
	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (desc->pair_count == 0)
		return VKCOL_SUCCESS;
	TRY(validate_pairs(ctx, desc));
	memset(results, 0, desc->pair_count * sizeof(*results));
	TRY(distance_map_check_support(ctx));
	TRY(pipeline_get(ctx, PIPELINE_APPROX, &approx));
	if (!pool_current(ctx))
		TRY(pool_build(ctx));

	uint32_t chunk = desc->chunk_pairs ? desc->chunk_pairs : DEFAULT_CHUNK;
	if (chunk > max_chunk(ctx))
		chunk = max_chunk(ctx);
	if ((uint64_t)chunk > desc->pair_count)
		chunk = (uint32_t)desc->pair_count;

	VkImageView views[VKCOL_MAP_ARRAYS];
	for (uint32_t k = 0; k < VKCOL_MAP_ARRAYS; k++)
		views[k] = ctx->pool->arrays[k].view;
	for (int i = 0; i < 2; i++) {
		frame *f = &frames[i];
		TRY(gpu_buffer_create(ctx, (VkDeviceSize)chunk * sizeof(vkcol_gpu_pair), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
		                      GPU_MEMORY_UPLOAD, "batch pairs", &f->pairs));
		TRY(gpu_buffer_create(ctx, (VkDeviceSize)chunk * sizeof(vkcol_gpu_result), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
		                      GPU_MEMORY_READBACK, "batch results", &f->results));
		TRY(gpu_buffer_create(ctx, VKCOL_STAT_WORDS * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPU_MEMORY_READBACK,
		                      "batch stats", &f->stats));
		gpu_binding bindings[6] = {{&f->pairs, 0, 0},   {&ctx->pool->meshes, 0, 0}, {&ctx->pool->vertices, 0, 0},
		                           {&f->results, 0, 0}, {&f->stats, 0, 0},         {&ctx->pool->clusters, 0, 0}};
		TRY(gpu_pipeline_bind(ctx, approx, bindings, views, ctx->cube_sampler, &f->set));
		VkCommandBufferAllocateInfo alloc = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, ctx->command_pool,
		                                     VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
		VK_TRY(env, ctx->vk.vkAllocateCommandBuffers(ctx->device, &alloc, &f->cmd));
		VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
		VK_TRY(env, ctx->vk.vkCreateFence(ctx->device, &fence, NULL, &f->fence));
	}

	uint64_t done = 0;
	bool stopped = false;
	uint32_t k = 0;
	for (uint64_t first = 0; first < desc->pair_count && !stopped; first += chunk, k ^= 1) {
		frame *f = &frames[k];
		if (f->in_flight) {
			TRY(harvest(ctx, f, results, stats));
			done = f->first + f->count;
			if (desc->progress && !desc->progress(desc->progress_user, done, desc->pair_count)) {
				stopped = true;
				break;
			}
		}
		uint64_t count = desc->pair_count - first < chunk ? desc->pair_count - first : chunk;
		memcpy(f->pairs.mapped, &desc->pairs[first], count * sizeof(vkcol_gpu_pair));
		VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		                                  .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
		VK_TRY(env, ctx->vk.vkBeginCommandBuffer(f->cmd, &begin));
		vkcol_approx_params params = {(uint32_t)count, desc->mip_level, MESH_MAX_COUNT, stats != NULL};
		if (stats) {
			ctx->vk.vkCmdFillBuffer(f->cmd, f->stats.buffer, 0, VK_WHOLE_SIZE, 0);
			gpu_barrier_all(ctx, f->cmd);
		}
		gpu_pipeline_dispatch(ctx, f->cmd, approx, f->set, &params,
		                      (uint32_t)((count + VKCOL_WORKGROUP_SIZE - 1) / VKCOL_WORKGROUP_SIZE));
		gpu_barrier_all(ctx, f->cmd);
		VK_TRY(env, ctx->vk.vkEndCommandBuffer(f->cmd));
		VK_TRY(env, ctx->vk.vkResetFences(ctx->device, 1, &f->fence));
		VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &f->cmd};
		VK_TRY(env, ctx->vk.vkQueueSubmit(ctx->queue, 1, &submit, f->fence));
		f->in_flight = true;
		f->first = first;
		f->count = count;
	}
	// Drain in submission order so `done` stays a prefix.
	for (int i = 0; i < 2; i++) {
		frame *f = &frames[k];
		if (f->in_flight) {
			TRY(harvest(ctx, f, results, stats));
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
	if (stats)
		stats->seconds = now_seconds() - start;
cleanup:
	for (int i = 0; i < 2; i++) {
		frame *f = &frames[i];
		if (f->in_flight)
			ctx->vk.vkWaitForFences(ctx->device, 1, &f->fence, VK_TRUE, UINT64_MAX);
		if (f->fence)
			ctx->vk.vkDestroyFence(ctx->device, f->fence, NULL);
		if (f->cmd)
			ctx->vk.vkFreeCommandBuffers(ctx->device, ctx->command_pool, 1, &f->cmd);
		gpu_buffer_destroy(ctx, &f->pairs);
		gpu_buffer_destroy(ctx, &f->results);
		gpu_buffer_destroy(ctx, &f->stats);
	}
	return res;
}

vkcol_result batch_raw_sampling_rate(vkcol_context *ctx, uint32_t resolution, uint64_t samples, double *rate)
{
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	gpu_pipeline *pipe = NULL;
	gpu_buffer out = {0};
	*rate = 0;
	TRY(distance_map_check_support(ctx));
	TRY(pipeline_get(ctx, PIPELINE_SAMPLE_RAW, &pipe));
	if (!pool_current(ctx))
		TRY(pool_build(ctx));
	const cube_array *array = &ctx->pool->arrays[array_index(resolution)];
	const uint32_t per_invocation = 64;
	uint64_t invocations64 = (samples + per_invocation - 1) / per_invocation;
	uint32_t invocations = invocations64 > (1u << 24) ? (1u << 24) : (uint32_t)invocations64;
	TRY(gpu_buffer_create(ctx, (VkDeviceSize)invocations * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPU_MEMORY_DEVICE,
	                      "raw sampling sums", &out));
	VkDescriptorSet set;
	gpu_binding binding = {&out, 0, 0};
	TRY(gpu_pipeline_bind(ctx, pipe, &binding, &array->view, ctx->cube_sampler, &set));
	vkcol_sample_raw_params params = {invocations, per_invocation, array->cubes, 0.0f};
	double seconds = 0;
	for (int run = 0; run < 2; run++) { // run 0 warms up (pipeline compile)
		VkCommandBuffer cmd;
		TRY(gpu_begin_once(ctx, &cmd));
		gpu_pipeline_dispatch(ctx, cmd, pipe, set, &params, (invocations + VKCOL_WORKGROUP_SIZE - 1) / VKCOL_WORKGROUP_SIZE);
		double t0 = now_seconds();
		TRY(gpu_submit_once(ctx, cmd));
		seconds = now_seconds() - t0;
	}
	*rate = (double)invocations * per_invocation / seconds;
	CORE_DEBUG(env, "raw cube sampling at %u: %.3g samples/s", resolution, *rate);
cleanup:
	gpu_buffer_destroy(ctx, &out);
	return res;
}
