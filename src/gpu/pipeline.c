// SPDX-License-Identifier: MIT
// GPU layer: compute pipelines from SPIR-V (one descriptor set layout, its
// pool, push constants, specialization), descriptor sets written from buffer
// ranges, texel views and sampled images, and dispatches split into a 2D grid
// past maxComputeWorkGroupCount.
#include "gpu/pipeline.h"

#include <string.h>

#include "gpu/device.h"

#define SETS_PER_POOL GPU_PIPELINE_SETS

static VkDescriptorType descriptor_type(gpu_binding_type t)
{
	return t == GPU_BINDING_STORAGE ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
	     : t == GPU_BINDING_TEXELS  ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
	                                : VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
}

vkcol_result gpu_pipeline_create(gpu_device *gpu, const gpu_pipeline_desc *desc, gpu_pipeline *out)
{
	const core_env *env = gpu->env;
	vkcol_result res = VKCOL_SUCCESS;
	VkShaderModule module = VK_NULL_HANDLE;
	VkDescriptorSetLayoutBinding bindings[GPU_PIPELINE_BINDINGS_MAX];
	uint32_t per_type[3] = {0}; // descriptors of each gpu_binding_type in one set
	memset(out, 0, sizeof(*out));
	bool valid = desc->binding_count <= GPU_PIPELINE_BINDINGS_MAX && desc->image_count <= GPU_PIPELINE_IMAGES_MAX &&
	             desc->spirv_size % 4 == 0 && desc->spirv_size > 0;
	for (uint32_t i = 0; valid && i < desc->binding_count; i++) {
		gpu_binding_type t = desc->bindings[i];
		valid = t >= GPU_BINDING_STORAGE && t <= GPU_BINDING_IMAGES && (t != GPU_BINDING_IMAGES || desc->image_count);
		if (valid)
			per_type[t - 1] += t == GPU_BINDING_IMAGES ? desc->image_count : 1;
	}
	if (!valid || per_type[GPU_BINDING_IMAGES - 1] > desc->image_count) {
		CORE_ERROR(env, "pipeline %s: bad description", desc->name);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	memcpy(out->bindings, desc->bindings, desc->binding_count * sizeof(*desc->bindings));
	out->binding_count = desc->binding_count;
	out->push_constant_size = desc->push_constant_size;
	out->image_count = desc->image_count;

	for (uint32_t i = 0; i < desc->binding_count; i++)
		bindings[i] = (VkDescriptorSetLayoutBinding){
		    .binding = i,
		    .descriptorType = descriptor_type(desc->bindings[i]),
		    .descriptorCount = desc->bindings[i] == GPU_BINDING_IMAGES ? desc->image_count : 1,
		    .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		};
	VkDescriptorSetLayoutCreateInfo set_info = {
	    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
	    .bindingCount = desc->binding_count,
	    .pBindings = bindings,
	};
	VK_TRY(env, gpu->vk.vkCreateDescriptorSetLayout(gpu->device, &set_info, NULL, &out->set_layout));

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
	VK_TRY(env, gpu->vk.vkCreatePipelineLayout(gpu->device, &layout_info, NULL, &out->layout));

	VkShaderModuleCreateInfo module_info = {
	    .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
	    .codeSize = desc->spirv_size,
	    .pCode = desc->spirv,
	};
	VK_TRY(env, gpu->vk.vkCreateShaderModule(gpu->device, &module_info, NULL, &module));
	VkComputePipelineCreateInfo pipeline_info = {
	    .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
	    .stage =
	        {
	            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
	            .stage = VK_SHADER_STAGE_COMPUTE_BIT,
	            .module = module,
	            .pName = "main",
	            .pSpecializationInfo = desc->specialization,
	        },
	    .layout = out->layout,
	};
	VK_TRY(env, gpu->vk.vkCreateComputePipelines(gpu->device, VK_NULL_HANDLE, 1, &pipeline_info, NULL, &out->pipeline));
	gpu_set_name(gpu, VK_OBJECT_TYPE_PIPELINE, (uint64_t)out->pipeline, desc->name);

	if (desc->binding_count > 0) {
		VkDescriptorPoolSize sizes[3];
		uint32_t size_count = 0;
		for (gpu_binding_type t = GPU_BINDING_STORAGE; t <= GPU_BINDING_IMAGES; t++)
			if (per_type[t - 1])
				sizes[size_count++] = (VkDescriptorPoolSize){descriptor_type(t), SETS_PER_POOL * per_type[t - 1]};
		VkDescriptorPoolCreateInfo pool_info = {
		    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		    .maxSets = SETS_PER_POOL,
		    .poolSizeCount = size_count,
		    .pPoolSizes = sizes,
		};
		VK_TRY(env, gpu->vk.vkCreateDescriptorPool(gpu->device, &pool_info, NULL, &out->pool));
	}
cleanup:
	if (module)
		gpu->vk.vkDestroyShaderModule(gpu->device, module, NULL);
	if (res != VKCOL_SUCCESS)
		gpu_pipeline_destroy(gpu, out);
	return res;
}

void gpu_pipeline_destroy(gpu_device *gpu, gpu_pipeline *p)
{
	if (!p)
		return;
	if (p->pool)
		gpu->vk.vkDestroyDescriptorPool(gpu->device, p->pool, NULL);
	if (p->pipeline)
		gpu->vk.vkDestroyPipeline(gpu->device, p->pipeline, NULL);
	if (p->layout)
		gpu->vk.vkDestroyPipelineLayout(gpu->device, p->layout, NULL);
	if (p->set_layout)
		gpu->vk.vkDestroyDescriptorSetLayout(gpu->device, p->set_layout, NULL);
	memset(p, 0, sizeof(*p));
}

// Writes bindings (and views, sampled through sampler) into set.
static void write_set(gpu_device *gpu, const gpu_pipeline *p, VkDescriptorSet set, const gpu_binding *bindings,
                      const VkImageView *views, VkSampler sampler)
{
	VkDescriptorBufferInfo infos[GPU_PIPELINE_BINDINGS_MAX];
	VkDescriptorImageInfo image_infos[GPU_PIPELINE_IMAGES_MAX];
	VkWriteDescriptorSet writes[GPU_PIPELINE_BINDINGS_MAX];
	for (uint32_t i = 0; i < p->binding_count; i++) {
		const gpu_binding *b = &bindings[i];
		writes[i] = (VkWriteDescriptorSet){
		    .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		    .dstSet = set,
		    .dstBinding = i,
		    .descriptorCount = 1,
		    .descriptorType = descriptor_type(p->bindings[i]),
		};
		switch (p->bindings[i]) {
		case GPU_BINDING_STORAGE:
			infos[i] = (VkDescriptorBufferInfo){b->buffer->buffer, b->offset, b->range ? b->range : VK_WHOLE_SIZE};
			writes[i].pBufferInfo = &infos[i];
			break;
		case GPU_BINDING_TEXELS:
			writes[i].pTexelBufferView = &b->buffer->texels;
			break;
		case GPU_BINDING_IMAGES:
			for (uint32_t k = 0; k < p->image_count; k++)
				image_infos[k] = (VkDescriptorImageInfo){sampler, views[k], VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
			writes[i].descriptorCount = p->image_count;
			writes[i].pImageInfo = image_infos;
			break;
		}
	}
	gpu->vk.vkUpdateDescriptorSets(gpu->device, p->binding_count, writes, 0, NULL);
}

vkcol_result gpu_set_pool_create(gpu_device *gpu, const gpu_pipeline *const *layouts, const uint32_t *set_counts,
                                 uint32_t layout_count, VkDescriptorPool *out)
{
	const core_env *env = gpu->env;
	vkcol_result res = VKCOL_SUCCESS;
	*out = VK_NULL_HANDLE;
	uint32_t per_type[3] = {0}, sets = 0;
	for (uint32_t i = 0; i < layout_count; i++) {
		const gpu_pipeline *p = layouts[i];
		uint32_t n = p->binding_count ? set_counts[i] : 0;
		sets += n;
		for (uint32_t k = 0; k < p->binding_count; k++)
			per_type[p->bindings[k] - 1] += n * (p->bindings[k] == GPU_BINDING_IMAGES ? p->image_count : 1);
	}
	VkDescriptorPoolSize sizes[3];
	uint32_t size_count = 0;
	for (gpu_binding_type t = GPU_BINDING_STORAGE; t <= GPU_BINDING_IMAGES; t++)
		if (per_type[t - 1])
			sizes[size_count++] = (VkDescriptorPoolSize){descriptor_type(t), per_type[t - 1]};
	VkDescriptorPoolCreateInfo info = {
	    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
	    .maxSets = sets ? sets : 1,
	    .poolSizeCount = size_count,
	    .pPoolSizes = sizes,
	};
	VK_TRY(env, gpu->vk.vkCreateDescriptorPool(gpu->device, &info, NULL, out));
cleanup:
	return res;
}

// Allocates count sets of p's layout from `pool` and writes bindings[i]
// into set i. With `reset_when_full`, an exhausted pool (the pipeline's
// own) is reset and the allocation tried again: one allocation for all, so
// a reset never frees a set of the same call.
static vkcol_result allocate_sets(gpu_device *gpu, const gpu_pipeline *p, VkDescriptorPool pool, bool reset_when_full,
                                  uint32_t count, const gpu_binding *const *bindings, const VkImageView *views,
                                  VkSampler sampler, VkDescriptorSet *out)
{
	const core_env *env = gpu->env;
	vkcol_result res = VKCOL_SUCCESS;
	VkDescriptorSetLayout layouts[GPU_PIPELINE_BIND_MAX];
	if (count == 0 || count > GPU_PIPELINE_BIND_MAX)
		return VKCOL_ERROR_INVALID_ARGUMENT;
	for (uint32_t i = 0; i < count; i++)
		layouts[i] = p->set_layout;
	VkDescriptorSetAllocateInfo alloc = {
	    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
	    .descriptorPool = pool,
	    .descriptorSetCount = count,
	    .pSetLayouts = layouts,
	};
	VkResult vr = gpu->vk.vkAllocateDescriptorSets(gpu->device, &alloc, out);
	if (reset_when_full && (vr == VK_ERROR_OUT_OF_POOL_MEMORY || vr == VK_ERROR_FRAGMENTED_POOL)) {
		VK_TRY(env, gpu->vk.vkResetDescriptorPool(gpu->device, pool, 0));
		vr = gpu->vk.vkAllocateDescriptorSets(gpu->device, &alloc, out);
	}
	VK_TRY(env, vr);
	for (uint32_t i = 0; i < count; i++)
		write_set(gpu, p, out[i], bindings[i], views, sampler);
cleanup:
	return res;
}

vkcol_result gpu_pipeline_bind_in(gpu_device *gpu, const gpu_pipeline *p, VkDescriptorPool pool, uint32_t count,
                                  const gpu_binding *const *bindings, const VkImageView *views, VkSampler sampler,
                                  VkDescriptorSet *out)
{
	for (uint32_t i = 0; i < count && i < GPU_PIPELINE_BIND_MAX; i++)
		out[i] = VK_NULL_HANDLE;
	if (!p->binding_count)
		return VKCOL_SUCCESS;
	return allocate_sets(gpu, p, pool, false, count, bindings, views, sampler, out);
}

vkcol_result gpu_pipeline_bind_sets(gpu_device *gpu, gpu_pipeline *p, uint32_t count,
                                    const gpu_binding *const *bindings, const VkImageView *views, VkSampler sampler,
                                    VkDescriptorSet *out)
{
	for (uint32_t i = 0; i < count && i < GPU_PIPELINE_BIND_MAX; i++)
		out[i] = VK_NULL_HANDLE;
	if (!p->pool)
		return VKCOL_SUCCESS;
	return allocate_sets(gpu, p, p->pool, true, count, bindings, views, sampler, out);
}

vkcol_result gpu_pipeline_bind(gpu_device *gpu, gpu_pipeline *p, const gpu_binding *bindings,
                               const VkImageView *views, VkSampler sampler, VkDescriptorSet *out)
{
	return gpu_pipeline_bind_sets(gpu, p, 1, &bindings, views, sampler, out);
}

void gpu_pipeline_dispatch(gpu_device *gpu, VkCommandBuffer cmd, const gpu_pipeline *p, VkDescriptorSet set,
                           const void *push, uint32_t group_count)
{
	gpu->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
	if (set)
		gpu->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &set, 0, NULL);
	if (p->push_constant_size && push)
		gpu->vk.vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, p->push_constant_size, push);
	if (group_count == 0)
		return;
	// lavapipe allows 65535 groups per dimension: larger counts go 2D, and the
	// shader discards the invocations past the end of the last row.
	uint32_t max_x = gpu->props.limits.maxComputeWorkGroupCount[0];
	uint32_t x = group_count <= max_x ? group_count : max_x;
	uint32_t y = (group_count + x - 1) / x;
	gpu->vk.vkCmdDispatch(cmd, x, y, 1);
}

void gpu_pipeline_dispatch_indirect(gpu_device *gpu, VkCommandBuffer cmd, const gpu_pipeline *p, VkDescriptorSet set,
                                    const void *push, gpu_indirect args)
{
	gpu_pipeline_dispatch(gpu, cmd, p, set, push, 0); // binds only
	gpu->vk.vkCmdDispatchIndirect(cmd, args.buffer, args.offset);
}
