// SPDX-License-Identifier: MIT
// The library's pipeline table: each pass's SPIR-V (src/shaders.c, a module
// per variant), its bindings and push constants, and its specialization
// (workgroup size, the batch's cube array); pipelines are created on first
// use.
#include "pipelines.h"

#include "shaders.h"

pipeline_id pipeline_in_double(pipeline_id id)
{
	switch (id) {
	case PIPELINE_EXACT_SETUP: return PIPELINE_EXACT_SETUP_FP64;
	case PIPELINE_EXACT_SEARCH: return PIPELINE_EXACT_SEARCH_FP64;
	case PIPELINE_EXACT_WALK: return PIPELINE_EXACT_WALK_FP64;
	case PIPELINE_EXACT_CONTAIN: return PIPELINE_EXACT_CONTAIN_FP64;
	case PIPELINE_EXACT_CONFIRM: return PIPELINE_EXACT_CONFIRM_FP64;
	default: return id;
	}
}

void pipeline_table_destroy(gpu_device *gpu, pipeline_table *t)
{
	for (uint32_t i = 0; i < PIPELINE_COUNT; i++)
		for (uint32_t k = 0; k <= VKCOL_MAP_ARRAYS; k++)
			gpu_pipeline_destroy(gpu, &t->pipes[i][k]);
}

// The descriptor type of each binding (shared.h numbers them), per layout.
#define POOL_BINDINGS                                                                                     \
	[VKCOL_BINDING_PAIRS] = GPU_BINDING_TEXELS, [VKCOL_BINDING_MESHES] = GPU_BINDING_TEXELS,              \
	[VKCOL_BINDING_VERTICES] = GPU_BINDING_TEXELS, [VKCOL_BINDING_CLUSTERS] = GPU_BINDING_TEXELS,         \
	[VKCOL_BINDING_RESULTS] = GPU_BINDING_STORAGE, [VKCOL_BINDING_MAPS] = GPU_BINDING_IMAGES

static const gpu_binding_type cubemap_bindings[VKCOL_CUBEMAP_BINDINGS] = {
    [VKCOL_CUBEMAP_BINDING_VERTICES] = GPU_BINDING_STORAGE,
    [VKCOL_CUBEMAP_BINDING_TRIANGLES] = GPU_BINDING_STORAGE,
    [VKCOL_CUBEMAP_BINDING_NODES] = GPU_BINDING_STORAGE,
    [VKCOL_CUBEMAP_BINDING_TEXELS] = GPU_BINDING_STORAGE,
};
static const gpu_binding_type cubemap_mip_bindings[VKCOL_CUBEMAP_MIP_BINDINGS] = {
    [VKCOL_CUBEMAP_MIP_BINDING_TEXELS] = GPU_BINDING_STORAGE,
};
static const gpu_binding_type approx_bindings[VKCOL_APPROX_BINDINGS] = {
    POOL_BINDINGS,
    [VKCOL_APPROX_BINDING_STATS] = GPU_BINDING_STORAGE,
    [VKCOL_APPROX_BINDING_JOBS] = GPU_BINDING_STORAGE,
    [VKCOL_APPROX_BINDING_JOB_TEXELS] = GPU_BINDING_TEXELS,
    [VKCOL_APPROX_BINDING_JOB_ARGS] = GPU_BINDING_STORAGE,
};
static const gpu_binding_type exact_bindings[VKCOL_EXACT_BINDINGS] = {
    POOL_BINDINGS,
    [VKCOL_EXACT_BINDING_NODES] = GPU_BINDING_TEXELS,
    [VKCOL_EXACT_BINDING_TRIANGLES] = GPU_BINDING_TEXELS,
    [VKCOL_EXACT_BINDING_PIECES] = GPU_BINDING_STORAGE,
    [VKCOL_EXACT_BINDING_STATE] = GPU_BINDING_STORAGE,
    [VKCOL_EXACT_BINDING_FRONTIER_OUT] = GPU_BINDING_STORAGE,
    [VKCOL_EXACT_BINDING_FRONTIER_IN] = GPU_BINDING_TEXELS,
    [VKCOL_EXACT_BINDING_COUNTERS] = GPU_BINDING_STORAGE,
    [VKCOL_EXACT_BINDING_ARGS] = GPU_BINDING_STORAGE,
    [VKCOL_EXACT_BINDING_FRAMES] = GPU_BINDING_STORAGE,
    [VKCOL_EXACT_BINDING_FRAME_TEXELS] = GPU_BINDING_TEXELS,
    [VKCOL_EXACT_BINDING_STATE_TEXELS] = GPU_BINDING_TEXELS,
    [VKCOL_EXACT_BINDING_LIST] = GPU_BINDING_STORAGE,
};

