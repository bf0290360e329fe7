// SPDX-License-Identifier: MIT
// GPU layer: the Vulkan loader (through volk), an instance with optional
// validation, device choice, queue, per-device dispatch tables; or the
// caller's instance and device in external mode.
#include "gpu/device.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/volk_unit.h"

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

static pthread_once_t loader_once = PTHREAD_ONCE_INIT;
static VkResult loader_result = VK_ERROR_INITIALIZATION_FAILED;

static void load_loader_once(void)
{
	// volkInitialize dlopens libvulkan and sets volk's process-wide global
	// loader entry points; nothing else of volk's global state is used.
	loader_result = volkInitialize();
}

static vkcol_result load_loader(const core_env *env, PFN_vkGetInstanceProcAddr *out)
{
	pthread_once(&loader_once, load_loader_once);
	if (loader_result != VK_SUCCESS || vkGetInstanceProcAddr == NULL) {
		CORE_ERROR(env, "cannot load the Vulkan loader (libvulkan.so.1); on Debian: apt-get install libvulkan1 "
		                "mesa-vulkan-drivers");
		return VKCOL_ERROR_VULKAN_UNAVAILABLE;
	}
	*out = vkGetInstanceProcAddr;
	return VKCOL_SUCCESS;
}

static bool env_flag(const char *name)
{
	const char *v = getenv(name);
	return v && v[0] && strcmp(v, "0") != 0;
}

static void load_instance_table(gpu_instance_table *t, PFN_vkGetInstanceProcAddr gipa, VkInstance instance)
{
#define GPU_LOAD_FN(name) t->name = (PFN_##name)gipa(instance, #name);
	GPU_INSTANCE_FUNCTIONS(GPU_LOAD_FN)
#undef GPU_LOAD_FN
	t->vkCreateDebugUtilsMessengerEXT =
	    (PFN_vkCreateDebugUtilsMessengerEXT)gipa(instance, "vkCreateDebugUtilsMessengerEXT");
	t->vkDestroyDebugUtilsMessengerEXT =
	    (PFN_vkDestroyDebugUtilsMessengerEXT)gipa(instance, "vkDestroyDebugUtilsMessengerEXT");
	t->vkSetDebugUtilsObjectNameEXT = (PFN_vkSetDebugUtilsObjectNameEXT)gipa(instance, "vkSetDebugUtilsObjectNameEXT");
}

