// SPDX-License-Identifier: MIT
// GPU smoke tests on whatever device the loader offers (lavapipe in CI), with
// the validation layer on (VKCOLLIDE_VALIDATION=1 from tests/meson.build):
// context creation, an embedded shader's output checked on the host, 2D
// dispatch past maxComputeWorkGroupCount, external-device mode, and zero
// validation messages. Exit 77 (skipped) only when no Vulkan device exists.
#include <stdlib.h>

#include "context.h"
#include "gpu/pipeline.h"
#include "smoke.h"
#include "test.h"

// tests/smoke.comp, compiled by tests/meson.build.
static const uint32_t smoke_spv[] = {
#include "smoke.spv.inc"
};

static int log_errors;

static void count_log(void *user, vkcol_log_level level, const char *message)
{
	(void)user;
	if (level <= VKCOL_LOG_WARNING) {
		log_errors++;
		fprintf(stderr, "library: %s\n", message);
	}
}

static vkcol_context *make_context(void)
{
	vkcol_context_desc desc = {.log = count_log};
	vkcol_context *ctx = NULL;
	vkcol_result r = vkcol_context_create(&desc, &ctx);
	ENSURE_MSG(r == VKCOL_SUCCESS, "vkcol_context_create: %s", vkcol_result_string(r));
	return ctx;
}

// The smoke shader's pipeline: out[i] = in[i] * multiplier + i, bindings
// 0 (in) and 1 (out), VKCOL_WORKGROUP_SIZE invocations per workgroup.
static vkcol_result make_smoke_pipeline(vkcol_context *ctx, gpu_pipeline *pipe)
{
	const uint32_t wg = VKCOL_WORKGROUP_SIZE;
	VkSpecializationMapEntry entry = {0, 0, 4};
	VkSpecializationInfo spec = {1, &entry, 4, &wg};
	gpu_pipeline_desc pd = {
	    .spirv = smoke_spv,
	    .spirv_size = sizeof(smoke_spv),
	    .bindings = (const gpu_binding_type[2]){GPU_BINDING_STORAGE, GPU_BINDING_STORAGE},
	    .binding_count = 2,
	    .push_constant_size = sizeof(vkcol_smoke_params),
	    .specialization = &spec,
	    .name = "smoke",
	};
	return gpu_pipeline_create(&ctx->gpu, &pd, pipe);
}

// Runs the smoke shader over n values on ctx and checks every output.
static void run_smoke(vkcol_context *ctx, uint32_t n)
{
	gpu_buffer in = {0}, out = {0};
	gpu_pipeline pipe = {0};
	uint32_t *host = malloc((size_t)n * 4);
	ENSURE(host != NULL);
	for (uint32_t i = 0; i < n; i++)
		host[i] = i * 7u + 3u;
	uint32_t wg = VKCOL_WORKGROUP_SIZE;
	ENSURE(make_smoke_pipeline(ctx, &pipe) == VKCOL_SUCCESS);
	ENSURE(gpu_buffer_create(&ctx->gpu, (VkDeviceSize)n * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPU_MEMORY_DEVICE,
	                         "in", &in) == VKCOL_SUCCESS);
	ENSURE(gpu_buffer_create(&ctx->gpu, (VkDeviceSize)n * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPU_MEMORY_DEVICE,
	                         "out", &out) == VKCOL_SUCCESS);
	ENSURE(gpu_upload(&ctx->gpu, &in, 0, host, (VkDeviceSize)n * 4) == VKCOL_SUCCESS);
	VkDescriptorSet set;
	gpu_binding bindings[2] = {{&in, 0, 0}, {&out, 0, 0}};
	ENSURE(gpu_pipeline_bind(&ctx->gpu, &pipe, bindings, NULL, VK_NULL_HANDLE, &set) == VKCOL_SUCCESS);
	VkCommandBuffer cmd;
	ENSURE(gpu_begin_once(&ctx->gpu, &cmd) == VKCOL_SUCCESS);
	vkcol_smoke_params params = {n, 5};
	gpu_pipeline_dispatch(&ctx->gpu, cmd, &pipe, set, &params, (n + wg - 1) / wg);
	gpu_barrier_all(&ctx->gpu, cmd);
	ENSURE(gpu_submit_once(&ctx->gpu, cmd) == VKCOL_SUCCESS);
	memset(host, 0, (size_t)n * 4);
	ENSURE(gpu_readback(&ctx->gpu, &out, 0, host, (VkDeviceSize)n * 4) == VKCOL_SUCCESS);
	uint32_t bad = 0;
	for (uint32_t i = 0; i < n; i++)
		bad += host[i] != (i * 7u + 3u) * 5u + i;
	ENSURE_MSG(bad == 0, "%u of %u outputs wrong", bad, n);
	gpu_buffer_destroy(&ctx->gpu, &in);
	gpu_buffer_destroy(&ctx->gpu, &out);
	gpu_pipeline_destroy(&ctx->gpu, &pipe);
	free(host);
}

