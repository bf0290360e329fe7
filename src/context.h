// SPDX-License-Identifier: MIT
// The context: the GPU device, the library's pipelines, the mesh table and
// the batch pool, created and torn down in one place (context.c).
#pragma once

#include "clearance.h"
#include "distance_map.h"
#include "gpu/device.h"
#include "mesh.h"
#include "pipelines.h"

// A slot of the context's mesh table. A vkcol_mesh id packs the slot index + 1
// (low MESH_INDEX_BITS bits) and the slot's generation, so a stale handle to a
// reused slot is detected.
#define MESH_INDEX_BITS 20u
#define MESH_MAX_COUNT ((1u << MESH_INDEX_BITS) - 1u)

typedef struct mesh_gpu {
	gpu_buffer vertices;  // vkcol_gpu_vertex per vertex
	gpu_buffer triangles; // vkcol_gpu_triangle per triangle, tree order
	gpu_buffer nodes;     // vkcol_gpu_node per node, breadth first
} mesh_gpu;

typedef struct mesh_slot {
	uint32_t generation;  // bumped on destroy
	bool used;
	mesh_cpu cpu;
	mesh_gpu gpu;
	uint32_t cube_resolution;
	cube_map cube;
	float *cone_bounds; // VKCOL_CONE_FLOATS, cone_bound.h
	clearance_field clearance;
} mesh_slot;

struct vkcol_context {
	core_env env;
	gpu_device gpu;
	pipeline_table pipelines;

	mesh_slot *meshes;
	uint32_t mesh_capacity;
	VkSampler cube_sampler;                 // linear, clamp, nearest mip
	bool cube_support_checked;

	struct batch_pool *pool; // batch-side copies of the meshes (batch.c)
	uint32_t frontier_capacity_override; // tests only: > 0 shrinks the exact-mode frontiers
	bool cone_bounds_off;                // tests: approx mode skips no vertex cluster by its cone bound
	bool clearance_off;                  // tests: ... nor by its clearance field (clearance.h)
	uint32_t approx_job_capacity_override;   // tests: > 0 sets approx mode's cluster jobs per chunk
	uint32_t approx_group_capacity_override; // tests: > 0 sets approx mode's group jobs per chunk
	uint32_t traverse_budget_override;   // tests and benchmarks: > 0 sets the depth-first steps per traversal item
	bool float64_off;                    // tests: exact mode runs its float path (as without shaderFloat64)
};

// Looks a handle up; NULL (and an error logged) when it is zero, stale or out
// of range.
mesh_slot *device_mesh_slot(const vkcol_context *ctx, vkcol_mesh mesh);
