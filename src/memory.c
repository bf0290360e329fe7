// SPDX-License-Identifier: MIT
#include "memory.h"

#include <string.h>

#include "device.h"

uint32_t gpu_find_memory_type(const vkcol_context *ctx, uint32_t bits, VkMemoryPropertyFlags want,
                              VkMemoryPropertyFlags prefer)
{
	const VkPhysicalDeviceMemoryProperties *mp = &ctx->memory_props;
	for (int pass = 0; pass < 2; pass++) {
		VkMemoryPropertyFlags need = pass == 0 ? (want | prefer) : want;
		for (uint32_t i = 0; i < mp->memoryTypeCount; i++)
			if ((bits & (1u << i)) && (mp->memoryTypes[i].propertyFlags & need) == need)
				return i;
	}
	return UINT32_MAX;
}

vkcol_result gpu_buffer_create(vkcol_context *ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                               gpu_memory_kind kind, const char *name, gpu_buffer *out)
{
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	memset(out, 0, sizeof(*out));
	if (size == 0) {
		CORE_ERROR(env, "buffer %s: size 0", name ? name : "");
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	// Checked before anything is created or allocated.
	if ((usage & VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT) &&
	    (size % 16 != 0 || size / 16 > ctx->props.limits.maxTexelBufferElements)) {
		CORE_ERROR(env, "buffer %s: %llu bytes are not a whole number of 16-byte texels, or more than the device's %u "
		                "texels",
		           name ? name : "", (unsigned long long)size, ctx->props.limits.maxTexelBufferElements);
		return VKCOL_ERROR_TOO_LARGE;
	}
	VkBufferCreateInfo info = {
	    .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
	    .size = size,
	    .usage = usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	    .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VK_TRY(env, ctx->vk.vkCreateBuffer(ctx->device, &info, NULL, &out->buffer));
	out->size = size;
	device_set_name(ctx, VK_OBJECT_TYPE_BUFFER, (uint64_t)out->buffer, name);

	VkMemoryRequirements req;
	ctx->vk.vkGetBufferMemoryRequirements(ctx->device, out->buffer, &req);
	VkMemoryPropertyFlags want = 0, prefer = 0;
	switch (kind) {
	case GPU_MEMORY_DEVICE:
		prefer = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
		break;
	case GPU_MEMORY_UPLOAD:
		want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
		break;
	case GPU_MEMORY_READBACK:
		want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
		prefer = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
		break;
	}
	uint32_t type = gpu_find_memory_type(ctx, req.memoryTypeBits, want, prefer);
	if (type == UINT32_MAX) {
		CORE_ERROR(env, "buffer %s: no memory type for %s use", name ? name : "",
		           kind == GPU_MEMORY_DEVICE ? "device" : "host-visible");
		res = VKCOL_ERROR_UNSUPPORTED;
		goto cleanup;
	}
	VkMemoryPropertyFlags flags = ctx->memory_props.memoryTypes[type].propertyFlags;
	uint32_t heap = ctx->memory_props.memoryTypes[type].heapIndex;
	if (req.size > ctx->memory_props.memoryHeaps[heap].size) {
		// Fail early with a clear message rather than a driver-specific error.
		CORE_ERROR(env, "buffer %s: %llu bytes exceed the %llu-byte memory heap", name ? name : "",
		           (unsigned long long)req.size, (unsigned long long)ctx->memory_props.memoryHeaps[heap].size);
		res = VKCOL_ERROR_OUT_OF_DEVICE_MEMORY;
		goto cleanup;
	}
	VkMemoryAllocateInfo alloc = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	    .allocationSize = req.size,
	    .memoryTypeIndex = type,
	};
	VK_TRY(env, ctx->vk.vkAllocateMemory(ctx->device, &alloc, NULL, &out->memory));
	VK_TRY(env, ctx->vk.vkBindBufferMemory(ctx->device, out->buffer, out->memory, 0));
	if (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
		VK_TRY(env, ctx->vk.vkMapMemory(ctx->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped));
		out->coherent = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
	}
	if (usage & VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT) {
		VkBufferViewCreateInfo view_info = {
		    .sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
		    .buffer = out->buffer,
		    .format = VK_FORMAT_R32G32B32A32_UINT,
		    .offset = 0,
		    .range = VK_WHOLE_SIZE,
		};
		VK_TRY(env, ctx->vk.vkCreateBufferView(ctx->device, &view_info, NULL, &out->texels));
	}
cleanup:
	if (res != VKCOL_SUCCESS)
		gpu_buffer_destroy(ctx, out);
	return res;
}

void gpu_buffer_destroy(vkcol_context *ctx, gpu_buffer *buffer)
{
	if (!buffer)
		return;
	if (buffer->texels)
		ctx->vk.vkDestroyBufferView(ctx->device, buffer->texels, NULL);
	if (buffer->buffer)
		ctx->vk.vkDestroyBuffer(ctx->device, buffer->buffer, NULL);
	if (buffer->memory)
		ctx->vk.vkFreeMemory(ctx->device, buffer->memory, NULL); // unmaps implicitly
	memset(buffer, 0, sizeof(*buffer));
}

vkcol_result gpu_scratch_get(vkcol_context *ctx, uint32_t slot, VkDeviceSize size, VkBufferUsageFlags usage,
                             gpu_memory_kind kind, const char *name, gpu_buffer **out)
{
	*out = NULL;
	if (slot >= GPU_SCRATCH_SLOTS)
		return VKCOL_ERROR_INVALID_ARGUMENT;
	gpu_scratch *s = &ctx->scratch[slot];
	if (!s->buffer.buffer || s->buffer.size != size || s->usage != usage || s->kind != kind) {
		gpu_buffer_destroy(ctx, &s->buffer);
		vkcol_result res = gpu_buffer_create(ctx, size, usage, kind, name, &s->buffer);
		if (res != VKCOL_SUCCESS)
			return res;
		ctx->scratch_created++;
		s->usage = usage;
		s->kind = kind;
	}
	*out = &s->buffer;
	return VKCOL_SUCCESS;
}

void gpu_scratch_free_all(vkcol_context *ctx)
{
	for (uint32_t i = 0; i < GPU_SCRATCH_SLOTS; i++)
		gpu_buffer_destroy(ctx, &ctx->scratch[i].buffer);
}

vkcol_result gpu_begin_once(vkcol_context *ctx, VkCommandBuffer *out)
{
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	*out = VK_NULL_HANDLE;
	VkCommandBufferAllocateInfo alloc = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	    .commandPool = ctx->command_pool,
	    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	    .commandBufferCount = 1,
	};
	VK_TRY(env, ctx->vk.vkAllocateCommandBuffers(ctx->device, &alloc, out));
	VkCommandBufferBeginInfo begin = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	VK_TRY(env, ctx->vk.vkBeginCommandBuffer(*out, &begin));
cleanup:
	if (res != VKCOL_SUCCESS && *out) {
		ctx->vk.vkFreeCommandBuffers(ctx->device, ctx->command_pool, 1, out);
		*out = VK_NULL_HANDLE;
	}
	return res;
}

