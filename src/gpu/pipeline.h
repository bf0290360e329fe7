// SPDX-License-Identifier: MIT
// GPU layer: a compute pipeline from SPIR-V, its descriptor sets, and its
// dispatch (2D past maxComputeWorkGroupCount).
#pragma once

#include "gpu/memory.h"

// Bindings per set, and images in a binding of sampled images, at most.
#define GPU_PIPELINE_BINDINGS_MAX 24
#define GPU_PIPELINE_IMAGES_MAX 16

// What a binding of set 0 holds.
typedef enum gpu_binding_type {
	GPU_BINDING_STORAGE = 1, // a storage buffer (a range of one)
	GPU_BINDING_TEXELS,      // a uniform texel buffer: a buffer's RGBA32UI view (gpu_buffer.texels)
	GPU_BINDING_IMAGES,      // image_count combined image samplers, sampled with one sampler
} gpu_binding_type;

typedef struct gpu_pipeline_desc {
	const uint32_t *spirv;
	size_t spirv_size; // bytes
	// Binding i of set 0 has type bindings[i]; binding_count of them, at most
	// GPU_PIPELINE_BINDINGS_MAX.
	const gpu_binding_type *bindings;
	uint32_t binding_count;
	uint32_t image_count;         // images of the GPU_BINDING_IMAGES binding (at most one such binding)
	uint32_t push_constant_size;  // bytes, 0 = none
	const VkSpecializationInfo *specialization; // NULL = none
	const char *name;             // debug name and log messages
} gpu_pipeline_desc;

typedef struct gpu_pipeline {
	VkDescriptorSetLayout set_layout;
	VkPipelineLayout layout;
	VkPipeline pipeline;
	VkDescriptorPool pool; // sets for this pipeline
	gpu_binding_type bindings[GPU_PIPELINE_BINDINGS_MAX];
	uint32_t binding_count;
	uint32_t image_count;
	uint32_t push_constant_size;
} gpu_pipeline;

vkcol_result gpu_pipeline_create(gpu_device *gpu, const gpu_pipeline_desc *desc, gpu_pipeline *out);
// Accepts a zeroed pipeline.
void gpu_pipeline_destroy(gpu_device *gpu, gpu_pipeline *pipeline);

// What one binding gets: a range of a buffer (range 0 = the whole buffer)
// for a storage binding; the buffer's texel view for a texel binding (offset
// and range unused); nothing for the images (they come as views).
typedef struct gpu_binding {
	const gpu_buffer *buffer;
	VkDeviceSize offset;
	VkDeviceSize range;
} gpu_binding;

// Allocates a descriptor set from the pipeline's pool and writes binding i
// from bindings[i] (binding_count entries, indexed by binding number), and
// the image binding from views (image_count of them, sampled through
// sampler). Sets are freed with the pipeline; when the pool is exhausted it
// is reset, which invalidates earlier sets: callers keep at most
// GPU_PIPELINE_SETS sets of one pipeline in use at a time.
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

// A descriptor pool of one's own, for sets that outlive the pipelines'
// pools' resets (a vkcol_gpu_batch's): room for set_counts[i] sets of the
// layout of layouts[i] (any pipeline of that layout), i < layout_count.
// Destroyed by its owner (vkDestroyDescriptorPool).
vkcol_result gpu_set_pool_create(gpu_device *gpu, const gpu_pipeline *const *layouts, const uint32_t *set_counts,
                                 uint32_t layout_count, VkDescriptorPool *out);

// As gpu_pipeline_bind_sets, from `pool` (gpu_set_pool_create), which is
// never reset here: running out of room is an error.
vkcol_result gpu_pipeline_bind_in(gpu_device *gpu, const gpu_pipeline *pipeline, VkDescriptorPool pool, uint32_t count,
                                  const gpu_binding *const *bindings, const VkImageView *views, VkSampler sampler,
                                  VkDescriptorSet *out);

// Where an indirect dispatch's VkDispatchIndirectCommand lies.
typedef struct gpu_indirect {
	VkBuffer buffer;
	VkDeviceSize offset;
} gpu_indirect;

// Records bind + push constants + dispatch of group_count workgroups, split
// into a 2D grid when group_count exceeds maxComputeWorkGroupCount[0].
// Shaders recover the linear group index as gl_WorkGroupID.y * gl_NumWorkGroups.x
// + gl_WorkGroupID.x and must bounds-check.
void gpu_pipeline_dispatch(gpu_device *gpu, VkCommandBuffer cmd, const gpu_pipeline *pipeline,
                           VkDescriptorSet set, const void *push, uint32_t group_count);

// Records bind + push constants + an indirect dispatch from `args`.
void gpu_pipeline_dispatch_indirect(gpu_device *gpu, VkCommandBuffer cmd, const gpu_pipeline *pipeline,
                                    VkDescriptorSet set, const void *push, gpu_indirect args);
