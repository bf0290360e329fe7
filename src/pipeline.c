// SPDX-License-Identifier: MIT
#include "pipeline.h"

#include <string.h>

#include "device.h"
#include "shaders.h"

#define SETS_PER_POOL GPU_PIPELINE_SETS

// Bindings per set: the storage buffers, one array of images, the texel
// buffers (one descriptor write each).
#define SET_BINDINGS_MAX 24

vkcol_result gpu_pipeline_create(vkcol_context *ctx, const gpu_pipeline_desc *desc, gpu_pipeline *out)
{
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	VkShaderModule module = VK_NULL_HANDLE;
	VkDescriptorSetLayoutBinding bindings[SET_BINDINGS_MAX];
	memset(out, 0, sizeof(*out));
	if (desc->storage_buffer_count + 1 + desc->texel_buffer_count > CORE_COUNT_OF(bindings) ||
	    desc->spirv_size % 4 != 0 || desc->spirv_size == 0) {
		CORE_ERROR(env, "pipeline %s: bad description", desc->name);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	out->storage_buffer_count = desc->storage_buffer_count;
	out->push_constant_size = desc->push_constant_size;
	out->image_count = desc->image_count;
	out->texel_buffer_count = desc->texel_buffer_count;

	for (uint32_t i = 0; i < desc->storage_buffer_count; i++)
		bindings[i] = (VkDescriptorSetLayoutBinding){
		    .binding = i,
		    .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
		    .descriptorCount = 1,
		    .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		};
	if (desc->image_count)
		bindings[desc->storage_buffer_count] = (VkDescriptorSetLayoutBinding){
		    .binding = desc->storage_buffer_count,
		    .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
		    .descriptorCount = desc->image_count,
		    .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		};
	uint32_t binding_count = desc->storage_buffer_count + (desc->image_count ? 1 : 0);
	for (uint32_t i = 0; i < desc->texel_buffer_count; i++, binding_count++)
		bindings[binding_count] = (VkDescriptorSetLayoutBinding){
		    .binding = binding_count,
		    .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
		    .descriptorCount = 1,
		    .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		};
	VkDescriptorSetLayoutCreateInfo set_info = {
	    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
	    .bindingCount = binding_count,
	    .pBindings = bindings,
	};
	VK_TRY(env, ctx->vk.vkCreateDescriptorSetLayout(ctx->device, &set_info, NULL, &out->set_layout));

	VkPushConstantRange push = {
	    .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
	    .offset = 0,
	    .size = desc->push_constant_size,
	};
	VkPipelineLayoutCreateInfo layout_info = {
	    .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
	    .setLayoutCount = 1,
	    .pSetLayouts = &out->set_layout,
	    .pushConstantRangeCount = desc->push_constant_size ? 1 : 0,
	    .pPushConstantRanges = &push,
	};
	VK_TRY(env, ctx->vk.vkCreatePipelineLayout(ctx->device, &layout_info, NULL, &out->layout));

	VkShaderModuleCreateInfo module_info = {
	    .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
	    .codeSize = desc->spirv_size,
	    .pCode = desc->spirv,
	};
	VK_TRY(env, ctx->vk.vkCreateShaderModule(ctx->device, &module_info, NULL, &module));
	uint32_t workgroup = VKCOL_WORKGROUP_SIZE;
	VkSpecializationMapEntry entry = {.constantID = 0, .offset = 0, .size = 4};
	VkSpecializationInfo default_spec = {1, &entry, 4, &workgroup};
	VkComputePipelineCreateInfo pipeline_info = {
	    .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
	    .stage =
	        {
	            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
	            .stage = VK_SHADER_STAGE_COMPUTE_BIT,
	            .module = module,
	            .pName = "main",
	            .pSpecializationInfo = desc->specialization ? desc->specialization : &default_spec,
	        },
	    .layout = out->layout,
	};
	VK_TRY(env, ctx->vk.vkCreateComputePipelines(ctx->device, VK_NULL_HANDLE, 1, &pipeline_info, NULL, &out->pipeline));
	device_set_name(ctx, VK_OBJECT_TYPE_PIPELINE, (uint64_t)out->pipeline, desc->name);

	if (desc->storage_buffer_count > 0 || desc->image_count > 0 || desc->texel_buffer_count > 0) {
		VkDescriptorPoolSize sizes[3];
		uint32_t size_count = 0;
		if (desc->storage_buffer_count)
			sizes[size_count++] = (VkDescriptorPoolSize){VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			                                             SETS_PER_POOL * desc->storage_buffer_count};
		if (desc->image_count)
			sizes[size_count++] =
			    (VkDescriptorPoolSize){VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, SETS_PER_POOL * desc->image_count};
		if (desc->texel_buffer_count)
			sizes[size_count++] = (VkDescriptorPoolSize){VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
			                                             SETS_PER_POOL * desc->texel_buffer_count};
		VkDescriptorPoolCreateInfo pool_info = {
		    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		    .maxSets = SETS_PER_POOL,
		    .poolSizeCount = size_count,
		    .pPoolSizes = sizes,
		};
		VK_TRY(env, ctx->vk.vkCreateDescriptorPool(ctx->device, &pool_info, NULL, &out->pool));
	}
cleanup:
	if (module)
		ctx->vk.vkDestroyShaderModule(ctx->device, module, NULL);
	if (res != VKCOL_SUCCESS)
		gpu_pipeline_destroy(ctx, out);
	return res;
}

void gpu_pipeline_destroy(vkcol_context *ctx, gpu_pipeline *p)
{
	if (!p)
		return;
	if (p->pool)
		ctx->vk.vkDestroyDescriptorPool(ctx->device, p->pool, NULL);
	if (p->pipeline)
		ctx->vk.vkDestroyPipeline(ctx->device, p->pipeline, NULL);
	if (p->layout)
		ctx->vk.vkDestroyPipelineLayout(ctx->device, p->layout, NULL);
	if (p->set_layout)
		ctx->vk.vkDestroyDescriptorSetLayout(ctx->device, p->set_layout, NULL);
	memset(p, 0, sizeof(*p));
}

// Writes bindings (and views, sampled through sampler) into set.
static void write_set(vkcol_context *ctx, const gpu_pipeline *p, VkDescriptorSet set, const gpu_binding *bindings,
                      const VkImageView *views, VkSampler sampler)
{
	VkDescriptorBufferInfo infos[SET_BINDINGS_MAX];
	VkDescriptorImageInfo image_infos[VKCOL_MAP_ARRAYS];
	VkWriteDescriptorSet writes[SET_BINDINGS_MAX];
	for (uint32_t i = 0; i < p->storage_buffer_count; i++) {
		const gpu_binding *b = &bindings[i];
		infos[i] = (VkDescriptorBufferInfo){
		    .buffer = b->buffer->buffer,
		    .offset = b->offset,
		    .range = b->range ? b->range : VK_WHOLE_SIZE,
		};
		writes[i] = (VkWriteDescriptorSet){
		    .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		    .dstSet = set,
		    .dstBinding = i,
		    .descriptorCount = 1,
		    .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
		    .pBufferInfo = &infos[i],
		};
	}
	uint32_t write_count = p->storage_buffer_count;
	if (p->image_count) {
		for (uint32_t i = 0; i < p->image_count; i++)
			image_infos[i] = (VkDescriptorImageInfo){sampler, views[i], VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
		writes[write_count++] = (VkWriteDescriptorSet){
		    .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		    .dstSet = set,
		    .dstBinding = p->storage_buffer_count,
		    .descriptorCount = p->image_count,
		    .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
		    .pImageInfo = image_infos,
		};
	}
	uint32_t binding = p->storage_buffer_count + (p->image_count ? 1 : 0);
	for (uint32_t i = 0; i < p->texel_buffer_count; i++, binding++)
		writes[write_count++] = (VkWriteDescriptorSet){
		    .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		    .dstSet = set,
		    .dstBinding = binding,
		    .descriptorCount = 1,
		    .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
		    .pTexelBufferView = &bindings[p->storage_buffer_count + i].buffer->texels,
		};
	ctx->vk.vkUpdateDescriptorSets(ctx->device, write_count, writes, 0, NULL);
}

vkcol_result gpu_pipeline_bind_sets(vkcol_context *ctx, gpu_pipeline *p, uint32_t count,
                                    const gpu_binding *const *bindings, const VkImageView *views, VkSampler sampler,
                                    VkDescriptorSet *out)
{
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	VkDescriptorSetLayout layouts[GPU_PIPELINE_BIND_MAX];
	for (uint32_t i = 0; i < count && i < GPU_PIPELINE_BIND_MAX; i++)
		out[i] = VK_NULL_HANDLE;
	if (!p->pool)
		return VKCOL_SUCCESS;
	if (count == 0 || count > GPU_PIPELINE_BIND_MAX || p->image_count > VKCOL_MAP_ARRAYS ||
	    p->storage_buffer_count + 1 + p->texel_buffer_count > SET_BINDINGS_MAX)
		return VKCOL_ERROR_INVALID_ARGUMENT;
	for (uint32_t i = 0; i < count; i++)
		layouts[i] = p->set_layout;
	VkDescriptorSetAllocateInfo alloc = {
	    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
	    .descriptorPool = p->pool,
	    .descriptorSetCount = count,
	    .pSetLayouts = layouts,
	};
	// One allocation for all: a reset of the exhausted pool never frees a
	// set of the same call.
	VkResult vr = ctx->vk.vkAllocateDescriptorSets(ctx->device, &alloc, out);
	if (vr == VK_ERROR_OUT_OF_POOL_MEMORY || vr == VK_ERROR_FRAGMENTED_POOL) {
		VK_TRY(env, ctx->vk.vkResetDescriptorPool(ctx->device, p->pool, 0));
		vr = ctx->vk.vkAllocateDescriptorSets(ctx->device, &alloc, out);
	}
	VK_TRY(env, vr);
	for (uint32_t i = 0; i < count; i++)
		write_set(ctx, p, out[i], bindings[i], views, sampler);
cleanup:
	return res;
}

vkcol_result gpu_pipeline_bind(vkcol_context *ctx, gpu_pipeline *p, const gpu_binding *bindings,
                               const VkImageView *views, VkSampler sampler, VkDescriptorSet *out)
{
	return gpu_pipeline_bind_sets(ctx, p, 1, &bindings, views, sampler, out);
}

void gpu_pipeline_dispatch(vkcol_context *ctx, VkCommandBuffer cmd, const gpu_pipeline *p, VkDescriptorSet set,
                           const void *push, uint32_t group_count)
{
	ctx->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
	if (set)
		ctx->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &set, 0, NULL);
	if (p->push_constant_size && push)
		ctx->vk.vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, p->push_constant_size, push);
	if (group_count == 0)
		return;
	// lavapipe allows 65535 groups per dimension: larger counts go 2D, and the
	// shader discards the invocations past the end of the last row.
	uint32_t max_x = ctx->props.limits.maxComputeWorkGroupCount[0];
	uint32_t x = group_count <= max_x ? group_count : max_x;
	uint32_t y = (group_count + x - 1) / x;
	ctx->vk.vkCmdDispatch(cmd, x, y, 1);
}

