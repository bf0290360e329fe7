// SPDX-License-Identifier: MIT
// The context: Vulkan loader, instance, device choice, queue, per-context
// dispatch tables, validation messenger, and the mesh table.
#pragma once

#include <volk.h>

#include "core.h"
#include "clearance.h"
#include "distance_map.h"
#include "memory.h"
#include "mesh.h"
#include "pipeline.h"

// Instance-level functions, loaded per context through the instance's
// vkGetInstanceProcAddr (never into volk's globals, so contexts on different
// instances and loaders coexist).
#define DEVICE_INSTANCE_FUNCTIONS(X)                 \
	X(vkDestroyInstance)                             \
	X(vkEnumeratePhysicalDevices)                    \
	X(vkGetPhysicalDeviceProperties)                 \
	X(vkGetPhysicalDeviceProperties2)                \
	X(vkGetPhysicalDeviceFeatures)                   \
	X(vkGetPhysicalDeviceMemoryProperties)           \
	X(vkGetPhysicalDeviceQueueFamilyProperties)      \
	X(vkGetPhysicalDeviceFormatProperties)           \
	X(vkGetPhysicalDeviceImageFormatProperties)      \
	X(vkEnumerateDeviceExtensionProperties)          \
	X(vkCreateDevice)                                \
	X(vkGetDeviceProcAddr)

typedef struct instance_table {
#define DEVICE_DECLARE_FN(name) PFN_##name name;
	DEVICE_INSTANCE_FUNCTIONS(DEVICE_DECLARE_FN)
#undef DEVICE_DECLARE_FN
	PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT;   // NULL without validation
	PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT; // NULL without validation
	PFN_vkSetDebugUtilsObjectNameEXT vkSetDebugUtilsObjectNameEXT;       // NULL without validation
} instance_table;

// A slot of the context's mesh table. A vkcol_mesh id packs the slot index + 1
// (low MESH_INDEX_BITS bits) and the slot's generation, so a stale handle to a
// reused slot is detected.
#define MESH_INDEX_BITS 20u
#define MESH_MAX_COUNT ((1u << MESH_INDEX_BITS) - 1u)

typedef struct mesh_gpu {
	gpu_buffer vertices;  // vkcol_gpu_vertex per vertex
	gpu_buffer triangles; // vkcol_gpu_triangle per triangle, tree order
	gpu_buffer nodes;     // vkcol_gpu_node per node, breadth first
} mesh_gpu;

typedef struct mesh_slot {
	uint32_t generation;  // bumped on destroy
	bool used;
	mesh_cpu cpu;
	mesh_gpu gpu;
	uint32_t cube_resolution;
	cube_map cube;
	float *cone_bounds; // VKCOL_CONE_FLOATS, cone_bound.h
	clearance_field clearance;
} mesh_slot;

struct vkcol_context {
	core_env env;
	bool external; // instance and device belong to the caller

	PFN_vkGetInstanceProcAddr get_instance_proc_addr;
	VkInstance instance;
	VkPhysicalDevice physical_device;
	VkDevice device;
	uint32_t queue_family;
	VkQueue queue;
	instance_table vki;
	struct VolkDeviceTable vk;

	VkDebugUtilsMessengerEXT messenger;
	uint64_t validation_messages;

	// The device has shaderFloat64 enabled: exact mode's last triangle test
	// runs in double (tri_distance.glsl).
	bool float64;

	VkPhysicalDeviceProperties props;
	VkPhysicalDeviceMemoryProperties memory_props;
	uint32_t subgroup_size;
	vkcol_device_info info;

	VkCommandPool command_pool; // for the library's own one-shot submissions
	VkFence fence;

	mesh_slot *meshes;
	uint32_t mesh_capacity;

	// Created on first use. The shaders that sample the cube maps have one
	// pipeline per shared cube array (index < VKCOL_MAP_ARRAYS) and one for
	// batches that mix them (VKCOL_MAP_ARRAYS); the others use [id][0].
	gpu_pipeline pipelines[PIPELINE_COUNT][VKCOL_MAP_ARRAYS + 1];
	VkSampler cube_sampler;                 // linear, clamp, nearest mip
	bool cube_support_checked;

	struct batch_pool *pool; // batch-side copies of the meshes (batch.c)
	gpu_scratch scratch[GPU_SCRATCH_SLOTS]; // batches' chunk buffers, kept between calls (memory.h)
	uint64_t scratch_created;               // buffers gpu_scratch_get has created (tests)
	uint32_t frontier_capacity_override; // tests only: > 0 shrinks the exact-mode frontiers
	bool cone_bounds_off;                // tests: approx mode skips no vertex cluster by its cone bound
	bool clearance_off;                  // tests: ... nor by its clearance field (clearance.h)
	uint32_t approx_job_capacity_override;   // tests: > 0 sets approx mode's cluster jobs per chunk
	uint32_t approx_group_capacity_override; // tests: > 0 sets approx mode's group jobs per chunk
	uint32_t traverse_budget_override;   // tests and benchmarks: > 0 sets the depth-first steps per traversal item
	bool float64_off;                    // tests: exact mode runs its float path (as without shaderFloat64)
};

// Loads volk's copy of the loader once per process (thread-safe, idempotent).
vkcol_result device_load_loader(const core_env *env, PFN_vkGetInstanceProcAddr *out);

// Looks a handle up; NULL (and an error logged) when it is zero, stale or out
// of range.
mesh_slot *device_mesh_slot(const vkcol_context *ctx, vkcol_mesh mesh);

// Gives a Vulkan object a debug name (no-op without validation).
void device_set_name(const vkcol_context *ctx, VkObjectType type, uint64_t handle, const char *name);
