// SPDX-License-Identifier: MIT
// The context: the GPU device, the library's pipelines, the mesh table and
// the batch pool, created and torn down in one place (context.c).
#pragma once

#include "gpu/device.h"
#include "mesh/mesh_table.h"
#include "pipelines.h"

struct vkcol_context {
	core_env env;
	gpu_device gpu;
	pipeline_table pipelines;

	mesh_table meshes;

	struct batch_pool *pool; // batch-side copies of the meshes (batch.c)
	uint32_t frontier_capacity_override; // tests only: > 0 shrinks the exact-mode frontiers
	bool cone_bounds_off;                // tests: approx mode skips no vertex cluster by its cone bound
	bool clearance_off;                  // tests: ... nor by its clearance field (clearance.h)
	uint32_t approx_job_capacity_override;   // tests: > 0 sets approx mode's cluster jobs per chunk
	uint32_t approx_group_capacity_override; // tests: > 0 sets approx mode's group jobs per chunk
	uint32_t traverse_budget_override;   // tests and benchmarks: > 0 sets the depth-first steps per traversal item
	bool float64_off;                    // tests: exact mode runs its float path (as without shaderFloat64)
};
