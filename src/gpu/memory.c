// SPDX-License-Identifier: MIT
// GPU layer: buffers (memory type by use), staging upload and readback in
// bounded chunks, the scratch buffers kept between calls, one-shot command
// buffers and barriers (synchronization2 where the device has it enabled).
#include "gpu/memory.h"

#include <string.h>

#include "gpu/device.h"

uint32_t gpu_find_memory_type(const gpu_device *gpu, uint32_t bits, VkMemoryPropertyFlags want,
                              VkMemoryPropertyFlags prefer)
{
	const VkPhysicalDeviceMemoryProperties *mp = &gpu->memory_props;
	for (int pass = 0; pass < 2; pass++) {
		VkMemoryPropertyFlags need = pass == 0 ? (want | prefer) : want;
		for (uint32_t i = 0; i < mp->memoryTypeCount; i++)
			if ((bits & (1u << i)) && (mp->memoryTypes[i].propertyFlags & need) == need)
				return i;
	}
	return UINT32_MAX;
}

vkcol_result gpu_buffer_create(gpu_device *gpu, VkDeviceSize size, VkBufferUsageFlags usage,
                               gpu_memory_kind kind, const char *name, gpu_buffer *out)
{
	const core_env *env = gpu->env;
	vkcol_result res = VKCOL_SUCCESS;
	memset(out, 0, sizeof(*out));
	if (size == 0) {
		CORE_ERROR(env, "buffer %s: size 0", name ? name : "");
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	// Checked before anything is created or allocated.
	if ((usage & VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT) &&
	    (size % 16 != 0 || size / 16 > gpu->props.limits.maxTexelBufferElements)) {
		CORE_ERROR(env, "buffer %s: %llu bytes are not a whole number of 16-byte texels, or more than the device's %u "
		                "texels",
		           name ? name : "", (unsigned long long)size, gpu->props.limits.maxTexelBufferElements);
		return VKCOL_ERROR_TOO_LARGE;
	}
	VkBufferCreateInfo info = {
	    .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
	    .size = size,
	    .usage = usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	    .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VK_TRY(env, gpu->vk.vkCreateBuffer(gpu->device, &info, NULL, &out->buffer));
	out->size = size;
	gpu_set_name(gpu, VK_OBJECT_TYPE_BUFFER, (uint64_t)out->buffer, name);

	VkMemoryRequirements req;
	gpu->vk.vkGetBufferMemoryRequirements(gpu->device, out->buffer, &req);
	VkMemoryPropertyFlags want = 0, prefer = 0;
	switch (kind) {
	case GPU_MEMORY_DEVICE:
		prefer = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
		break;
	case GPU_MEMORY_UPLOAD:
		want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
		prefer = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
		break;
	case GPU_MEMORY_READBACK:
		want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
		prefer = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
		break;
	}
	uint32_t type = gpu_find_memory_type(gpu, req.memoryTypeBits, want, prefer);
	// Upload buffers (only ever written by the host) go to device memory
	// the host can map, so that the passes read them without crossing the
	// bus, only where the device maps all of it (resizable BAR): not into a
	// 256 MiB window shared with the driver and other programs.
	if (kind == GPU_MEMORY_UPLOAD && type != UINT32_MAX &&
	    gpu->memory_props.memoryHeaps[gpu->memory_props.memoryTypes[type].heapIndex].size < ((VkDeviceSize)1 << 30))
		type = gpu_find_memory_type(gpu, req.memoryTypeBits, want, 0);
	if (type == UINT32_MAX) {
		CORE_ERROR(env, "buffer %s: no memory type for %s use", name ? name : "",
		           kind == GPU_MEMORY_DEVICE ? "device" : "host-visible");
		res = VKCOL_ERROR_UNSUPPORTED;
		goto cleanup;
	}
	VkMemoryPropertyFlags flags = gpu->memory_props.memoryTypes[type].propertyFlags;
	uint32_t heap = gpu->memory_props.memoryTypes[type].heapIndex;
	if (req.size > gpu->memory_props.memoryHeaps[heap].size) {
		// Fail early with a clear message rather than a driver-specific error.
		CORE_ERROR(env, "buffer %s: %llu bytes exceed the %llu-byte memory heap", name ? name : "",
		           (unsigned long long)req.size, (unsigned long long)gpu->memory_props.memoryHeaps[heap].size);
		res = VKCOL_ERROR_OUT_OF_DEVICE_MEMORY;
		goto cleanup;
	}
	VkMemoryAllocateInfo alloc = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	    .allocationSize = req.size,
	    .memoryTypeIndex = type,
	};
	VK_TRY(env, gpu->vk.vkAllocateMemory(gpu->device, &alloc, NULL, &out->memory));
	out->allocated = req.size;
	gpu_memory_count(gpu, req.size, 0);
	VK_TRY(env, gpu->vk.vkBindBufferMemory(gpu->device, out->buffer, out->memory, 0));
	if (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
		VK_TRY(env, gpu->vk.vkMapMemory(gpu->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped));
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
		VK_TRY(env, gpu->vk.vkCreateBufferView(gpu->device, &view_info, NULL, &out->texels));
	}
cleanup:
	if (res != VKCOL_SUCCESS)
		gpu_buffer_destroy(gpu, out);
	return res;
}

vkcol_result gpu_buffer_create_filled(gpu_device *gpu, const void *data, VkDeviceSize size, VkBufferUsageFlags usage,
                                      const char *name, gpu_buffer *out)
{
	vkcol_result res = VKCOL_SUCCESS;
	TRY(gpu_buffer_create(gpu, size, usage, GPU_MEMORY_DEVICE, name, out));
	TRY(gpu_upload(gpu, out, 0, data, size));
cleanup:
	if (res != VKCOL_SUCCESS)
		gpu_buffer_destroy(gpu, out);
	return res;
}

void gpu_buffer_destroy(gpu_device *gpu, gpu_buffer *buffer)
{
	if (!buffer)
		return;
	if (buffer->texels)
		gpu->vk.vkDestroyBufferView(gpu->device, buffer->texels, NULL);
	if (buffer->buffer)
		gpu->vk.vkDestroyBuffer(gpu->device, buffer->buffer, NULL);
	if (buffer->memory) {
		gpu->vk.vkFreeMemory(gpu->device, buffer->memory, NULL); // unmaps implicitly
		gpu_memory_count(gpu, 0, buffer->allocated);
	}
	memset(buffer, 0, sizeof(*buffer));
}

VkDeviceSize gpu_texel_binding_max(const gpu_device *gpu)
{
	VkDeviceSize by_range = gpu->props.limits.maxStorageBufferRange / 16 * 16;
	VkDeviceSize by_texels = (VkDeviceSize)gpu->props.limits.maxTexelBufferElements * 16;
	return by_range < by_texels ? by_range : by_texels;
}

void gpu_memory_count(gpu_device *gpu, VkDeviceSize allocated, VkDeviceSize freed)
{
	gpu->memory_bytes += allocated;
	gpu->memory_bytes -= freed <= gpu->memory_bytes ? freed : gpu->memory_bytes;
	if (gpu->memory_bytes > gpu->memory_peak)
		gpu->memory_peak = gpu->memory_bytes;
}

vkcol_result gpu_scratch_get(gpu_device *gpu, uint32_t slot, VkDeviceSize size, VkBufferUsageFlags usage,
                             gpu_memory_kind kind, const char *name, gpu_buffer **out)
{
	*out = NULL;
	if (slot >= GPU_SCRATCH_SLOTS)
		return VKCOL_ERROR_INVALID_ARGUMENT;
	gpu_scratch *s = &gpu->scratch[slot];
	if (!s->buffer.buffer || s->buffer.size != size || s->usage != usage || s->kind != kind) {
		gpu_buffer_destroy(gpu, &s->buffer);
		vkcol_result res = gpu_buffer_create(gpu, size, usage, kind, name, &s->buffer);
		if (res != VKCOL_SUCCESS)
			return res;
		gpu->scratch_created++;
		s->usage = usage;
		s->kind = kind;
	}
	*out = &s->buffer;
	return VKCOL_SUCCESS;
}

vkcol_result gpu_scratch_take(gpu_device *gpu, uint32_t slot, VkDeviceSize size, VkBufferUsageFlags usage,
                              gpu_memory_kind kind, const char *name, gpu_buffer *out)
{
	memset(out, 0, sizeof(*out));
	gpu_buffer *kept;
	vkcol_result res = gpu_scratch_get(gpu, slot, size, usage, kind, name, &kept);
	if (res != VKCOL_SUCCESS)
		return res;
	*out = *kept;
	memset(kept, 0, sizeof(*kept));
	return VKCOL_SUCCESS;
}

void gpu_scratch_give(gpu_device *gpu, uint32_t slot, VkBufferUsageFlags usage, gpu_memory_kind kind,
                      gpu_buffer *buffer)
{
	if (!buffer->buffer)
		return;
	if (slot >= GPU_SCRATCH_SLOTS) {
		gpu_buffer_destroy(gpu, buffer);
		return;
	}
	gpu_scratch *s = &gpu->scratch[slot];
	gpu_buffer_destroy(gpu, &s->buffer);
	s->buffer = *buffer;
	s->usage = usage;
	s->kind = kind;
	memset(buffer, 0, sizeof(*buffer));
}

void gpu_scratch_free_all(gpu_device *gpu)
{
	for (uint32_t i = 0; i < GPU_SCRATCH_SLOTS; i++)
		gpu_buffer_destroy(gpu, &gpu->scratch[i].buffer);
}

vkcol_result gpu_begin_once(gpu_device *gpu, VkCommandBuffer *out)
{
	const core_env *env = gpu->env;
	vkcol_result res = VKCOL_SUCCESS;
	*out = VK_NULL_HANDLE;
	VkCommandBufferAllocateInfo alloc = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	    .commandPool = gpu->command_pool,
	    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	    .commandBufferCount = 1,
	};
	VK_TRY(env, gpu->vk.vkAllocateCommandBuffers(gpu->device, &alloc, out));
	VkCommandBufferBeginInfo begin = {
	    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	VK_TRY(env, gpu->vk.vkBeginCommandBuffer(*out, &begin));
cleanup:
	if (res != VKCOL_SUCCESS && *out) {
		gpu->vk.vkFreeCommandBuffers(gpu->device, gpu->command_pool, 1, out);
		*out = VK_NULL_HANDLE;
	}
	return res;
}

vkcol_result gpu_submit_once(gpu_device *gpu, VkCommandBuffer cmd)
{
	const core_env *env = gpu->env;
	vkcol_result res = VKCOL_SUCCESS;
	VK_TRY(env, gpu->vk.vkEndCommandBuffer(cmd));
	VkSubmitInfo submit = {
	    .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
	    .commandBufferCount = 1,
	    .pCommandBuffers = &cmd,
	};
	VK_TRY(env, gpu->vk.vkResetFences(gpu->device, 1, &gpu->fence));
	VK_TRY(env, gpu->vk.vkQueueSubmit(gpu->queue, 1, &submit, gpu->fence));
	VK_TRY(env, gpu->vk.vkWaitForFences(gpu->device, 1, &gpu->fence, VK_TRUE, UINT64_MAX));
cleanup:
	gpu->vk.vkFreeCommandBuffers(gpu->device, gpu->command_pool, 1, &cmd);
	return res;
}

void gpu_barrier(gpu_device *gpu, VkCommandBuffer cmd, VkPipelineStageFlags2 src_stages, VkAccessFlags2 src_access,
                 VkPipelineStageFlags2 dst_stages, VkAccessFlags2 dst_access)
{
	if (gpu->barrier2) {
		VkMemoryBarrier2 barrier = {
		    .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
		    .srcStageMask = src_stages,
		    .srcAccessMask = src_access,
		    .dstStageMask = dst_stages,
		    .dstAccessMask = dst_access,
		};
		VkDependencyInfo dependency = {
		    .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
		    .memoryBarrierCount = 1,
		    .pMemoryBarriers = &barrier,
		};
		gpu->barrier2(cmd, &dependency);
		return;
	}
	// The legacy stage and access bits have the same values in both APIs.
	VkMemoryBarrier barrier = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
	    .srcAccessMask = (VkAccessFlags)src_access,
	    .dstAccessMask = (VkAccessFlags)dst_access,
	};
	gpu->vk.vkCmdPipelineBarrier(cmd, (VkPipelineStageFlags)src_stages, (VkPipelineStageFlags)dst_stages, 0, 1, &barrier,
	                             0, NULL, 0, NULL);
}

