// SPDX-License-Identifier: MIT
// GPU layer: buffers, staging upload and readback, scratch buffers kept
// between calls, one-shot command buffers and barriers.
#pragma once

#include <volk.h>

#include "core.h"

typedef struct gpu_device gpu_device;

typedef enum gpu_memory_kind {
	GPU_MEMORY_DEVICE,   // device local, filled by gpu_upload or shaders
	GPU_MEMORY_UPLOAD,   // host visible + coherent, only written through .mapped (device
	                     // local where the device maps all its memory: never read it back)
	GPU_MEMORY_READBACK, // host visible, cached when possible, read through .mapped
} gpu_memory_kind;

typedef struct gpu_buffer {
	VkBuffer buffer;
	VkDeviceMemory memory;
	VkDeviceSize size;
	VkDeviceSize allocated; // bytes of memory (its requirements' size)
	void *mapped;          // non-NULL for UPLOAD and READBACK (and host-visible DEVICE)
	bool coherent;
	// With VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT: the whole buffer as
	// RGBA32UI texels (size a multiple of 16, at most maxTexelBufferElements
	// texels).
	VkBufferView texels;
} gpu_buffer;

// A memory type allowed by bits with all of `want` (and, when possible, all of
// `prefer`) property flags; UINT32_MAX if none.
uint32_t gpu_find_memory_type(const gpu_device *gpu, uint32_t bits, VkMemoryPropertyFlags want,
                              VkMemoryPropertyFlags prefer);

// The most bytes a buffer bound both as a storage buffer and as RGBA32UI
// texels may hold: maxStorageBufferRange, and maxTexelBufferElements whole
// texels (lavapipe: 128 MiB for both; NVIDIA: 4 GiB and 2 GiB).
VkDeviceSize gpu_texel_binding_max(const gpu_device *gpu);

// size > 0. usage gets TRANSFER_SRC | TRANSFER_DST added; with
// UNIFORM_TEXEL_BUFFER the buffer gets its texel view. On failure *out is
// zeroed and nothing leaks.
vkcol_result gpu_buffer_create(gpu_device *gpu, VkDeviceSize size, VkBufferUsageFlags usage,
                               gpu_memory_kind kind, const char *name, gpu_buffer *out);
// A device-local buffer of size (> 0) bytes holding data (gpu_upload).
vkcol_result gpu_buffer_create_filled(gpu_device *gpu, const void *data, VkDeviceSize size, VkBufferUsageFlags usage,
                                      const char *name, gpu_buffer *out);
// Accepts a zeroed buffer.
void gpu_buffer_destroy(gpu_device *gpu, gpu_buffer *buffer);

// Keeps gpu->memory_bytes (and its peak) up to date: every allocation of
// device memory adds its size, every free subtracts it.
void gpu_memory_count(gpu_device *gpu, VkDeviceSize allocated, VkDeviceSize freed);

// Buffers a batch needs again the next time (its chunk buffers) stay with the
// device between calls, one per slot: a run of batches then neither
// allocates nor faults in fresh memory (on lavapipe, whose device memory is
// the host's, fresh buffers cost page faults on every batch).
// Approx mode's frames use slots [0, 10), exact mode's buffers [10, 19).
#define GPU_SCRATCH_SLOTS 19

typedef struct gpu_scratch {
	gpu_buffer buffer;
	VkBufferUsageFlags usage;
	gpu_memory_kind kind;
} gpu_scratch;

// The buffer of scratch slot `slot` (< GPU_SCRATCH_SLOTS) with exactly this
// size, usage and kind: the one the slot kept from an earlier call when
// those match, else a new one (the slot's old one freed first). Its contents
// are undefined. The device owns it: gpu_scratch_free_all (at
// gpu_device_destroy) frees it, and so does a later call for the same
// slot with other parameters. The caller must have finished using the
// slot's buffer (no submission in flight reads it).
vkcol_result gpu_scratch_get(gpu_device *gpu, uint32_t slot, VkDeviceSize size, VkBufferUsageFlags usage,
                             gpu_memory_kind kind, const char *name, gpu_buffer **out);
void gpu_scratch_free_all(gpu_device *gpu);
// For a caller that holds its buffers by value: moves slot `slot`'s buffer
// into *out when it has this size, usage and kind (the slot is then empty),
// else creates one (the slot's old one freed first). gpu_scratch_give
// moves it back when the caller is done (the slot's buffer, if any, freed;
// *buffer zeroed; a zeroed *buffer leaves the slot as it is).
vkcol_result gpu_scratch_take(gpu_device *gpu, uint32_t slot, VkDeviceSize size, VkBufferUsageFlags usage,
                              gpu_memory_kind kind, const char *name, gpu_buffer *out);
void gpu_scratch_give(gpu_device *gpu, uint32_t slot, VkBufferUsageFlags usage, gpu_memory_kind kind,
                      gpu_buffer *buffer);

// Makes the device's writes to a host-visible buffer visible through
// .mapped (invalidates its memory unless it is coherent); after the
// submission that wrote it has completed.
vkcol_result gpu_buffer_host_read(gpu_device *gpu, const gpu_buffer *buffer);

// Copies host data into dst at offset (through a staging buffer unless dst is
// mapped) and waits for completion.
vkcol_result gpu_upload(gpu_device *gpu, gpu_buffer *dst, VkDeviceSize offset, const void *data,
                        VkDeviceSize size);
// Copies size bytes from src at offset to host memory and waits.
vkcol_result gpu_readback(gpu_device *gpu, const gpu_buffer *src, VkDeviceSize offset, void *data,
                          VkDeviceSize size);

// A primary command buffer from the device's pool, begun for one submission.
vkcol_result gpu_begin_once(gpu_device *gpu, VkCommandBuffer *out);
// Ends, submits, waits on the device's fence and frees cmd (also on failure).
vkcol_result gpu_submit_once(gpu_device *gpu, VkCommandBuffer cmd);

// A global memory barrier from src_stages' src_access to dst_stages'
// dst_access: vkCmdPipelineBarrier2 when the device has synchronization2
// enabled, else vkCmdPipelineBarrier, which takes only the bits below 2^32
// (the legacy bits, the same values in both).
void gpu_barrier(gpu_device *gpu, VkCommandBuffer cmd, VkPipelineStageFlags2 src_stages, VkAccessFlags2 src_access,
                 VkPipelineStageFlags2 dst_stages, VkAccessFlags2 dst_access);

// A barrier making compute/transfer writes visible to later compute/transfer
// reads, indirect dispatches and host reads.
void gpu_barrier_all(gpu_device *gpu, VkCommandBuffer cmd);
