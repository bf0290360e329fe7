// SPDX-License-Identifier: MIT
// Distance cube maps on the device, after Intel's patent US 7,928,993
// ("Real-time multi-resolution 3D collision detection using cube-maps"): per
// mesh, a cube image whose texel in direction d holds the distance from an
// interior origin to the surface along d; mip levels give the
// multi-resolution test. Two channels, the nearest (R) and the farthest (G)
// hit, so that a mesh that is not star-shaped from its origin is still
// bounded conservatively by G and R. The rays are cast by
// shaders/cubemap_build.comp (Möller and Trumbore's ray/triangle test).
#include "mesh/cubemap.h"

#include <math.h>
#include <string.h>

#include "geometry/cone_bound.h"
#include "gpu/device.h"
#include "gpu/pipeline.h"

vkcol_result cubemap_check_support(gpu_device *gpu, cubemap_sampler *sampler)
{
	const core_env *env = gpu->env;
	vkcol_result res = VKCOL_SUCCESS;
	if (sampler->checked)
		return VKCOL_SUCCESS;
	VkFormatProperties fp;
	gpu->vki.vkGetPhysicalDeviceFormatProperties(gpu->physical_device, CUBEMAP_FORMAT, &fp);
	VkFormatFeatureFlags need = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
	                            VK_FORMAT_FEATURE_TRANSFER_DST_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT;
	if ((fp.optimalTilingFeatures & need) != need) {
		CORE_ERROR(env, "the device cannot linearly filter R32G32_SFLOAT images, which distance cube maps need");
		return VKCOL_ERROR_UNSUPPORTED;
	}
	VkPhysicalDeviceFeatures features;
	gpu->vki.vkGetPhysicalDeviceFeatures(gpu->physical_device, &features);
	if (!features.imageCubeArray) {
		CORE_ERROR(env, "the device lacks the imageCubeArray feature, which batched cube-map tests need");
		return VKCOL_ERROR_UNSUPPORTED;
	}
	VkSamplerCreateInfo info = {
	    .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
	    .magFilter = VK_FILTER_LINEAR,
	    .minFilter = VK_FILTER_LINEAR,
	    // The caller picks the level; no blending between levels.
	    .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
	    .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
	    .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
	    .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
	    .maxLod = VK_LOD_CLAMP_NONE,
	};
	VK_TRY(env, gpu->vk.vkCreateSampler(gpu->device, &info, NULL, &sampler->sampler));
	sampler->checked = true;
cleanup:
	return res;
}

void cubemap_sampler_destroy(gpu_device *gpu, cubemap_sampler *sampler)
{
	if (sampler->sampler)
		gpu->vk.vkDestroySampler(gpu->device, sampler->sampler, NULL);
	memset(sampler, 0, sizeof(*sampler));
}

vkcol_result cubemap_create_image(gpu_device *gpu, uint32_t resolution, uint32_t layers, bool array_view,
                                  VkImage *image, VkDeviceMemory *memory, VkImageView *view, uint64_t *bytes)
{
	const core_env *env = gpu->env;
	vkcol_result res = VKCOL_SUCCESS;
	*image = VK_NULL_HANDLE;
	*memory = VK_NULL_HANDLE;
	*view = VK_NULL_HANDLE;
	VkImageCreateInfo info = {
	    .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
	    .flags = VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT,
	    .imageType = VK_IMAGE_TYPE_2D,
	    .format = CUBEMAP_FORMAT,
	    .extent = {resolution, resolution, 1},
	    .mipLevels = cubemap_level_count(resolution),
	    .arrayLayers = layers,
	    .samples = VK_SAMPLE_COUNT_1_BIT,
	    .tiling = VK_IMAGE_TILING_OPTIMAL,
	    .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
	    .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	    .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	VkImageFormatProperties ifp;
	VkResult vr = gpu->vki.vkGetPhysicalDeviceImageFormatProperties(gpu->physical_device, info.format, info.imageType,
	                                                                 info.tiling, info.usage, info.flags, &ifp);
	if (vr != VK_SUCCESS || ifp.maxExtent.width < resolution || ifp.maxArrayLayers < layers) {
		CORE_ERROR(env, "the device cannot hold a %ux%u cube map image with %u layers (limits %ux%u, %u layers)",
		           resolution, resolution, layers, vr == VK_SUCCESS ? ifp.maxExtent.width : 0,
		           vr == VK_SUCCESS ? ifp.maxExtent.height : 0, vr == VK_SUCCESS ? ifp.maxArrayLayers : 0);
		return VKCOL_ERROR_TOO_LARGE;
	}
	VK_TRY(env, gpu->vk.vkCreateImage(gpu->device, &info, NULL, image));
	VkMemoryRequirements req;
	gpu->vk.vkGetImageMemoryRequirements(gpu->device, *image, &req);
	VkMemoryAllocateInfo alloc = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	    .allocationSize = req.size,
	    .memoryTypeIndex = gpu_find_memory_type(gpu, req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT),
	};
	if (alloc.memoryTypeIndex == UINT32_MAX) {
		res = VKCOL_ERROR_UNSUPPORTED;
		goto cleanup;
	}
	VK_TRY(env, gpu->vk.vkAllocateMemory(gpu->device, &alloc, NULL, memory));
	gpu_memory_count(gpu, req.size, 0);
	VK_TRY(env, gpu->vk.vkBindImageMemory(gpu->device, *image, *memory, 0));
	*bytes = req.size;
	VkImageViewCreateInfo view_info = {
	    .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
	    .image = *image,
	    .viewType = array_view ? VK_IMAGE_VIEW_TYPE_CUBE_ARRAY : VK_IMAGE_VIEW_TYPE_CUBE,
	    .format = CUBEMAP_FORMAT,
	    .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, info.mipLevels, 0, layers},
	};
	VK_TRY(env, gpu->vk.vkCreateImageView(gpu->device, &view_info, NULL, view));
