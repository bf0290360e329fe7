// SPDX-License-Identifier: MIT
// The batch pool: every live mesh's data as the batch shaders read it, in one
// set of buffers so that one descriptor set serves any mix of meshes: the
// table of vkcol_gpu_mesh records by slot, the vertex pool in k-d order
// (vertex_order.h) with its cluster and group balls (Welzl's smallest
// enclosing balls, min_ball.h), the cone bounds, inner balls and clearance
// fields, the tree nodes with their slabs, the triangles, the connected
// pieces' extreme vertices, and one cube array per map resolution. Rebuilt
// (device-side copies only) when the live meshes have changed since it was
// built.
#include "batch/pool.h"

#include <math.h>
#include <string.h>

#include "geometry/min_ball.h"
#include "geometry/vertex_lod.h"
#include "geometry/vertex_order.h"

// A tree node as the exact shaders read it (VKCOL_NODE_TEXELS texels): its
// box, then its slab (aabb_tree.h), in one pool and one binding, each node's
// data in one run of memory (no slower than two pools:
// docs/performance-notes.md).
typedef struct pool_node {
	vkcol_gpu_node node;
	float slab[4];
} pool_node;
_Static_assert(sizeof(pool_node) == 16 * VKCOL_NODE_TEXELS, "pool_node is VKCOL_NODE_TEXELS texels");

uint32_t pool_array_index(uint32_t resolution)
{
	uint32_t k = 0;
	while ((4u << k) < resolution)
		k++;
	return k; // 4 -> 0, 8 -> 1, ..., 1024 -> 8
}

void pool_retain(batch_pool *pool)
{
	pool->refs++;
}

void pool_release(gpu_device *gpu, batch_pool *pool)
{
	if (!pool || --pool->refs > 0)
		return;
	gpu_buffer_destroy(gpu, &pool->meshes);
	gpu_buffer_destroy(gpu, &pool->vertices);
	gpu_buffer_destroy(gpu, &pool->clusters);
	gpu_buffer_destroy(gpu, &pool->nodes);
	gpu_buffer_destroy(gpu, &pool->triangles);
	gpu_buffer_destroy(gpu, &pool->pieces);
	for (uint32_t i = 0; i < VKCOL_MAP_ARRAYS; i++)
		cubemap_image_free(gpu, &pool->arrays[i].image, &pool->arrays[i].memory, &pool->arrays[i].view);
	core_free(gpu->env, pool->ids);
	core_free(gpu->env, pool->lod_first);
	core_free(gpu->env, pool->fine_first);
	core_free(gpu->env, pool);
}

