// SPDX-License-Identifier: MIT
// The library's compute pipelines: one per pass of shaders/ (its SPIR-V
// embedded by src/shaders.c), created on first use through the GPU layer and
// kept until the context is destroyed.
#pragma once

#include "gpu/pipeline.h"
#include "shared.h"

typedef enum pipeline_id {
	PIPELINE_CUBEMAP_BUILD,
	PIPELINE_CUBEMAP_MIP,
	PIPELINE_APPROX,
	PIPELINE_APPROX_SPILLED,
	PIPELINE_APPROX_SPILLED_LIST,
	PIPELINE_APPROX_GROUPS,
	PIPELINE_APPROX_JOBS,
	PIPELINE_EXACT_SETUP,
	PIPELINE_EXACT_ARGS,
	PIPELINE_EXACT_TRAVERSE,
	PIPELINE_EXACT_DIVE,
	PIPELINE_EXACT_CONTAIN,
	PIPELINE_EXACT_LEAVES,
	PIPELINE_EXACT_SEARCH,    // exact_setup.comp, variant 1
	PIPELINE_EXACT_TRIANGLES, // exact_leaves.comp, variant 1
	PIPELINE_EXACT_WALK,      // exact_setup.comp, variant 2
	PIPELINE_EXACT_CONFIRM,   // exact_leaves.comp, variant 2
	// The traversal testing the nodes' oriented boxes too (VKCOL_OBB).
	PIPELINE_EXACT_TRAVERSE_OBB, // exact_traverse.comp, variant 1
	PIPELINE_EXACT_DIVE_OBB,     // exact_dive.comp, variant 1
	// The exact pipelines whose shaders work in double, for devices with
	// shaderFloat64 (pipeline_in_double names them).
	PIPELINE_EXACT_SETUP_FP64,
	PIPELINE_EXACT_SEARCH_FP64,
	PIPELINE_EXACT_WALK_FP64,
	PIPELINE_EXACT_CONTAIN_FP64,
	PIPELINE_EXACT_CONFIRM_FP64,
	// A recorded query's passes before and after each chunk's.
	PIPELINE_RECORD_PREPARE,
	PIPELINE_RECORD_FINISH, // record.comp, variant 1
	PIPELINE_COUNT
} pipeline_id;

// The pipelines created so far. The shaders that sample the cube maps have
// one pipeline per shared cube array (index < VKCOL_MAP_ARRAYS) and one for
// batches that mix them (VKCOL_MAP_ARRAYS); the others use [id][0].
typedef struct pipeline_table {
	gpu_pipeline pipes[PIPELINE_COUNT][VKCOL_MAP_ARRAYS + 1];
} pipeline_table;

// The pipeline `id`, created on first use. The pipelines whose shaders
// sample the cube maps (approx mode's four and exact mode's setup passes)
// are specialized for map_array, the cube array every map of the batch
// lies in, or VKCOL_MAP_ARRAYS when the batch mixes them; other ids ignore
// map_array.
vkcol_result pipeline_get(gpu_device *gpu, pipeline_table *table, pipeline_id id, uint32_t map_array,
                          gpu_pipeline **out);

// Exact mode's pipeline `id` in double (its _fp64 variant), or id itself
// where it has none.
pipeline_id pipeline_in_double(pipeline_id id);

// Accepts a zeroed table.
void pipeline_table_destroy(gpu_device *gpu, pipeline_table *table);
