// SPDX-License-Identifier: MIT
// The GPU layer's device: the Vulkan loader (through volk), an instance with
// optional validation, the device chosen (or the caller's, in external mode),
// its compute queue, per-device dispatch tables, a command pool and fence for
// one-shot submissions, and the scratch buffers kept between calls. The GPU
// layer (src/gpu/) takes a gpu_device and knows nothing of meshes or batches.
#pragma once

#include <volk.h>

#include "core.h"
#include "gpu/memory.h"

// Instance-level functions, loaded per device through the instance's
// vkGetInstanceProcAddr (never into volk's globals, so devices on different
// instances and loaders coexist).
#define GPU_INSTANCE_FUNCTIONS(X)                    \
	X(vkDestroyInstance)                             \
	X(vkEnumeratePhysicalDevices)                    \
	X(vkGetPhysicalDeviceProperties)                 \
	X(vkGetPhysicalDeviceProperties2)                \
	X(vkGetPhysicalDeviceFeatures)                   \
	X(vkGetPhysicalDeviceFeatures2)                  \
	X(vkGetPhysicalDeviceMemoryProperties)           \
	X(vkGetPhysicalDeviceQueueFamilyProperties)      \
	X(vkGetPhysicalDeviceFormatProperties)           \
	X(vkGetPhysicalDeviceImageFormatProperties)      \
	X(vkEnumerateDeviceExtensionProperties)          \
	X(vkCreateDevice)                                \
	X(vkGetDeviceProcAddr)

typedef struct gpu_instance_table {
#define GPU_DECLARE_FN(name) PFN_##name name;
	GPU_INSTANCE_FUNCTIONS(GPU_DECLARE_FN)
#undef GPU_DECLARE_FN
	PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT;   // NULL without validation
	PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT; // NULL without validation
	PFN_vkSetDebugUtilsObjectNameEXT vkSetDebugUtilsObjectNameEXT;       // NULL without validation
} gpu_instance_table;

struct gpu_device {
	const core_env *env; // the owner's allocator and logger; outlives the device
	bool external;       // instance and device belong to the caller

	PFN_vkGetInstanceProcAddr get_instance_proc_addr;
	VkInstance instance;
	VkPhysicalDevice physical_device;
	VkDevice device;
	uint32_t queue_family;
	VkQueue queue;
	gpu_instance_table vki;
	struct VolkDeviceTable vk;

	VkDebugUtilsMessengerEXT messenger;
	uint64_t validation_messages;

	// shaderFloat64 is enabled: shaders may compute in double.
	bool float64;
	uint32_t instance_version; // the apiVersion of the library's own instance (0 for an external one)
	bool synchronization2;     // the synchronization2 feature is enabled
	// With synchronization2: barriers are recorded with this
	// vkCmdPipelineBarrier2 (core 1.3 or the KHR extension's); NULL: with
	// vkCmdPipelineBarrier (gpu_barrier, gpu/memory.h).
	PFN_vkCmdPipelineBarrier2 barrier2;

	VkPhysicalDeviceProperties props;
	VkPhysicalDeviceMemoryProperties memory_props;
	uint32_t subgroup_size;
	vkcol_device_info info;

	VkCommandPool command_pool; // for one-shot submissions (gpu_begin_once)
	VkFence fence;

	gpu_scratch scratch[GPU_SCRATCH_SLOTS]; // buffers kept between calls (gpu/memory.h)
	// Device memory allocated now and the most since the last reset
	// (gpu_memory_count; vkcol_batch_stats.device_bytes).
	uint64_t memory_bytes, memory_peak;
	uint64_t scratch_created;               // buffers gpu_scratch_get has created (tests)
};

// Creates the device desc asks for: the caller's (desc->external) or one of
// the library's own instance (desc->device or VKCOLLIDE_DEVICE chooses it,
// desc->validation or VKCOLLIDE_VALIDATION enables the validation layer).
// env must outlive the device. On failure the device is left for
// gpu_device_destroy.
vkcol_result gpu_device_create(gpu_device *gpu, const core_env *env, const vkcol_context_desc *desc);
// Waits until an own device is idle; not an external one, which may be busy
// with the caller's work (the library's own submissions are all waited for
// before the call that made them returns).
void gpu_device_wait_idle(gpu_device *gpu);
// Frees the scratch buffers, fence and command pool, and the device and
// instance unless they are the caller's (gpu_device_wait_idle first).
// Accepts a zeroed or partly created device.
void gpu_device_destroy(gpu_device *gpu);

// Lists the devices of a fresh instance (without validation) into infos (up
// to capacity) and their number into *count; *chosen (when not NULL) gets
// the index gpu_device_create would choose for `want` (as
// vkcol_context_desc.device), or UINT32_MAX.
vkcol_result gpu_enumerate_devices(const core_env *env, const char *want, vkcol_device_info *infos, uint32_t capacity,
                                   uint32_t *count, uint32_t *chosen);

// Gives a Vulkan object a debug name (no-op without validation).
void gpu_set_name(const gpu_device *gpu, VkObjectType type, uint64_t handle, const char *name);

// Maps a VkResult to the library's result enum, and names it.
vkcol_result gpu_result_from_vk(VkResult vr);
const char *gpu_vk_string(VkResult vr);

// Calls a Vulkan function; on failure logs the call, file and line, stores the
// mapped result in `res` (a vkcol_result variable in scope) and jumps to
// `cleanup`. One cleanup label per function (CONTRIBUTING.md).
#define VK_TRY(env, call)                                                                  \
	do {                                                                                   \
		VkResult vk_try_result_ = (call);                                                  \
		if (vk_try_result_ != VK_SUCCESS) {                                                \
			core_log((env), VKCOL_LOG_ERROR, "%s:%d: %s failed: %s", __FILE__, __LINE__, #call, \
			         gpu_vk_string(vk_try_result_));                                       \
			res = gpu_result_from_vk(vk_try_result_);                                      \
			goto cleanup;                                                                  \
		}                                                                                  \
	} while (0)
