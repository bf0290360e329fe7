// SPDX-License-Identifier: MIT
// vkcol_batch_run. The batch shaders read every mesh through one pool: a
// table of vkcol_gpu_mesh records indexed by mesh slot, one vertex buffer
// holding every mesh's vertices, and one cube-array image per cube-map
// resolution. The pool is rebuilt (device-side copies only) when the set of
// live meshes has changed since the last batch. Pairs are processed in
// chunks sized from the device limits. Approx mode keeps two chunks in
// flight: while the device answers chunk k, the host copies chunk k+1 in and
// chunk k-1's answers out. Exact mode submits a chunk and waits for it, then
// reruns its overflowed pairs, before the next.
#include "batch.h"

#include "geometry/min_ball.h"
#include "geometry/reference.h"
#include "geometry/vertex_order.h"

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
	gpu_buffer clusters;  // per mesh: vec4 spheres of its clusters, then of its groups, then its cone bounds,
	                      // inner balls and clearance field (shared.h)
	gpu_buffer nodes;     // every mesh's tree nodes (pool_node), absolute indices (exact mode)
	gpu_buffer triangles; // uvec4 (v0, v1, v2, original) in tree order, absolute vertex indices
	gpu_buffer pieces;    // VKCOL_PIECE_VERTICES extreme vertices (absolute) per connected piece of each mesh
	uint32_t max_depth;   // deepest tree among the live meshes
	bool clearance;       // every live mesh's clearance field is in `clusters` (approx mode reads them)
	cube_array arrays[VKCOL_MAP_ARRAYS];
} batch_pool;

// A tree node as the exact shaders read it (VKCOL_NODE_TEXELS texels): its
// box, then its slab (aabb_tree.h), in one pool and one binding, each node's
// data in one run of memory (no slower than two pools:
// docs/performance-notes.md).
typedef struct pool_node {
	vkcol_gpu_node node;
	float slab[4];
} pool_node;
_Static_assert(sizeof(pool_node) == 16 * VKCOL_NODE_TEXELS, "pool_node is VKCOL_NODE_TEXELS texels");

static uint32_t array_index(uint32_t resolution)
{
	uint32_t k = 0;
	while ((4u << k) < resolution)
		k++;
	return k; // 4 -> 0, 8 -> 1, ..., 1024 -> 8
}


static void pool_free(vkcol_context *ctx, batch_pool *pool)
{
	if (!pool)
		return;
	gpu_buffer_destroy(&ctx->gpu, &pool->meshes);
	gpu_buffer_destroy(&ctx->gpu, &pool->vertices);
	gpu_buffer_destroy(&ctx->gpu, &pool->clusters);
	gpu_buffer_destroy(&ctx->gpu, &pool->nodes);
	gpu_buffer_destroy(&ctx->gpu, &pool->triangles);
	gpu_buffer_destroy(&ctx->gpu, &pool->pieces);
	for (uint32_t i = 0; i < VKCOL_MAP_ARRAYS; i++) {
		cube_array *a = &pool->arrays[i];
		if (a->view)
			ctx->gpu.vk.vkDestroyImageView(ctx->gpu.device, a->view, NULL);
		if (a->image)
			ctx->gpu.vk.vkDestroyImage(ctx->gpu.device, a->image, NULL);
		if (a->memory)
			ctx->gpu.vk.vkFreeMemory(ctx->gpu.device, a->memory, NULL);
	}
	core_free(&ctx->env, pool->ids);
	core_free(&ctx->env, pool);
}

void batch_pool_destroy(vkcol_context *ctx)
{
	pool_free(ctx, ctx->pool);
	ctx->pool = NULL;
}

// Whether the pool holds the live meshes, with their clearance fields when
// `clearance` (approx mode).
static bool pool_current(const vkcol_context *ctx, bool clearance)
{
	const batch_pool *pool = ctx->pool;
	if (!pool || (clearance && !pool->clearance))
		return false;
	uint32_t n = 0;
	for (uint32_t i = 0; i < ctx->meshes.capacity; i++) {
		if (!ctx->meshes.slots[i].used)
			continue;
		if (n >= pool->id_count || pool->ids[n] != mesh_table_handle(&ctx->meshes, i).id)
			return false;
		n++;
	}
	return n == pool->id_count;
}

// Bounding sphere of vertices first .. end - 1 of verts (vec4 each) into out
// (centre, radius): the smallest (min_ball.h), or the AABB centre's to the
// farthest vertex when that is smaller (rounding) or there are too many.
static void bounding_sphere(const float *verts, uint32_t first, uint32_t end, float *out)
{
	double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (uint32_t v = first; v < end; v++)
		for (int k = 0; k < 3; k++) {
			lo[k] = fmin(lo[k], verts[4 * (size_t)v + k]);
			hi[k] = fmax(hi[k], verts[4 * (size_t)v + k]);
		}
	double c[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])}, r2 = 0;
	for (uint32_t v = first; v < end; v++) {
		double d2 = 0;
		for (int k = 0; k < 3; k++)
			d2 += (verts[4 * (size_t)v + k] - c[k]) * (verts[4 * (size_t)v + k] - c[k]);
		r2 = fmax(r2, d2);
	}
	if (end > first && end - first <= MIN_BALL_MAX_POINTS) {
		double centre[3], radius;
		min_ball(&verts[4 * (size_t)first], 4, end - first, centre, &radius);
		if (radius * radius < r2) {
			memcpy(c, centre, sizeof c);
			r2 = radius * radius;
		}
	}
	for (int k = 0; k < 3; k++)
		out[k] = (float)c[k];
	// Rounding of the float centre: a relative pad keeps the sphere
	// containing its vertices.
	out[3] = (float)(sqrt(r2) * (1.0 + 1e-5) + 1e-6 * (fabs(c[0]) + fabs(c[1]) + fabs(c[2])));
}

// Appends mesh m's vertices to out (vec4 each): only vertices some triangle
// uses, one per welded position, in k-d order (vertex_order.h): each
// cluster and each group is a compact cell of space. Then to
// cluster_out, from *clusters on (which advances): one bounding sphere per
// VKCOL_CLUSTER_SIZE vertices, then one per VKCOL_GROUP_CLUSTERS clusters.
// Returns the vertex count. remap (vertex_count entries) receives, for each
// welded representative, its index among the emitted vertices (UINT32_MAX:
// unused). order: room for vertex_count items.
static uint32_t emit_vertices(const mesh_cpu *m, uint32_t *remap, vertex_key *order, float *out, float *cluster_out,
                              uint32_t *clusters)
{
	// The used vertices, first as the tree's triangles reach them (any
	// order would do: vertex_order_cells decides).
	uint32_t n = 0;
	memset(remap, 0xff, (size_t)m->vertex_count * sizeof(uint32_t));
	for (uint32_t i = 0; i < m->triangle_count; i++) {
		const uint32_t *tri = &m->indices[3 * (size_t)m->tree.triangles[i]];
		for (int k = 0; k < 3; k++) {
			uint32_t v = m->weld ? m->weld[tri[k]] : tri[k];
			if (remap[v] != UINT32_MAX)
				continue;
			remap[v] = n;
			order[n++] = (vertex_key){0.0f, v};
		}
	}
	vertex_order_cells(m->positions, order, n, VKCOL_CLUSTER_SIZE, VKCOL_CLUSTER_SIZE * VKCOL_GROUP_CLUSTERS);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = order[i].vertex;
		remap[v] = i;
		memcpy(&out[4 * (size_t)i], &m->positions[3 * (size_t)v], 3 * sizeof(float));
		out[4 * (size_t)i + 3] = 1.0f;
	}
	const uint32_t sizes[2] = {VKCOL_CLUSTER_SIZE, VKCOL_CLUSTER_SIZE * VKCOL_GROUP_CLUSTERS};
	for (int level = 0; level < 2; level++)
		for (uint32_t first = 0; first < n; first += sizes[level]) {
			uint32_t end = first + sizes[level] < n ? first + sizes[level] : n;
			bounding_sphere(out, first, end, &cluster_out[4 * (size_t)*clusters]);
			(*clusters)++;
		}
	return n;
}

// The inner radius the shaders may trust (the rounding margin off); 0
// disables the inner-ball test.
static float inner_radius_for_gpu(const mesh_cpu *m)
{
	if (!m->closed || !m->origin_inside)
		return 0.0f;
	double r = m->inner_radius - mesh_rounding_margin(m);
	return r > 0 ? (float)r : 0.0f;
}

// The inner balls (mesh_cpu.balls) the shaders may trust, as vec4s into out,
// the rounding margin off their radii; returns how many.
static uint32_t inner_balls_for_gpu(const mesh_cpu *m, float *out)
{
	double margin = mesh_rounding_margin(m);
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->ball_count; i++) {
		double r = m->balls[i][3] - margin;
		if (r <= 0)
			continue;
		memcpy(&out[4 * n], m->balls[i], 3 * sizeof(float));
		out[4 * n++ + 3] = (float)r;
	}
	return n;
}

// The range of the cluster pool's storage-buffer binding. No shader reads
// the pool through it (they read its texel view), but a storage binding's
// range may not pass the device's maxStorageBufferRange, which the pool
// does with about 1,000 meshes on lavapipe (128 MiB; a clearance field
// takes 128 KiB).
static VkDeviceSize cluster_storage_range(const vkcol_context *ctx)
{
	VkDeviceSize size = ctx->pool->clusters.size, most = ctx->gpu.props.limits.maxStorageBufferRange;
	return size < most ? size : most / 16 * 16;
}

