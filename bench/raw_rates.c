// SPDX-License-Identifier: MIT
// The device's raw cube-sampling rate and memory bandwidth (raw_rates.h):
// each measurement one submission of a plain kernel, timed by two timestamp
// queries around it (or by the host's clock when the queue has none), its
// size doubled until it lasts long enough to be timed.
#include "raw_rates.h"

#include <string.h>

#include "batch/pool.h"
#include "context.h"
#include "copy_raw.h"
#include "sample_raw.h"

// bench/sample_raw.comp and bench/copy_raw.comp, compiled by bench/meson.build.
static const uint32_t sample_raw_spv[] = {
#include "sample_raw.spv.inc"
};
static const uint32_t copy_raw_spv[] = {
#include "copy_raw.spv.inc"
};

// A pipeline of one of the two kernels: `bindings` of set 0, a workgroup
// of VKCOL_WORKGROUP_SIZE.
static vkcol_result raw_pipeline(vkcol_context *ctx, const uint32_t *spirv, size_t size, const gpu_binding_type *types,
                                 uint32_t count, uint32_t images, uint32_t push, const char *name, gpu_pipeline *out)
{
	const uint32_t workgroup = VKCOL_WORKGROUP_SIZE;
	const VkSpecializationMapEntry entry = {0, 0, 4};
	const VkSpecializationInfo spec = {1, &entry, 4, &workgroup};
	gpu_pipeline_desc desc = {
	    .spirv = spirv,
	    .spirv_size = size,
	    .bindings = types,
	    .binding_count = count,
	    .image_count = images,
	    .push_constant_size = push,
	    .specialization = &spec,
	    .name = name,
	};
	return gpu_pipeline_create(&ctx->gpu, &desc, out);
}

// Two timestamps around the work a caller records, or the host's clock.
typedef struct span {
	VkQueryPool pool;
	double tick_seconds;
	uint64_t mask;
	double host_start;
} span;

static vkcol_result span_create(gpu_device *gpu, span *t)
{
	vkcol_result res = VKCOL_SUCCESS;
	memset(t, 0, sizeof(*t));
	uint32_t n = 0;
	gpu->vki.vkGetPhysicalDeviceQueueFamilyProperties(gpu->physical_device, &n, NULL);
	VkQueueFamilyProperties families[32];
	n = n > 32 ? 32 : n;
	gpu->vki.vkGetPhysicalDeviceQueueFamilyProperties(gpu->physical_device, &n, families);
	uint32_t bits = gpu->queue_family < n ? families[gpu->queue_family].timestampValidBits : 0;
	if (bits == 0)
		return VKCOL_SUCCESS;
	t->mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	t->tick_seconds = 1e-9 * (double)gpu->props.limits.timestampPeriod;
	VkQueryPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
	                              .queryType = VK_QUERY_TYPE_TIMESTAMP,
	                              .queryCount = 2};
	const core_env *env = gpu->env;
	VK_TRY(env, gpu->vk.vkCreateQueryPool(gpu->device, &info, NULL, &t->pool));
cleanup:
	return res;
}

static void span_begin(gpu_device *gpu, span *t, VkCommandBuffer cmd)
{
	if (t->pool) {
		gpu->vk.vkCmdResetQueryPool(cmd, t->pool, 0, 2);
		gpu->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, t->pool, 0);
	}
}

static void span_end(gpu_device *gpu, span *t, VkCommandBuffer cmd)
{
	if (t->pool)
		gpu->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, t->pool, 1);
}