static bool instance_table_complete(const gpu_instance_table *t)
{
	bool ok = true;
#define GPU_CHECK_FN(name) ok = ok && t->name != NULL;
	GPU_INSTANCE_FUNCTIONS(GPU_CHECK_FN)
#undef GPU_CHECK_FN
	return ok;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL debug_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                    VkDebugUtilsMessageTypeFlagsEXT types,
                                                    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
	gpu_device *gpu = user;
	(void)types;
	gpu->validation_messages++;
	core_log(gpu->env, (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? VKCOL_LOG_ERROR : VKCOL_LOG_WARNING,
	         "validation: %s", data && data->pMessage ? data->pMessage : "(no message)");
	return VK_FALSE;
}

static VkDebugUtilsMessengerCreateInfoEXT messenger_info(gpu_device *gpu)
{
	VkDebugUtilsMessengerCreateInfoEXT info = {
	    .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
	    .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
	    .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
	    .pfnUserCallback = debug_callback,
	    .pUserData = gpu,
	};
	return info;
}

static bool has_layer(const core_env *env, const char *name)
{
	PFN_vkEnumerateInstanceLayerProperties enumerate =
	    (PFN_vkEnumerateInstanceLayerProperties)vkGetInstanceProcAddr(NULL, "vkEnumerateInstanceLayerProperties");
	uint32_t count = 0;
	if (!enumerate || enumerate(&count, NULL) != VK_SUCCESS || count == 0)
		return false;
	VkLayerProperties *layers = core_calloc(env, count, sizeof(*layers));
	if (!layers)
		return false;
	bool found = false;
	if (enumerate(&count, layers) == VK_SUCCESS)
		for (uint32_t i = 0; i < count && !found; i++)
			found = strcmp(layers[i].layerName, name) == 0;
	core_free(env, layers);
	return found;
}

// Does the loader (layer NULL) or the named layer provide instance
// extension name?
static bool has_instance_extension(const core_env *env, const char *layer, const char *name)
{
	PFN_vkEnumerateInstanceExtensionProperties enumerate =
	    (PFN_vkEnumerateInstanceExtensionProperties)vkGetInstanceProcAddr(NULL, "vkEnumerateInstanceExtensionProperties");
	uint32_t count = 0;
	if (!enumerate || enumerate(layer, &count, NULL) != VK_SUCCESS || count == 0)
		return false;
	VkExtensionProperties *exts = core_calloc(env, count, sizeof(*exts));
	if (!exts)
		return false;
	bool found = false;
	if (enumerate(layer, &count, exts) == VK_SUCCESS)
		for (uint32_t i = 0; i < count && !found; i++)
			found = strcmp(exts[i].extensionName, name) == 0;
	core_free(env, exts);
	return found;
}

// Creates an instance for the library's own use. gpu receives validation
// messages when validate is set (it must then outlive the instance).
static vkcol_result create_instance(gpu_device *gpu, bool validate, VkInstance *out)
{
	const core_env *env = gpu->env;
	vkcol_result res = VKCOL_SUCCESS;
	*out = VK_NULL_HANDLE;

	PFN_vkCreateInstance create = (PFN_vkCreateInstance)vkGetInstanceProcAddr(NULL, "vkCreateInstance");
	PFN_vkEnumerateInstanceVersion version_fn =
	    (PFN_vkEnumerateInstanceVersion)vkGetInstanceProcAddr(NULL, "vkEnumerateInstanceVersion");
	uint32_t loader_version = VK_API_VERSION_1_0;
	if (version_fn)
		version_fn(&loader_version);
	if (!create || loader_version < VK_API_VERSION_1_1) {
		CORE_ERROR(env, "the Vulkan loader supports only Vulkan 1.0; vkcollide needs 1.1");
		return VKCOL_ERROR_VULKAN_UNAVAILABLE;
	}

	const char *layers[1];
	uint32_t layer_count = 0;
	const char *extensions[3];
	uint32_t extension_count = 0;
	VkInstanceCreateFlags flags = 0;
	// Synchronization validation too: a missing barrier is invisible on a
	// driver that runs dispatches one after another (lavapipe), not on a GPU.
	const VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
	VkValidationFeaturesEXT features = {
	    .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
	    .enabledValidationFeatureCount = CORE_COUNT_OF(enables),
	    .pEnabledValidationFeatures = enables,
	};
	VkDebugUtilsMessengerCreateInfoEXT messenger = messenger_info(gpu);
	if (validate) {
		if (!has_layer(env, VALIDATION_LAYER)) {
			CORE_ERROR(env, "validation was requested but the %s layer is not installed (Debian: apt-get install "
			                "vulkan-validationlayers)",
			           VALIDATION_LAYER);
			return VKCOL_ERROR_VULKAN_UNAVAILABLE;
		}
		layers[layer_count++] = VALIDATION_LAYER;
		extensions[extension_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
		if (has_instance_extension(env, VALIDATION_LAYER, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
			extensions[extension_count++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
			messenger.pNext = &features;
		} else {
			CORE_WARN(env, "the validation layer lacks %s: synchronization is not validated",
			          VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
		}
	}
	// Without it the loader hides portability (MoltenVK) devices.
	if (has_instance_extension(env, NULL, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
		extensions[extension_count++] = VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME;
		flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
	}

	VkApplicationInfo app = {
	    .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	    .pApplicationName = "vkcollide",
	    .pEngineName = "vkcollide",
	    .engineVersion = VK_MAKE_API_VERSION(0, VKCOL_VERSION_MAJOR, VKCOL_VERSION_MINOR, VKCOL_VERSION_PATCH),
	    .apiVersion = loader_version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : loader_version,
	};
	gpu->instance_version = app.apiVersion;
	VkInstanceCreateInfo info = {
	    .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
	    .pNext = validate ? &messenger : NULL, // also catches messages of vkCreate/DestroyInstance
	    .flags = flags,
	    .pApplicationInfo = &app,
	    .enabledLayerCount = layer_count,
	    .ppEnabledLayerNames = layers,
	    .enabledExtensionCount = extension_count,
	    .ppEnabledExtensionNames = extensions,
	};
	VK_TRY(env, create(&info, NULL, out));
cleanup:
	if (res != VKCOL_SUCCESS)
		res = res == VKCOL_ERROR_VULKAN ? VKCOL_ERROR_VULKAN_UNAVAILABLE : res;
	return res;
}

static vkcol_device_type map_type(VkPhysicalDeviceType t)
{
	switch (t) {
	case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
		return VKCOL_DEVICE_INTEGRATED_GPU;
	case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
		return VKCOL_DEVICE_DISCRETE_GPU;
	case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
		return VKCOL_DEVICE_VIRTUAL_GPU;
	case VK_PHYSICAL_DEVICE_TYPE_CPU:
		return VKCOL_DEVICE_CPU;
	default:
		return VKCOL_DEVICE_OTHER;
	}
}

// Lower is better: discrete > integrated > virtual > CPU > other.
static int type_rank(vkcol_device_type t)
{
	switch (t) {
	case VKCOL_DEVICE_DISCRETE_GPU:
		return 0;
	case VKCOL_DEVICE_INTEGRATED_GPU:
		return 1;
	case VKCOL_DEVICE_VIRTUAL_GPU:
		return 2;
	case VKCOL_DEVICE_CPU:
		return 3;
	default:
		return 4;
	}
}

// The first queue family with compute, or UINT32_MAX.
static uint32_t compute_family(const core_env *env, const gpu_instance_table *vki, VkPhysicalDevice pd)
{
	uint32_t count = 0;
	vki->vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, NULL);
	VkQueueFamilyProperties *families = core_calloc(env, count, sizeof(*families));
	if (!families)
		return UINT32_MAX;
	vki->vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, families);
	uint32_t found = UINT32_MAX;
	for (uint32_t i = 0; i < count && found == UINT32_MAX; i++)
		if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && families[i].queueCount > 0)
			found = i;
	core_free(env, families);
	return found;
}

static void describe_device(const core_env *env, const gpu_instance_table *vki, VkPhysicalDevice pd, uint32_t index,
                            vkcol_device_info *info)
{
	memset(info, 0, sizeof(*info));
	VkPhysicalDeviceSubgroupProperties subgroup = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
	VkPhysicalDeviceDriverProperties driver = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
	VkPhysicalDeviceProperties basic;
	vki->vkGetPhysicalDeviceProperties(pd, &basic);
	VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &subgroup};
	// Driver properties are core in 1.2 only; older devices leave them zeroed.
	if (basic.apiVersion >= VK_API_VERSION_1_2)
		subgroup.pNext = &driver;
	if (basic.apiVersion >= VK_API_VERSION_1_1)
		vki->vkGetPhysicalDeviceProperties2(pd, &props);
	else
		props.properties = basic;

	info->index = index;
	snprintf(info->name, sizeof(info->name), "%s", props.properties.deviceName);
	info->type = map_type(props.properties.deviceType);
	info->vendor_id = props.properties.vendorID;
	info->device_id = props.properties.deviceID;
	info->api_version = props.properties.apiVersion;
	if (driver.driverName[0])
		snprintf(info->driver, sizeof(info->driver), "%.100s %.150s", driver.driverName, driver.driverInfo);
	info->has_compute_queue = compute_family(env, vki, pd) != UINT32_MAX;
	for (int i = 0; i < 3; i++)
		info->max_workgroup_count[i] = props.properties.limits.maxComputeWorkGroupCount[i];
	info->max_storage_buffer_range = props.properties.limits.maxStorageBufferRange;
	info->max_texel_buffer_elements = props.properties.limits.maxTexelBufferElements;
	info->subgroup_size = subgroup.subgroupSize;

	VkPhysicalDeviceMemoryProperties mem;
	vki->vkGetPhysicalDeviceMemoryProperties(pd, &mem);
	for (uint32_t i = 0; i < mem.memoryHeapCount; i++)
		if ((mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) && mem.memoryHeaps[i].size > info->device_local_bytes)
			info->device_local_bytes = mem.memoryHeaps[i].size;
}

static bool usable(const vkcol_device_info *info)
{
	return info->has_compute_queue && info->api_version >= VK_API_VERSION_1_1;
}

static bool contains_nocase(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *h = haystack; *h; h++) {
		size_t i = 0;
		while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
			i++;
		if (i == n)
			return true;
	}
	return n == 0;
}

// Index of the device to use, or UINT32_MAX (error logged).
static uint32_t choose_device(const core_env *env, const vkcol_device_info *infos, uint32_t count, const char *want)
{
	if (!want || !want[0]) {
		want = getenv("VKCOLLIDE_DEVICE");
		if (want && !want[0])
			want = NULL;
	}
	if (want) {
		char *end = NULL;
		unsigned long index = strtoul(want, &end, 10);
		bool numeric = end != want && *end == '\0';
		for (uint32_t i = 0; i < count; i++) {
			bool match = numeric ? i == index : contains_nocase(infos[i].name, want);
			if (!match)
				continue;
			if (!usable(&infos[i])) {
				CORE_ERROR(env, "device %u (%s) was asked for but has no compute queue or Vulkan 1.1", i, infos[i].name);
				return UINT32_MAX;
			}
			return i;
		}
		CORE_ERROR(env, "no Vulkan device matches \"%s\" (%u device%s; `vkcollide devices` lists them)", want, count,
		           count == 1 ? "" : "s");
		return UINT32_MAX;
	}
	uint32_t best = UINT32_MAX;
	for (uint32_t i = 0; i < count; i++)
		if (usable(&infos[i]) && (best == UINT32_MAX || type_rank(infos[i].type) < type_rank(infos[best].type)))
			best = i;
	if (best == UINT32_MAX)
		CORE_ERROR(env, "no Vulkan device with a compute queue and Vulkan 1.1 (%u device%s found)", count,
		           count == 1 ? "" : "s");
	return best;
}

// Lists the instance's devices into a new array (*infos, *pds).
static vkcol_result list_devices(const core_env *env, const gpu_instance_table *vki, VkInstance instance,
                                 VkPhysicalDevice **pds, vkcol_device_info **infos, uint32_t *count)
{
	vkcol_result res = VKCOL_SUCCESS;
	*pds = NULL;
	*infos = NULL;
	*count = 0;
	uint32_t n = 0;
	VK_TRY(env, vki->vkEnumeratePhysicalDevices(instance, &n, NULL));
	if (n == 0) {
		CORE_ERROR(env, "the Vulkan loader found no device (install a driver; on machines without a GPU: apt-get "
		                "install mesa-vulkan-drivers for lavapipe)");
		return VKCOL_ERROR_NO_DEVICE;
	}
	*pds = core_calloc(env, n, sizeof(**pds));
	*infos = core_calloc(env, n, sizeof(**infos));
	if (!*pds || !*infos) {
		res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		goto cleanup;
	}
	VkResult vr = vki->vkEnumeratePhysicalDevices(instance, &n, *pds);
	if (vr != VK_SUCCESS && vr != VK_INCOMPLETE)
		VK_TRY(env, vr);
	for (uint32_t i = 0; i < n; i++)
		describe_device(env, vki, (*pds)[i], i, &(*infos)[i]);
	*count = n;
cleanup:
	if (res != VKCOL_SUCCESS) {
		core_free(env, *pds);
		core_free(env, *infos);
		*pds = NULL;
		*infos = NULL;
	}
	return res;
}

static vkcol_result create_device(gpu_device *gpu)
{
	const core_env *env = gpu->env;
	vkcol_result res = VKCOL_SUCCESS;
	float priority = 1.0f;
	VkDeviceQueueCreateInfo queue = {
	    .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	    .queueFamilyIndex = gpu->queue_family,
	    .queueCount = 1,
	    .pQueuePriorities = &priority,
	};
	// Batched cube-map tests sample cube-array images.
	VkPhysicalDeviceFeatures supported, enabled = {0};
	gpu->vki.vkGetPhysicalDeviceFeatures(gpu->physical_device, &supported);
	if (!supported.imageCubeArray) {
		CORE_ERROR(env, "device %s lacks the imageCubeArray feature, which batches need", gpu->info.name);
		return VKCOL_ERROR_UNSUPPORTED;
	}
	enabled.imageCubeArray = VK_TRUE;
	// Exact mode's last triangle test runs in double where it can.
	enabled.shaderFloat64 = supported.shaderFloat64;
	gpu->float64 = supported.shaderFloat64;
	// Barriers through synchronization2 where the device (and the instance,
	// created for 1.3 when the loader allows) has it.
	VkPhysicalDeviceVulkan13Features v13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
	if (gpu->info.api_version >= VK_API_VERSION_1_3 && gpu->instance_version >= VK_API_VERSION_1_3) {
		VkPhysicalDeviceFeatures2 all = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &v13};
		gpu->vki.vkGetPhysicalDeviceFeatures2(gpu->physical_device, &all);
	}
	VkPhysicalDeviceVulkan13Features enabled13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
	                                              .synchronization2 = v13.synchronization2};
	VkDeviceCreateInfo info = {
	    .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	    .pNext = v13.synchronization2 ? &enabled13 : NULL,
	    .queueCreateInfoCount = 1,
	    .pQueueCreateInfos = &queue,
	    .pEnabledFeatures = &enabled,
	};
	VK_TRY(env, gpu->vki.vkCreateDevice(gpu->physical_device, &info, NULL, &gpu->device));
	gpu->synchronization2 = v13.synchronization2;
