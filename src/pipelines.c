// SPDX-License-Identifier: MIT
// The library's pipeline table: each pass's SPIR-V (src/shaders.c), its
// bindings and push constants, and its specialization (workgroup size, the
// batch's cube array, the variant); pipelines are created on first use.
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

vkcol_result pipeline_get(gpu_device *gpu, pipeline_table *t, pipeline_id id, uint32_t map_array, gpu_pipeline **out)
{
	static const struct {
		const shader_code *code;
		uint32_t buffers, push, images;
		const char *name;
		bool samples_maps; // includes map_sample.glsl: one pipeline per shared cube array
		uint32_t variant;  // VKCOL_SPEC_VARIANT (with samples_maps)
		uint32_t texels;   // uniform texel buffers after the images
	} table[PIPELINE_COUNT] = {
	    [PIPELINE_CUBEMAP_BUILD] = {&shader_cubemap_build, 4, sizeof(vkcol_cubemap_build_params), 0, "cubemap_build"},
	    [PIPELINE_CUBEMAP_MIP] = {&shader_cubemap_mip, 1, sizeof(vkcol_cubemap_mip_params), 0, "cubemap_mip"},
	    [PIPELINE_APPROX] = {&shader_approx_pairs, 8, sizeof(vkcol_approx_params), VKCOL_MAP_ARRAYS, "approx_pairs",
	                          true, 0, APPROX_TEXEL_BUFFERS},
	    [PIPELINE_APPROX_SPILLED] = {&shader_approx_pairs, 8, sizeof(vkcol_approx_params), VKCOL_MAP_ARRAYS,
	                                 "approx_pairs (spilled)", true, 1, APPROX_TEXEL_BUFFERS},
	    [PIPELINE_APPROX_GROUPS] = {&shader_approx_groups, 8, sizeof(vkcol_approx_params), VKCOL_MAP_ARRAYS,
	                                "approx_groups", true, 0, APPROX_TEXEL_BUFFERS},
	    [PIPELINE_APPROX_JOBS] = {&shader_approx_jobs, 8, sizeof(vkcol_approx_params), VKCOL_MAP_ARRAYS,
	                              "approx_jobs", true, 0, APPROX_TEXEL_BUFFERS},
	    [PIPELINE_EXACT_SETUP] = {&shader_exact_setup, 14, sizeof(vkcol_exact_params), VKCOL_MAP_ARRAYS,
	                             "exact_setup", true, 0, EXACT_TEXEL_BUFFERS},
	    [PIPELINE_EXACT_ARGS] = {&shader_exact_args, 14, sizeof(vkcol_exact_params), VKCOL_MAP_ARRAYS,
	                             "exact_args", false, 0, EXACT_TEXEL_BUFFERS},
	    [PIPELINE_EXACT_TRAVERSE] = {&shader_exact_traverse, 14, sizeof(vkcol_exact_params), VKCOL_MAP_ARRAYS,
	                             "exact_traverse", false, 0, EXACT_TEXEL_BUFFERS},
	    [PIPELINE_EXACT_DIVE] = {&shader_exact_dive, 14, sizeof(vkcol_exact_params), VKCOL_MAP_ARRAYS,
	                             "exact_dive", false, 0, EXACT_TEXEL_BUFFERS},
	    [PIPELINE_EXACT_CONTAIN] = {&shader_exact_contain, 14, sizeof(vkcol_exact_params), VKCOL_MAP_ARRAYS,
	                             "exact_contain", false, 0, EXACT_TEXEL_BUFFERS},
	    [PIPELINE_EXACT_LEAVES] = {&shader_exact_leaves, 14, sizeof(vkcol_exact_params), VKCOL_MAP_ARRAYS,
	                               "exact_leaves", false, 0, EXACT_TEXEL_BUFFERS},
	    [PIPELINE_EXACT_SEARCH] = {&shader_exact_setup, 14, sizeof(vkcol_exact_params), VKCOL_MAP_ARRAYS,
	                               "exact_setup (search)", true, 1, EXACT_TEXEL_BUFFERS},
	    [PIPELINE_EXACT_TRIANGLES] = {&shader_exact_triangles, 14, sizeof(vkcol_exact_params), VKCOL_MAP_ARRAYS,
	                                  "exact_triangles", false, 0, EXACT_TEXEL_BUFFERS},
	    [PIPELINE_EXACT_WALK] = {&shader_exact_setup, 14, sizeof(vkcol_exact_params), VKCOL_MAP_ARRAYS,
	                             "exact_setup (walk)", true, 2, EXACT_TEXEL_BUFFERS},
	    [PIPELINE_EXACT_CONFIRM] = {&shader_exact_confirm, 14, sizeof(vkcol_exact_params), VKCOL_MAP_ARRAYS,
	                                "exact_confirm", false, 0, EXACT_TEXEL_BUFFERS},
	    [PIPELINE_EXACT_SETUP_FP64] = {&shader_exact_setup_fp64, 14, sizeof(vkcol_exact_params), VKCOL_MAP_ARRAYS,
	                                   "exact_setup (double)", true, 0, EXACT_TEXEL_BUFFERS},
	    [PIPELINE_EXACT_SEARCH_FP64] = {&shader_exact_setup_fp64, 14, sizeof(vkcol_exact_params), VKCOL_MAP_ARRAYS,
	                                    "exact_setup (search, double)", true, 1, EXACT_TEXEL_BUFFERS},
	    [PIPELINE_EXACT_WALK_FP64] = {&shader_exact_setup_fp64, 14, sizeof(vkcol_exact_params), VKCOL_MAP_ARRAYS,
	                                  "exact_setup (walk, double)", true, 2, EXACT_TEXEL_BUFFERS},
	    [PIPELINE_EXACT_CONTAIN_FP64] = {&shader_exact_contain_fp64, 14, sizeof(vkcol_exact_params),
	                                     VKCOL_MAP_ARRAYS, "exact_contain (double)", false, 0, EXACT_TEXEL_BUFFERS},
	    [PIPELINE_EXACT_CONFIRM_FP64] = {&shader_exact_confirm_fp64, 14, sizeof(vkcol_exact_params),
	                                     VKCOL_MAP_ARRAYS, "exact_confirm (double)", false, 0, EXACT_TEXEL_BUFFERS},
	};
	*out = NULL;
	if ((unsigned)id >= PIPELINE_COUNT || map_array > VKCOL_MAP_ARRAYS)
		return VKCOL_ERROR_INVALID_ARGUMENT;
	bool samples_maps = table[id].samples_maps;
	if (!samples_maps)
		map_array = 0;
	gpu_pipeline *p = &t->pipes[id][map_array];
	if (!p->pipeline) {
		const uint32_t values[3] = {VKCOL_WORKGROUP_SIZE, map_array, table[id].variant};
		const VkSpecializationMapEntry entries[3] = {
		    {0, 0, 4}, {VKCOL_SPEC_MAP_ARRAY, 4, 4}, {VKCOL_SPEC_VARIANT, 8, 4}};
		// Only the workgroup size for the pipelines that sample no map.
		const VkSpecializationInfo spec = {samples_maps ? 3u : 1u, entries, sizeof(values), values};
		gpu_pipeline_desc desc = {
		    .spirv = table[id].code->code,
		    .spirv_size = table[id].code->size,
		    .storage_buffer_count = table[id].buffers,
		    .push_constant_size = table[id].push,
		    .image_count = table[id].images,
		    .texel_buffer_count = table[id].texels,
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