static const gpu_binding_type record_bindings[VKCOL_RECORD_BINDINGS] = {
    [VKCOL_RECORD_BINDING_PAIRS] = GPU_BINDING_STORAGE,  [VKCOL_RECORD_BINDING_MESHES] = GPU_BINDING_STORAGE,
    [VKCOL_RECORD_BINDING_IDS] = GPU_BINDING_STORAGE,    [VKCOL_RECORD_BINDING_STATE] = GPU_BINDING_STORAGE,
    [VKCOL_RECORD_BINDING_RESULTS] = GPU_BINDING_STORAGE,
};

// A pipeline layout: its bindings, cube arrays and push constants.
typedef struct layout {
	const gpu_binding_type *bindings;
	uint32_t binding_count, image_count, push_size;
} layout;

static const layout cubemap_layout = {cubemap_bindings, VKCOL_CUBEMAP_BINDINGS, 0, sizeof(vkcol_cubemap_build_params)};
static const layout cubemap_mip_layout = {cubemap_mip_bindings, VKCOL_CUBEMAP_MIP_BINDINGS, 0,
                                          sizeof(vkcol_cubemap_mip_params)};
static const layout approx_layout = {approx_bindings, VKCOL_APPROX_BINDINGS, VKCOL_MAP_ARRAYS,
                                     sizeof(vkcol_approx_params)};
static const layout exact_layout = {exact_bindings, VKCOL_EXACT_BINDINGS, VKCOL_MAP_ARRAYS,
                                    sizeof(vkcol_exact_params)};
static const layout record_layout = {record_bindings, VKCOL_RECORD_BINDINGS, 0, sizeof(vkcol_record_params)};

