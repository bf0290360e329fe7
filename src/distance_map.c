// SPDX-License-Identifier: MIT
// Distance cube maps after Intel's patent US 7,928,993 ("Real-time
// multi-resolution 3D collision detection using cube-maps"): per mesh, a cube
// image whose texel in direction d holds the distance from an interior origin
// to the surface along d; mip levels give the multi-resolution test. We store
// two channels, the nearest (R) and the farthest (G) hit, so a mesh that is
// not star-shaped from its origin is still bounded conservatively by G and R.
// Ray/triangle intersection: Möller & Trumbore, "Fast, minimum storage
// ray-triangle intersection", J. Graphics Tools 2(1), 1997.
#include "distance_map.h"

#include <math.h>
#include <string.h>

#include "context.h"
#include "pipelines.h"

uint64_t distance_map_level_offset(uint32_t resolution, uint32_t level)
{
	uint64_t offset = 0;
	for (uint32_t k = 0, n = resolution; k < level && n > 0; k++, n /= 2)
		offset += 6ull * n * n;
	return offset;
}

static uint32_t level_count(uint32_t resolution)
{
	uint32_t levels = 1;
	while ((resolution >> (levels - 1)) > 1)
		levels++;
	return levels;
}

uint64_t distance_map_texel_count(uint32_t resolution)
{
	return distance_map_level_offset(resolution, level_count(resolution));
}

void distance_map_texel_direction(uint32_t face, uint32_t i, uint32_t j, uint32_t n, double out[3])
{
	// Inverse of the face selection of the Vulkan specification ("Cube Map
	// Face Selection and Transformations"); must match common.glsl.
	double sc = 2.0 * (i + 0.5) / n - 1.0;
	double tc = 2.0 * (j + 0.5) / n - 1.0;
	const double dirs[6][3] = {
	    {1.0, -tc, -sc}, {-1.0, -tc, sc}, {sc, 1.0, tc}, {sc, -1.0, -tc}, {sc, -tc, 1.0}, {-sc, -tc, -1.0},
	};
	memcpy(out, dirs[face], sizeof(dirs[face]));
}

vkcol_result distance_map_check_support(vkcol_context *ctx)
{
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	if (ctx->cube_support_checked)
		return VKCOL_SUCCESS;
	VkFormatProperties fp;
	ctx->gpu.vki.vkGetPhysicalDeviceFormatProperties(ctx->gpu.physical_device, CUBE_FORMAT, &fp);
	VkFormatFeatureFlags need = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
	                            VK_FORMAT_FEATURE_TRANSFER_DST_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT;
	if ((fp.optimalTilingFeatures & need) != need) {
		CORE_ERROR(env, "the device cannot linearly filter R32G32_SFLOAT images, which distance cube maps need");
		return VKCOL_ERROR_UNSUPPORTED;
	}
	VkPhysicalDeviceFeatures features;
	ctx->gpu.vki.vkGetPhysicalDeviceFeatures(ctx->gpu.physical_device, &features);
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
	VK_TRY(env, ctx->gpu.vk.vkCreateSampler(ctx->gpu.device, &info, NULL, &ctx->cube_sampler));
	ctx->cube_support_checked = true;
cleanup:
	return res;
}

vkcol_result distance_map_create_image(vkcol_context *ctx, uint32_t resolution, uint32_t layers, bool array_view,
                                       VkImage *image,
                                       VkDeviceMemory *memory, VkImageView *view, uint64_t *bytes)
{
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	*image = VK_NULL_HANDLE;
	*memory = VK_NULL_HANDLE;
	*view = VK_NULL_HANDLE;
	VkImageCreateInfo info = {
	    .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
	    .flags = VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT,
	    .imageType = VK_IMAGE_TYPE_2D,
	    .format = CUBE_FORMAT,
	    .extent = {resolution, resolution, 1},
	    .mipLevels = level_count(resolution),
	    .arrayLayers = layers,
	    .samples = VK_SAMPLE_COUNT_1_BIT,
	    .tiling = VK_IMAGE_TILING_OPTIMAL,
	    .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
	    .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	    .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	VkImageFormatProperties ifp;
	VkResult vr = ctx->gpu.vki.vkGetPhysicalDeviceImageFormatProperties(ctx->gpu.physical_device, info.format, info.imageType,
	                                                                 info.tiling, info.usage, info.flags, &ifp);
	if (vr != VK_SUCCESS || ifp.maxExtent.width < resolution || ifp.maxArrayLayers < layers) {
		CORE_ERROR(env, "the device cannot hold a %ux%u cube map image with %u layers (limits %ux%u, %u layers)",
		           resolution, resolution, layers, vr == VK_SUCCESS ? ifp.maxExtent.width : 0,
		           vr == VK_SUCCESS ? ifp.maxExtent.height : 0, vr == VK_SUCCESS ? ifp.maxArrayLayers : 0);
		return VKCOL_ERROR_TOO_LARGE;
	}
	VK_TRY(env, ctx->gpu.vk.vkCreateImage(ctx->gpu.device, &info, NULL, image));
	VkMemoryRequirements req;
	ctx->gpu.vk.vkGetImageMemoryRequirements(ctx->gpu.device, *image, &req);
	VkMemoryAllocateInfo alloc = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	    .allocationSize = req.size,
	    .memoryTypeIndex = gpu_find_memory_type(&ctx->gpu, req.memoryTypeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT),
	};
	if (alloc.memoryTypeIndex == UINT32_MAX) {
		res = VKCOL_ERROR_UNSUPPORTED;
		goto cleanup;
	}
	VK_TRY(env, ctx->gpu.vk.vkAllocateMemory(ctx->gpu.device, &alloc, NULL, memory));
	VK_TRY(env, ctx->gpu.vk.vkBindImageMemory(ctx->gpu.device, *image, *memory, 0));
	*bytes = req.size;
	VkImageViewCreateInfo view_info = {
	    .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
	    .image = *image,
	    .viewType = array_view ? VK_IMAGE_VIEW_TYPE_CUBE_ARRAY : VK_IMAGE_VIEW_TYPE_CUBE,
	    .format = CUBE_FORMAT,
	    .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, info.mipLevels, 0, layers},
	};
	VK_TRY(env, ctx->gpu.vk.vkCreateImageView(ctx->gpu.device, &view_info, NULL, view));