cleanup:
	if (res != VKCOL_SUCCESS)
		cubemap_image_free(gpu, image, memory, view);
	return res;
}

void cubemap_image_free(gpu_device *gpu, VkImage *image, VkDeviceMemory *memory, VkImageView *view)
{
	if (*view)
		gpu->vk.vkDestroyImageView(gpu->device, *view, NULL);
	if (*memory && *image) {
		// The size the allocation was made with (cubemap_image_create).
		VkMemoryRequirements req;
		gpu->vk.vkGetImageMemoryRequirements(gpu->device, *image, &req);
		gpu_memory_count(gpu, 0, req.size);
	}
	if (*image)
		gpu->vk.vkDestroyImage(gpu->device, *image, NULL);
	if (*memory)
		gpu->vk.vkFreeMemory(gpu->device, *memory, NULL);
	*image = VK_NULL_HANDLE;
	*memory = VK_NULL_HANDLE;
	*view = VK_NULL_HANDLE;
}

void cubemap_image_barrier(gpu_device *gpu, VkCommandBuffer cmd, VkImage image, uint32_t levels, uint32_t layers,
                           VkImageLayout from, VkImageLayout to, VkAccessFlags src_access, VkAccessFlags dst_access,
                           VkPipelineStageFlags src_stage, VkPipelineStageFlags dst_stage)
{
	VkImageMemoryBarrier b = {
	    .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
	    .srcAccessMask = src_access,
	    .dstAccessMask = dst_access,
	    .oldLayout = from,
	    .newLayout = to,
	    .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
	    .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
	    .image = image,
	    .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, levels, 0, layers},
	};
	gpu->vk.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &b);
}

// The copies between every level of a map of this resolution and a buffer
// holding them in the layout of geometry/cubemap_cpu.h (texels of 8 bytes).
static void level_copies(uint32_t resolution, uint32_t levels, VkBufferImageCopy regions[16])
{
	for (uint32_t k = 0; k < levels; k++) {
		uint32_t n = resolution >> k;
		regions[k] = (VkBufferImageCopy){
		    .bufferOffset = cubemap_level_offset(resolution, k) * 8,
		    .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, k, 0, 6},
		    .imageExtent = {n, n, 1},
		};
	}
}

static uint32_t groups_for(uint64_t invocations)
{
	return (uint32_t)((invocations + VKCOL_WORKGROUP_SIZE - 1) / VKCOL_WORKGROUP_SIZE);
}

