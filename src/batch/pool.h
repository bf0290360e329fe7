// SPDX-License-Identifier: MIT
// The batch pool (pool.c): every live mesh's data in the buffers and cube
// arrays the batch shaders read (layouts in shaders/shared.h).
#pragma once

#include "batch/batch.h"

// One cube-array image per power-of-two map resolution.
typedef struct pool_cube_array {
	VkImage image;
	VkDeviceMemory memory;
	VkImageView view;
	uint64_t bytes;
	uint32_t cubes; // maps it holds (1 placeholder when no mesh has this resolution)
} pool_cube_array;

// Shared: the batch state holds a reference to the current pool, and each
// vkcol_gpu_batch one to the pool it was made with, so that a rebuild (a mesh
// created or destroyed, an approx batch's clearance fields) frees no pool a
// recorded command buffer may still read.
struct batch_pool {
	uint32_t refs;        // references (pool_retain, pool_release)
	uint32_t *ids;        // live mesh ids when built, in slot order
	uint32_t id_count;
	gpu_buffer meshes;    // vkcol_gpu_mesh per slot (the mesh table's capacity)
	gpu_buffer vertices;  // vec4 per used, distinct vertex of every live mesh
	gpu_buffer clusters;  // per mesh: vec4 spheres of its clusters, then of its groups, then its cone bounds,
	                      // inner balls and clearance field (shared.h)
	gpu_buffer nodes;     // every mesh's tree nodes (pool_node), absolute indices (exact mode)
	gpu_buffer triangles; // uvec4 (v0, v1, v2, original) in tree order, absolute vertex indices
	gpu_buffer pieces;    // VKCOL_PIECE_VERTICES extreme vertices (absolute) per connected piece of each mesh
	uint32_t *lod_first;  // per slot with vertex levels of detail (approx mode): the record of its level 1
	                      // (its others follow)
	uint32_t *fine_first; // per slot: the record of its fine tree (mesh_cpu.fine_tree), or 0 if it has none
	uint32_t max_depth;   // deepest tree among the live meshes
	uint32_t fine_depth;  // deepest fine tree among them (0: none)
	uint32_t obb_base;    // texel of the first node's oriented box in `nodes` (vkcol_exact_params.obb_base)
	bool no_obb;          // a live mesh's tree has no oriented boxes (aabb_tree.h)
	bool clearance;       // every live mesh's clearance field is in `clusters` (approx mode reads them)
	pool_cube_array arrays[VKCOL_MAP_ARRAYS];
};

// Makes s->state->pool hold the live meshes, with their clearance fields when
// `clearance` (approx mode: the fields missing are built first, on the CPU;
// a context that runs exact batches alone never pays for them): rebuilt when
// it does not.
vkcol_result pool_ensure(batch_scope *s, bool clearance);

// Whether `pool` holds exactly the context's live meshes (and their
// clearance fields when `clearance`).
bool pool_matches(const batch_scope *s, const batch_pool *pool, bool clearance);

// Another reference to the pool.
void pool_retain(batch_pool *pool);
// Drops a reference; the last frees the pool. Accepts NULL.
void pool_release(gpu_device *gpu, batch_pool *pool);

// The cube array of a map resolution: 4 -> 0, 8 -> 1, ..., 1024 -> 8.
uint32_t pool_array_index(uint32_t resolution);

// The cube arrays' views, in binding order.
void pool_views(const batch_pool *pool, VkImageView views[VKCOL_MAP_ARRAYS]);

// The bindings both modes' shaders read alike (shared.h, pools.glsl): the
// chunk's pairs and results, and the pool's mesh records, vertices and
// clusters, into bindings (indexed by binding number).
void pool_bind(const batch_pool *pool, const gpu_buffer *pairs, const gpu_buffer *results, gpu_binding *bindings);

// Approx mode's vertex budget (vkcol_batch_desc.vertex_budget): into ids
// (the mesh table's capacity), per live slot, the id that names in the pool
// the record of the level of detail the budget picks (vertex_lod.h); read
// with a mesh_index_mask of all ones.
void pool_budget_ids(const batch_scope *s, uint32_t budget, uint32_t *ids);

// Rewrites the mesh ids of a device pair through pool_budget_ids' ids.
void pool_budget_pair(const uint32_t *ids, vkcol_gpu_pair *pair);

// For record.comp (VKCOL_RECORD_FINE): per slot of the mesh table, the
// record of its fine tree + 1 (0: none), then per slot its triangle scale,
// then its leaf thickness (float bits): 3 x capacity words.
void pool_fine_ids(const batch_scope *s, uint32_t *ids);

// Exact mode (vkcol_batch_run): rewrites the mesh handles of a device pair of
// live meshes to the records its passes read (read with a mesh_index_mask
// of all ones): each mesh's own, or its fine tree's against a mesh of much
// smaller triangles.
void pool_exact_pair(const batch_scope *s, vkcol_gpu_pair *pair);