static void test_context_and_shader(void)
{
	vkcol_context *ctx = make_context();
	if (!ctx)
		return;
	vkcol_device_info info;
	ENSURE(vkcol_context_get_device_info(ctx, &info) == VKCOL_SUCCESS);
	ENSURE(info.name[0] != '\0');
	ENSURE(info.has_compute_queue);
	ENSURE(info.max_workgroup_count[0] >= 65535);
	printf("     device: %s (%s)\n", info.name, info.driver);
	run_smoke(ctx, 1000);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// More workgroups than maxComputeWorkGroupCount[0] (65535 on lavapipe) forces
// the 2D split in gpu_pipeline_dispatch.
static void test_dispatch_2d(void)
{
	vkcol_context *ctx = make_context();
	if (!ctx)
		return;
	uint32_t max_x = ctx->gpu.props.limits.maxComputeWorkGroupCount[0];
	uint64_t n64 = ((uint64_t)max_x + 17u) * VKCOL_WORKGROUP_SIZE + 5u;
	if (n64 > (64u << 20)) {
		// A device with a huge limit: 2D splitting cannot be reached with
		// a buffer of sane size; run the largest sane size instead.
		n64 = 64u << 20;
	}
	run_smoke(ctx, (uint32_t)n64);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	vkcol_context_destroy(ctx);
}

// External mode: the test creates instance and device itself, the library
// wraps them, owns nothing, and leaves them usable after destruction.
static void test_external_device(void)
{
	ENSURE(volkInitialize() == VK_SUCCESS);
	VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_1};
	VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
	VkInstance instance = VK_NULL_HANDLE;
	ENSURE(vkCreateInstance(&ii, NULL, &instance) == VK_SUCCESS);
	if (!instance)
		return;
	volkLoadInstanceOnly(instance);
	uint32_t count = 1;
	VkPhysicalDevice pd = VK_NULL_HANDLE;
	VkResult vr = vkEnumeratePhysicalDevices(instance, &count, &pd);
	ENSURE(vr == VK_SUCCESS || vr == VK_INCOMPLETE);
	uint32_t nf = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(pd, &nf, NULL);
	VkQueueFamilyProperties families[16];
	nf = nf > 16 ? 16 : nf;
	vkGetPhysicalDeviceQueueFamilyProperties(pd, &nf, families);
	uint32_t family = 0;
	while (family < nf && !(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT))
		family++;
	ENSURE(family < nf);
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	                              .queueFamilyIndex = family,
	                              .queueCount = 1,
	                              .pQueuePriorities = &prio};
	VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &qi};
	VkDevice device = VK_NULL_HANDLE;
	ENSURE(vkCreateDevice(pd, &di, NULL, &device) == VK_SUCCESS);

	vkcol_external_device ext = {.instance = instance, .physical_device = pd, .device = device, .queue_family_index = family, .get_instance_proc_addr = vkGetInstanceProcAddr};
	vkcol_context_desc desc = {.external = &ext, .log = count_log};
	vkcol_context *ctx = NULL;
	ENSURE(vkcol_context_create(&desc, &ctx) == VKCOL_SUCCESS);
	if (ctx) {
		run_smoke(ctx, 4096);
		vkcol_context_destroy(ctx);
	}
	// The device still works: the library destroyed nothing of ours.
	PFN_vkDeviceWaitIdle wait_idle = (PFN_vkDeviceWaitIdle)vkGetDeviceProcAddr(device, "vkDeviceWaitIdle");
	ENSURE(wait_idle && wait_idle(device) == VK_SUCCESS);

	// Bad external descriptions are errors, not crashes.
	vkcol_external_device bad = ext;
	bad.queue_family_index = 99;
	vkcol_context_desc bad_desc = {.external = &bad, .log = count_log};
	int before = log_errors;
	ENSURE(vkcol_context_create(&bad_desc, &ctx) == VKCOL_ERROR_INVALID_ARGUMENT);
	ENSURE(ctx == NULL);
	bad = ext;
	bad.device = VK_NULL_HANDLE;
	ENSURE(vkcol_context_create(&bad_desc, &ctx) == VKCOL_ERROR_INVALID_ARGUMENT);
	ENSURE(log_errors == before + 2); // each failure was explained in the log
	log_errors = before;

	PFN_vkDestroyDevice destroy_device = (PFN_vkDestroyDevice)vkGetDeviceProcAddr(device, "vkDestroyDevice");
	destroy_device(device, NULL);
	vkDestroyInstance(instance, NULL);
}

