// SPDX-License-Identifier: MIT
// Compute pipelines from SPIR-V embedded in the library at build time.
#pragma once

#include "memory.h"

typedef struct gpu_pipeline_desc {
	const uint32_t *spirv;
	size_t spirv_size;             // bytes
	uint32_t storage_buffer_count; // bindings 0 .. n-1 of set 0, all storage buffers
	uint32_t push_constant_size;   // bytes, 0 = none
	// > 0: binding storage_buffer_count is an array of this many combined
	// image samplers (the cube maps), sampled with the context's sampler.
	uint32_t image_count;
	// Then this many uniform texel buffers (read-only pools fetched with
	// texelFetch), at the bindings after the images (or after the storage
	// buffers when there are none).
	uint32_t texel_buffer_count;
	const VkSpecializationInfo *specialization; // NULL = workgroup size VKCOL_WORKGROUP_SIZE at constant_id 0
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

vkcol_result gpu_pipeline_create(vkcol_context *ctx, const gpu_pipeline_desc *desc, gpu_pipeline *out);
// Accepts a zeroed pipeline.
void gpu_pipeline_destroy(vkcol_context *ctx, gpu_pipeline *pipeline);

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
vkcol_result gpu_pipeline_bind(vkcol_context *ctx, gpu_pipeline *pipeline, const gpu_binding *bindings,
                               const VkImageView *views, VkSampler sampler, VkDescriptorSet *out);

// count sets (at most GPU_PIPELINE_BIND_MAX) allocated together, set i
// written from bindings[i] as gpu_pipeline_bind writes one: a pool reset
// on exhaustion frees none of them, so they may be used together.
#define GPU_PIPELINE_BIND_MAX 4
vkcol_result gpu_pipeline_bind_sets(vkcol_context *ctx, gpu_pipeline *pipeline, uint32_t count,
                                    const gpu_binding *const *bindings, const VkImageView *views, VkSampler sampler,
                                    VkDescriptorSet *out);

// The library's pipelines, created on first use and cached in the context.
typedef enum pipeline_id {
	PIPELINE_CUBEMAP_BUILD,
	PIPELINE_CUBEMAP_MIP,
	PIPELINE_APPROX,
	PIPELINE_APPROX_SPILLED,
	PIPELINE_APPROX_GROUPS,
	PIPELINE_APPROX_JOBS,
	PIPELINE_SAMPLE_RAW,
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
	// The exact pipelines whose shaders work in double, for devices with
	// shaderFloat64 (pipeline_exact picks them).
	PIPELINE_EXACT_SETUP_FP64,
	PIPELINE_EXACT_SEARCH_FP64,
	PIPELINE_EXACT_WALK_FP64,
	PIPELINE_EXACT_CONTAIN_FP64,
	PIPELINE_EXACT_CONFIRM_FP64,
	PIPELINE_COUNT
} pipeline_id;

// Exact mode's pipelines read eight uniform texel buffers after their 14
// storage buffers and the cube maps (exact_common.glsl): the node, vertex
// and triangle pools, the pair frames, the frontier a level reads, the
// pairs, the mesh records and the cluster pool.
#define EXACT_TEXEL_BUFFERS 8
// Approx mode's four read five after their 8 storage buffers and the cube
// maps (approx_common.glsl): the pairs, the mesh records, the vertex and
// cluster pools and the job lists.
#define APPROX_TEXEL_BUFFERS 5

vkcol_result pipeline_get(vkcol_context *ctx, pipeline_id id, gpu_pipeline **out);

// The id of exact mode's pipeline `id` for this device: its double variant
// where the context runs exact mode in double (shaderFloat64), else id.
pipeline_id pipeline_exact(const vkcol_context *ctx, pipeline_id id);
// The pipelines whose shaders sample the cube maps (approx mode's four and
// exact mode's setup pass): specialized for map_array, the cube array every
// map of the batch lies in, or VKCOL_MAP_ARRAYS when the batch mixes them.
// Other ids ignore map_array.
vkcol_result pipeline_get_for_maps(vkcol_context *ctx, pipeline_id id, uint32_t map_array, gpu_pipeline **out);

// Records bind + push constants + dispatch of group_count workgroups, split
// into a 2D grid when group_count exceeds maxComputeWorkGroupCount[0].
// Shaders recover the linear group index as gl_WorkGroupID.y * gl_NumWorkGroups.x
// + gl_WorkGroupID.x and must bounds-check.
void gpu_pipeline_dispatch(vkcol_context *ctx, VkCommandBuffer cmd, const gpu_pipeline *pipeline,
                           VkDescriptorSet set, const void *push, uint32_t group_count);