vkcol_result gpu_submit_once(vkcol_context *ctx, VkCommandBuffer cmd)
{
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	VK_TRY(env, ctx->vk.vkEndCommandBuffer(cmd));
	VkSubmitInfo submit = {
	    .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	    .commandBufferCount = 1,
	    .pCommandBuffers = &cmd,
	};
	VK_TRY(env, ctx->vk.vkResetFences(ctx->device, 1, &ctx->fence));
	VK_TRY(env, ctx->vk.vkQueueSubmit(ctx->queue, 1, &submit, ctx->fence));
	VK_TRY(env, ctx->vk.vkWaitForFences(ctx->device, 1, &ctx->fence, VK_TRUE, UINT64_MAX));
cleanup:
	ctx->vk.vkFreeCommandBuffers(ctx->device, ctx->command_pool, 1, &cmd);
	return res;
}

void gpu_barrier_all(vkcol_context *ctx, VkCommandBuffer cmd)
{
	VkMemoryBarrier barrier = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
	    .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
	    .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
	                     VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT,
	};
	ctx->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
	                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
	                                 VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
	                             0, 1, &barrier, 0, NULL, 0, NULL);
}

// Largest staging chunk: bounds host-visible memory for uploads of any size.
#define STAGING_CHUNK ((VkDeviceSize)32 << 20)