void gpu_barrier_all(gpu_device *gpu, VkCommandBuffer cmd)
{
	gpu_barrier(gpu, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
	            VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
	            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT |
	                VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
	            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
	                VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
}

// Largest staging chunk: bounds host-visible memory for uploads of any size.
#define STAGING_CHUNK ((VkDeviceSize)32 << 20)

vkcol_result gpu_buffer_host_read(gpu_device *gpu, const gpu_buffer *buffer)
{
	const core_env *env = gpu->env;
	vkcol_result res = VKCOL_SUCCESS;
	if (!buffer->coherent) {
		VkMappedMemoryRange range = {
		    .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
		    .memory = buffer->memory,
		    .offset = 0,
		    .size = VK_WHOLE_SIZE,
		};
		VK_TRY(env, gpu->vk.vkInvalidateMappedMemoryRanges(gpu->device, 1, &range));
	}
cleanup:
	return res;
}

// Copies size bytes between host memory and buffer at offset: directly into
// a coherent mapped buffer, else through a staging buffer in chunks of at
// most STAGING_CHUNK, each submitted and waited for: from `from` into the
// buffer when it is not NULL, else from the buffer into `to`.
static vkcol_result staged_copy(gpu_device *gpu, const gpu_buffer *buffer, VkDeviceSize offset, const void *from,
                                void *to, VkDeviceSize size)
{
	bool to_device = from != NULL;
	const core_env *env = gpu->env;
	vkcol_result res = VKCOL_SUCCESS;
	gpu_buffer staging = {0};
	if (offset > buffer->size || size > buffer->size - offset) {
		CORE_ERROR(env, "%s of %llu bytes at %llu overruns a %llu-byte buffer", to_device ? "upload" : "readback",
		           (unsigned long long)size, (unsigned long long)offset, (unsigned long long)buffer->size);
		return VKCOL_ERROR_INVALID_ARGUMENT;
	}
	if (size == 0)
		return VKCOL_SUCCESS;
	if (to_device && buffer->mapped && buffer->coherent) {
		memcpy((char *)buffer->mapped + offset, from, size);
		return VKCOL_SUCCESS;
	}
	VkDeviceSize chunk = size < STAGING_CHUNK ? size : STAGING_CHUNK;
	TRY(gpu_buffer_create(gpu, chunk, 0, to_device ? GPU_MEMORY_UPLOAD : GPU_MEMORY_READBACK,
	                      to_device ? "staging upload" : "staging readback", &staging));
	for (VkDeviceSize done = 0; done < size; done += chunk) {
		VkDeviceSize n = size - done < chunk ? size - done : chunk;
		if (to_device)
			memcpy(staging.mapped, (const char *)from + done, n);
		VkCommandBuffer cmd;
		TRY(gpu_begin_once(gpu, &cmd));
		VkBufferCopy copy = {.srcOffset = to_device ? 0 : offset + done, .dstOffset = to_device ? offset + done : 0,
		                     .size = n};
		gpu->vk.vkCmdCopyBuffer(cmd, to_device ? staging.buffer : buffer->buffer,
		                        to_device ? buffer->buffer : staging.buffer, 1, &copy);
		if (!to_device)
			gpu_barrier_all(gpu, cmd);
		TRY(gpu_submit_once(gpu, cmd));
		if (!to_device) {
			TRY(gpu_buffer_host_read(gpu, &staging));
			memcpy((char *)to + done, staging.mapped, n);
		}
	}
cleanup:
	gpu_buffer_destroy(gpu, &staging);
	return res;
}

vkcol_result gpu_upload(gpu_device *gpu, gpu_buffer *dst, VkDeviceSize offset, const void *data, VkDeviceSize size)
{
	return staged_copy(gpu, dst, offset, data, NULL, size);
}

vkcol_result gpu_readback(gpu_device *gpu, const gpu_buffer *src, VkDeviceSize offset, void *data, VkDeviceSize size)
{
	return staged_copy(gpu, src, offset, NULL, data, size);
}
