// SPDX-License-Identifier: MIT
// Distance cube maps (Intel, US 7,928,993), built on the GPU, with a
// double-precision CPU reference for tests.
#pragma once

#include "mesh.h"
#include "gpu/memory.h"

typedef struct mesh_gpu mesh_gpu;

// A cube image (6 layers, full mip chain) of R32G32_SFLOAT texels:
// R = distance from the mesh origin to the nearest surface hit along the
// texel's direction, G = to the farthest; (0, 0) where the ray hits nothing.
typedef struct cube_map {
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
} cube_map;

#define CUBE_FORMAT VK_FORMAT_R32G32_SFLOAT

// Texels (vec2) in levels 0 .. levels-1 of a map of this resolution, and the
// offset of level k in the face-major layout used by the build and readback:
// level k, face f, row j, column i at offset(k) + (f * n_k + j) * n_k + i.
uint64_t distance_map_texel_count(uint32_t resolution);
uint64_t distance_map_level_offset(uint32_t resolution, uint32_t level);

// Checks once per context that the device can sample and linearly filter
// R32G32_SFLOAT cube images.
vkcol_result distance_map_check_support(vkcol_context *ctx);

// Builds mesh's map on the device (one compute pass for level 0, one per mip
// level, a copy into the image) and leaves the image ready for sampling.
vkcol_result distance_map_build(vkcol_context *ctx, const mesh_cpu *mesh, const mesh_gpu *gpu, uint32_t resolution,
                                cube_map *out);
void distance_map_destroy(vkcol_context *ctx, cube_map *map);

// Creates a cube-compatible R32G32 image with `layers` layers (6 per cube,
// full mip chain) and its view: a cube array view when array_view, else a
// cube view (layers must then be 6). *bytes receives the memory size.
vkcol_result distance_map_create_image(vkcol_context *ctx, uint32_t resolution, uint32_t layers, bool array_view,
                                       VkImage *image,
                                       VkDeviceMemory *memory, VkImageView *view, uint64_t *bytes);

// Records a layout transition of all levels and `layers` layers of image.
void distance_map_image_barrier(vkcol_context *ctx, VkCommandBuffer cmd, VkImage image, uint32_t levels,
                                uint32_t layers, VkImageLayout from, VkImageLayout to, VkAccessFlags src_access,
                                VkAccessFlags dst_access, VkPipelineStageFlags src_stage,
                                VkPipelineStageFlags dst_stage);

// Reads every level of the image back into texels (2 floats per texel,
// distance_map_texel_count entries, layout above).
vkcol_result distance_map_read(vkcol_context *ctx, const cube_map *map, float *texels);

// The same map computed on the CPU in double precision (rays cast through the
// tree with every hit, mips by min/max), into texels as above.
void distance_map_reference(const mesh_cpu *mesh, uint32_t resolution, float *texels);

// Direction through the centre of texel (i, j) of face f at resolution n
// (Vulkan's cube conventions), not normalised.
void distance_map_texel_direction(uint32_t face, uint32_t i, uint32_t j, uint32_t n, double out[3]);