pipeline_id pipeline_exact(const vkcol_context *ctx, pipeline_id id)
{
	if (!ctx->float64 || ctx->float64_off)
		return id;
	switch (id) {
	case PIPELINE_EXACT_SETUP: return PIPELINE_EXACT_SETUP_FP64;
	case PIPELINE_EXACT_SEARCH: return PIPELINE_EXACT_SEARCH_FP64;
	case PIPELINE_EXACT_WALK: return PIPELINE_EXACT_WALK_FP64;
	case PIPELINE_EXACT_CONTAIN: return PIPELINE_EXACT_CONTAIN_FP64;
	case PIPELINE_EXACT_CONFIRM: return PIPELINE_EXACT_CONFIRM_FP64;
	default: return id;
	}
}

vkcol_result pipeline_get(vkcol_context *ctx, pipeline_id id, gpu_pipeline **out)
{
	return pipeline_get_for_maps(ctx, id, VKCOL_MAP_ARRAYS, out);
}

vkcol_result pipeline_get_for_maps(vkcol_context *ctx, pipeline_id id, uint32_t map_array, gpu_pipeline **out)
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
	    [PIPELINE_SAMPLE_RAW] = {&shader_sample_raw, 1, sizeof(vkcol_sample_raw_params), 1, "sample_raw"},
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
	gpu_pipeline *p = &ctx->pipelines[id][map_array];
	if (!p->pipeline) {
		const uint32_t values[3] = {VKCOL_WORKGROUP_SIZE, map_array, table[id].variant};
		const VkSpecializationMapEntry entries[3] = {
		    {0, 0, 4}, {VKCOL_SPEC_MAP_ARRAY, 4, 4}, {VKCOL_SPEC_VARIANT, 8, 4}};
		const VkSpecializationInfo spec = {3, entries, sizeof(values), values};
		gpu_pipeline_desc desc = {
		    .spirv = table[id].code->code,
		    .spirv_size = table[id].code->size,
		    .storage_buffer_count = table[id].buffers,
		    .push_constant_size = table[id].push,
		    .image_count = table[id].images,
		    .texel_buffer_count = table[id].texels,
		    .specialization = samples_maps ? &spec : NULL,
		    .name = table[id].name,
		};
		vkcol_result res = gpu_pipeline_create(ctx, &desc, p);
		if (res != VKCOL_SUCCESS)
			return res;
	}
	*out = p;
	return VKCOL_SUCCESS;
}
