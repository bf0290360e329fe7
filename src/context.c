// SPDX-License-Identifier: MIT
// The context: creates the GPU device and owns the library's pipelines, the
// mesh table and the batch pool; tears them down in the one order that
// frees each before what it was made from.
#include "context.h"

#include <string.h>

#include "batch.h"

VKCOL_API vkcol_result vkcol_context_create(const vkcol_context_desc *desc, vkcol_context **out)
{
	static const vkcol_context_desc defaults = {0};
	if (!out)
		return VKCOL_ERROR_INVALID_ARGUMENT;
	*out = NULL;
	if (!desc)
		desc = &defaults;
	core_env env;
	core_env_init(&env, &desc->allocator, desc->log, desc->log_user, desc->log_level);
	if (desc->validation > VKCOL_VALIDATION_OFF) {
		CORE_ERROR(&env, "vkcol_context_desc.validation: %d is not a vkcol_validation value", (int)desc->validation);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	vkcol_context *ctx = core_calloc(&env, 1, sizeof(*ctx));
	if (!ctx)
		return VKCOL_ERROR_OUT_OF_HOST_MEMORY;
	ctx->env = env;
	vkcol_result res = gpu_device_create(&ctx->gpu, &ctx->env, desc);
	if (res != VKCOL_SUCCESS) {
		vkcol_context_destroy(ctx);
		return res;
	}
	*out = ctx;
	return VKCOL_SUCCESS;
}

VKCOL_API void vkcol_context_destroy(vkcol_context *ctx)
{
	if (!ctx)
		return;
	if (ctx->gpu.device) {
		gpu_device_wait_idle(&ctx->gpu);
		batch_pool_destroy(ctx);
		for (uint32_t i = 0; i < ctx->mesh_capacity; i++)
			if (ctx->meshes[i].used)
				vkcol_mesh_destroy(ctx, (vkcol_mesh){(ctx->meshes[i].generation << MESH_INDEX_BITS) | (i + 1)});
		pipeline_table_destroy(&ctx->gpu, &ctx->pipelines);
		if (ctx->cube_sampler)
			ctx->gpu.vk.vkDestroySampler(ctx->gpu.device, ctx->cube_sampler, NULL);
	}
	core_free(&ctx->env, ctx->meshes);
	gpu_device_destroy(&ctx->gpu);
	core_env env = ctx->env;
	core_free(&env, ctx);
}

VKCOL_API vkcol_result vkcol_context_get_device_info(const vkcol_context *ctx, vkcol_device_info *out)
{
	if (!ctx || !out)
		return VKCOL_ERROR_INVALID_ARGUMENT;
	*out = ctx->gpu.info;
	return VKCOL_SUCCESS;
}

VKCOL_API uint64_t vkcol_context_validation_message_count(const vkcol_context *ctx)
{
	return ctx ? ctx->gpu.validation_messages : 0;
}

VKCOL_API vkcol_result vkcol_enumerate_devices(const vkcol_context_desc *desc, vkcol_device_info *infos,
                                               uint32_t capacity, uint32_t *count, uint32_t *chosen)
{
	static const vkcol_context_desc defaults = {0};
	if (!count || (capacity > 0 && !infos))
		return VKCOL_ERROR_INVALID_ARGUMENT;
	if (!desc)
		desc = &defaults;
	core_env env;
	core_env_init(&env, &desc->allocator, desc->log, desc->log_user, desc->log_level);
	return gpu_enumerate_devices(&env, desc->device, infos, capacity, count, chosen);
}
