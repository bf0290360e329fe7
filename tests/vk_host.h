// SPDX-License-Identifier: MIT
// A minimal Vulkan host that plays the renderer for the recorded-query tests
// (test_record.c) and benchmark (bench/bench_record.c): its own instance
// (with the validation layer, synchronization validation included, and a
// messenger that counts and prints every warning or error), a device with a
// compute queue (synchronization2 and shaderFloat64 when asked for and
// offered), host-visible buffers, one-shot command buffers, and the
// vkcol_external_device that hands it to the library. Uses volk's global
// function pointers: one device per process.
#pragma once

#include <volk.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <vkcollide.h>

typedef struct vk_host_options {
	bool validation;      // the Khronos layer with synchronization validation
	bool synchronization2; // enable it when the device offers it (Vulkan 1.3)
	bool float64;          // enable shaderFloat64 when offered
} vk_host_options;

typedef struct vk_host {
	VkInstance instance;
	VkPhysicalDevice physical_device;
	VkDevice device;
	uint32_t family;
	VkQueue queue;
	VkCommandPool pool;
	VkFence fence;
	VkDebugUtilsMessengerEXT messenger;
	bool synchronization2, float64;
	uint32_t api_version;
	VkPhysicalDeviceProperties props;
	VkPhysicalDeviceMemoryProperties memory;
	uint64_t messages; // validation warnings and errors seen
} vk_host;

typedef struct vk_host_buffer {
	VkBuffer buffer;
	VkDeviceMemory memory;
	void *mapped; // host-visible and coherent
	VkDeviceSize size;
} vk_host_buffer;

static VKAPI_ATTR VkBool32 VKAPI_CALL vk_host_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                      VkDebugUtilsMessageTypeFlagsEXT types,
                                                      const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
	(void)severity;
	(void)types;
	vk_host *h = user;
	h->messages++;
	fprintf(stderr, "validation: %s\n", data && data->pMessage ? data->pMessage : "(no message)");
	return VK_FALSE;
}

static inline bool vk_host_create(vk_host *h, const vk_host_options *o)
{
	memset(h, 0, sizeof(*h));
	if (volkInitialize() != VK_SUCCESS)
		return false;
	uint32_t loader = VK_API_VERSION_1_1;
	if (vkEnumerateInstanceVersion)
		vkEnumerateInstanceVersion(&loader);
	VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	                         .apiVersion = loader >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_1};
	const VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
	VkValidationFeaturesEXT features = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
	                                    .enabledValidationFeatureCount = 1,
	                                    .pEnabledValidationFeatures = enables};
	VkDebugUtilsMessengerCreateInfoEXT messenger = {
	    .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
	    .pNext = &features,
	    .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
	    .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
	    .pfnUserCallback = vk_host_message,
	    .pUserData = h,
	};
	const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
	const char *extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
	VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
	                           .pNext = o->validation ? &messenger : NULL,
	                           .pApplicationInfo = &app,
	                           .enabledLayerCount = o->validation ? 1 : 0,
	                           .ppEnabledLayerNames = layers,
	                           .enabledExtensionCount = o->validation ? 2 : 0,
	                           .ppEnabledExtensionNames = extensions};
	if (vkCreateInstance(&ii, NULL, &h->instance) != VK_SUCCESS)
		return false;
	volkLoadInstanceOnly(h->instance);
	if (o->validation) {
		messenger.pNext = NULL;
		vkCreateDebugUtilsMessengerEXT(h->instance, &messenger, NULL, &h->messenger);
	}
	uint32_t count = 1;
	VkResult vr = vkEnumeratePhysicalDevices(h->instance, &count, &h->physical_device);
	if ((vr != VK_SUCCESS && vr != VK_INCOMPLETE) || count == 0)
		return false;
	vkGetPhysicalDeviceProperties(h->physical_device, &h->props);
	vkGetPhysicalDeviceMemoryProperties(h->physical_device, &h->memory);
	h->api_version = h->props.apiVersion < app.apiVersion ? h->props.apiVersion : app.apiVersion;
	uint32_t families = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(h->physical_device, &families, NULL);
	VkQueueFamilyProperties props[16];
	families = families > 16 ? 16 : families;
	vkGetPhysicalDeviceQueueFamilyProperties(h->physical_device, &families, props);
	h->family = 0;
	while (h->family < families && !(props[h->family].queueFlags & VK_QUEUE_COMPUTE_BIT))
		h->family++;
	if (h->family == families)
		return false;
	VkPhysicalDeviceVulkan13Features offered13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
	VkPhysicalDeviceFeatures2 offered = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
	                                     .pNext = h->api_version >= VK_API_VERSION_1_3 ? &offered13 : NULL};
	vkGetPhysicalDeviceFeatures2(h->physical_device, &offered);
	h->synchronization2 = o->synchronization2 && offered13.synchronization2;
	h->float64 = o->float64 && offered.features.shaderFloat64;
	VkPhysicalDeviceVulkan13Features enabled13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
	                                              .synchronization2 = h->synchronization2};
	VkPhysicalDeviceFeatures enabled = {.imageCubeArray = VK_TRUE, .shaderFloat64 = h->float64};
	float priority = 1.0f;
	VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	                              .queueFamilyIndex = h->family,
	                              .queueCount = 1,
	                              .pQueuePriorities = &priority};
	VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	                         .pNext = h->synchronization2 ? &enabled13 : NULL,
	                         .queueCreateInfoCount = 1,
	                         .pQueueCreateInfos = &qi,
	                         .pEnabledFeatures = &enabled};
	if (vkCreateDevice(h->physical_device, &di, NULL, &h->device) != VK_SUCCESS)
		return false;
	volkLoadDevice(h->device);
	vkGetDeviceQueue(h->device, h->family, 0, &h->queue);
	VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                              .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
	                              .queueFamilyIndex = h->family};
	VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	return vkCreateCommandPool(h->device, &pi, NULL, &h->pool) == VK_SUCCESS &&
	       vkCreateFence(h->device, &fi, NULL, &h->fence) == VK_SUCCESS;
}