static void test_device_choice(void)
{
	vkcol_device_info infos[8];
	uint32_t count = 0, chosen = 0;
	ENSURE(vkcol_enumerate_devices(NULL, infos, 8, &count, &chosen) == VKCOL_SUCCESS);
	ENSURE(count >= 1);
	ENSURE(chosen < count);
	// By index and by name substring (upper-cased: matching ignores case).
	char name[256];
	snprintf(name, sizeof(name), "%s", infos[chosen].name);
	for (char *c = name; *c; c++)
		*c = (char)((*c >= 'a' && *c <= 'z') ? *c - 32 : *c);
	vkcol_context_desc desc = {.device = name, .log = count_log};
	vkcol_context *ctx = NULL;
	ENSURE(vkcol_context_create(&desc, &ctx) == VKCOL_SUCCESS);
	vkcol_device_info info;
	if (ctx) {
		ENSURE(vkcol_context_get_device_info(ctx, &info) == VKCOL_SUCCESS);
		ENSURE(strcmp(info.name, infos[chosen].name) == 0);
		vkcol_context_destroy(ctx);
	}
	// A device that does not exist: clear error, no context.
	int before = log_errors;
	desc.device = "no-such-device-xyz";
	ENSURE(vkcol_context_create(&desc, &ctx) == VKCOL_ERROR_NO_DEVICE);
	ENSURE(ctx == NULL);
	desc.device = "99";
	ENSURE(vkcol_context_create(&desc, &ctx) == VKCOL_ERROR_NO_DEVICE);
	ENSURE(log_errors == before + 2);
	log_errors = before;
	ENSURE(vkcol_context_create(NULL, NULL) == VKCOL_ERROR_INVALID_ARGUMENT);
	ENSURE(strcmp(vkcol_result_string(VKCOL_ERROR_INDEX_OUT_OF_RANGE), "index out of range") == 0);
	ENSURE(strcmp(vkcol_result_string((vkcol_result)12345), "unknown result") == 0);
}

static int provoked;

static void count_provoked(void *user, vkcol_log_level level, const char *message)
{
	(void)user;
	(void)level;
	(void)message;
	provoked++;
}

// The messenger is live: an invalid call is seen and counted. Without this a
// silently missing layer would make every "zero messages" check vacuous.
static void test_validation_is_live(void)
{
	vkcol_context_desc desc = {.log = count_provoked, .validation = VKCOL_VALIDATION_ON};
	vkcol_context *ctx = NULL;
	ENSURE(vkcol_context_create(&desc, &ctx) == VKCOL_SUCCESS);
	if (!ctx)
		return;
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	// VUID-VkBufferCreateInfo-size-00912: size must be greater than 0.
	VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
	                           .size = 0,
	                           .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
	VkBuffer buffer = VK_NULL_HANDLE;
	VkResult vr = ctx->gpu.vk.vkCreateBuffer(ctx->gpu.device, &info, NULL, &buffer);
	if (vr == VK_SUCCESS && buffer)
		ctx->gpu.vk.vkDestroyBuffer(ctx->gpu.device, buffer, NULL);
	ENSURE(vkcol_context_validation_message_count(ctx) >= 1);
	ENSURE(provoked >= 1);
	vkcol_context_destroy(ctx);
}