cleanup:
	if (res != VKCOL_SUCCESS) {
		if (*view)
			ctx->gpu.vk.vkDestroyImageView(ctx->gpu.device, *view, NULL);
		if (*image)
			ctx->gpu.vk.vkDestroyImage(ctx->gpu.device, *image, NULL);
		if (*memory)
			ctx->gpu.vk.vkFreeMemory(ctx->gpu.device, *memory, NULL);
		*image = VK_NULL_HANDLE;
		*memory = VK_NULL_HANDLE;
		*view = VK_NULL_HANDLE;
	}
	return res;
}

void distance_map_image_barrier(vkcol_context *ctx, VkCommandBuffer cmd, VkImage image, uint32_t levels, uint32_t layers,
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
	ctx->gpu.vk.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &b);
}

static uint32_t groups_for(uint64_t invocations)
{
	return (uint32_t)((invocations + VKCOL_WORKGROUP_SIZE - 1) / VKCOL_WORKGROUP_SIZE);
}

vkcol_result distance_map_build(vkcol_context *ctx, const mesh_cpu *mesh, const mesh_gpu *gpu, uint32_t resolution,
                                cube_map *out)
{
	const core_env *env = &ctx->env;
	vkcol_result res = VKCOL_SUCCESS;
	gpu_buffer texels = {0};
	float *level0 = NULL;
	gpu_pipeline *build = NULL, *mip = NULL;
	memset(out, 0, sizeof(*out));
	TRY(distance_map_check_support(ctx));
	TRY(pipeline_get(&ctx->gpu, &ctx->pipelines, PIPELINE_CUBEMAP_BUILD, 0, &build));
	TRY(pipeline_get(&ctx->gpu, &ctx->pipelines, PIPELINE_CUBEMAP_MIP, 0, &mip));

	uint32_t levels = level_count(resolution);
	uint64_t total = distance_map_texel_count(resolution);
	out->resolution = resolution;
	out->levels = levels;
	TRY(distance_map_create_image(ctx, resolution, 6, false, &out->image, &out->memory, &out->view, &out->bytes));
	TRY(gpu_buffer_create(&ctx->gpu, total * 8, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPU_MEMORY_DEVICE, "cube map texels",
	                      &texels));

	VkDescriptorSet build_set, mip_set;
	gpu_binding build_bindings[4] = {{&gpu->vertices, 0, 0}, {&gpu->triangles, 0, 0}, {&gpu->nodes, 0, 0}, {&texels, 0, 0}};
	TRY(gpu_pipeline_bind(&ctx->gpu, build, build_bindings, NULL, VK_NULL_HANDLE, &build_set));
	gpu_binding mip_bindings[1] = {{&texels, 0, 0}};
	TRY(gpu_pipeline_bind(&ctx->gpu, mip, mip_bindings, NULL, VK_NULL_HANDLE, &mip_set));

	VkCommandBuffer cmd;
	TRY(gpu_begin_once(&ctx->gpu, &cmd));
	vkcol_cubemap_build_params bp = {mesh->origin[0], mesh->origin[1], mesh->origin[2], resolution};
	gpu_pipeline_dispatch(&ctx->gpu, cmd, build, build_set, &bp, groups_for(6ull * resolution * resolution));
	for (uint32_t k = 1; k < levels; k++) {
		gpu_barrier_all(&ctx->gpu, cmd);
		uint32_t n = resolution >> k;
		vkcol_cubemap_mip_params mp = {(uint32_t)distance_map_level_offset(resolution, k - 1),
		                               (uint32_t)distance_map_level_offset(resolution, k), n, 0};
		gpu_pipeline_dispatch(&ctx->gpu, cmd, mip, mip_set, &mp, groups_for(6ull * n * n));
	}
	gpu_barrier_all(&ctx->gpu, cmd);
	distance_map_image_barrier(ctx, cmd, out->image, levels, 6, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
	              VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
	VkBufferImageCopy regions[16];
	for (uint32_t k = 0; k < levels; k++) {
		uint32_t n = resolution >> k;
		regions[k] = (VkBufferImageCopy){
		    .bufferOffset = distance_map_level_offset(resolution, k) * 8,
		    .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, k, 0, 6},
		    .imageExtent = {n, n, 1},
		};
	}
	ctx->gpu.vk.vkCmdCopyBufferToImage(cmd, texels.buffer, out->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, levels, regions);
	distance_map_image_barrier(ctx, cmd, out->image, levels, 6, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
	              VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
	              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
	              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT);
	TRY(gpu_submit_once(&ctx->gpu, cmd));

	// Star-shapedness from level 0: where a ray meets the surface at two
	// distinct distances the origin does not see the whole surface.
	uint64_t n0 = 6ull * resolution * resolution;
	level0 = core_alloc(env, n0 * 8);
	if (!level0) {
		res = VKCOL_ERROR_OUT_OF_HOST_MEMORY;
		goto cleanup;
	}
	TRY(gpu_readback(&ctx->gpu, &texels, 0, level0, n0 * 8));
	uint64_t multi = 0;
	double scale = mesh->sphere_radius > 0 ? mesh->sphere_radius : 1.0;
	for (uint64_t t = 0; t < n0; t++)
		multi += level0[2 * t + 1] - level0[2 * t] > 1e-5 * scale;
	out->multi_hit_fraction = (float)((double)multi / (double)n0);
cleanup:
	core_free(env, level0);
	gpu_buffer_destroy(&ctx->gpu, &texels);
	if (res != VKCOL_SUCCESS)
		distance_map_destroy(ctx, out);
	return res;
}