cleanup:
	return res;
}

static vkcol_result finish_setup(gpu_device *gpu, uint32_t queue_index)
{
	const core_env *env = gpu->env;
	vkcol_result res = VKCOL_SUCCESS;
	volk_unit_load_device_table(&gpu->vk, gpu->device, gpu->vki.vkGetDeviceProcAddr);
	if (!gpu->vk.vkCreateBuffer || !gpu->vk.vkCmdDispatch) {
		CORE_ERROR(env, "vkGetDeviceProcAddr returned no core device functions");
		return VKCOL_ERROR_VULKAN;
	}
	if (gpu->synchronization2) {
		gpu->barrier2 = gpu->vk.vkCmdPipelineBarrier2 ? gpu->vk.vkCmdPipelineBarrier2
		                                              : (PFN_vkCmdPipelineBarrier2)gpu->vk.vkCmdPipelineBarrier2KHR;
		if (!gpu->barrier2) {
			CORE_ERROR(env, "synchronization2 is enabled, but the device has neither vkCmdPipelineBarrier2 nor "
			                "vkCmdPipelineBarrier2KHR (a Vulkan 1.3 device, or VK_KHR_synchronization2 enabled)");
			return VKCOL_ERROR_UNSUPPORTED;
		}
	}
	gpu->vk.vkGetDeviceQueue(gpu->device, gpu->queue_family, queue_index, &gpu->queue);
	gpu->vki.vkGetPhysicalDeviceProperties(gpu->physical_device, &gpu->props);
	gpu->vki.vkGetPhysicalDeviceMemoryProperties(gpu->physical_device, &gpu->memory_props);
	describe_device(env, &gpu->vki, gpu->physical_device, gpu->info.index, &gpu->info);
	gpu->subgroup_size = gpu->info.subgroup_size;

	VkCommandPoolCreateInfo pool = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	    .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT | VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
	    .queueFamilyIndex = gpu->queue_family,
	};
	VK_TRY(env, gpu->vk.vkCreateCommandPool(gpu->device, &pool, NULL, &gpu->command_pool));
	VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VK_TRY(env, gpu->vk.vkCreateFence(gpu->device, &fence, NULL, &gpu->fence));
	CORE_INFO(env, "device: %s (%s)", gpu->info.name, gpu->info.driver);