// Synchronization validation is live too: a dispatch that reads what the
// one before it wrote, with no barrier between them, is a hazard the layer
// reports. (The library's own barriers meet the same check in every other
// test.) The two sets come from one gpu_pipeline_bind_sets call.
static void test_sync_validation_is_live(void)
{
	vkcol_context_desc desc = {.log = count_provoked, .validation = VKCOL_VALIDATION_ON};
	vkcol_context *ctx = NULL;
	ENSURE(vkcol_context_create(&desc, &ctx) == VKCOL_SUCCESS);
	if (!ctx)
		return;
	const uint32_t n = 256, wg = VKCOL_WORKGROUP_SIZE;
	gpu_buffer a = {0}, b = {0};
	gpu_pipeline pipe = {0};
	ENSURE(make_smoke_pipeline(ctx, &pipe) == VKCOL_SUCCESS);
	ENSURE(gpu_buffer_create(&ctx->gpu, n * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                         GPU_MEMORY_DEVICE, "a", &a) == VKCOL_SUCCESS);
	ENSURE(gpu_buffer_create(&ctx->gpu, n * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPU_MEMORY_DEVICE, "b", &b) ==
	       VKCOL_SUCCESS);
	const gpu_binding forth[2] = {{&a, 0, 0}, {&b, 0, 0}}, back[2] = {{&b, 0, 0}, {&a, 0, 0}};
	const gpu_binding *both[2] = {forth, back};
	VkDescriptorSet sets[2];
	ENSURE(gpu_pipeline_bind_sets(&ctx->gpu, &pipe, 2, both, NULL, VK_NULL_HANDLE, sets) == VKCOL_SUCCESS);
	ENSURE(sets[0] != sets[1]);
	VkCommandBuffer cmd;
	ENSURE(gpu_begin_once(&ctx->gpu, &cmd) == VKCOL_SUCCESS);
	ctx->gpu.vk.vkCmdFillBuffer(cmd, a.buffer, 0, VK_WHOLE_SIZE, 1);
	gpu_barrier_all(&ctx->gpu, cmd);
	vkcol_smoke_params params = {n, 3};
	gpu_pipeline_dispatch(&ctx->gpu, cmd, &pipe, sets[0], &params, (n + wg - 1) / wg);
	ENSURE_EQ_INT(vkcol_context_validation_message_count(ctx), 0);
	gpu_pipeline_dispatch(&ctx->gpu, cmd, &pipe, sets[1], &params, (n + wg - 1) / wg); // reads b: no barrier
	ENSURE(vkcol_context_validation_message_count(ctx) >= 1);
	gpu_barrier_all(&ctx->gpu, cmd);
	ENSURE(gpu_submit_once(&ctx->gpu, cmd) == VKCOL_SUCCESS);
	gpu_buffer_destroy(&ctx->gpu, &a);
	gpu_buffer_destroy(&ctx->gpu, &b);
	gpu_pipeline_destroy(&ctx->gpu, &pipe);
	vkcol_context_destroy(ctx);
}

// Every error or warning the library logged above was one a test provoked.
static void test_no_unexpected_log_messages(void)
{
	ENSURE_EQ_INT(log_errors, 0);
}

int main(int argc, char **argv)
{
	TEST_INIT(argc, argv);
	vkcol_device_info probe;
	uint32_t count = 0;
	vkcol_context_desc quiet = {.log_level = VKCOL_LOG_ERROR};
	if (vkcol_enumerate_devices(&quiet, &probe, 1, &count, NULL) != VKCOL_SUCCESS || count == 0) {
		printf("no Vulkan device: skipped\n");
		return 77;
	}
	RUN_TEST(test_context_and_shader);
	RUN_TEST(test_dispatch_2d);
	RUN_TEST(test_external_device);
	RUN_TEST(test_device_choice);
	RUN_TEST(test_validation_is_live);
	RUN_TEST(test_sync_validation_is_live);
	RUN_TEST(test_no_unexpected_log_messages);
	return TEST_SUMMARY();
}