// The host as the library's external device.
static inline vkcol_external_device vk_host_external(const vk_host *h)
{
	vkcol_external_device e = {
	    .instance = h->instance,
	    .physical_device = h->physical_device,
	    .device = h->device,
	    .queue_family_index = h->family,
	    .get_instance_proc_addr = vkGetInstanceProcAddr,
	    .shader_float64 = h->float64,
	    .synchronization2 = h->synchronization2,
	};
	return e;
}

// A host-visible, coherent buffer of `size` bytes, zeroed.
static inline bool vk_host_buffer_create(vk_host *h, VkDeviceSize size, VkBufferUsageFlags usage, vk_host_buffer *out)
{
	memset(out, 0, sizeof(*out));
	VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = usage};
	if (vkCreateBuffer(h->device, &bi, NULL, &out->buffer) != VK_SUCCESS)
		return false;
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(h->device, out->buffer, &req);
	const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	uint32_t type = 0;
	while (type < h->memory.memoryTypeCount &&
	       (!(req.memoryTypeBits & (1u << type)) || (h->memory.memoryTypes[type].propertyFlags & want) != want))
		type++;
	VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                           .allocationSize = req.size,
	                           .memoryTypeIndex = type};
	if (type == h->memory.memoryTypeCount || vkAllocateMemory(h->device, &ai, NULL, &out->memory) != VK_SUCCESS ||
	    vkBindBufferMemory(h->device, out->buffer, out->memory, 0) != VK_SUCCESS ||
	    vkMapMemory(h->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped) != VK_SUCCESS)
		return false;
	out->size = size;
	memset(out->mapped, 0, size);
	return true;
}

static inline void vk_host_buffer_destroy(vk_host *h, vk_host_buffer *b)
{
	if (b->buffer)
		vkDestroyBuffer(h->device, b->buffer, NULL);
	if (b->memory)
		vkFreeMemory(h->device, b->memory, NULL);
	memset(b, 0, sizeof(*b));
}

// A primary command buffer, begun (for resubmission: no one-time flag).
static inline VkCommandBuffer vk_host_begin(vk_host *h)
{
	VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                  .commandPool = h->pool,
	                                  .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                  .commandBufferCount = 1};
	VkCommandBuffer cmd = VK_NULL_HANDLE;
	VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	if (vkAllocateCommandBuffers(h->device, &ai, &cmd) != VK_SUCCESS || vkBeginCommandBuffer(cmd, &bi) != VK_SUCCESS)
		return VK_NULL_HANDLE;
	return cmd;
}

// Submits an ended command buffer and waits for it.
static inline bool vk_host_submit(vk_host *h, VkCommandBuffer cmd)
{
	VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
	return vkResetFences(h->device, 1, &h->fence) == VK_SUCCESS &&
	       vkQueueSubmit(h->queue, 1, &si, h->fence) == VK_SUCCESS &&
	       vkWaitForFences(h->device, 1, &h->fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS;
}

static inline void vk_host_destroy(vk_host *h)
{
	if (h->device) {
		vkDeviceWaitIdle(h->device);
		if (h->fence)
			vkDestroyFence(h->device, h->fence, NULL);
		if (h->pool)
			vkDestroyCommandPool(h->device, h->pool, NULL);
		vkDestroyDevice(h->device, NULL);
	}
	if (h->messenger)
		vkDestroyDebugUtilsMessengerEXT(h->instance, h->messenger, NULL);
	if (h->instance)
		vkDestroyInstance(h->instance, NULL);
	memset(h, 0, sizeof(*h));
}
