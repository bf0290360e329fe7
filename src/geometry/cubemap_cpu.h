// SPDX-License-Identifier: MIT
// The distance cube map on the CPU: its texel layout, shared with the device
// build (mesh/cubemap.c) and the shaders, and a double-precision reference
// of the whole map for the tests.
#pragma once

#include "geometry/mesh_cpu.h"

// Mip levels of a map of this resolution (a power of two): log2 + 1.
uint32_t cubemap_level_count(uint32_t resolution);

// Texels (vec2) in levels 0 .. levels-1 of a map of this resolution, and the
// offset of level k in the face-major layout used by the build and readback:
// level k, face f, row j, column i at offset(k) + (f * n_k + j) * n_k + i.
uint64_t cubemap_texel_count(uint32_t resolution);
uint64_t cubemap_level_offset(uint32_t resolution, uint32_t level);

// Direction through the centre of texel (i, j) of face f at resolution n
// (Vulkan's cube conventions, as cube_texel_direction in common.glsl), not
// normalised.
void cubemap_texel_direction(uint32_t face, uint32_t i, uint32_t j, uint32_t n, double out[3]);
// The same direction, normalised.
void cubemap_texel_unit(uint32_t face, uint32_t i, uint32_t j, uint32_t n, double out[3]);

// The map of `mesh` computed on the CPU in double precision (rays cast
// through the tree with every hit, mips by min/max), into texels as above
// (2 floats per texel).
void cubemap_reference(const mesh_cpu *mesh, uint32_t resolution, float *texels);