vkcol_result pipeline_get(gpu_device *gpu, pipeline_table *t, pipeline_id id, uint32_t map_array, gpu_pipeline **out)
{
	static const struct {
		const shader_code *code;
		const layout *layout;
		const char *name;
		bool samples_maps; // includes map_sample.glsl: one pipeline per shared cube array
	} table[PIPELINE_COUNT] = {
	    [PIPELINE_CUBEMAP_BUILD] = {&shader_cubemap_build, &cubemap_layout, "cubemap_build"},
	    [PIPELINE_CUBEMAP_MIP] = {&shader_cubemap_mip, &cubemap_mip_layout, "cubemap_mip"},
	    [PIPELINE_APPROX] = {&shader_approx_pairs, &approx_layout, "approx_pairs", true},
	    [PIPELINE_APPROX_SPILLED] = {&shader_approx_spilled, &approx_layout, "approx_spilled", true},
	    [PIPELINE_APPROX_SPILLED_LIST] = {&shader_approx_spilled_list, &approx_layout, "approx_spilled_list", true},
	    [PIPELINE_APPROX_GROUPS] = {&shader_approx_groups, &approx_layout, "approx_groups", true},
	    [PIPELINE_APPROX_JOBS] = {&shader_approx_jobs, &approx_layout, "approx_jobs", true},
	    [PIPELINE_EXACT_SETUP] = {&shader_exact_setup, &exact_layout, "exact_setup", true},
	    [PIPELINE_EXACT_ARGS] = {&shader_exact_args, &exact_layout, "exact_args"},
	    [PIPELINE_EXACT_TRAVERSE] = {&shader_exact_traverse, &exact_layout, "exact_traverse"},
	    [PIPELINE_EXACT_DIVE] = {&shader_exact_dive, &exact_layout, "exact_dive"},
	    [PIPELINE_EXACT_CONTAIN] = {&shader_exact_contain, &exact_layout, "exact_contain", true},
	    [PIPELINE_EXACT_LEAVES] = {&shader_exact_leaves, &exact_layout, "exact_leaves"},
	    [PIPELINE_EXACT_SEARCH] = {&shader_exact_search, &exact_layout, "exact_search", true},
	    [PIPELINE_EXACT_TRIANGLES] = {&shader_exact_triangles, &exact_layout, "exact_triangles"},
	    [PIPELINE_EXACT_WALK] = {&shader_exact_walk, &exact_layout, "exact_walk", true},
	    [PIPELINE_EXACT_CONFIRM] = {&shader_exact_confirm, &exact_layout, "exact_confirm"},
	    [PIPELINE_EXACT_TRAVERSE_OBB] = {&shader_exact_traverse_obb, &exact_layout, "exact_traverse (oriented boxes)"},
	    [PIPELINE_EXACT_DIVE_OBB] = {&shader_exact_dive_obb, &exact_layout, "exact_dive (oriented boxes)"},
	    [PIPELINE_EXACT_SETUP_FP64] = {&shader_exact_setup_fp64, &exact_layout, "exact_setup (double)", true},
	    [PIPELINE_EXACT_SEARCH_FP64] = {&shader_exact_search_fp64, &exact_layout, "exact_search (double)", true},
	    [PIPELINE_EXACT_WALK_FP64] = {&shader_exact_walk_fp64, &exact_layout, "exact_walk (double)", true},
	    [PIPELINE_EXACT_CONTAIN_FP64] = {&shader_exact_contain_fp64, &exact_layout, "exact_contain (double)", true},
	    [PIPELINE_EXACT_CONFIRM_FP64] = {&shader_exact_confirm_fp64, &exact_layout, "exact_confirm (double)"},
	    [PIPELINE_RECORD_PREPARE] = {&shader_record, &record_layout, "record_prepare"},
	    [PIPELINE_RECORD_FINISH] = {&shader_record_finish, &record_layout, "record_finish"},
	};
	*out = NULL;
	if ((unsigned)id >= PIPELINE_COUNT || map_array > VKCOL_MAP_ARRAYS)
		return VKCOL_ERROR_INVALID_ARGUMENT;
	bool samples_maps = table[id].samples_maps;
	if (!samples_maps)
		map_array = 0;
	gpu_pipeline *p = &t->pipes[id][map_array];
	if (!p->pipeline) {
		const layout *l = table[id].layout;
		const uint32_t values[2] = {VKCOL_WORKGROUP_SIZE, map_array};
		const VkSpecializationMapEntry entries[2] = {{0, 0, 4}, {VKCOL_SPEC_MAP_ARRAY, 4, 4}};
		// Only the workgroup size for the pipelines that sample no map.
		const VkSpecializationInfo spec = {samples_maps ? 2u : 1u, entries, sizeof(values), values};
		gpu_pipeline_desc desc = {
		    .spirv = table[id].code->code,
		    .spirv_size = table[id].code->size,
		    .bindings = l->bindings,
		    .binding_count = l->binding_count,
		    .image_count = l->image_count,
		    .push_constant_size = l->push_size,
		    .specialization = &spec,
		    .name = table[id].name,
		};
		vkcol_result res = gpu_pipeline_create(gpu, &desc, p);
		if (res != VKCOL_SUCCESS)
			return res;
	}
	*out = p;
	return VKCOL_SUCCESS;
}