cleanup:
	return res;
}

static vkcol_result create_own(gpu_device *gpu, const vkcol_context_desc *desc)
{
	const core_env *env = gpu->env;
	vkcol_result res = VKCOL_SUCCESS;
	VkPhysicalDevice *pds = NULL;
	vkcol_device_info *infos = NULL;
	uint32_t count = 0;

	TRY(load_loader(env, &gpu->get_instance_proc_addr));
	bool validate = desc->validation == VKCOL_VALIDATION_ON ||
	                (desc->validation == VKCOL_VALIDATION_DEFAULT && env_flag("VKCOLLIDE_VALIDATION"));
	TRY(create_instance(gpu, validate, &gpu->instance));
	load_instance_table(&gpu->vki, gpu->get_instance_proc_addr, gpu->instance);
	if (!instance_table_complete(&gpu->vki)) {
		CORE_ERROR(env, "the Vulkan loader lacks core 1.1 instance functions");
		res = VKCOL_ERROR_VULKAN_UNAVAILABLE;
		goto cleanup;
	}
	if (validate && gpu->vki.vkCreateDebugUtilsMessengerEXT) {
		VkDebugUtilsMessengerCreateInfoEXT info = messenger_info(gpu);
		VK_TRY(env, gpu->vki.vkCreateDebugUtilsMessengerEXT(gpu->instance, &info, NULL, &gpu->messenger));
	}
	TRY(list_devices(env, &gpu->vki, gpu->instance, &pds, &infos, &count));
	uint32_t chosen = choose_device(env, infos, count, desc->device);
	if (chosen == UINT32_MAX) {
		res = VKCOL_ERROR_NO_DEVICE;
		goto cleanup;
	}
	gpu->physical_device = pds[chosen];
	gpu->info = infos[chosen];
	gpu->queue_family = compute_family(env, &gpu->vki, gpu->physical_device);
	TRY(create_device(gpu));
	TRY(finish_setup(gpu, 0));
cleanup:
	core_free(env, pds);
	core_free(env, infos);
	return res;
}