vkcol_result gpu_upload(vkcol_context *ctx, gpu_buffer *dst, VkDeviceSize offset, const void *data,
                        VkDeviceSize size)
{
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	gpu_buffer staging = {0};
	if (offset > dst->size || size > dst->size - offset) {
		CORE_ERROR(env, "upload of %llu bytes at %llu overruns a %llu-byte buffer", (unsigned long long)size,
		           (unsigned long long)offset, (unsigned long long)dst->size);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if (size == 0)
		return VKCOL_SUCCESS;
	if (dst->mapped && dst->coherent) {
		memcpy((char *)dst->mapped + offset, data, size);
		return VKCOL_SUCCESS;
	}
	VkDeviceSize chunk = size < STAGING_CHUNK ? size : STAGING_CHUNK;
	TRY(gpu_buffer_create(ctx, chunk, 0, GPU_MEMORY_UPLOAD, "staging upload", &staging));
	for (VkDeviceSize done = 0; done < size; done += chunk) {
		VkDeviceSize n = size - done < chunk ? size - done : chunk;
		memcpy(staging.mapped, (const char *)data + done, n);
		VkCommandBuffer cmd;
		TRY(gpu_begin_once(ctx, &cmd));
		VkBufferCopy copy = {.srcOffset = 0, .dstOffset = offset + done, .size = n};
		ctx->vk.vkCmdCopyBuffer(cmd, staging.buffer, dst->buffer, 1, &copy);
		TRY(gpu_submit_once(ctx, cmd));
	}
cleanup:
	gpu_buffer_destroy(ctx, &staging);
	return res;
}

vkcol_result gpu_readback(vkcol_context *ctx, const gpu_buffer *src, VkDeviceSize offset, void *data,
                          VkDeviceSize size)
{
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	gpu_buffer staging = {0};
	if (offset > src->size || size > src->size - offset) {
		CORE_ERROR(env, "readback of %llu bytes at %llu overruns a %llu-byte buffer", (unsigned long long)size,
		           (unsigned long long)offset, (unsigned long long)src->size);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if (size == 0)
		return VKCOL_SUCCESS;
	VkDeviceSize chunk = size < STAGING_CHUNK ? size : STAGING_CHUNK;
	TRY(gpu_buffer_create(ctx, chunk, 0, GPU_MEMORY_READBACK, "staging readback", &staging));
	for (VkDeviceSize done = 0; done < size; done += chunk) {
		VkDeviceSize n = size - done < chunk ? size - done : chunk;
		VkCommandBuffer cmd;
		TRY(gpu_begin_once(ctx, &cmd));
		VkBufferCopy copy = {.srcOffset = offset + done, .dstOffset = 0, .size = n};
		ctx->vk.vkCmdCopyBuffer(cmd, src->buffer, staging.buffer, 1, &copy);
		gpu_barrier_all(ctx, cmd);
		TRY(gpu_submit_once(ctx, cmd));
		if (!staging.coherent) {
			VkMappedMemoryRange range = {
			    .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
			    .memory = staging.memory,
			    .offset = 0,
			    .size = VK_WHOLE_SIZE,
			};
			VK_TRY(env, ctx->vk.vkInvalidateMappedMemoryRanges(ctx->device, 1, &range));
		}
		memcpy((char *)data + done, staging.mapped, n);
	}
cleanup:
	gpu_buffer_destroy(ctx, &staging);
	return res;
}
