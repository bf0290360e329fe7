// SPDX-License-Identifier: MIT
// Compute pipelines from SPIR-V embedded in the library at build time.
#pragma once

#include "memory.h"

typedef struct gpu_pipeline_desc {
	const uint32_t *spirv;
	size_t spirv_size;             // bytes
	uint32_t storage_buffer_count; // bindings 0 .. n-1 of set 0, all storage buffers
	uint32_t push_constant_size;   // bytes, 0 = none
	const VkSpecializationInfo *specialization; // NULL = shader defaults
	const char *name;              // debug name and log messages
} gpu_pipeline_desc;

typedef struct gpu_pipeline {
	VkDescriptorSetLayout set_layout;
	VkPipelineLayout layout;
	VkPipeline pipeline;
	VkDescriptorPool pool; // sets for this pipeline
	uint32_t storage_buffer_count;
	uint32_t push_constant_size;
} gpu_pipeline;

vkcol_result gpu_pipeline_create(vkcol_context *ctx, const gpu_pipeline_desc *desc, gpu_pipeline *out);
// Accepts a zeroed pipeline.
void gpu_pipeline_destroy(vkcol_context *ctx, gpu_pipeline *pipeline);

// A range of a buffer bound to one binding; range 0 = whole buffer.
typedef struct gpu_binding {
	const gpu_buffer *buffer;
	VkDeviceSize offset;
	VkDeviceSize range;
} gpu_binding;

// Allocates a descriptor set from the pipeline's pool and writes
// storage_buffer_count bindings into it. Sets are freed with the pipeline, or
// by gpu_pipeline_reset_sets.
vkcol_result gpu_pipeline_bind(vkcol_context *ctx, gpu_pipeline *pipeline, const gpu_binding *bindings,
                               VkDescriptorSet *out);
vkcol_result gpu_pipeline_reset_sets(vkcol_context *ctx, gpu_pipeline *pipeline);

// Records bind + push constants + dispatch of group_count workgroups, split
// into a 2D grid when group_count exceeds maxComputeWorkGroupCount[0].
// Shaders recover the linear group index as gl_WorkGroupID.y * gl_NumWorkGroups.x
// + gl_WorkGroupID.x and must bounds-check.
void gpu_pipeline_dispatch(vkcol_context *ctx, VkCommandBuffer cmd, const gpu_pipeline *pipeline,
                           VkDescriptorSet set, const void *push, uint32_t group_count);