// Submits cmd, waits, and gives the seconds the work between span_begin
// and span_end took.
static vkcol_result span_submit(gpu_device *gpu, span *t, VkCommandBuffer cmd, double *seconds)
{
	const core_env *env = gpu->env;
	vkcol_result res = VKCOL_SUCCESS;
	double start = batch_now();
	TRY(gpu_submit_once(gpu, cmd));
	*seconds = batch_now() - start;
	if (t->pool) {
		uint64_t v[2];
		VK_TRY(env, gpu->vk.vkGetQueryPoolResults(gpu->device, t->pool, 0, 2, sizeof(v), v, sizeof(uint64_t),
		                                          VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
		uint64_t a = v[0] & t->mask, b = v[1] & t->mask;
		*seconds = b > a ? (double)(b - a) * t->tick_seconds : 0.0;
	}
cleanup:
	return res;
}

static void span_destroy(gpu_device *gpu, span *t)
{
	if (t->pool)
		gpu->vk.vkDestroyQueryPool(gpu->device, t->pool, NULL);
}

vkcol_result raw_sampling_rates(vkcol_context *ctx, uint32_t resolution, double min_seconds, int repeat, double *rates,
                                bool *device_timed)
{
	batch_scope scope, *s = &scope;
	batch_scope_of(ctx, s);
	vkcol_result res = VKCOL_SUCCESS;
	gpu_buffer out = {0};
	gpu_pipeline pipe = {0};
	span t = {0};
	const gpu_binding_type types[2] = {GPU_BINDING_STORAGE, GPU_BINDING_IMAGES};
	TRY(raw_pipeline(ctx, sample_raw_spv, sizeof(sample_raw_spv), types, 2, 1, sizeof(vkcol_sample_raw_params),
	                 "sample_raw", &pipe));
	TRY(cubemap_check_support(s->gpu, &s->meshes->sampler));
	TRY(pool_ensure(s, false));
	TRY(span_create(s->gpu, &t));
	*device_timed = t.pool != VK_NULL_HANDLE;
	const pool_cube_array *array = &s->state->pool->arrays[pool_array_index(resolution)];
	// Invocations fill the device; each takes up to 2^16 samples, doubled
	// until a run lasts min_seconds.
	const uint32_t invocations = 1u << 20;
	TRY(gpu_buffer_create(s->gpu, (VkDeviceSize)invocations * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPU_MEMORY_DEVICE,
	                      "raw sampling sums", &out));
	VkDescriptorSet set;
	gpu_binding bindings[2] = {{&out, 0, 0}};
	TRY(gpu_pipeline_bind(s->gpu, &pipe, bindings, &array->view, s->meshes->sampler.sampler, &set));
	vkcol_sample_raw_params params = {invocations, 4, array->cubes, 0.0f};
	for (int run = -1; run < repeat;) {
		VkCommandBuffer cmd;
		TRY(gpu_begin_once(s->gpu, &cmd));
		span_begin(s->gpu, &t, cmd);
		gpu_pipeline_dispatch(s->gpu, cmd, &pipe, set, &params, invocations / VKCOL_WORKGROUP_SIZE);
		span_end(s->gpu, &t, cmd);
		double seconds;
		TRY(span_submit(s->gpu, &t, cmd, &seconds));
		if (seconds < min_seconds && params.samples_per_invocation < (1u << 16)) {
			params.samples_per_invocation *= 2; // too short to time: the run does not count
			continue;
		}
		if (run >= 0)
			rates[run] = seconds > 0 ? (double)invocations * params.samples_per_invocation / seconds : 0.0;
		run++;
	}
cleanup:
	span_destroy(s->gpu, &t);
	gpu_buffer_destroy(s->gpu, &out);
	gpu_pipeline_destroy(s->gpu, &pipe);
	return res;
}

vkcol_result raw_bandwidth_rates(vkcol_context *ctx, double min_seconds, int repeat, double *rates,
                                 uint64_t *buffer_bytes, bool *device_timed)
{
	gpu_device *gpu = &ctx->gpu;
	vkcol_result res = VKCOL_SUCCESS;
	gpu_buffer src = {0}, dst = {0};
	gpu_pipeline pipe = {0};
	span t = {0};
	const gpu_binding_type types[2] = {GPU_BINDING_STORAGE, GPU_BINDING_STORAGE};
	TRY(raw_pipeline(ctx, copy_raw_spv, sizeof(copy_raw_spv), types, 2, 0, sizeof(vkcol_copy_raw_params), "copy_raw",
	                 &pipe));
	TRY(span_create(gpu, &t));
	*device_timed = t.pool != VK_NULL_HANDLE;
	// Buffers far larger than any cache: up to 512 MiB each, within one
	// binding and an eighth of the device-local heap.
	uint64_t bytes = 512ull << 20;
	if (bytes > gpu->props.limits.maxStorageBufferRange)
		bytes = gpu->props.limits.maxStorageBufferRange;
	if (gpu->info.device_local_bytes && bytes > gpu->info.device_local_bytes / 8)
		bytes = gpu->info.device_local_bytes / 8;
	bytes &= ~(uint64_t)15;
	*buffer_bytes = bytes;
	TRY(gpu_buffer_create(gpu, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPU_MEMORY_DEVICE, "raw copy source", &src));
	TRY(gpu_buffer_create(gpu, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPU_MEMORY_DEVICE, "raw copy target", &dst));
	VkDescriptorSet set;
	gpu_binding bindings[2] = {{&src, 0, 0}, {&dst, 0, 0}};
	TRY(gpu_pipeline_bind(gpu, &pipe, bindings, NULL, VK_NULL_HANDLE, &set));
	// The source's contents do not matter, but are defined.
	{
		VkCommandBuffer cmd;
		TRY(gpu_begin_once(gpu, &cmd));
		gpu->vk.vkCmdFillBuffer(cmd, src.buffer, 0, VK_WHOLE_SIZE, 0x3f800000u);
		gpu_barrier_all(gpu, cmd);
		TRY(gpu_submit_once(gpu, cmd));
	}
	uint32_t groups = 1u << 14; // 2^20 invocations: every device's lanes busy
	vkcol_copy_raw_params params = {(uint32_t)(bytes / 16), groups * VKCOL_WORKGROUP_SIZE, 0, 0};
	uint32_t copies = 1;
	for (int run = -1; run < repeat;) {
		VkCommandBuffer cmd;
		TRY(gpu_begin_once(gpu, &cmd));
		span_begin(gpu, &t, cmd);
		for (uint32_t c = 0; c < copies; c++) {
			if (c)
				gpu_barrier_all(gpu, cmd); // each copy waits for the last: no overlap to flatter the rate
			gpu_pipeline_dispatch(gpu, cmd, &pipe, set, &params, groups);
		}
		span_end(gpu, &t, cmd);
		double seconds;
		TRY(span_submit(gpu, &t, cmd, &seconds));
		if (seconds < min_seconds && copies < 256) {
			copies *= 2;
			continue;
		}
		if (run >= 0)
			rates[run] = seconds > 0 ? 2.0 * (double)bytes * copies / seconds : 0.0;
		run++;
	}
cleanup:
	span_destroy(gpu, &t);
	gpu_buffer_destroy(gpu, &src);
	gpu_buffer_destroy(gpu, &dst);
	gpu_pipeline_destroy(gpu, &pipe);
	return res;
}
