// SPDX-License-Identifier: MIT
// A mesh's distance cube map on the device (Intel, US 7,928,993): built by
// shaders/cubemap_build.comp and cubemap_mip.comp into a cube image, and the
// sampler the batch shaders read the maps with. The texel layout and the
// CPU reference are in geometry/cubemap_cpu.h.
#pragma once

#include "geometry/cubemap_cpu.h"
#include "gpu/memory.h"
#include "pipelines.h"

// A cube image (6 layers, full mip chain) of R32G32_SFLOAT texels:
// R = distance from the mesh origin to the nearest surface hit along the
// texel's direction, G = to the farthest; (0, 0) where the ray hits nothing.
typedef struct cubemap {
	VkImage image;
	VkDeviceMemory memory;
	VkImageView view;       // cube view of all levels
	uint32_t resolution;    // level 0 edge length
	uint32_t levels;        // log2(resolution) + 1
	uint64_t bytes;
	// Fraction of level-0 texels whose ray meets the surface more than once at
	// distinct distances (G - R above a relative 1e-5): 0 for a star-shaped
	// mesh seen from its origin.
	float multi_hit_fraction;
} cubemap;

#define CUBEMAP_FORMAT VK_FORMAT_R32G32_SFLOAT

// The sampler of every map (linear, clamp, nearest mip), created with the
// first check that the device can sample the maps.
typedef struct cubemap_sampler {
	VkSampler sampler;
	bool checked;
} cubemap_sampler;

// Checks once that the device can sample and linearly filter R32G32_SFLOAT
// cube images and cube arrays, and creates the sampler.
vkcol_result cubemap_check_support(gpu_device *gpu, cubemap_sampler *sampler);
// Accepts a zeroed sampler.
void cubemap_sampler_destroy(gpu_device *gpu, cubemap_sampler *sampler);

// Builds mesh's map on the device from its device copies (vkcol_gpu_vertex,
// vkcol_gpu_triangle in tree order, vkcol_gpu_node): one compute pass for
// level 0, one per mip level, a copy into the image, which is left ready for
// sampling; then level 0 is read back to count its multi-hit texels and,
// when cone_bounds is not NULL, to fill in the cone bounds of an open mesh
// (VKCOL_CONE_FLOATS floats, geometry/cone_bound.h's cone_open_bounds_build).
vkcol_result cubemap_build(gpu_device *gpu, pipeline_table *pipelines, cubemap_sampler *sampler, const mesh_cpu *mesh,
                           const gpu_buffer *vertices, const gpu_buffer *triangles, const gpu_buffer *nodes,
                           uint32_t resolution, cubemap *out, float *cone_bounds);
// Accepts a zeroed map.
void cubemap_destroy(gpu_device *gpu, cubemap *map);

// Creates a cube-compatible R32G32 image with `layers` layers (6 per cube,
// full mip chain) and its view: a cube array view when array_view, else a
// cube view (layers must then be 6). *bytes receives the memory size.
vkcol_result cubemap_create_image(gpu_device *gpu, uint32_t resolution, uint32_t layers, bool array_view,
                                  VkImage *image, VkDeviceMemory *memory, VkImageView *view, uint64_t *bytes);

// Destroys what cubemap_create_image created and zeroes the handles;
// accepts zeroed ones.
void cubemap_image_free(gpu_device *gpu, VkImage *image, VkDeviceMemory *memory, VkImageView *view);

// Records a layout transition of all levels and `layers` layers of image.
void cubemap_image_barrier(gpu_device *gpu, VkCommandBuffer cmd, VkImage image, uint32_t levels, uint32_t layers,
                           VkImageLayout from, VkImageLayout to, VkAccessFlags src_access, VkAccessFlags dst_access,
                           VkPipelineStageFlags src_stage, VkPipelineStageFlags dst_stage);

// Reads every level of the image back into texels (2 floats per texel,
// cubemap_texel_count entries, the layout of geometry/cubemap_cpu.h).
vkcol_result cubemap_read(gpu_device *gpu, const cubemap *map, float *texels);