// The vec4s a clearance field (clearance.h) takes in the cluster pool: none
// when the mesh has not built it (no approx batch since it was created).
static uint32_t clearance_texels(const clearance_field *f)
{
	if (!f->values)
		return 0;
	return VKCOL_CLEARANCE_HEADER + (f->dims[0] * f->dims[1] * f->dims[2] + 3) / 4;
}

// The clearance field as the shaders read it, right after the inner balls
// (shared.h); returns the vec4s written.
static uint32_t emit_clearance(const clearance_field *f, float *out)
{
	if (!f->values)
		return 0;
	uint32_t points = f->dims[0] * f->dims[1] * f->dims[2];
	memcpy(out, f->min, 3 * sizeof(float));
	out[3] = f->cell;
	memcpy(&out[4], f->dims, 3 * sizeof(uint32_t));
	out[7] = f->reach;
	memcpy(&out[4 * VKCOL_CLEARANCE_HEADER], f->values, points * sizeof(float));
	return clearance_texels(f);
}

static uint32_t find_root(uint32_t *parent, uint32_t v)
{
	while (parent[v] != v) {
		parent[v] = parent[parent[v]]; // path halving
		v = parent[v];
	}
	return v;
}

// Appends m's nodes (indices made absolute), its triangles (vertex indices
// through remap, then absolute) and, per connected piece (union-find over the
// triangles' vertices), its VKCOL_PIECE_VERTICES extreme vertices: lowest and
// highest x, y, z of the emitted positions `verts` (vec4 per used vertex).
// parent and slot are scratch of `used` entries. Returns the number of pieces.
static uint32_t emit_tree(const mesh_cpu *m, const uint32_t *remap, uint32_t used, uint32_t vertex_first,
                          const float *verts, uint32_t node_first, uint32_t triangle_first, pool_node *nodes_out,
                          uint32_t *triangles_out, uint32_t *parent, uint32_t *slot, uint32_t *pieces_out)
{
	for (uint32_t i = 0; i < m->tree.node_count; i++) {
		vkcol_gpu_node n = m->tree.nodes[i];
		n.first += n.count == 0 ? node_first : triangle_first;
		nodes_out[i].node = n;
		memcpy(nodes_out[i].slab, &m->tree.slabs[4 * (size_t)i], sizeof(nodes_out[i].slab));
	}
	for (uint32_t v = 0; v < used; v++)
		parent[v] = v;
	for (uint32_t i = 0; i < m->triangle_count; i++) {
		uint32_t t = m->tree.triangles[i];
		const uint32_t *tri = &m->indices[3 * (size_t)t];
		uint32_t local[3];
		for (int k = 0; k < 3; k++) {
			local[k] = remap[m->weld ? m->weld[tri[k]] : tri[k]];
			triangles_out[4 * (size_t)i + k] = vertex_first + local[k];
		}
		triangles_out[4 * (size_t)i + 3] = t;
		uint32_t r0 = find_root(parent, local[0]);
		for (int k = 1; k < 3; k++) {
			uint32_t rk = find_root(parent, local[k]);
			parent[rk] = r0;
			r0 = find_root(parent, r0);
		}
	}
	uint32_t pieces = 0;
	for (uint32_t v = 0; v < used; v++)
		if (find_root(parent, v) == v) {
			slot[v] = pieces;
			for (int k = 0; k < VKCOL_PIECE_VERTICES; k++)
				pieces_out[VKCOL_PIECE_VERTICES * pieces + k] = v; // local until the end
			pieces++;
		}
	for (uint32_t v = 0; v < used; v++) {
		uint32_t *ext = &pieces_out[VKCOL_PIECE_VERTICES * slot[find_root(parent, v)]];
		for (int k = 0; k < 3; k++) {
			if (verts[4 * (size_t)v + k] < verts[4 * (size_t)ext[2 * k] + k])
				ext[2 * k] = v;
			if (verts[4 * (size_t)v + k] > verts[4 * (size_t)ext[2 * k + 1] + k])
				ext[2 * k + 1] = v;
		}
	}
	for (uint32_t i = 0; i < VKCOL_PIECE_VERTICES * pieces; i++)
		pieces_out[i] += vertex_first;
	return pieces;
}