void distance_map_destroy(vkcol_context *ctx, cube_map *map)
{
	if (!map)
		return;
	if (map->view)
		ctx->gpu.vk.vkDestroyImageView(ctx->gpu.device, map->view, NULL);
	if (map->image)
		ctx->gpu.vk.vkDestroyImage(ctx->gpu.device, map->image, NULL);
	if (map->memory)
		ctx->gpu.vk.vkFreeMemory(ctx->gpu.device, map->memory, NULL);
	memset(map, 0, sizeof(*map));
}

vkcol_result distance_map_read(vkcol_context *ctx, const cube_map *map, float *texels)
{
	vkcol_result res = VKCOL_SUCCESS;
	gpu_buffer staging = {0};
	uint64_t total = distance_map_texel_count(map->resolution);
	TRY(gpu_buffer_create(&ctx->gpu, total * 8, 0, GPU_MEMORY_DEVICE, "cube map readback", &staging));
	VkCommandBuffer cmd;
	TRY(gpu_begin_once(&ctx->gpu, &cmd));
	distance_map_image_barrier(ctx, cmd, map->image, map->levels, 6, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
	              VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_SHADER_READ_BIT, VK_ACCESS_TRANSFER_READ_BIT,
	              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
	VkBufferImageCopy regions[16];
	for (uint32_t k = 0; k < map->levels; k++) {
		uint32_t n = map->resolution >> k;
		regions[k] = (VkBufferImageCopy){
		    .bufferOffset = distance_map_level_offset(map->resolution, k) * 8,
		    .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, k, 0, 6},
		    .imageExtent = {n, n, 1},
		};
	}
	ctx->gpu.vk.vkCmdCopyImageToBuffer(cmd, map->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staging.buffer, map->levels,
	                               regions);
	distance_map_image_barrier(ctx, cmd, map->image, map->levels, 6, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
	              VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_TRANSFER_READ_BIT, VK_ACCESS_SHADER_READ_BIT,
	              VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
	gpu_barrier_all(&ctx->gpu, cmd);
	TRY(gpu_submit_once(&ctx->gpu, cmd));
	TRY(gpu_readback(&ctx->gpu, &staging, 0, texels, total * 8));
cleanup:
	gpu_buffer_destroy(&ctx->gpu, &staging);
	return res;
}

// --- CPU reference -----------------------------------------------------------

static void vertex_d(const mesh_cpu *m, uint32_t v, double out[3])
{
	for (int k = 0; k < 3; k++)
		out[k] = m->positions[3 * v + k];
}

// Nearest and farthest hit of the ray o + t d, t > 0, with the closed
// triangles of the mesh; returns false when it hits nothing.
static bool cast_all(const mesh_cpu *m, const double o[3], const double d[3], double *nearest, double *farthest)
{
	const aabb_tree *tree = &m->tree;
	uint32_t stack[128];
	uint32_t top = 0;
	stack[top++] = 0;
	double lo_t = INFINITY, hi_t = -1.0;
	while (top > 0) {
		const vkcol_gpu_node *n = &tree->nodes[stack[--top]];
		double bmin[3] = {n->min_x, n->min_y, n->min_z}, bmax[3] = {n->max_x, n->max_y, n->max_z};
		double t_enter = 0.0, t_exit = INFINITY;
		for (int k = 0; k < 3; k++) {
			if (d[k] == 0.0) {
				if (o[k] < bmin[k] || o[k] > bmax[k])
					t_enter = INFINITY;
				continue;
			}
			double t0 = (bmin[k] - o[k]) / d[k], t1 = (bmax[k] - o[k]) / d[k];
			if (t0 > t1) {
				double s = t0;
				t0 = t1;
				t1 = s;
			}
			t_enter = t0 > t_enter ? t0 : t_enter;
			t_exit = t1 < t_exit ? t1 : t_exit;
		}
		if (t_enter > t_exit * (1.0 + 1e-12) + 1e-12)
			continue;
		if (n->count == 0) {
			stack[top++] = n->first;
			stack[top++] = n->first + 1;
			continue;
		}
		for (uint32_t k = n->first; k < n->first + n->count; k++) {
			const uint32_t *tri = &m->indices[3 * tree->triangles[k]];
			double a[3], b[3], c[3];
			vertex_d(m, tri[0], a);
			vertex_d(m, tri[1], b);
			vertex_d(m, tri[2], c);
			double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
			double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
			double p[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
			double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
			if (fabs(det) < 1e-300)
				continue;
			double s[3] = {o[0] - a[0], o[1] - a[1], o[2] - a[2]};
			double u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) / det;
			double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
			double v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / det;
			// Closed triangles, with slack far below float resolution so a ray
			// through a shared edge hits it.
			const double eps = 1e-12;
			if (u < -eps || v < -eps || u + v > 1.0 + eps)
				continue;
			double t = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
			if (t <= 0.0)
				continue;
			lo_t = t < lo_t ? t : lo_t;
			hi_t = t > hi_t ? t : hi_t;
		}
	}
	*nearest = lo_t;
	*farthest = hi_t;
	return hi_t >= 0.0;
}

void distance_map_reference(const mesh_cpu *mesh, uint32_t resolution, float *texels)
{
	double o[3] = {mesh->origin[0], mesh->origin[1], mesh->origin[2]};
	uint32_t n = resolution;
	for (uint32_t f = 0; f < 6; f++)
		for (uint32_t j = 0; j < n; j++)
			for (uint32_t i = 0; i < n; i++) {
				double d[3];
				distance_map_texel_direction(f, i, j, n, d);
				double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
				for (int k = 0; k < 3; k++)
					d[k] /= len;
				double lo, hi;
				float *t = &texels[2 * ((size_t)(f * n + j) * n + i)];
				if (cast_all(mesh, o, d, &lo, &hi)) {
					t[0] = (float)lo;
					t[1] = (float)hi;
				} else {
					t[0] = t[1] = 0.0f;
				}
			}
	uint32_t levels = level_count(resolution);
	for (uint32_t k = 1; k < levels; k++) {
		uint32_t dn = resolution >> k, sn = dn * 2;
		const float *src = &texels[2 * distance_map_level_offset(resolution, k - 1)];
		float *dst = &texels[2 * distance_map_level_offset(resolution, k)];
		for (uint32_t f = 0; f < 6; f++)
			for (uint32_t j = 0; j < dn; j++)
				for (uint32_t i = 0; i < dn; i++) {
					const float *c[4] = {
					    &src[2 * ((size_t)(f * sn + 2 * j) * sn + 2 * i)],
					    &src[2 * ((size_t)(f * sn + 2 * j) * sn + 2 * i + 1)],
					    &src[2 * ((size_t)(f * sn + 2 * j + 1) * sn + 2 * i)],
					    &src[2 * ((size_t)(f * sn + 2 * j + 1) * sn + 2 * i + 1)],
					};
					float lo = c[0][0], hi = c[0][1];
					for (int q = 1; q < 4; q++) {
						lo = c[q][0] < lo ? c[q][0] : lo;
						hi = c[q][1] > hi ? c[q][1] : hi;
					}
					float *t = &dst[2 * ((size_t)(f * dn + j) * dn + i)];
					t[0] = lo;
					t[1] = hi;
				}
	}
}
