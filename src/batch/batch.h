// SPDX-License-Identifier: MIT
// The batch layer: what a batch works with (batch_scope, lent by the context)
// and what it keeps between batches (batch_state: the pool and the test
// knobs). vkcol_batch_run (batch.c) runs the stages, one file each: the pool
// (pool.c), the pairs (pairs.c), approx mode (approx.c), exact mode
// (exact.c), its triangle lists (triangle_list.c), its overflow reruns and
// CPU fallback (rerun.c); vkcol_batch_record (record.c) records the modes'
// passes into the caller's command buffer.
#pragma once

#include "gpu/device.h"
#include "mesh/mesh_table.h"
#include "pipelines.h"

typedef struct batch_pool batch_pool;

// Test and benchmark knobs: zero in normal use, where nothing sets them.
// They change how a batch runs (capacities, culls, precision), never what it
// may answer: the tests reach rare paths with them (frontier overflows,
// spilled pairs, the float path of devices without shaderFloat64) and check
// each cull against a run without it; the benchmarks try traversal budgets.
typedef struct batch_knobs {
	uint32_t frontier_capacity;     // > 0: exact mode's frontier items (instead of the binding's limit)
	uint32_t traverse_budget;       // > 0: exact mode's depth-first steps per item (1: breadth first only)
	uint32_t seed_budget;           // > 0: ... of a diving pair's first item (default: traverse_budget when set)
	uint32_t scout_budget;          // > 0: ... of a scout, a breadth-first pair's first item (1: no scouts)
	bool float64_off;               // exact mode runs its float path, as without shaderFloat64
	uint32_t approx_job_capacity;   // > 0: approx mode's cluster jobs per chunk
	uint32_t approx_group_capacity; // > 0: approx mode's group jobs per chunk
	bool cone_bounds_off;           // approx mode skips no vertex cluster by its cone bounds
	bool clearance_off;             // ... nor by its clearance field (geometry/clearance.h)
	bool open_bounds_off;           // ... nor by an open mesh's bounds of its inner distance (cone_bound.h)
	uint32_t host_pairs_per_task;   // > 0: pairs per task of the host's per-pair work, on any device (pairs.h)
	bool ball_test_off;             // exact mode runs no ball test (exact_setup.comp), the cull and accept of a small solid
	uint32_t exact_policy;          // > 0: exact mode's policy, EXACT_POLICY_SET | VKCOL_EXACT_NO_PROBE ... (exact.h)
	int obb;                        // exact mode's oriented boxes: 0 where worth it (pairs.h), 1 always, -1 never
} batch_knobs;

// What the batch layer keeps in the context between batches.
typedef struct batch_state {
	batch_pool *pool; // every live mesh's data as the batch shaders read it (pool.c), or NULL
	vkcol_gpu_batch *gpu_batches; // the recorded queries' batches (record.c), a list
	batch_knobs knobs;
} batch_state;

// What a batch works with: the context's device, pipelines, meshes and batch
// state, lent for one call.
typedef struct batch_scope {
	const core_env *env;
	gpu_device *gpu;
	pipeline_table *pipelines;
	mesh_table *meshes;
	batch_state *state;
} batch_scope;

// The scope of a context (context.c); false when ctx is NULL.
bool batch_scope_of(vkcol_context *ctx, batch_scope *out);

// Frees the recorded queries' batches and the pool (at
// vkcol_context_destroy, before the meshes).
void batch_state_free(batch_scope *s);

// Seconds of a monotonic clock (the batch statistics).
double batch_now(void);