vkcol_result cubemap_build(gpu_device *gpu, pipeline_table *pipelines, cubemap_sampler *sampler, const mesh_cpu *mesh,
                           const gpu_buffer *vertices, const gpu_buffer *triangles, const gpu_buffer *nodes,
                           uint32_t resolution, cubemap *out, float *cone_bounds)
{
	const core_env *env = gpu->env;
	vkcol_result res = VKCOL_SUCCESS;
	gpu_buffer texels = {0};
	float *level0 = NULL;
	gpu_pipeline *build = NULL, *mip = NULL;
	memset(out, 0, sizeof(*out));
	TRY(cubemap_check_support(gpu, sampler));
	TRY(pipeline_get(gpu, pipelines, PIPELINE_CUBEMAP_BUILD, 0, &build));
	TRY(pipeline_get(gpu, pipelines, PIPELINE_CUBEMAP_MIP, 0, &mip));

	uint32_t levels = cubemap_level_count(resolution);
	uint64_t total = cubemap_texel_count(resolution);
	out->resolution = resolution;
	out->levels = levels;
	TRY(cubemap_create_image(gpu, resolution, 6, false, &out->image, &out->memory, &out->view, &out->bytes));
	TRY(gpu_buffer_create(gpu, total * 8, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPU_MEMORY_DEVICE, "cube map texels",
	                      &texels));

	VkDescriptorSet build_set, mip_set;
	gpu_binding build_bindings[VKCOL_CUBEMAP_BINDINGS] = {
	    [VKCOL_CUBEMAP_BINDING_VERTICES] = {vertices, 0, 0},
	    [VKCOL_CUBEMAP_BINDING_TRIANGLES] = {triangles, 0, 0},
	    [VKCOL_CUBEMAP_BINDING_NODES] = {nodes, 0, 0},
	    [VKCOL_CUBEMAP_BINDING_TEXELS] = {&texels, 0, 0},
	};
	TRY(gpu_pipeline_bind(gpu, build, build_bindings, NULL, VK_NULL_HANDLE, &build_set));
	gpu_binding mip_bindings[VKCOL_CUBEMAP_MIP_BINDINGS] = {[VKCOL_CUBEMAP_MIP_BINDING_TEXELS] = {&texels, 0, 0}};
	TRY(gpu_pipeline_bind(gpu, mip, mip_bindings, NULL, VK_NULL_HANDLE, &mip_set));

	VkCommandBuffer cmd;
	TRY(gpu_begin_once(gpu, &cmd));
	vkcol_cubemap_build_params bp = {mesh->origin[0], mesh->origin[1], mesh->origin[2], resolution};
	gpu_pipeline_dispatch(gpu, cmd, build, build_set, &bp, groups_for(6ull * resolution * resolution));
	for (uint32_t k = 1; k < levels; k++) {
		gpu_barrier_all(gpu, cmd);
		uint32_t n = resolution >> k;
		vkcol_cubemap_mip_params mp = {(uint32_t)cubemap_level_offset(resolution, k - 1),
		                               (uint32_t)cubemap_level_offset(resolution, k), n, 0};
		gpu_pipeline_dispatch(gpu, cmd, mip, mip_set, &mp, groups_for(6ull * n * n));
	}
	gpu_barrier_all(gpu, cmd);
	cubemap_image_barrier(gpu, cmd, out->image, levels, 6, VK_IMAGE_LAYOUT_UNDEFINED,
	                      VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
	                      VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
	VkBufferImageCopy regions[16];
	level_copies(resolution, levels, regions);
	gpu->vk.vkCmdCopyBufferToImage(cmd, texels.buffer, out->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, levels,
	                               regions);
	cubemap_image_barrier(gpu, cmd, out->image, levels, 6, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
	                      VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
	                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
	                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT);
	TRY(gpu_submit_once(gpu, cmd));

	// Star-shapedness from level 0: where a ray meets the surface at two
	// distinct distances the origin does not see the whole surface.
	uint64_t n0 = 6ull * resolution * resolution;
	level0 = core_alloc(env, n0 * 8);
	if (!level0) {
		res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		goto cleanup;
	}
	TRY(gpu_readback(gpu, &texels, 0, level0, n0 * 8));
	uint64_t multi = 0;
	double scale = mesh->sphere_radius > 0 ? mesh->sphere_radius : 1.0;
	for (uint64_t t = 0; t < n0; t++)
		multi += level0[2 * t + 1] - level0[2 * t] > 1e-5 * scale;
	out->multi_hit_fraction = (float)((double)multi / (double)n0);
	if (cone_bounds) {
		res = cone_open_bounds_build(env, level0, resolution, mesh->sphere_radius, cone_bounds);
		if (res != VKCOL_SUCCESS)
			goto cleanup;
	}
cleanup:
	core_free(env, level0);
	gpu_buffer_destroy(gpu, &texels);
	if (res != VKCOL_SUCCESS)
		cubemap_destroy(gpu, out);
	return res;
}

void cubemap_destroy(gpu_device *gpu, cubemap *map)
{
	if (!map)
		return;
	cubemap_image_free(gpu, &map->image, &map->memory, &map->view);
	memset(map, 0, sizeof(*map));
}

vkcol_result cubemap_read(gpu_device *gpu, const cubemap *map, float *texels)
{
	vkcol_result res = VKCOL_SUCCESS;
	gpu_buffer staging = {0};
	uint64_t total = cubemap_texel_count(map->resolution);
	TRY(gpu_buffer_create(gpu, total * 8, 0, GPU_MEMORY_DEVICE, "cube map readback", &staging));
	VkCommandBuffer cmd;
	TRY(gpu_begin_once(gpu, &cmd));
	cubemap_image_barrier(gpu, cmd, map->image, map->levels, 6, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
	                      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_SHADER_READ_BIT, VK_ACCESS_TRANSFER_READ_BIT,
	                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
	VkBufferImageCopy regions[16];
	level_copies(map->resolution, map->levels, regions);
	gpu->vk.vkCmdCopyImageToBuffer(cmd, map->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staging.buffer, map->levels,
	                               regions);
	cubemap_image_barrier(gpu, cmd, map->image, map->levels, 6, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
	                      VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_TRANSFER_READ_BIT, VK_ACCESS_SHADER_READ_BIT,
	                      VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
	gpu_barrier_all(gpu, cmd);
	TRY(gpu_submit_once(gpu, cmd));
	TRY(gpu_readback(gpu, &staging, 0, texels, total * 8));
cleanup:
	gpu_buffer_destroy(gpu, &staging);
	return res;
}