static vkcol_result create_external(gpu_device *gpu, const vkcol_external_device *ext)
{
	const core_env *env = gpu->env;
	if (!ext->instance || !ext->physical_device || !ext->device || !ext->get_instance_proc_addr) {
		CORE_ERROR(env, "external device: instance, physical_device, device and get_instance_proc_addr are required");
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	gpu->external = true;
	gpu->get_instance_proc_addr = ext->get_instance_proc_addr;
	gpu->instance = ext->instance;
	gpu->physical_device = ext->physical_device;
	gpu->device = ext->device;
	gpu->queue_family = ext->queue_family_index;
	load_instance_table(&gpu->vki, gpu->get_instance_proc_addr, gpu->instance);
	if (!instance_table_complete(&gpu->vki)) {
		CORE_ERROR(env, "external device: get_instance_proc_addr returned no core 1.1 instance functions");
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	uint32_t family_count = 0;
	gpu->vki.vkGetPhysicalDeviceQueueFamilyProperties(gpu->physical_device, &family_count, NULL);
	VkQueueFamilyProperties *families = core_calloc(env, family_count ? family_count : 1, sizeof(*families));
	if (!families)
		return VKCOL_ERROR_OUT_OF_HOST_MEMORY;
	gpu->vki.vkGetPhysicalDeviceQueueFamilyProperties(gpu->physical_device, &family_count, families);
	bool ok = ext->queue_family_index < family_count &&
	          (families[ext->queue_family_index].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
	          ext->queue_index < families[ext->queue_family_index].queueCount;
	core_free(env, families);
	if (!ok) {
		CORE_ERROR(env, "external device: queue family %u, queue %u does not exist or has no compute",
		           ext->queue_family_index, ext->queue_index);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	// What the physical device offers; whether the caller enabled it cannot
	// be queried (the validation layer reports its use).
	VkPhysicalDeviceProperties props;
	gpu->vki.vkGetPhysicalDeviceProperties(gpu->physical_device, &props);
	if (props.apiVersion < VK_API_VERSION_1_1) {
		CORE_ERROR(env, "external device: %s offers Vulkan %u.%u; the library needs Vulkan 1.1", props.deviceName,
		           VK_API_VERSION_MAJOR(props.apiVersion), VK_API_VERSION_MINOR(props.apiVersion));
		return VKCOL_ERROR_UNSUPPORTED;
	}
	VkPhysicalDeviceFeatures supported;
	gpu->vki.vkGetPhysicalDeviceFeatures(gpu->physical_device, &supported);
	if (!supported.imageCubeArray) {
		CORE_ERROR(env, "external device: %s lacks the imageCubeArray feature, which batches need (cube-array "
		                "images)",
		           props.deviceName);
		return VKCOL_ERROR_UNSUPPORTED;
	}
	if (ext->shader_float64 && !supported.shaderFloat64) {
		CORE_ERROR(env, "external device: shader_float64 is set, but %s lacks the shaderFloat64 feature",
		           props.deviceName);
		return VKCOL_ERROR_UNSUPPORTED;
	}
	if (ext->synchronization2) {
		VkPhysicalDeviceSynchronization2Features sync2 = {
		    .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES};
		VkPhysicalDeviceFeatures2 all = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &sync2};
		gpu->vki.vkGetPhysicalDeviceFeatures2(gpu->physical_device, &all);
		if (!sync2.synchronization2) {
			CORE_ERROR(env, "external device: synchronization2 is set, but %s lacks the synchronization2 feature",
			           props.deviceName);
			return VKCOL_ERROR_UNSUPPORTED;
		}
	}
	gpu->float64 = ext->shader_float64;
	gpu->synchronization2 = ext->synchronization2;
	// The library never touches the caller's instance-level debug state;
	// validation of external devices is the caller's.
	return finish_setup(gpu, ext->queue_index);
}

vkcol_result gpu_device_create(gpu_device *gpu, const core_env *env, const vkcol_context_desc *desc)
{
	memset(gpu, 0, sizeof(*gpu));
	gpu->env = env;
	return desc->external ? create_external(gpu, desc->external) : create_own(gpu, desc);
}

void gpu_device_wait_idle(gpu_device *gpu)
{
	// An external device may be busy with the caller's work, which is not
	// ours to wait for; our own submissions have all been waited for.
	if (gpu->device && !gpu->external)
		gpu->vk.vkDeviceWaitIdle(gpu->device);
}

void gpu_device_destroy(gpu_device *gpu)
{
	if (gpu->device) {
		gpu_device_wait_idle(gpu);
		gpu_scratch_free_all(gpu);
		if (gpu->fence)
			gpu->vk.vkDestroyFence(gpu->device, gpu->fence, NULL);
		if (gpu->command_pool)
			gpu->vk.vkDestroyCommandPool(gpu->device, gpu->command_pool, NULL);
		if (!gpu->external)
			gpu->vk.vkDestroyDevice(gpu->device, NULL);
	}
	if (!gpu->external && gpu->instance) {
		if (gpu->messenger)
			gpu->vki.vkDestroyDebugUtilsMessengerEXT(gpu->instance, gpu->messenger, NULL);
		PFN_vkDestroyInstance destroy =
		    gpu->vki.vkDestroyInstance
		        ? gpu->vki.vkDestroyInstance
		        : (PFN_vkDestroyInstance)gpu->get_instance_proc_addr(gpu->instance, "vkDestroyInstance");
		destroy(gpu->instance, NULL);
	}
	memset(gpu, 0, sizeof(*gpu));
}

vkcol_result gpu_enumerate_devices(const core_env *env, const char *want, vkcol_device_info *infos, uint32_t capacity,
                                   uint32_t *count, uint32_t *chosen)
{
	vkcol_result res = VKCOL_SUCCESS;
	VkPhysicalDevice *pds = NULL;
	vkcol_device_info *all = NULL;
	uint32_t n = 0;
	*count = 0;
	if (chosen)
		*chosen = UINT32_MAX;
	// A scratch device carries the environment through the instance helpers.
	gpu_device scratch = {.env = env};
	TRY(load_loader(env, &scratch.get_instance_proc_addr));
	TRY(create_instance(&scratch, false, &scratch.instance));
	load_instance_table(&scratch.vki, scratch.get_instance_proc_addr, scratch.instance);
	if (!instance_table_complete(&scratch.vki)) {
		res = VKCOL_ERROR_VULKAN_UNAVAILABLE;
		goto cleanup;
	}
	TRY(list_devices(env, &scratch.vki, scratch.instance, &pds, &all, &n));
	for (uint32_t i = 0; i < n && i < capacity; i++)
		infos[i] = all[i];
	*count = n;
	if (chosen) {
		// A bad VKCOLLIDE_DEVICE is reported, not fatal, when only listing.
		*chosen = choose_device(env, all, n, want);
	}
cleanup:
	core_free(env, pds);
	core_free(env, all);
	if (scratch.instance && scratch.vki.vkDestroyInstance)
		scratch.vki.vkDestroyInstance(scratch.instance, NULL);
	return res;
}

void gpu_set_name(const gpu_device *gpu, VkObjectType type, uint64_t handle, const char *name)
{
	if (!gpu->vki.vkSetDebugUtilsObjectNameEXT || !gpu->messenger || !name)
		return;
	VkDebugUtilsObjectNameInfoEXT info = {
	    .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
	    .objectType = type,
	    .objectHandle = handle,
	    .pObjectName = name,
	};
	gpu->vki.vkSetDebugUtilsObjectNameEXT(gpu->device, &info);
}

vkcol_result gpu_result_from_vk(VkResult vr)
{
	switch (vr) {
	case VK_SUCCESS:
		return VKCOL_SUCCESS;
	case VK_ERROR_OUT_OF_HOST_MEMORY:
		return VKCOL_ERROR_OUT_OF_HOST_MEMORY;
	case VK_ERROR_OUT_OF_DEVICE_MEMORY:
	case VK_ERROR_TOO_MANY_OBJECTS:
	case VK_ERROR_OUT_OF_POOL_MEMORY:
	case VK_ERROR_FRAGMENTED_POOL:
		return VKCOL_ERROR_OUT_OF_DEVICE_MEMORY;
	case VK_ERROR_DEVICE_LOST:
		return VKCOL_ERROR_DEVICE_LOST;
	case VK_ERROR_INITIALIZATION_FAILED:
	case VK_ERROR_INCOMPATIBLE_DRIVER:
	case VK_ERROR_LAYER_NOT_PRESENT:
	case VK_ERROR_EXTENSION_NOT_PRESENT:
		return VKCOL_ERROR_VULKAN_UNAVAILABLE;
	case VK_ERROR_FEATURE_NOT_PRESENT:
	case VK_ERROR_FORMAT_NOT_SUPPORTED:
		return VKCOL_ERROR_UNSUPPORTED;
	default:
		return VKCOL_ERROR_VULKAN;
	}
}

const char *gpu_vk_string(VkResult vr)
{
	switch (vr) {
#define CASE(x) \
	case x:     \
		return #x;
		CASE(VK_SUCCESS)
		CASE(VK_NOT_READY)
		CASE(VK_TIMEOUT)
		CASE(VK_INCOMPLETE)
		CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
		CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
		CASE(VK_ERROR_INITIALIZATION_FAILED)
		CASE(VK_ERROR_DEVICE_LOST)
		CASE(VK_ERROR_MEMORY_MAP_FAILED)
		CASE(VK_ERROR_LAYER_NOT_PRESENT)
		CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
		CASE(VK_ERROR_FEATURE_NOT_PRESENT)
		CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
		CASE(VK_ERROR_TOO_MANY_OBJECTS)
		CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
		CASE(VK_ERROR_FRAGMENTED_POOL)
		CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
		CASE(VK_ERROR_UNKNOWN)
#undef CASE
	default:
		return "VkResult (unnamed)";
	}
}