bool pool_matches(const batch_scope *s, const batch_pool *pool, bool clearance)
{
	if (!pool || (clearance && !pool->clearance))
		return false;
	uint32_t n = 0;
	for (uint32_t i = 0; i < s->meshes->capacity; i++) {
		if (!s->meshes->slots[i].used)
			continue;
		if (n >= pool->id_count || pool->ids[n] != mesh_table_handle(s->meshes, i).id)
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

// Appends the n vertices `order` names (indices into positions, 3 floats
// each) to out (vec4 each) in k-d order (vertex_order.h): each cluster and
// each group is a compact cell of space. Then to cluster_out, from
// *clusters on (which advances): one bounding sphere per VKCOL_CLUSTER_SIZE
// vertices, then one per VKCOL_GROUP_CLUSTERS clusters. order is left in
// the emitted order.
static void emit_points(const float *positions, vertex_key *order, uint32_t n, float *out, float *cluster_out,
                        uint32_t *clusters)
{
	vertex_order_cells(positions, order, n, VKCOL_CLUSTER_SIZE, VKCOL_CLUSTER_SIZE * VKCOL_GROUP_CLUSTERS);
	for (uint32_t i = 0; i < n; i++) {
		memcpy(&out[4 * (size_t)i], &positions[3 * (size_t)order[i].vertex], 3 * sizeof(float));
		out[4 * (size_t)i + 3] = 1.0f;
	}
	const uint32_t sizes[2] = {VKCOL_CLUSTER_SIZE, VKCOL_CLUSTER_SIZE * VKCOL_GROUP_CLUSTERS};
	for (int level = 0; level < 2; level++)
		for (uint32_t first = 0; first < n; first += sizes[level]) {
			uint32_t end = first + sizes[level] < n ? first + sizes[level] : n;
			bounding_sphere(out, first, end, &cluster_out[4 * (size_t)*clusters]);
			(*clusters)++;
		}
}

// Appends mesh m's vertices as emit_points does: only vertices some
// triangle uses, one per welded position. Returns the vertex count. remap
// (vertex_count entries) receives, for each welded representative, its
// index among the emitted vertices (UINT32_MAX: unused). order: room for
// vertex_count items.
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
	emit_points(m->positions, order, n, out, cluster_out, clusters);
	for (uint32_t i = 0; i < n; i++)
		remap[order[i].vertex] = i;
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

// Writes m's triangle t as the triangle pool holds it (out: its vertices'
// absolute indices, through remap, then t); local: the vertices' indices
// within the mesh's emitted vertices.
static void emit_triangle(const mesh_cpu *m, uint32_t t, const uint32_t *remap, uint32_t vertex_first, uint32_t out[4],
                          uint32_t local[3])
{
	const uint32_t *tri = &m->indices[3 * (size_t)t];
	for (int k = 0; k < 3; k++) {
		local[k] = remap[m->weld ? m->weld[tri[k]] : tri[k]];
		out[k] = vertex_first + local[k];
	}
	out[3] = t;
}

// Appends a tree's nodes, their child and triangle indices made absolute,
// and their oriented boxes.
static void emit_nodes(const aabb_tree *tree, uint32_t node_first, uint32_t triangle_first, pool_node *nodes_out,
                       float *obbs_out)
{
	for (uint32_t i = 0; i < tree->node_count; i++) {
		vkcol_gpu_node n = tree->nodes[i];
		n.first += n.count == 0 ? node_first : triangle_first;
		nodes_out[i].node = n;
		memcpy(nodes_out[i].slab, &tree->slabs[4 * (size_t)i], sizeof(nodes_out[i].slab));
		aabb_tree_obb(tree, i, &obbs_out[16 * (size_t)i]);
	}
}

// Appends m's fine tree (mesh_cpu.fine_tree): its nodes as emit_nodes does,
// and its triangles in its own order, on the vertices emit_tree placed
// (remap, from vertex_first).
static void emit_fine_tree(const mesh_cpu *m, const uint32_t *remap, uint32_t vertex_first, uint32_t node_first,
                           uint32_t triangle_first, pool_node *nodes_out, float *obbs_out, uint32_t *triangles_out)
{
	emit_nodes(&m->fine_tree, node_first, triangle_first, nodes_out, obbs_out);
	for (uint32_t i = 0; i < m->triangle_count; i++) {
		uint32_t local[3];
		emit_triangle(m, m->fine_tree.triangles[i], remap, vertex_first, &triangles_out[4 * (size_t)i], local);
	}
}

// Appends m's nodes (indices made absolute), its triangles (vertex indices
// through remap, then absolute) and, per connected piece (union-find over the
// triangles' vertices), its VKCOL_PIECE_VERTICES extreme vertices: lowest and
// highest x, y, z of the emitted positions `verts` (vec4 per used vertex),
// whose fourth words then receive their vertex's piece index.
// parent and slot are scratch of `used` entries. Returns the number of pieces.
static uint32_t emit_tree(const mesh_cpu *m, const uint32_t *remap, uint32_t used, uint32_t vertex_first,
                          float *verts, uint32_t node_first, uint32_t triangle_first, pool_node *nodes_out, float *obbs_out,
                          uint32_t *triangles_out, uint32_t *parent, uint32_t *slot, uint32_t *pieces_out)
{
	emit_nodes(&m->tree, node_first, triangle_first, nodes_out, obbs_out);
	for (uint32_t v = 0; v < used; v++)
		parent[v] = v;
	for (uint32_t i = 0; i < m->triangle_count; i++) {
		uint32_t local[3];
		emit_triangle(m, m->tree.triangles[i], remap, vertex_first, &triangles_out[4 * (size_t)i], local);
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
		uint32_t piece = slot[find_root(parent, v)];
		// Each vertex's piece, in its fourth word (vertex_piece, pools.glsl).
		memcpy(&verts[4 * (size_t)v + 3], &piece, sizeof piece);
		uint32_t *ext = &pieces_out[VKCOL_PIECE_VERTICES * piece];
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
static vkcol_result pool_build(batch_scope *s, bool clearance)
{
	const core_env *env = s->env;
	vkcol_result res = VKCOL_SUCCESS;
	for (uint32_t i = 0; clearance && i < s->meshes->capacity; i++) {
		mesh_slot *mesh = &s->meshes->slots[i];
		if (mesh->used && !mesh->clearance.values &&
		    (res = clearance_build(env, &mesh->cpu, mesh->cube_resolution, &mesh->clearance)) != VKCOL_SUCCESS) {
			CORE_ERROR(env, "mesh '%s': its clearance field (approx mode) could not be built: %s", mesh->cpu.name,
			           vkcol_result_string(res));
			return res;
		}
		if (mesh->used && !mesh->lod.built && (res = vertex_lod_build(env, &mesh->cpu, &mesh->lod)) != VKCOL_SUCCESS) {
			CORE_ERROR(env, "mesh '%s': its vertex levels of detail (approx mode) could not be built: %s",
			           mesh->cpu.name, vkcol_result_string(res));
			return res;
		}
	}
	vkcol_gpu_mesh *records = NULL;
	float *host_vertices = NULL, *host_clusters = NULL;
	vertex_key *order = NULL;
	uint32_t *seen = NULL, *parent = NULL, *slot = NULL, *host_triangles = NULL, *host_pieces = NULL;
	pool_node *host_nodes = NULL;
	float *host_obbs = NULL;
	batch_pool *pool = core_calloc(env, 1, sizeof(*pool));
	if (!pool)
		return VKCOL_ERROR_OUT_OF_HOST_MEMORY;
	pool->refs = 1; // the batch state's

	uint32_t live = 0, cubes[VKCOL_MAP_ARRAYS] = {0}, max_vertices = 1, lod_records = 0, fine_records = 0;
	uint64_t vertex_total = 0, cluster_total = 0, node_total = 0, triangle_total = 0;
	for (uint32_t i = 0; i < s->meshes->capacity; i++)
		if (s->meshes->slots[i].used) {
			uint32_t nv = s->meshes->slots[i].cpu.vertex_count;
			live++;
			vertex_total += nv;
			node_total += s->meshes->slots[i].cpu.tree.node_count;
			triangle_total += s->meshes->slots[i].cpu.triangle_count;
			if (!s->meshes->slots[i].cpu.tree.obbs)
				pool->no_obb = true;
			if (s->meshes->slots[i].cpu.tree.depth > pool->max_depth)
				pool->max_depth = s->meshes->slots[i].cpu.tree.depth;
			const aabb_tree *fine = &s->meshes->slots[i].cpu.fine_tree;
			if (fine->node_count) {
				node_total += fine->node_count;
				triangle_total += s->meshes->slots[i].cpu.triangle_count;
				fine_records++;
				pool->fine_depth = fine->depth > pool->fine_depth ? fine->depth : pool->fine_depth;
			}
			uint32_t clusters = (nv + VKCOL_CLUSTER_SIZE - 1) / VKCOL_CLUSTER_SIZE;
			cluster_total += clusters + (clusters + VKCOL_GROUP_CLUSTERS - 1) / VKCOL_GROUP_CLUSTERS +
			                 VKCOL_CONE_TEXELS + VKCOL_INNER_BALLS +
			                 clearance_texels(&s->meshes->slots[i].clearance);
			max_vertices = nv > max_vertices ? nv : max_vertices;
			const vertex_lod *lod = &s->meshes->slots[i].lod;
			for (uint32_t l = 0; clearance && l < lod->level_count; l++) {
				uint32_t lc = (lod->count[l] + VKCOL_CLUSTER_SIZE - 1) / VKCOL_CLUSTER_SIZE;
				vertex_total += lod->count[l];
				cluster_total += lc + (lc + VKCOL_GROUP_CLUSTERS - 1) / VKCOL_GROUP_CLUSTERS;
				lod_records++;
			}
			cubes[pool_array_index(s->meshes->slots[i].cube.resolution)]++;
		}
	pool->ids = core_calloc(env, live ? live : 1, sizeof(uint32_t));
	uint32_t record_count = s->meshes->capacity + lod_records + fine_records;
	records = core_calloc(env, record_count ? record_count : 1, sizeof(*records));
	pool->lod_first = core_calloc(env, s->meshes->capacity ? s->meshes->capacity : 1, sizeof(uint32_t));
	pool->fine_first = core_calloc(env, s->meshes->capacity ? s->meshes->capacity : 1, sizeof(uint32_t));
	host_vertices = core_calloc(env, vertex_total ? vertex_total : 1, 4 * sizeof(float));
	host_clusters = core_calloc(env, cluster_total ? cluster_total : 1, 4 * sizeof(float));
	seen = core_calloc(env, max_vertices, sizeof(uint32_t));
	order = core_calloc(env, max_vertices, sizeof(vertex_key));
	parent = core_calloc(env, max_vertices, sizeof(uint32_t));
	slot = core_calloc(env, max_vertices, sizeof(uint32_t));
	host_nodes = core_calloc(env, node_total ? node_total : 1, sizeof(pool_node));
	host_obbs = core_calloc(env, node_total ? node_total : 1, 16 * sizeof(float));
	host_triangles = core_calloc(env, triangle_total ? triangle_total : 1, 4 * sizeof(uint32_t));
	// At most one piece per vertex.
	host_pieces = core_calloc(env, vertex_total ? vertex_total : 1, VKCOL_PIECE_VERTICES * sizeof(uint32_t));
	if (!pool->ids || !pool->lod_first || !pool->fine_first || !records || !host_vertices || !host_clusters || !seen ||
	    !order || !parent || !slot || !host_nodes || !host_obbs || !host_triangles || !host_pieces) {
		res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		goto cleanup;
	}
	const VkDeviceSize binding = gpu_texel_binding_max(s->gpu);
	if (vertex_total * 16 > binding) {
		CORE_ERROR(env, "the meshes of this context hold %llu vertices; one batch binding holds at most %llu",
		           (unsigned long long)vertex_total, (unsigned long long)binding / 16);
		res = VKCOL_ERROR_TOO_LARGE;
		goto cleanup;
	}
	// The pools the batch shaders read as texel buffers (approx_common.glsl,
	// exact_common.glsl) get their texel views.
	const VkBufferUsageFlags texel = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
	TRY(gpu_buffer_create(s->gpu, (vertex_total ? vertex_total : 1) * 16, texel, GPU_MEMORY_DEVICE,
	                      "batch vertex pool", &pool->vertices));
	TRY(gpu_buffer_create(s->gpu, (cluster_total ? cluster_total : 1) * 16, texel, GPU_MEMORY_DEVICE,
	                      "batch vertex clusters", &pool->clusters));
	// The nodes, then their oriented boxes (VKCOL_OBB_TEXELS each, from texel
	// obb_base), in one binding.
	const uint64_t node_bytes = node_total * (sizeof(pool_node) + 16 * VKCOL_OBB_TEXELS);
	pool->obb_base = (uint32_t)(node_total * VKCOL_NODE_TEXELS);
	if (node_bytes > binding || triangle_total * 16 > binding) {
		CORE_ERROR(env, "the meshes of this context hold %llu tree nodes and %llu triangles; one batch binding holds "
		                "at most %llu bytes",
		           (unsigned long long)node_total, (unsigned long long)triangle_total, (unsigned long long)binding);
		res = VKCOL_ERROR_TOO_LARGE;
		goto cleanup;
	}
	TRY(gpu_buffer_create(s->gpu, node_total ? node_bytes : sizeof(pool_node), texel, GPU_MEMORY_DEVICE,
	                      "batch node pool", &pool->nodes));
	TRY(gpu_buffer_create(s->gpu, (triangle_total ? triangle_total : 1) * 16, texel, GPU_MEMORY_DEVICE,
	                      "batch triangle pool", &pool->triangles));
	TRY(gpu_buffer_create(s->gpu, (record_count ? record_count : 1) * sizeof(vkcol_gpu_mesh), texel,
	                      GPU_MEMORY_DEVICE, "batch mesh table", &pool->meshes));
	for (uint32_t k = 0; k < VKCOL_MAP_ARRAYS; k++) {
		// Unused resolutions get a one-cube placeholder: every binding must
		// hold a valid view even if no pair samples it.
		uint32_t count = cubes[k] ? cubes[k] : 1;
		pool_cube_array *a = &pool->arrays[k];
		TRY(cubemap_create_image(s->gpu, 4u << k, 6 * count, true, &a->image, &a->memory, &a->view, &a->bytes));
		a->cubes = count;
	}

	VkCommandBuffer cmd;
	TRY(gpu_begin_once(s->gpu, &cmd));
	for (uint32_t k = 0; k < VKCOL_MAP_ARRAYS; k++) {
		uint32_t levels = pool_array_index(4u << k) + 3; // log2(4 << k) + 1
		cubemap_image_barrier(s->gpu, cmd, pool->arrays[k].image, levels, 6 * pool->arrays[k].cubes,
		                      VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
		                      VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
		                      VK_PIPELINE_STAGE_TRANSFER_BIT);
	}
	uint32_t next_cube[VKCOL_MAP_ARRAYS] = {0};
	uint64_t vertex_first = 0;
	pool->clearance = true;
	uint32_t cluster_next = 0, node_next = 0, triangle_next = 0, piece_next = 0, lod_next = s->meshes->capacity;
	uint32_t fine_next = s->meshes->capacity + lod_records;
	for (uint32_t i = 0; i < s->meshes->capacity; i++) {
		mesh_slot *mesh = &s->meshes->slots[i];
		if (!mesh->used)
			continue;
		pool->ids[pool->id_count++] = mesh_table_handle(s->meshes, i).id;
		uint32_t k = pool_array_index(mesh->cube.resolution);
		uint32_t cluster_first = cluster_next;
		uint32_t used_vertices =
		    emit_vertices(&mesh->cpu, seen, order, &host_vertices[4 * vertex_first], host_clusters, &cluster_next);
		uint32_t piece_count =
		    emit_tree(&mesh->cpu, seen, used_vertices, (uint32_t)vertex_first, &host_vertices[4 * vertex_first],
		              node_next, triangle_next, &host_nodes[node_next], &host_obbs[16 * (size_t)node_next],
		              &host_triangles[4 * (size_t)triangle_next],
		              parent, slot, &host_pieces[piece_next]);
		uint32_t cluster_count = (used_vertices + VKCOL_CLUSTER_SIZE - 1) / VKCOL_CLUSTER_SIZE;
		memcpy(&host_clusters[4 * (size_t)cluster_next], mesh->cone_bounds, VKCOL_CONE_FLOATS * sizeof(float));
		uint32_t cone_first = cluster_next;
		cluster_next += VKCOL_CONE_TEXELS;
		uint32_t ball_count = inner_balls_for_gpu(&mesh->cpu, &host_clusters[4 * (size_t)cluster_next]);
		cluster_next += ball_count;
		cluster_next += emit_clearance(&mesh->clearance, &host_clusters[4 * (size_t)cluster_next]);
		pool->clearance = pool->clearance && mesh->clearance.values;
		vkcol_gpu_mesh *r = &records[i];
		*r = (vkcol_gpu_mesh){
		    .origin_x = mesh->cpu.origin[0],
		    .origin_y = mesh->cpu.origin[1],
		    .origin_z = mesh->cpu.origin[2],
		    .vertex_first = (uint32_t)vertex_first,
		    .sphere_x = mesh->cpu.sphere_center[0],
		    .sphere_y = mesh->cpu.sphere_center[1],
		    .sphere_z = mesh->cpu.sphere_center[2],
		    .sphere_radius = mesh->cpu.sphere_radius,
		    .vertex_count = used_vertices,
		    .map_array = k,
		    .map_layer = next_cube[k],
		    .map_levels = mesh->cube.levels,
		    .cluster_first = cluster_first,
		    .cluster_count = cluster_count,
		    .inner_radius = inner_radius_for_gpu(&mesh->cpu),
		    .aabb_min_x = mesh->cpu.aabb_min[0],
		    .aabb_min_y = mesh->cpu.aabb_min[1],
		    .aabb_min_z = mesh->cpu.aabb_min[2],
		    .aabb_max_x = mesh->cpu.aabb_max[0],
		    .aabb_max_y = mesh->cpu.aabb_max[1],
		    .aabb_max_z = mesh->cpu.aabb_max[2],
		    .flags = (mesh->cpu.closed ? VKCOL_MESH_CLOSED : 0u) |
		             (mesh->cpu.closed && mesh->cube.multi_hit_fraction == 0.0f ? VKCOL_MESH_STAR_SHAPED : 0u) |
		             (mesh->cube.multi_hit_fraction <= VKCOL_FEW_HITS_MAX ? VKCOL_MESH_FEW_HITS : 0u),
		    .node_first = node_next,
		    .piece_first = piece_next,
		    .piece_count = piece_count,
		    .tree_depth = mesh->cpu.tree.depth,
		    .cone_first = cone_first,
		    .ball_count = ball_count,
		    .centre_x = mesh->cpu.centre[0],
		    .centre_y = mesh->cpu.centre[1],
		    .centre_z = mesh->cpu.centre[2],
		};
		// Its vertex levels of detail (approx mode's vertex budget): records
		// after the slots' that differ from the mesh's own only in their
		// vertices and clusters.
		for (uint32_t l = 0; clearance && l < mesh->lod.level_count; l++) {
			vertex_first += r->vertex_count;
			for (uint32_t v = 0; v < mesh->lod.count[l]; v++)
				order[v] = (vertex_key){0.0f, mesh->lod.vertices[mesh->lod.first[l] + v]};
			vkcol_gpu_mesh *lr = &records[lod_next];
			*lr = *r;
			lr->vertex_first = (uint32_t)vertex_first;
			lr->vertex_count = mesh->lod.count[l];
			lr->cluster_first = cluster_next;
			lr->cluster_count = (mesh->lod.count[l] + VKCOL_CLUSTER_SIZE - 1) / VKCOL_CLUSTER_SIZE;
			emit_points(mesh->cpu.positions, order, mesh->lod.count[l], &host_vertices[4 * vertex_first],
			            host_clusters, &cluster_next);
			if (l == 0)
				pool->lod_first[i] = lod_next;
			r = lr;
			lod_next++;
		}
		node_next += mesh->cpu.tree.node_count;
		triangle_next += mesh->cpu.triangle_count;
		// Its fine tree (exact mode, pool_exact_pair): a record that differs
		// from the mesh's own only in its tree.
		if (mesh->cpu.fine_tree.node_count) {
			emit_fine_tree(&mesh->cpu, seen, records[i].vertex_first, node_next, triangle_next,
			               &host_nodes[node_next], &host_obbs[16 * (size_t)node_next],
			               &host_triangles[4 * (size_t)triangle_next]);
			records[fine_next] = records[i];
			records[fine_next].node_first = node_next;
			records[fine_next].tree_depth = mesh->cpu.fine_tree.depth;
			pool->fine_first[i] = fine_next++;
			node_next += mesh->cpu.fine_tree.node_count;
			triangle_next += mesh->cpu.triangle_count;
		}
		piece_next += VKCOL_PIECE_VERTICES * piece_count;
		vertex_first += r->vertex_count;

		cubemap_image_barrier(s->gpu, cmd, mesh->cube.image, mesh->cube.levels, 6,
		                      VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		                      VK_ACCESS_SHADER_READ_BIT, VK_ACCESS_TRANSFER_READ_BIT,
		                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
		VkImageCopy regions[16];
		for (uint32_t l = 0; l < mesh->cube.levels; l++) {
			uint32_t n = mesh->cube.resolution >> l;
			regions[l] = (VkImageCopy){
			    .srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, 0, 6},
			    .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, 6 * next_cube[k], 6},
			    .extent = {n, n, 1},
			};
		}
		s->gpu->vk.vkCmdCopyImage(cmd, mesh->cube.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, pool->arrays[k].image,
		                          VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, mesh->cube.levels, regions);
		cubemap_image_barrier(s->gpu, cmd, mesh->cube.image, mesh->cube.levels, 6, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		                      VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_TRANSFER_READ_BIT,
		                      VK_ACCESS_SHADER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
		                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
		next_cube[k]++;
	}
	for (uint32_t k = 0; k < VKCOL_MAP_ARRAYS; k++) {
		uint32_t levels = pool_array_index(4u << k) + 3;
		cubemap_image_barrier(s->gpu, cmd, pool->arrays[k].image, levels, 6 * pool->arrays[k].cubes,
		                      VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
		                      VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT,
		                      VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
	}
	gpu_barrier_all(s->gpu, cmd);
	TRY(gpu_submit_once(s->gpu, cmd));
	TRY(gpu_upload(s->gpu, &pool->meshes, 0, records, (VkDeviceSize)(record_count ? record_count : 1) *
	                                                   sizeof(vkcol_gpu_mesh)));
	if (vertex_first)
		TRY(gpu_upload(s->gpu, &pool->vertices, 0, host_vertices, vertex_first * 16));
	if (cluster_next)
		TRY(gpu_upload(s->gpu, &pool->clusters, 0, host_clusters, (VkDeviceSize)cluster_next * 16));
	if (node_next) {
		TRY(gpu_upload(s->gpu, &pool->nodes, 0, host_nodes, (VkDeviceSize)node_next * sizeof(pool_node)));
		TRY(gpu_upload(s->gpu, &pool->nodes, (VkDeviceSize)pool->obb_base * 16, host_obbs,
		               (VkDeviceSize)node_next * 16 * VKCOL_OBB_TEXELS));
	}
	if (triangle_next)
		TRY(gpu_upload(s->gpu, &pool->triangles, 0, host_triangles, (VkDeviceSize)triangle_next * 16));
	// Sized now that the pieces are counted (usually a few per mesh).
	if ((uint64_t)piece_next * 4 > s->gpu->props.limits.maxStorageBufferRange) {
		CORE_ERROR(env, "the meshes of this context have %u connected pieces; one batch binding holds at most %u",
		           piece_next / VKCOL_PIECE_VERTICES,
		           s->gpu->props.limits.maxStorageBufferRange / 4 / VKCOL_PIECE_VERTICES);
		res = VKCOL_ERROR_TOO_LARGE;
		goto cleanup;
	}
	TRY(gpu_buffer_create(s->gpu, (VkDeviceSize)(piece_next ? piece_next : 1) * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
	                      GPU_MEMORY_DEVICE, "batch piece pool", &pool->pieces));
	if (piece_next)
		TRY(gpu_upload(s->gpu, &pool->pieces, 0, host_pieces, (VkDeviceSize)piece_next * 4));
cleanup:
	core_free(env, records);
	core_free(env, host_vertices);
	core_free(env, host_clusters);
	core_free(env, seen);
	core_free(env, order);
	core_free(env, parent);
	core_free(env, slot);
	core_free(env, host_nodes);
	core_free(env, host_obbs);
	core_free(env, host_triangles);
	core_free(env, host_pieces);
	if (res != VKCOL_SUCCESS) {
		pool_release(s->gpu, pool);
		return res;
	}
	pool_release(s->gpu, s->state->pool);
	s->state->pool = pool;
	return VKCOL_SUCCESS;
}

vkcol_result pool_ensure(batch_scope *s, bool clearance)
{
	return pool_matches(s, s->state->pool, clearance) ? VKCOL_SUCCESS : pool_build(s, clearance);
}

void pool_views(const batch_pool *pool, VkImageView views[VKCOL_MAP_ARRAYS])
{
	for (uint32_t k = 0; k < VKCOL_MAP_ARRAYS; k++)
		views[k] = pool->arrays[k].view;
}

void pool_bind(const batch_pool *pool, const gpu_buffer *pairs, const gpu_buffer *results, gpu_binding *bindings)
{
	bindings[VKCOL_BINDING_PAIRS] = (gpu_binding){pairs, 0, 0};
	bindings[VKCOL_BINDING_MESHES] = (gpu_binding){&pool->meshes, 0, 0};
	bindings[VKCOL_BINDING_VERTICES] = (gpu_binding){&pool->vertices, 0, 0};
	bindings[VKCOL_BINDING_CLUSTERS] = (gpu_binding){&pool->clusters, 0, 0};
	bindings[VKCOL_BINDING_RESULTS] = (gpu_binding){results, 0, 0};
}

void pool_budget_ids(const batch_scope *s, uint32_t budget, uint32_t *ids)
{
	for (uint32_t i = 0; i < s->meshes->capacity; i++) {
		const mesh_slot *mesh = &s->meshes->slots[i];
		uint32_t level = mesh->used ? vertex_lod_level(&mesh->lod, budget) : 0;
		ids[i] = (level == 0 ? i : s->state->pool->lod_first[i] + level - 1) + 1;
	}
}

void pool_budget_pair(const uint32_t *ids, vkcol_gpu_pair *pair)
{
	pair->mesh_a = ids[(pair->mesh_a & MESH_MAX_COUNT) - 1];
	pair->mesh_b = ids[(pair->mesh_b & MESH_MAX_COUNT) - 1];
}

void pool_fine_ids(const batch_scope *s, uint32_t *ids)
{
	const uint32_t n = s->meshes->capacity;
	for (uint32_t i = 0; i < n; i++) {
		const mesh_slot *mesh = &s->meshes->slots[i];
		float scale = mesh->used ? mesh->cpu.triangle_scale : 0.0f;
		float thickness = mesh->used ? mesh->cpu.leaf_thickness : 0.0f;
		ids[i] = mesh->used && s->state->pool->fine_first[i] ? s->state->pool->fine_first[i] + 1 : 0u;
		memcpy(&ids[n + i], &scale, sizeof(scale));
		memcpy(&ids[2 * n + i], &thickness, sizeof(thickness));
	}
}

// The record exact mode reads mesh slot `slot` by, against slot `other`:
// its fine tree's where it has one, its triangles are VKCOL_FINE_RATIO times
// the other's or larger, and its leaves are thicker than
// VKCOL_FINE_THICKNESS times the other's triangles (shared.h; record.comp's
// fine_id picks the same on the device for recorded batches).
static uint32_t exact_record(const batch_scope *s, uint32_t slot, uint32_t other)
{
	const batch_pool *pool = s->state->pool;
	const mesh_cpu *m = &s->meshes->slots[slot].cpu;
	float other_scale = s->meshes->slots[other].cpu.triangle_scale;
	return pool->fine_first[slot] && m->triangle_scale >= VKCOL_FINE_RATIO * other_scale &&
	               m->leaf_thickness >= VKCOL_FINE_THICKNESS * other_scale
	           ? pool->fine_first[slot]
	           : slot;
}

void pool_exact_pair(const batch_scope *s, vkcol_gpu_pair *pair)
{
	uint32_t a = (pair->mesh_a & MESH_MAX_COUNT) - 1, b = (pair->mesh_b & MESH_MAX_COUNT) - 1;
	pair->mesh_a = exact_record(s, a, b) + 1;
	pair->mesh_b = exact_record(s, b, a) + 1;
}