// Builds the batch pool of every live mesh. With `clearance` (an approx
// batch), first builds the clearance field of each mesh that has none yet:
// only approx mode reads them, so a context that runs exact batches alone
// never pays for them (clearance.h). Fields already built are emitted
// either way.
static vkcol_result pool_build(vkcol_context *ctx, bool clearance)
{
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	for (uint32_t i = 0; clearance && i < ctx->meshes.capacity; i++) {
		mesh_slot *s = &ctx->meshes.slots[i];
		if (s->used && !s->clearance.values &&
		    (res = clearance_build(env, &s->cpu, s->cube_resolution, &s->clearance)) != VKCOL_SUCCESS) {
			CORE_ERROR(env, "mesh '%s': its clearance field (approx mode) could not be built: %s", s->cpu.name,
			           vkcol_result_string(res));
			return res;
		}
	}
	vkcol_gpu_mesh *records = NULL;
	float *host_vertices = NULL, *host_clusters = NULL;
	vertex_key *order = NULL;
	uint32_t *seen = NULL, *parent = NULL, *slot = NULL, *host_triangles = NULL, *host_pieces = NULL;
	pool_node *host_nodes = NULL;
	batch_pool *pool = core_calloc(env, 1, sizeof(*pool));
	if (!pool)
		return VKCOL_ERROR_OUT_OF_HOST_MEMORY;

	uint32_t live = 0, cubes[VKCOL_MAP_ARRAYS] = {0}, max_vertices = 1;
	uint64_t vertex_total = 0, cluster_total = 0, node_total = 0, triangle_total = 0;
	for (uint32_t i = 0; i < ctx->meshes.capacity; i++)
		if (ctx->meshes.slots[i].used) {
			uint32_t nv = ctx->meshes.slots[i].cpu.vertex_count;
			live++;
			vertex_total += nv;
			node_total += ctx->meshes.slots[i].cpu.tree.node_count;
			triangle_total += ctx->meshes.slots[i].cpu.triangle_count;
			if (ctx->meshes.slots[i].cpu.tree.depth > pool->max_depth)
				pool->max_depth = ctx->meshes.slots[i].cpu.tree.depth;
			uint32_t clusters = (nv + VKCOL_CLUSTER_SIZE - 1) / VKCOL_CLUSTER_SIZE;
			cluster_total += clusters + (clusters + VKCOL_GROUP_CLUSTERS - 1) / VKCOL_GROUP_CLUSTERS +
			                 VKCOL_CONE_FLOATS / 4 + VKCOL_INNER_BALLS + clearance_texels(&ctx->meshes.slots[i].clearance);
			max_vertices = nv > max_vertices ? nv : max_vertices;
			cubes[array_index(ctx->meshes.slots[i].cube.resolution)]++;
		}
	pool->ids = core_calloc(env, live ? live : 1, sizeof(uint32_t));
	records = core_calloc(env, ctx->meshes.capacity ? ctx->meshes.capacity : 1, sizeof(*records));
	host_vertices = core_calloc(env, vertex_total ? vertex_total : 1, 4 * sizeof(float));
	host_clusters = core_calloc(env, cluster_total ? cluster_total : 1, 4 * sizeof(float));
	seen = core_calloc(env, max_vertices, sizeof(uint32_t));
	order = core_calloc(env, max_vertices, sizeof(vertex_key));
	parent = core_calloc(env, max_vertices, sizeof(uint32_t));
	slot = core_calloc(env, max_vertices, sizeof(uint32_t));
	host_nodes = core_calloc(env, node_total ? node_total : 1, sizeof(pool_node));
	host_triangles = core_calloc(env, triangle_total ? triangle_total : 1, 4 * sizeof(uint32_t));
	// At most one piece per vertex.
	host_pieces = core_calloc(env, vertex_total ? vertex_total : 1, VKCOL_PIECE_VERTICES * sizeof(uint32_t));
	if (!pool->ids || !records || !host_vertices || !host_clusters || !seen || !order || !parent || !slot || !host_nodes ||
	    !host_triangles || !host_pieces) {
		res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		goto cleanup;
	}
	if (vertex_total * 16 > ctx->gpu.props.limits.maxStorageBufferRange) {
		CORE_ERROR(env, "the meshes of this context hold %llu vertices; one batch binding holds at most %u",
		           (unsigned long long)vertex_total, ctx->gpu.props.limits.maxStorageBufferRange / 16);
		res = VKCOL_ERROR_TOO_LARGE;
		goto cleanup;
	}
	// The pools the batch shaders read as texel buffers (approx_common.glsl,
	// exact_common.glsl) get their texel views.
	const VkBufferUsageFlags texel = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
	TRY(gpu_buffer_create(&ctx->gpu, (vertex_total ? vertex_total : 1) * 16, texel, GPU_MEMORY_DEVICE,
	                      "batch vertex pool", &pool->vertices));
	TRY(gpu_buffer_create(&ctx->gpu, (cluster_total ? cluster_total : 1) * 16, texel, GPU_MEMORY_DEVICE,
	                      "batch vertex clusters", &pool->clusters));
	if (node_total * sizeof(pool_node) > ctx->gpu.props.limits.maxStorageBufferRange ||
	    triangle_total * 16 > ctx->gpu.props.limits.maxStorageBufferRange) {
		CORE_ERROR(env, "the meshes of this context hold %llu tree nodes and %llu triangles; one batch binding holds "
		                "at most %u bytes",
		           (unsigned long long)node_total, (unsigned long long)triangle_total,
		           ctx->gpu.props.limits.maxStorageBufferRange);
		res = VKCOL_ERROR_TOO_LARGE;
		goto cleanup;
	}
	TRY(gpu_buffer_create(&ctx->gpu, (node_total ? node_total : 1) * sizeof(pool_node), texel, GPU_MEMORY_DEVICE,
	                      "batch node pool", &pool->nodes));
	TRY(gpu_buffer_create(&ctx->gpu, (triangle_total ? triangle_total : 1) * 16, texel, GPU_MEMORY_DEVICE,
	                      "batch triangle pool", &pool->triangles));
	TRY(gpu_buffer_create(&ctx->gpu, (ctx->meshes.capacity ? ctx->meshes.capacity : 1) * sizeof(vkcol_gpu_mesh), texel,
	                      GPU_MEMORY_DEVICE, "batch mesh table", &pool->meshes));
	for (uint32_t k = 0; k < VKCOL_MAP_ARRAYS; k++) {
		// Unused resolutions get a one-cube placeholder: every binding must
		// hold a valid view even if no pair samples it.
		uint32_t count = cubes[k] ? cubes[k] : 1;
		cube_array *a = &pool->arrays[k];
		TRY(cubemap_create_image(&ctx->gpu, 4u << k, 6 * count, true, &a->image, &a->memory, &a->view, &a->bytes));
		a->cubes = count;
	}

	VkCommandBuffer cmd;
	TRY(gpu_begin_once(&ctx->gpu, &cmd));
	for (uint32_t k = 0; k < VKCOL_MAP_ARRAYS; k++) {
		uint32_t levels = array_index(4u << k) + 3; // log2(4 << k) + 1
		cubemap_image_barrier(&ctx->gpu, cmd, pool->arrays[k].image, levels, 6 * pool->arrays[k].cubes,
		                           VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
		                           VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
		                           VK_PIPELINE_STAGE_TRANSFER_BIT);
	}
	uint32_t next_cube[VKCOL_MAP_ARRAYS] = {0};
	uint64_t vertex_first = 0;
	pool->clearance = true;
	uint32_t cluster_next = 0, node_next = 0, triangle_next = 0, piece_next = 0;
	for (uint32_t i = 0; i < ctx->meshes.capacity; i++) {
		mesh_slot *s = &ctx->meshes.slots[i];
		if (!s->used)
			continue;
		pool->ids[pool->id_count++] = mesh_table_handle(&ctx->meshes, i).id;
		uint32_t k = array_index(s->cube.resolution);
		uint32_t cluster_first = cluster_next;
		uint32_t used_vertices =
		    emit_vertices(&s->cpu, seen, order, &host_vertices[4 * vertex_first], host_clusters, &cluster_next);
		uint32_t piece_count =
		    emit_tree(&s->cpu, seen, used_vertices, (uint32_t)vertex_first, &host_vertices[4 * vertex_first],
		              node_next, triangle_next, &host_nodes[node_next], &host_triangles[4 * (size_t)triangle_next],
		              parent, slot, &host_pieces[piece_next]);
		uint32_t cluster_count = (used_vertices + VKCOL_CLUSTER_SIZE - 1) / VKCOL_CLUSTER_SIZE;
		memcpy(&host_clusters[4 * (size_t)cluster_next], s->cone_bounds, VKCOL_CONE_FLOATS * sizeof(float));
		uint32_t cone_first = cluster_next;
		cluster_next += VKCOL_CONE_FLOATS / 4;
		uint32_t ball_count = inner_balls_for_gpu(&s->cpu, &host_clusters[4 * (size_t)cluster_next]);
		cluster_next += ball_count;
		cluster_next += emit_clearance(&s->clearance, &host_clusters[4 * (size_t)cluster_next]);
		pool->clearance = pool->clearance && s->clearance.values;
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
		    .cluster_count = cluster_count,
		    .inner_radius = inner_radius_for_gpu(&s->cpu),
		    .aabb_min_x = s->cpu.aabb_min[0],
		    .aabb_min_y = s->cpu.aabb_min[1],
		    .aabb_min_z = s->cpu.aabb_min[2],
		    .aabb_max_x = s->cpu.aabb_max[0],
		    .aabb_max_y = s->cpu.aabb_max[1],
		    .aabb_max_z = s->cpu.aabb_max[2],
		    .flags = (s->cpu.closed ? VKCOL_MESH_CLOSED : 0u) |
		             (s->cpu.closed && s->cube.multi_hit_fraction == 0.0f ? VKCOL_MESH_STAR_SHAPED : 0u),
		    .node_first = node_next,
		    .piece_first = piece_next,
		    .piece_count = piece_count,
		    .tree_depth = s->cpu.tree.depth,
		    .cone_first = cone_first,
		    .ball_count = ball_count,
		    .centre_x = s->cpu.centre[0],
		    .centre_y = s->cpu.centre[1],
		    .centre_z = s->cpu.centre[2],
		};
		node_next += s->cpu.tree.node_count;
		triangle_next += s->cpu.triangle_count;
		piece_next += VKCOL_PIECE_VERTICES * piece_count;
		vertex_first += used_vertices;

		cubemap_image_barrier(&ctx->gpu, cmd, s->cube.image, s->cube.levels, 6, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
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
		ctx->gpu.vk.vkCmdCopyImage(cmd, s->cube.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, pool->arrays[k].image,
		                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, s->cube.levels, regions);
		cubemap_image_barrier(&ctx->gpu, cmd, s->cube.image, s->cube.levels, 6, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		                           VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_TRANSFER_READ_BIT,
		                           VK_ACCESS_SHADER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
		                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
		next_cube[k]++;
	}
	for (uint32_t k = 0; k < VKCOL_MAP_ARRAYS; k++) {
		uint32_t levels = array_index(4u << k) + 3;
		cubemap_image_barrier(&ctx->gpu, cmd, pool->arrays[k].image, levels, 6 * pool->arrays[k].cubes,
		                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
		                           VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT,
		                           VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
	}
	gpu_barrier_all(&ctx->gpu, cmd);
	TRY(gpu_submit_once(&ctx->gpu, cmd));
	TRY(gpu_upload(&ctx->gpu, &pool->meshes, 0, records, (VkDeviceSize)(ctx->meshes.capacity ? ctx->meshes.capacity : 1) *
	                                                   sizeof(vkcol_gpu_mesh)));
	if (vertex_first)
		TRY(gpu_upload(&ctx->gpu, &pool->vertices, 0, host_vertices, vertex_first * 16));
	if (cluster_next)
		TRY(gpu_upload(&ctx->gpu, &pool->clusters, 0, host_clusters, (VkDeviceSize)cluster_next * 16));
	if (node_next)
		TRY(gpu_upload(&ctx->gpu, &pool->nodes, 0, host_nodes, (VkDeviceSize)node_next * sizeof(pool_node)));
	if (triangle_next)
		TRY(gpu_upload(&ctx->gpu, &pool->triangles, 0, host_triangles, (VkDeviceSize)triangle_next * 16));
	// Sized now that the pieces are counted (usually a few per mesh).
	if ((uint64_t)piece_next * 4 > ctx->gpu.props.limits.maxStorageBufferRange) {
		CORE_ERROR(env, "the meshes of this context have %u connected pieces; one batch binding holds at most %u",
		           piece_next / VKCOL_PIECE_VERTICES, ctx->gpu.props.limits.maxStorageBufferRange / 4 / VKCOL_PIECE_VERTICES);
		res = VKCOL_ERROR_TOO_LARGE;
		goto cleanup;
	}
	TRY(gpu_buffer_create(&ctx->gpu, (VkDeviceSize)(piece_next ? piece_next : 1) * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                      GPU_MEMORY_DEVICE, "batch piece pool", &pool->pieces));
	if (piece_next)
		TRY(gpu_upload(&ctx->gpu, &pool->pieces, 0, host_pieces, (VkDeviceSize)piece_next * 4));
cleanup:
	core_free(env, records);
	core_free(env, host_vertices);
	core_free(env, host_clusters);
	core_free(env, seen);
	core_free(env, order);
	core_free(env, parent);
	core_free(env, slot);
	core_free(env, host_nodes);
	core_free(env, host_triangles);
	core_free(env, host_pieces);
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

// Copies pairs[0 .. count) for the device. A pair of a recentred mesh
// (mesh_cpu.centre), or with a pose farther from the origin than 4x the
// meshes' reach from their own origins, goes as B's pose in A's stored frame
// with A at the identity, computed in double (ref_pair_pose): the shaders'
// float frames (make_frames) would otherwise subtract large translations and
// lose the precision of the meshes' size. Other pairs, and every pair when
// `as_given` (exact mode in double: exact_setup.comp composes the poses in
// double itself, centres included), go as they are. The pairs are validated
// already.
static void upload_pairs(const vkcol_context *ctx, const vkcol_pair *pairs, uint64_t count, const uint64_t *at,
                         bool as_given, vkcol_gpu_pair *out)
{
	if (as_given) {
		for (uint64_t i = 0; i < count; i++)
			memcpy(&out[i], &pairs[at ? at[i] : i], sizeof(vkcol_gpu_pair));
		return;
	}
	// Batches mostly repeat their meshes: the last pair's lookup is kept.
	uint32_t last_a = 0, last_b = 0;
	const mesh_cpu *a = NULL, *b = NULL;
	float limit = 0.0f; // 4x the meshes' reach; -1 when one is recentred
	for (uint64_t i = 0; i < count; i++) {
		const vkcol_pair *in = &pairs[at ? at[i] : i];
		if (a == NULL || in->a.id != last_a || in->b.id != last_b) {
			last_a = in->a.id, last_b = in->b.id;
			a = &mesh_table_get(&ctx->meshes, in->a)->cpu, b = &mesh_table_get(&ctx->meshes, in->b)->cpu;
			float reach = 0.0f;
			bool recentred = false;
			for (int k = 0; k < 3; k++) {
				reach = fmaxf(reach, fabsf(a->sphere_center[k]) + fabsf(b->sphere_center[k]));
				recentred = recentred || a->centre[k] != 0.0f || b->centre[k] != 0.0f;
			}
			limit = recentred ? -1.0f : 4.0f * (reach + a->sphere_radius + b->sphere_radius);
		}
		float far = 0.0f;
		for (int k = 0; k < 3; k++)
			far = fmaxf(far, fmaxf(fabsf(in->pose_a.translation[k]), fabsf(in->pose_b.translation[k])));
		vkcol_pose rel;
		if (far <= limit || !ref_pair_pose(a, b, &in->pose_a, &in->pose_b, &rel)) {
			memcpy(&out[i], in, sizeof(vkcol_gpu_pair));
			continue;
		}
		out[i] = (vkcol_gpu_pair){.mesh_a = in->a.id, .mesh_b = in->b.id, .qa_w = 1.0f,
		                          .qb_w = rel.rotation[0], .qb_x = rel.rotation[1], .qb_y = rel.rotation[2],
		                          .qb_z = rel.rotation[3], .tb_x = rel.translation[0], .tb_y = rel.translation[1],
		                          .tb_z = rel.translation[2]};
	}
}

// Every pair is checked before any work starts, so an error never discards
// answers already computed. *map_array: the cube array every mesh of the
// batch has its map in, or VKCOL_MAP_ARRAYS when they differ (the
// map-sampling pipelines are specialized for it: map_sample.glsl).
static vkcol_result validate_pairs(const vkcol_context *ctx, const vkcol_batch_desc *desc, uint32_t *map_array)
{
	const core_env *env = &ctx->env;
	uint32_t resolution = 0;
	bool mixed = false;
	for (uint64_t p = 0; p < desc->pair_count; p++) {
		const vkcol_pair *pr = &desc->pairs[p];
		const vkcol_mesh ids[2] = {pr->a, pr->b};
		for (int m = 0; m < 2; m++) {
			const char *why;
			const mesh_slot *slot = mesh_table_find(&ctx->meshes, ids[m], &why);
			if (slot == NULL) {
				CORE_ERROR(env, "pair %llu: mesh %c (id %u) is not a live mesh of this context",
				           (unsigned long long)p, m == 0 ? 'a' : 'b', ids[m].id);
				return VKCOL_ERROR_INVALID_HANDLE;
			}
			uint32_t r = slot->cube.resolution;
			mixed = mixed || (resolution != 0 && r != resolution);
			resolution = r;
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
	*map_array = mixed || resolution == 0 ? VKCOL_MAP_ARRAYS : array_index(resolution);
	return VKCOL_SUCCESS;
}

// The buffers of an approx frame are the context's scratch buffers
// (memory.h), slot FRAME_<buffer> + frame index: a run of batches reuses
// them.
enum { FRAME_PAIRS = 0, FRAME_RESULTS = 2, FRAME_STATS = 4, FRAME_JOBS = 6, FRAME_JOB_ARGS = 8 };
_Static_assert(FRAME_JOB_ARGS + 2 <= GPU_SCRATCH_SLOTS, "an approx frame's buffers fit the scratch slots");

typedef struct frame {
	gpu_buffer *pairs;   // host-visible: the chunk's pairs as upload_pairs writes them
	gpu_buffer *results; // host-visible: read back without a copy
	gpu_buffer *stats;   // VKCOL_STAT_WORDS counters, zeroed per chunk
	gpu_buffer *jobs;    // cluster jobs, group jobs, spilled pairs (shared.h)
	gpu_buffer *job_args; // their indirect dispatches and counts
	VkDescriptorSet set, spilled_set, groups_set, jobs_set; // approx_pairs (both variants), approx_groups, approx_jobs
	VkCommandBuffer cmd;
	VkFence fence;
	bool in_flight;
	uint64_t first, count; // pairs of the chunk in flight
} frame;

// The most pairs one dispatch can take: the pair buffer within one binding's
// range, and one invocation per pair in a 2D grid of workgroups.
static uint32_t max_chunk(const vkcol_context *ctx)
{
	uint64_t by_binding = ctx->gpu.props.limits.maxStorageBufferRange / sizeof(vkcol_gpu_pair);
	uint64_t by_dispatch = (uint64_t)ctx->gpu.props.limits.maxComputeWorkGroupCount[0] *
	                       ctx->gpu.props.limits.maxComputeWorkGroupCount[1] * VKCOL_WORKGROUP_SIZE;
	uint64_t chunk = by_binding < by_dispatch ? by_binding : by_dispatch;
	return chunk < UINT32_MAX ? (uint32_t)chunk : UINT32_MAX;
}

// Approx mode: 2^16 pairs, 4 MiB of pairs, 1 MiB of results and 20.5 MiB
// of jobs per frame (two frames, kept between batches as scratch buffers);
// large enough to fill a GPU (the jobs passes have many more invocations
// than pairs), small enough that memory stays bounded.
#define DEFAULT_CHUNK (1u << 16)

// Cluster and group jobs per pair of a chunk, on average, that approx
// mode's lists hold. A pair whose jobs do not fit is spilled (shared.h): a
// pass after the jobs tests all its clusters, one invocation per spilled
// pair; the same answers, but on a SIMD driver such as lavapipe a pair's
// whole SIMD group waits for its longest loop. The lists leave room over
// what the benchmark's non-convex pairs make on average
// (docs/performance-notes.md). Each list is one dispatch of one
// dimension, at most 4 Mi jobs (32 MiB): 16 per pair for chunks of 2^18,
// the CLI's largest.
#define APPROX_JOBS_PER_PAIR 32u
#define APPROX_GROUP_JOBS_PER_PAIR 8u

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
	VK_TRY(env, ctx->gpu.vk.vkWaitForFences(ctx->gpu.device, 1, &f->fence, VK_TRUE, UINT64_MAX));
	if (!f->results->coherent) {
		VkMappedMemoryRange range = {VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, NULL, f->results->memory, 0, VK_WHOLE_SIZE};
		VK_TRY(env, ctx->gpu.vk.vkInvalidateMappedMemoryRanges(ctx->gpu.device, 1, &range));
	}
	memcpy(&results[f->first], f->results->mapped, f->count * sizeof(vkcol_pair_result));
	if (stats) {
		if (!f->stats->coherent) {
			VkMappedMemoryRange range = {VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, NULL, f->stats->memory, 0, VK_WHOLE_SIZE};
			VK_TRY(env, ctx->gpu.vk.vkInvalidateMappedMemoryRanges(ctx->gpu.device, 1, &range));
		}
		const uint32_t *words = f->stats->mapped;
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


// --- exact mode -------------------------------------------------------------

// Does exact mode place and test triangles in double on this device
// (shaderFloat64: the _fp64 pipelines, pairs uploaded as given)?
static bool exact_in_double(const vkcol_context *ctx)
{
	return ctx->gpu.float64 && !ctx->float64_off;
}

// Exact mode's pipeline `id` in the precision exact_in_double chooses.
static pipeline_id exact_pipeline(const vkcol_context *ctx, pipeline_id id)
{
	return exact_in_double(ctx) ? pipeline_in_double(id) : id;
}

// Items of a frontier's three regions (16 bytes each; one binding, also
// read as texels), bounded so that the buffer, with up to as many slots
// again for the candidate and the confirmation entries (each region as
// large as the leaf region, at most half the items), fits a binding; 2^21
// items are 32 MiB (and 8 MiB each of candidate and confirmation slots,
// 16 MiB without depth-first items) per frontier.
static uint32_t frontier_capacity(const vkcol_context *ctx)
{
	if (ctx->frontier_capacity_override)
		return ctx->frontier_capacity_override;
	uint64_t by_binding = ctx->gpu.props.limits.maxStorageBufferRange / 16;
	if (by_binding > ctx->gpu.props.limits.maxTexelBufferElements)
		by_binding = ctx->gpu.props.limits.maxTexelBufferElements;
	by_binding = by_binding / 2;
	return by_binding < (1u << 21) ? (uint32_t)by_binding : (1u << 21);
}

// Depth-first steps per traversal item, chosen by measurement (the budgets
// tried are in docs/performance-notes.md): EXACT_BUDGET
// steps find the first hit of a colliding pair after far fewer node pairs
// than level-by-level expansion, while the invocations of a subgroup stay
// within a bounded number of steps of each other.
#define EXACT_BUDGET 16u

static uint32_t traverse_budget(const vkcol_context *ctx)
{
	uint32_t budget = ctx->traverse_budget_override ? ctx->traverse_budget_override : EXACT_BUDGET;
	return budget < VKCOL_TRAVERSE_BUDGET_MAX ? budget : VKCOL_TRAVERSE_BUDGET_MAX;
}

// Pairs per exact-mode chunk unless the caller says otherwise: small enough
// that the frontiers rarely overflow for meshes of a few thousand triangles.
#define EXACT_DEFAULT_CHUNK (1u << 13)

// Entries of the device's triangle-pair list per chunk (16 bytes each).
#define EXACT_LIST_MAX (1u << 20)

// Exact mode's pipelines, in exact_buffers.pipes and .sets.
enum {
	EXACT_SETUP,
	EXACT_ARGS,
	EXACT_TRAVERSE,
	EXACT_CONTAIN,
	EXACT_DIVE,
	EXACT_LEAVES,
	EXACT_SEARCH,
	EXACT_TRIANGLES,
	EXACT_WALK,
	EXACT_CONFIRM,
	EXACT_PIPELINES
};

// Byte offsets of the indirect dispatches in the args buffer, as
// exact_args.comp writes them (4 words each).
enum {
	ARGS_TRAVERSE = 0,
	ARGS_DIVE = 16,
	ARGS_LEAVES = 32,
	ARGS_TRIANGLES = 48,
	ARGS_SEARCH = 64,
	ARGS_WALK = 80,
	ARGS_CONFIRM = 96,
};
_Static_assert(ARGS_CONFIRM + 16 == VKCOL_EXACT_ARGS_WORDS * 4, "every indirect dispatch has its words");

typedef struct exact_buffers {
	gpu_buffer pairs, results, state, frames, counters, args, list;
	// Level l reads frontier l % 2 (binding 19, a texel view) and appends to
	// the other (binding 8); sets[i][l % 2] binds them so. Two buffers, not
	// halves of one: each binding then covers only what the level reads or
	// writes, so synchronization validation sees that the level's three
	// dispatches, which have no barrier between them, read nothing the others
	// write.
	gpu_buffer frontiers[2];
	VkDescriptorSet sets[EXACT_PIPELINES][2];
	gpu_pipeline *pipes[EXACT_PIPELINES];
	uint32_t chunk, capacity, levels, list_capacity, flags;
	uint32_t budget;    // depth-first steps per item of a diving pair (1: breadth first only)
	uint32_t dive_base; // frontier slots [dive_base, capacity) hold depth-first items
	uint32_t leaf_base; // [0, leaf_base) breadth-first items, [leaf_base, dive_base) leaf-leaf ones; then
	                    // from capacity, dive_base - leaf_base slots: the triangle pairs the leaf culls left
} exact_buffers;

// Where the listed triangle pairs go (desc->triangles): entries of the
// current chunk start at chunk_start; once the list is cut (full, or a
// chunk's device list overflowed) nothing more is added.
typedef struct list_sink {
	vkcol_triangle_list *out;
	uint64_t chunk_start;
	bool cut;
} list_sink;

static void exact_buffers_free(vkcol_context *ctx, exact_buffers *b)
{
	gpu_buffer *all[] = {&b->pairs,        &b->results,  &b->state, &b->frames, &b->frontiers[0],
	                     &b->frontiers[1], &b->counters, &b->args,  &b->list};
	for (size_t i = 0; i < CORE_COUNT_OF(all); i++)
		gpu_buffer_destroy(&ctx->gpu, all[i]);
}

static vkcol_result exact_buffers_create(vkcol_context *ctx, uint32_t chunk, uint32_t list_capacity, uint32_t flags,
                                         uint32_t map_array, exact_buffers *b)
{
	vkcol_result res = VKCOL_SUCCESS;
	const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
	b->chunk = chunk;
	b->capacity = frontier_capacity(ctx);
	b->list_capacity = list_capacity;
	b->flags = flags;
	// Listing visits every overlapping node pair: depth first saves nothing.
	// (A frontier of one item has no room for two regions.)
	b->budget = (flags & VKCOL_EXACT_FIND_ALL) || b->capacity < 2 ? 1 : traverse_budget(ctx);
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
	b->levels = 2 * ctx->pool->max_depth + 2;
	// Pairs, frames and frontiers are read as texel buffers (exact_common.glsl).
	const VkBufferUsageFlags texel = storage | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
	TRY(gpu_buffer_create(&ctx->gpu, (VkDeviceSize)b->chunk * sizeof(vkcol_gpu_pair), texel, GPU_MEMORY_UPLOAD,
	                      "exact pairs", &b->pairs));
	TRY(gpu_buffer_create(&ctx->gpu, (VkDeviceSize)b->chunk * sizeof(vkcol_gpu_result), storage, GPU_MEMORY_READBACK,
	                      "exact results", &b->results));
	TRY(gpu_buffer_create(&ctx->gpu, (VkDeviceSize)b->chunk * 8, storage, GPU_MEMORY_DEVICE, "exact pair state", &b->state));
	TRY(gpu_buffer_create(&ctx->gpu, (VkDeviceSize)b->chunk * VKCOL_FRAME_VEC4S * 16, texel, GPU_MEMORY_DEVICE,
	                      "exact pair frames", &b->frames));
	// After the three regions, the triangle pairs the leaf culls left, one
	// entry per window of A and batch of B with any (shared.h), then those
	// the separating axes left for the confirmations: each as many slots as
	// the leaf region, one entry per leaf-leaf item at most for leaves of
	// up to 4 triangles; a pair whose entry does not fit is flagged for a
	// rerun.
	for (int k = 0; k < 2; k++)
		TRY(gpu_buffer_create(&ctx->gpu, ((VkDeviceSize)b->capacity + 2 * (b->dive_base - b->leaf_base)) * 16, texel,
		                      GPU_MEMORY_DEVICE, k ? "exact frontier 1" : "exact frontier 0", &b->frontiers[k]));
	TRY(gpu_buffer_create(&ctx->gpu, VKCOL_COUNTER_WORDS * 4, storage, GPU_MEMORY_READBACK, "exact counters", &b->counters));
	// Five indirect dispatches per level: breadth-first, depth-first and
	// leaf-leaf items, the triangle tests and their confirmations; and the
	// search and walk passes'.
	TRY(gpu_buffer_create(&ctx->gpu, VKCOL_EXACT_ARGS_WORDS * 4, storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, GPU_MEMORY_DEVICE,
	                      "exact indirect args", &b->args));
	TRY(gpu_buffer_create(&ctx->gpu, (VkDeviceSize)(list_capacity ? list_capacity : 1) * 16, storage, GPU_MEMORY_READBACK,
	                      "exact triangle-pair list", &b->list));
	const pipeline_id ids[EXACT_PIPELINES] = {
	    [EXACT_SETUP] = PIPELINE_EXACT_SETUP,         [EXACT_ARGS] = PIPELINE_EXACT_ARGS,
	    [EXACT_TRAVERSE] = PIPELINE_EXACT_TRAVERSE,   [EXACT_CONTAIN] = PIPELINE_EXACT_CONTAIN,
	    [EXACT_DIVE] = PIPELINE_EXACT_DIVE,           [EXACT_LEAVES] = PIPELINE_EXACT_LEAVES,
	    [EXACT_SEARCH] = PIPELINE_EXACT_SEARCH,       [EXACT_TRIANGLES] = PIPELINE_EXACT_TRIANGLES,
	    [EXACT_WALK] = PIPELINE_EXACT_WALK,           [EXACT_CONFIRM] = PIPELINE_EXACT_CONFIRM,
	};
	batch_pool *pool = ctx->pool;
	gpu_binding bindings[2][14 + EXACT_TEXEL_BUFFERS];
	for (int parity = 0; parity < 2; parity++) {
		const gpu_buffer *read = &b->frontiers[parity], *write = &b->frontiers[parity ^ 1];
		const gpu_binding set[14 + EXACT_TEXEL_BUFFERS] = {
		    {&b->pairs, 0, 0},    {&pool->meshes, 0, 0},   {&pool->vertices, 0, 0}, {&b->results, 0, 0},
		    {&pool->nodes, 0, 0}, {&pool->triangles, 0, 0}, {&pool->pieces, 0, 0},  {&b->state, 0, 0},
		    {write, 0, 0},        {&b->counters, 0, 0},    {&b->args, 0, 0},
		    {&b->frames, 0, 0},   {&pool->clusters, 0, cluster_storage_range(ctx)}, {&b->list, 0, 0},
		    {&pool->nodes, 0, 0}, {&pool->vertices, 0, 0}, {&pool->triangles, 0, 0}, {&b->frames, 0, 0}, // texel
		    {read, 0, 0},         {&b->pairs, 0, 0},       {&pool->meshes, 0, 0},   {&pool->clusters, 0, 0}, // buffers
		};
		memcpy(bindings[parity], set, sizeof(set));
	}
	const gpu_binding *by_parity[2] = {bindings[0], bindings[1]};
	VkImageView views[VKCOL_MAP_ARRAYS];
	for (uint32_t k = 0; k < VKCOL_MAP_ARRAYS; k++)
		views[k] = pool->arrays[k].view;
	for (int i = 0; i < EXACT_PIPELINES; i++) {
		TRY(pipeline_get(&ctx->gpu, &ctx->pipelines, exact_pipeline(ctx, ids[i]), map_array, &b->pipes[i]));
		TRY(gpu_pipeline_bind_sets(&ctx->gpu, b->pipes[i], 2, by_parity, views, ctx->meshes.sampler.sampler, b->sets[i]));
	}
cleanup:
	return res;
}

// A pass over the pairs the one before it listed (exact_setup.comp's
// search or walk pass, pipes[pipe] with `set`): exact_args.comp sizes its
// dispatch to the list (args_level: VKCOL_ARGS_FOR_SEARCH or
// VKCOL_ARGS_FOR_WALK, which writes the arguments at byte `at` of the args
// buffer), then the pass runs. Leaves params->level at 0.
static void listed_pass(vkcol_context *ctx, VkCommandBuffer cmd, const exact_buffers *b, vkcol_exact_params *params,
                        uint32_t args_level, int pipe, VkDescriptorSet set, VkDeviceSize at)
{
	gpu_barrier_all(&ctx->gpu, cmd);
	params->level = args_level;
	gpu_pipeline_dispatch(&ctx->gpu, cmd, b->pipes[EXACT_ARGS], b->sets[EXACT_ARGS][0], params, 1);
	gpu_barrier_all(&ctx->gpu, cmd);
	params->level = 0;
	gpu_pipeline_dispatch(&ctx->gpu, cmd, b->pipes[pipe], set, params, 0);
	ctx->gpu.vk.vkCmdDispatchIndirect(cmd, b->args.buffer, at);
}

// Adds the triangle pairs the device listed for the pass's n pairs
// (position i of the pass answers pair at[i], in increasing order) to the
// caller's list: those of the longest run of pairs from the first whose
// entries all fit. Pairs left undecided (rerun later) are skipped, their
// rerun lists them.
static void list_take(const exact_buffers *b, const uint64_t *at, uint32_t n, const vkcol_pair_result *results,
                      list_sink *sink)
{
	const uint32_t *counters = b->counters.mapped;
	uint32_t found = counters[VKCOL_COUNTER_LIST];
	vkcol_triangle_list *out = sink->out;
	if (sink->cut)
		return;
	if (found > b->list_capacity)
		out->truncated = true; // the device list overflowed: list_close_chunk trims
	uint64_t room = out->capacity - out->count, need = 0;
	uint32_t fit = 0; // pairs 0 .. fit - 1 of the pass fit
	while (fit < n && need + results[at[fit]].triangle_pairs <= room)
		need += results[at[fit++]].triangle_pairs;
	if (fit < n)
		out->truncated = true;
	uint32_t stored = found < b->list_capacity ? found : b->list_capacity;
	const uint32_t *entries = b->list.mapped;
	for (uint32_t k = 0; k < stored; k++) {
		uint32_t local = entries[4 * k];
		if (local >= fit || results[at[local]].stage == VKCOL_STAGE_NONE)
			continue;
		out->entries[out->count++] = (vkcol_triangle_pair){at[local], entries[4 * k + 1], entries[4 * k + 2]};
	}
}

// After a chunk of pairs first .. first + count - 1 (and its reruns): sorts
// the chunk's entries, and if some were lost (the caller's list is full, or
// the device's overflowed), keeps the pairs, in order, whose entries are all
// there, up to the first one that is not, and lists nothing more.
static void list_close_chunk(const vkcol_pair_result *results, uint64_t first, uint64_t count, list_sink *sink)
{
	vkcol_triangle_list *out = sink->out;
	if (sink->cut)
		return;
	vkcol_triangle_pair *e = out->entries + sink->chunk_start;
	uint64_t n = out->count - sink->chunk_start;
	ref_sort_triangle_pairs(e, n);
	if (out->truncated) {
		uint64_t k = 0;
		for (uint64_t pair = first; pair < first + count; pair++) {
			uint64_t run = 0;
			while (k + run < n && e[k + run].pair == pair)
				run++;
			if (run != results[pair].triangle_pairs)
				break;
			k += run;
		}
		out->count = sink->chunk_start + k;
		sink->cut = true;
	}
	sink->chunk_start = out->count;
}

// The CPU reference answers a pair: one that overflowed the frontier even
// alone, or that float could not decide (and lists its triangle pairs when
// asked).
static vkcol_result exact_on_cpu(vkcol_context *ctx, const vkcol_pair *pair, uint64_t at, vkcol_pair_result *result,
                                 list_sink *sink)
{
	vkcol_result res = VKCOL_SUCCESS;
	bool collide = false;
	if (!sink) {
		TRY(vkcol_reference_collide(ctx, pair, &collide));
		*result = (vkcol_pair_result){collide, VKCOL_STAGE_TREE, 0.0f, collide ? 1u : 0u};
		goto cleanup;
	}
	// Listing: the list's surface test answers first; only a pair without a
	// crossing needs the reference's containment test on top.
	vkcol_triangle_list *out = sink->out;
	uint64_t room = sink->cut ? 0 : out->capacity - out->count, found = 0;
	TRY(vkcol_reference_triangle_pairs(ctx, pair, out->entries + out->count, room, &found));
	uint64_t kept = found < room ? found : room;
	for (uint64_t k = 0; k < kept; k++)
		out->entries[out->count + k].pair = at;
	out->count += kept;
	if (found > room)
		out->truncated = true;
	if (found > 0) {
		*result = (vkcol_pair_result){1u, VKCOL_STAGE_TREE, 0.0f, (uint32_t)(found < UINT32_MAX ? found : UINT32_MAX)};
		goto cleanup;
	}
	TRY(vkcol_reference_collide(ctx, pair, &collide));
	*result = (vkcol_pair_result){collide, collide ? VKCOL_STAGE_CONTAINMENT : VKCOL_STAGE_TREE, 0.0f, 0u};
cleanup:
	return res;
}

// Answers `count` pairs in chunks of b->chunk: pair i of the pass is
// pairs[index[i]], or pairs[base + i] when index is NULL, and its answer goes
// to the same position of results. Pairs whose frontier overflowed without a
// hit are appended (by position) to rerun; pairs float could not decide are
// answered by the CPU reference at once (for_cpu: room for a chunk).
static vkcol_result exact_pass(vkcol_context *ctx, exact_buffers *b, const vkcol_pair *pairs, const uint64_t *index,
                               uint64_t base, uint64_t count, vkcol_pair_result *results, uint64_t *rerun,
                               uint64_t *rerun_count, uint64_t *at, uint64_t *for_cpu, list_sink *sink,
                               vkcol_batch_stats *stats)
{
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	for (uint64_t first = 0; first < count; first += b->chunk) {
		uint32_t n = (uint32_t)(count - first < b->chunk ? count - first : b->chunk);
		for (uint32_t i = 0; i < n; i++)
			at[i] = index ? index[first + i] : base + first + i;
		upload_pairs(ctx, pairs, n, at, exact_in_double(ctx), b->pairs.mapped);
		VkCommandBuffer cmd;
		TRY(gpu_begin_once(&ctx->gpu, &cmd));
		ctx->gpu.vk.vkCmdFillBuffer(cmd, b->counters.buffer, 0, VK_WHOLE_SIZE, 0);
		gpu_barrier_all(&ctx->gpu, cmd);
		vkcol_exact_params params = {n,         MESH_MAX_COUNT, b->capacity, 0, b->flags, b->list_capacity,
		                             b->budget, b->dive_base,   b->leaf_base};
		uint32_t groups = (n + VKCOL_WORKGROUP_SIZE - 1) / VKCOL_WORKGROUP_SIZE;
		// The setup lists the pairs it leaves undecided in the frontier that
		// level 0 writes (it is bound as level 0); the search pass reads
		// them there and seeds the frontier level 0 reads (it is bound as
		// the level before level 0), where it also lists the pairs for the
		// walk pass, after the three regions (bound as level 0, the walk
		// pass reads them there).
		gpu_pipeline_dispatch(&ctx->gpu, cmd, b->pipes[EXACT_SETUP], b->sets[EXACT_SETUP][0], &params, groups);
		listed_pass(ctx, cmd, b, &params, VKCOL_ARGS_FOR_SEARCH, EXACT_SEARCH, b->sets[EXACT_SEARCH][1], ARGS_SEARCH);
		listed_pass(ctx, cmd, b, &params, VKCOL_ARGS_FOR_WALK, EXACT_WALK, b->sets[EXACT_WALK][0], ARGS_WALK);
		// Two levels more than the traversal needs: the last leaf pairs'
		// separating axes, then their confirmations.
		for (uint32_t level = 0; level <= b->levels + 1; level++) {
			uint32_t parity = level & 1;
			gpu_barrier_all(&ctx->gpu, cmd);
			params.level = level;
			gpu_pipeline_dispatch(&ctx->gpu, cmd, b->pipes[EXACT_ARGS], b->sets[EXACT_ARGS][parity], &params, 1);
			gpu_barrier_all(&ctx->gpu, cmd);
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
				VkDeviceSize args;
			} passes[] = {{EXACT_CONFIRM, ARGS_CONFIRM}, {EXACT_TRIANGLES, ARGS_TRIANGLES},
			              {EXACT_TRAVERSE, ARGS_TRAVERSE}, {EXACT_DIVE, ARGS_DIVE}, {EXACT_LEAVES, ARGS_LEAVES}};
			for (size_t k = 0; k < CORE_COUNT_OF(passes); k++) {
				if (passes[k].pipe == EXACT_DIVE && b->budget <= 1)
					continue;
				gpu_pipeline_dispatch(&ctx->gpu, cmd, b->pipes[passes[k].pipe], b->sets[passes[k].pipe][parity], &params, 0);
				ctx->gpu.vk.vkCmdDispatchIndirect(cmd, b->args.buffer, passes[k].args);
			}
		}
		gpu_barrier_all(&ctx->gpu, cmd);
		gpu_pipeline_dispatch(&ctx->gpu, cmd, b->pipes[EXACT_CONTAIN], b->sets[EXACT_CONTAIN][0], &params, groups);
		gpu_barrier_all(&ctx->gpu, cmd);
		TRY(gpu_submit_once(&ctx->gpu, cmd));
		VkMappedMemoryRange ranges[3] = {
		    {VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, NULL, b->results.memory, 0, VK_WHOLE_SIZE},
		    {VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, NULL, b->counters.memory, 0, VK_WHOLE_SIZE},
		    {VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, NULL, b->list.memory, 0, VK_WHOLE_SIZE},
		};
		if (!b->results.coherent || !b->counters.coherent || !b->list.coherent)
			VK_TRY(env, ctx->gpu.vk.vkInvalidateMappedMemoryRanges(ctx->gpu.device, 3, ranges));
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
		if (sink)
			list_take(b, at, n, results, sink);
		for (uint32_t i = 0; i < cpu_count; i++) {
			TRY(exact_on_cpu(ctx, &pairs[for_cpu[i]], for_cpu[i], &results[for_cpu[i]], sink));
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

// Answers the pairs a pass left undecided because a frontier overflowed
// (rerun[0], *count of them): again in chunks a quarter the size, down to one
// pair; a lone pair that still overflows is answered by the CPU reference.
// No answer is dropped. b->chunk is restored.
static vkcol_result settle_overflows(vkcol_context *ctx, exact_buffers *b, const vkcol_batch_desc *desc,
                                     vkcol_pair_result *results, uint64_t *rerun[2], uint64_t count, uint64_t *at,
                                     uint64_t *for_cpu, list_sink *sink, uint64_t *fallbacks,
                                     vkcol_batch_stats *stats)
{
	vkcol_result res = VKCOL_SUCCESS;
	uint32_t full = b->chunk, chunk_now = b->chunk;
	uint64_t counts[2] = {count, 0};
	int cur = 0;
	while (counts[cur] > 0) {
		if (stats)
			stats->reruns += counts[cur];
		if (chunk_now == 1) {
			*fallbacks += counts[cur];
			for (uint64_t i = 0; i < counts[cur]; i++) {
				uint64_t k = rerun[cur][i];
				TRY(exact_on_cpu(ctx, &desc->pairs[k], k, &results[k], sink));
				if (stats)
					stats->cpu_fallbacks++;
			}
			break;
		}
		chunk_now = chunk_now / 4 ? chunk_now / 4 : 1;
		b->chunk = chunk_now;
		int next = cur ^ 1;
		counts[next] = 0;
		TRY(exact_pass(ctx, b, desc->pairs, rerun[cur], 0, counts[cur], results, rerun[next], &counts[next], at,
		               for_cpu, sink, stats));
		cur = next;
	}
cleanup:
	b->chunk = full;
	return res;
}

static vkcol_result run_exact(vkcol_context *ctx, const vkcol_batch_desc *desc, uint32_t map_array,
                              vkcol_pair_result *results, vkcol_batch_stats *stats)
{
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	exact_buffers b = {0};
	uint64_t *rerun[2] = {NULL, NULL}, *at = NULL, *for_cpu = NULL;
	uint32_t chunk = desc->chunk_pairs ? desc->chunk_pairs : EXACT_DEFAULT_CHUNK;
	if ((uint64_t)chunk > desc->pair_count)
		chunk = (uint32_t)desc->pair_count;
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
	TRY(exact_buffers_create(ctx, chunk, list_capacity, flags, map_array, &b));
	// Overflowed pairs are settled chunk by chunk, so these lists (and all
	// host memory) stay bounded by the chunk, whatever the batch size.
	for (int i = 0; i < 4; i++) {
		uint64_t **list = i < 2 ? &rerun[i] : i == 2 ? &at : &for_cpu;
		*list = core_calloc(env, b.chunk, sizeof(uint64_t));
		if (!*list) {
			res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
			goto cleanup;
		}
	}
	uint64_t done = 0, fallbacks = 0;
	list_sink *list = desc->triangles ? &sink : NULL;
	for (uint64_t first = 0; first < desc->pair_count; first += b.chunk) {
		uint64_t n = desc->pair_count - first < b.chunk ? desc->pair_count - first : b.chunk;
		uint64_t overflowed = 0;
		TRY(exact_pass(ctx, &b, desc->pairs, NULL, first, n, results, rerun[0], &overflowed, at, for_cpu, list,
		               stats));
		TRY(settle_overflows(ctx, &b, desc, results, rerun, overflowed, at, for_cpu, list, &fallbacks, stats));
		if (list)
			list_close_chunk(results, first, n, list);
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
	for (int i = 0; i < 2; i++)
		core_free(env, rerun[i]);
	core_free(env, at);
	core_free(env, for_cpu);
	exact_buffers_free(ctx, &b);
	return res;
}

VKCOL_API vkcol_result vkcol_batch_run(vkcol_context *ctx, const vkcol_batch_desc *desc, vkcol_pair_result *results)
{
	if (!ctx)
		return VKCOL_ERROR_INVALID_ARGUMENT;
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	frame frames[2] = {0};
	gpu_pipeline *approx = NULL, *approx_spilled = NULL, *approx_groups = NULL, *approx_jobs = NULL;
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
	if (desc->triangles && desc->triangles->capacity > 0 && !desc->triangles->entries) {
		CORE_ERROR(env, "vkcol_batch_run: triangles->entries is NULL with a capacity of %llu",
		           (unsigned long long)desc->triangles->capacity);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if (desc->flags & ~(uint32_t)VKCOL_BATCH_NO_EARLY_ACCEPT) {
		CORE_ERROR(env, "vkcol_batch_run: unknown flags 0x%x", desc->flags & ~(uint32_t)VKCOL_BATCH_NO_EARLY_ACCEPT);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	double start = now_seconds();
	vkcol_batch_stats *stats = desc->stats;
	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (desc->pair_count == 0)
		return VKCOL_SUCCESS;
	uint32_t map_array;
	TRY(validate_pairs(ctx, desc, &map_array));
	memset(results, 0, desc->pair_count * sizeof(*results));
	TRY(cubemap_check_support(&ctx->gpu, &ctx->meshes.sampler));
	bool approx_mode = desc->mode == VKCOL_MODE_APPROX;
	if (!pool_current(ctx, approx_mode))
		TRY(pool_build(ctx, approx_mode));
	if (!approx_mode) {
		res = run_exact(ctx, desc, map_array, results, stats);
		if (stats) {
			for (uint64_t i = 0; i < desc->pair_count; i++) {
				stats->pairs += results[i].stage != VKCOL_STAGE_NONE;
				stats->sphere_rejected += results[i].stage == VKCOL_STAGE_BOUNDS;
				stats->collisions += results[i].collide != 0;
			}
			stats->seconds = now_seconds() - start;
		}
		return res;
	}
	TRY(pipeline_get(&ctx->gpu, &ctx->pipelines, PIPELINE_APPROX, map_array, &approx));
	TRY(pipeline_get(&ctx->gpu, &ctx->pipelines, PIPELINE_APPROX_SPILLED, map_array, &approx_spilled));
	TRY(pipeline_get(&ctx->gpu, &ctx->pipelines, PIPELINE_APPROX_GROUPS, map_array, &approx_groups));
	TRY(pipeline_get(&ctx->gpu, &ctx->pipelines, PIPELINE_APPROX_JOBS, map_array, &approx_jobs));

	uint32_t most = desc->chunk_pairs ? desc->chunk_pairs : DEFAULT_CHUNK;
	if (most > max_chunk(ctx))
		most = max_chunk(ctx);
	uint32_t chunk = (uint64_t)most > desc->pair_count ? (uint32_t)desc->pair_count : most;
	// The frames' buffers hold `room` pairs: the chunk rounded up to a power
	// of two (at most `most`), so that batches of similar sizes find their
	// scratch buffers (memory.h) the right size.
	uint64_t room = 1;
	while (room < chunk)
		room <<= 1;
	room = room < most ? room : most;
	// Each job list is one indirect dispatch of one dimension.
	uint64_t job_max = (uint64_t)ctx->gpu.props.limits.maxComputeWorkGroupCount[0] * VKCOL_WORKGROUP_SIZE;
	uint64_t job_capacity = APPROX_JOBS_PER_PAIR * (uint64_t)room;
	job_capacity = job_capacity < job_max ? job_capacity : job_max;
	if (ctx->approx_job_capacity_override)
		job_capacity = ctx->approx_job_capacity_override;
	uint64_t group_capacity = APPROX_GROUP_JOBS_PER_PAIR * (uint64_t)room;
	group_capacity = group_capacity < job_max ? group_capacity : job_max;
	if (ctx->approx_group_capacity_override)
		group_capacity = ctx->approx_group_capacity_override;

	VkImageView views[VKCOL_MAP_ARRAYS];
	for (uint32_t k = 0; k < VKCOL_MAP_ARRAYS; k++)
		views[k] = ctx->pool->arrays[k].view;
	for (int i = 0; i < 2; i++) {
		frame *f = &frames[i];
		// Pairs and jobs are read as texel buffers (approx_common.glsl).
		const VkBufferUsageFlags texel =
		    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
		TRY(gpu_scratch_get(&ctx->gpu, FRAME_PAIRS + i, (VkDeviceSize)room * sizeof(vkcol_gpu_pair), texel, GPU_MEMORY_UPLOAD,
		                    "batch pairs", &f->pairs));
		TRY(gpu_scratch_get(&ctx->gpu, FRAME_RESULTS + i, (VkDeviceSize)room * sizeof(vkcol_gpu_result),
		                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPU_MEMORY_READBACK, "batch results", &f->results));
		TRY(gpu_scratch_get(&ctx->gpu, FRAME_STATS + i, VKCOL_STAT_WORDS * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
		                    GPU_MEMORY_READBACK, "batch stats", &f->stats));
		// Whole texels of two jobs each.
		TRY(gpu_scratch_get(&ctx->gpu, FRAME_JOBS + i, (job_capacity + group_capacity + room + 1) / 2 * 16, texel,
		                    GPU_MEMORY_DEVICE, "approx jobs", &f->jobs));
		TRY(gpu_scratch_get(&ctx->gpu, FRAME_JOB_ARGS + i, VKCOL_JOB_ARGS_WORDS * 4,
		                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
		                        VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		                    GPU_MEMORY_DEVICE, "approx job dispatch", &f->job_args));
		gpu_binding bindings[8 + APPROX_TEXEL_BUFFERS] = {
		    {f->pairs, 0, 0},           {&ctx->pool->meshes, 0, 0},   {&ctx->pool->vertices, 0, 0},
		    {f->results, 0, 0},         {f->stats, 0, 0},             {&ctx->pool->clusters, 0, cluster_storage_range(ctx)},
		    {f->jobs, 0, 0},            {f->job_args, 0, 0},
		    {f->pairs, 0, 0},           {&ctx->pool->meshes, 0, 0},   {&ctx->pool->vertices, 0, 0}, // texel buffers
		    {&ctx->pool->clusters, 0, 0}, {f->jobs, 0, 0}};
		TRY(gpu_pipeline_bind(&ctx->gpu, approx, bindings, views, ctx->meshes.sampler.sampler, &f->set));
		TRY(gpu_pipeline_bind(&ctx->gpu, approx_spilled, bindings, views, ctx->meshes.sampler.sampler, &f->spilled_set));
		TRY(gpu_pipeline_bind(&ctx->gpu, approx_groups, bindings, views, ctx->meshes.sampler.sampler, &f->groups_set));
		TRY(gpu_pipeline_bind(&ctx->gpu, approx_jobs, bindings, views, ctx->meshes.sampler.sampler, &f->jobs_set));
		VkCommandBufferAllocateInfo alloc = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, ctx->gpu.command_pool,
		                                     VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
		VK_TRY(env, ctx->gpu.vk.vkAllocateCommandBuffers(ctx->gpu.device, &alloc, &f->cmd));
		VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
		VK_TRY(env, ctx->gpu.vk.vkCreateFence(ctx->gpu.device, &fence, NULL, &f->fence));
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
		upload_pairs(ctx, &desc->pairs[first], count, NULL, false, f->pairs->mapped);
		VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		                                  .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
		VK_TRY(env, ctx->gpu.vk.vkBeginCommandBuffer(f->cmd, &begin));
		vkcol_approx_params params = {
		    .pair_count = (uint32_t)count,
		    .mip_level = desc->mip_level,
		    .mesh_index_mask = MESH_MAX_COUNT,
		    .flags = (stats != NULL ? VKCOL_APPROX_STATS : 0u) | (ctx->cone_bounds_off ? VKCOL_APPROX_NO_CONES : 0u) |
		             (ctx->clearance_off ? VKCOL_APPROX_NO_CLEARANCE : 0u),
		    .job_capacity = (uint32_t)job_capacity,
		    .group_capacity = (uint32_t)group_capacity,
		};
		// Per list: no workgroups, no jobs.
		static const uint32_t no_jobs[VKCOL_JOB_ARGS_WORDS] = {0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0};
		ctx->gpu.vk.vkCmdUpdateBuffer(f->cmd, f->job_args->buffer, 0, sizeof(no_jobs), no_jobs);
		if (stats)
			ctx->gpu.vk.vkCmdFillBuffer(f->cmd, f->stats->buffer, 0, VK_WHOLE_SIZE, 0);
		gpu_barrier_all(&ctx->gpu, f->cmd);
		gpu_pipeline_dispatch(&ctx->gpu, f->cmd, approx, f->set, &params,
		                      (uint32_t)((count + VKCOL_WORKGROUP_SIZE - 1) / VKCOL_WORKGROUP_SIZE));
		gpu_barrier_all(&ctx->gpu, f->cmd);
		gpu_pipeline_dispatch(&ctx->gpu, f->cmd, approx_groups, f->groups_set, &params, 0); // binds only
		ctx->gpu.vk.vkCmdDispatchIndirect(f->cmd, f->job_args->buffer, 16);
		gpu_barrier_all(&ctx->gpu, f->cmd);
		gpu_pipeline_dispatch(&ctx->gpu, f->cmd, approx_jobs, f->jobs_set, &params, 0); // binds only
		ctx->gpu.vk.vkCmdDispatchIndirect(f->cmd, f->job_args->buffer, 0);
		gpu_barrier_all(&ctx->gpu, f->cmd);
		gpu_pipeline_dispatch(&ctx->gpu, f->cmd, approx_spilled, f->spilled_set, &params, 0); // binds only
		ctx->gpu.vk.vkCmdDispatchIndirect(f->cmd, f->job_args->buffer, 32);
		gpu_barrier_all(&ctx->gpu, f->cmd);
		VK_TRY(env, ctx->gpu.vk.vkEndCommandBuffer(f->cmd));
		VK_TRY(env, ctx->gpu.vk.vkResetFences(ctx->gpu.device, 1, &f->fence));
		VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &f->cmd};
		VK_TRY(env, ctx->gpu.vk.vkQueueSubmit(ctx->gpu.queue, 1, &submit, f->fence));
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
			ctx->gpu.vk.vkWaitForFences(ctx->gpu.device, 1, &f->fence, VK_TRUE, UINT64_MAX);
		if (f->fence)
			ctx->gpu.vk.vkDestroyFence(ctx->gpu.device, f->fence, NULL);
		if (f->cmd)
			ctx->gpu.vk.vkFreeCommandBuffers(ctx->gpu.device, ctx->gpu.command_pool, 1, &f->cmd);
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
	TRY(cubemap_check_support(&ctx->gpu, &ctx->meshes.sampler));
	TRY(pipeline_get(&ctx->gpu, &ctx->pipelines, PIPELINE_SAMPLE_RAW, 0, &pipe));
	if (!pool_current(ctx, false))
		TRY(pool_build(ctx, false));
	const cube_array *array = &ctx->pool->arrays[array_index(resolution)];
	const uint32_t per_invocation = 64;
	uint64_t invocations64 = (samples + per_invocation - 1) / per_invocation;
	uint32_t invocations = invocations64 > (1u << 24) ? (1u << 24) : (uint32_t)invocations64;
	TRY(gpu_buffer_create(&ctx->gpu, (VkDeviceSize)invocations * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPU_MEMORY_DEVICE,
	                      "raw sampling sums", &out));
	VkDescriptorSet set;
	gpu_binding binding = {&out, 0, 0};
	TRY(gpu_pipeline_bind(&ctx->gpu, pipe, &binding, &array->view, ctx->meshes.sampler.sampler, &set));
	vkcol_sample_raw_params params = {invocations, per_invocation, array->cubes, 0.0f};
	double seconds = 0;
	for (int run = 0; run < 2; run++) { // run 0 warms up (pipeline compile)
		VkCommandBuffer cmd;
		TRY(gpu_begin_once(&ctx->gpu, &cmd));
		gpu_pipeline_dispatch(&ctx->gpu, cmd, pipe, set, &params, (invocations + VKCOL_WORKGROUP_SIZE - 1) / VKCOL_WORKGROUP_SIZE);
		double t0 = now_seconds();
		TRY(gpu_submit_once(&ctx->gpu, cmd));
		seconds = now_seconds() - t0;
	}
	*rate = (double)invocations * per_invocation / seconds;
	CORE_DEBUG(env, "raw cube sampling at %u: %.3g samples/s", resolution, *rate);
cleanup:
	gpu_buffer_destroy(&ctx->gpu, &out);
	return res;
}
