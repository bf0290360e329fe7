// SPDX-License-Identifier: MIT
// GPU layer: a compute pipeline from SPIR-V, its descriptor sets, and its
// dispatch (2D past maxComputeWorkGroupCount).
#pragma once

#include "gpu/memory.h"

#define GPU_PIPELINE_IMAGES_MAX 16

typedef struct gpu_pipeline_desc {
	const uint32_t *spirv;
	size_t spirv_size;             // bytes
	uint32_t storage_buffer_count; // bindings 0 .. n-1 of set 0, all storage buffers
	uint32_t push_constant_size;   // bytes, 0 = none
	// > 0: binding storage_buffer_count is an array of this many (at most
	// GPU_PIPELINE_IMAGES_MAX) combined image samplers, sampled with the sampler given to gpu_pipeline_bind.
	uint32_t image_count;
	// Then this many uniform texel buffers (read-only pools fetched with
	// texelFetch), at the bindings after the images (or after the storage
	// buffers when there are none).
	uint32_t texel_buffer_count;
	const VkSpecializationInfo *specialization; // NULL = none
	const char *name;              // debug name and log messages
} gpu_pipeline_desc;

typedef struct gpu_pipeline {
	VkDescriptorSetLayout set_layout;
	VkPipelineLayout layout;
	VkPipeline pipeline;
	VkDescriptorPool pool; // sets for this pipeline
	uint32_t storage_buffer_count;
	uint32_t image_count;
	uint32_t texel_buffer_count;
	uint32_t push_constant_size;
} gpu_pipeline;

vkcol_result gpu_pipeline_create(gpu_device *gpu, const gpu_pipeline_desc *desc, gpu_pipeline *out);
// Accepts a zeroed pipeline.
void gpu_pipeline_destroy(gpu_device *gpu, gpu_pipeline *pipeline);

// A range of a buffer bound to one binding; range 0 = whole buffer. Entries
// past the storage buffers bind their buffer's texel view (offset and range
// unused).
typedef struct gpu_binding {
	const gpu_buffer *buffer;
	VkDeviceSize offset;
	VkDeviceSize range;
} gpu_binding;

// Allocates a descriptor set from the pipeline's pool and writes
// storage_buffer_count buffer bindings (and image_count image views, sampled
// through sampler, when the pipeline has images; then texel_buffer_count
// views, from bindings[storage_buffer_count] on) into it. Sets are freed with
// the pipeline; when the pool is exhausted it is reset, which invalidates
// earlier sets: callers keep at most GPU_PIPELINE_SETS sets of one pipeline
// in use at a time.
#define GPU_PIPELINE_SETS 64
vkcol_result gpu_pipeline_bind(gpu_device *gpu, gpu_pipeline *pipeline, const gpu_binding *bindings,
                               const VkImageView *views, VkSampler sampler, VkDescriptorSet *out);

// count sets (at most GPU_PIPELINE_BIND_MAX) allocated together, set i
// written from bindings[i] as gpu_pipeline_bind writes one: a pool reset
// on exhaustion frees none of them, so they may be used together.
#define GPU_PIPELINE_BIND_MAX 4
vkcol_result gpu_pipeline_bind_sets(gpu_device *gpu, gpu_pipeline *pipeline, uint32_t count,
                                    const gpu_binding *const *bindings, const VkImageView *views, VkSampler sampler,
                                    VkDescriptorSet *out);

// Records bind + push constants + dispatch of group_count workgroups, split
// into a 2D grid when group_count exceeds maxComputeWorkGroupCount[0].
// Shaders recover the linear group index as gl_WorkGroupID.y * gl_NumWorkGroups.x
// + gl_WorkGroupID.x and must bounds-check.
void gpu_pipeline_dispatch(gpu_device *gpu, VkCommandBuffer cmd, const gpu_pipeline *pipeline,
                           VkDescriptorSet set, const void *push, uint32_t group_count);
